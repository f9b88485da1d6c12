package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/irq"
)

// The totals table counts PDH Interrupts/sec as interrupts, as the plot
// does: its "all interrupts" row is that counter, not the DPCs.
func TestPrintIRQTotalPDHInterrupts(t *testing.T) {
	iv := &irq.Interval{StartNs: 0, EndNs: 2e9, CPUs: []int{0, 1}, Rows: []irq.Row{
		{Source: "pdh", Name: "Interrupts/sec", Label: "interrupts", Unit: irq.UnitCount, PerCPU: irq.Values{500, 600}, Total: 1100},
		{Source: "pdh", Name: "DPCs Queued/sec", Label: "DPCs queued", Unit: irq.UnitCount, Role: irq.RoleDPC, PerCPU: irq.Values{70, 80}, Total: 150}}}
	var b bytes.Buffer
	PrintIRQTotal(&b, iv, false)
	var all string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "all interrupts") {
			all = l
		}
	}
	if f := strings.Fields(all); len(f) != 6 || f[2] != "500" || f[3] != "600" || f[4] != "1100" || f[5] != "550" {
		t.Fatalf("all interrupts row %q in:\n%s", all, b.String())
	}
}

func TestIRQPlotGroups(t *testing.T) {
	iv := &irq.Interval{StartNs: 0, EndNs: 2e9, CPUs: []int{0, 1}, Rows: []irq.Row{
		{Source: "pdh", Name: "Interrupts/sec", Unit: irq.UnitCount, PerCPU: irq.Values{500, 600}, Total: 1100},
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: irq.UnitCount, Role: irq.RoleDPC, PerCPU: irq.Values{70, 80}, Total: 150}}}
	b, err := irqPlot(iv, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "DPCs queued", "all interrupts", "per-CPU activity over 2s"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plot lacks %q", want)
		}
	}
}

func TestPrintNetInfoShowsChip(t *testing.T) {
	n := &irq.NetInfo{Interfaces: []irq.Iface{{Name: "eth0", Driver: "virtio_net", Device: "virtio2", RxQueues: 1, TxQueues: 1,
		IRQs: []irq.IRQInfo{{IRQ: 38, Actions: []string{"virtio2-input.0"}, Chip: "PCI-MSIX-0000:00:03.0 1-edge", Affinity: []int{0, 1}, Effective: []int{1}}}}}}
	var b bytes.Buffer
	PrintNetInfo(&b, n)
	if want := "IRQ 38 virtio2-input.0 (PCI-MSIX-0000:00:03.0 1-edge): allowed CPUs 0-1, delivered to CPU 1"; !strings.Contains(b.String(), want) {
		t.Fatalf("missing %q in:\n%s", want, b.String())
	}
}
