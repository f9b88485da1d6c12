package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/dpcwatch/dpcwatchtest"
	"github.com/sebdah/goldie/v2"
)

func TestPrintDPCWatch(t *testing.T) {
	var b bytes.Buffer
	DPCWatch(&b, dpcwatchtest.WindowsResult(), "w.json")
	out := b.String()
	for _, want := range []string{
		"latlab dpc watch: 0.5 s, 801 DPCs and 400 ISRs\n",
		`session "latlab dpc watch"; 3 modules known`,
		"DPC by longest execution:",
		"ndis.sys", "2500 µs", "0.450 s",
		"verdict: likely drop-outs: ndis.sys ran a DPC for 2500 µs, 500 µs above 2 ms",
		"histograms in xperf's buckets: latlab dpcisr w.json",
		"\nDPC by longest execution:\n module ", // Windows names the driver module
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
}

// linuxWatchResult is a finished watch of a Linux trace: NET_RX and TIMER
// softirqs, a NIC queue's interrupt line and the local timer vector.
func linuxWatchResult() *dpcwatch.Result {
	r := dpcwatch.NewLinuxRecorder(0)
	add := func(sec int, name, label string, endUs, dUs int64) {
		r.AddNamed(sec, name, dpcwatch.Exec{CPU: uint16(endUs % 2), Start: (endUs - dUs) * 1000, End: endUs * 1000, Label: label})
	}
	for i := int64(1); i <= 300; i++ {
		add(dpcwatch.Deferred, "NET_RX", "vec 3", i*1000, 3+i%5)
		add(dpcwatch.Deferred, "TIMER", "vec 1", i*1000+300, 1)
		add(dpcwatch.Interrupt, "virtio0-input.0 (IRQ 24)", "irq 24", i*1000+600, 2)
		add(dpcwatch.Interrupt, "LOC (local_timer)", "vector 236", i*1000+800, 1)
	}
	add(dpcwatch.Deferred, "NET_RX", "vec 3", 350_000, 1200)
	now := int64(400_000 * 1000)
	return &dpcwatch.Result{Session: "latlab-dpcwatch", Report: r.Report(now), Summary: r.Summary(now)}
}

// On Linux the tables name their rows as Linux does: softirq vectors
// and interrupt handlers, not Windows's driver modules.
func TestPrintDPCWatchLinux(t *testing.T) {
	var b bytes.Buffer
	DPCWatch(&b, linuxWatchResult(), "w.json")
	out := b.String()
	goldie.New(t).Assert(t, "dpc-watch-linux", b.Bytes())
	for _, want := range []string{"\nsoftirq by longest execution:\n softirq ", "\nhardirq by longest execution:\n handler "} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "module") {
		t.Errorf("a Linux watch speaks of modules:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
}

func TestDPCWatchLine(t *testing.T) {
	top := func(m string, us float64) *dpcwatch.Top { return &dpcwatch.Top{Module: m, MaxUs: us, SumUs: us} }
	tests := []struct {
		name string
		iv   dpcwatch.Interval
		want string
	}{
		{"quiet second", dpcwatch.Interval{ToS: 1}, "[    1s] DPC 0 | ISR 0"},
		{"one module", dpcwatch.Interval{ToS: 2, DPC: dpcwatch.SectionInterval{Count: 4210, ByMax: top("ndis.sys", 212), ByTime: top("ndis.sys", 212)},
			ISR: dpcwatch.SectionInterval{Count: 900, ByMax: top("USBPORT.SYS", 40), ByTime: top("USBPORT.SYS", 40)}},
			"[    2s] DPC 4210, max 212 µs ndis.sys | ISR 900, max 40.0 µs USBPORT.SYS"},
		{"most time elsewhere", dpcwatch.Interval{ToS: 3, DPC: dpcwatch.SectionInterval{Count: 10, ByMax: top("nvlddmkm.sys", 1500), ByTime: top("ndis.sys", 3000)}},
			"[    3s] DPC 10, max 1500 µs nvlddmkm.sys, most time ndis.sys | ISR 0"},
		{"long names are shortened, the module of most time goes", dpcwatch.Interval{ToS: 4,
			DPC: dpcwatch.SectionInterval{Count: 10, ByMax: top("a-very-long-vendor-driver-name-x64.sys", 15000), ByTime: top("another-long-vendor-driver.sys", 1)},
			ISR: dpcwatch.SectionInterval{Count: 3, ByMax: top("yet-another-long-name.sys", 5), ByTime: top("yet-another-long-name.sys", 5)}},
			"[    4s] DPC 10, max 15.0 ms a-very-long… | ISR 3, max 5.0 µs yet-another…"},
		{"names of 16 fit without the most-time module", dpcwatch.Interval{ToS: 5,
			DPC: dpcwatch.SectionInterval{Count: 10, ByMax: top("rt640x64-long.sys", 15000), ByTime: top("nvlddmkm-long.sys", 1)},
			ISR: dpcwatch.SectionInterval{Count: 3, ByMax: top("USBPORT.SYS", 5), ByTime: top("USBPORT.SYS", 5)}},
			"[    5s] DPC 10, max 15.0 ms rt640x64-long.s… | ISR 3, max 5.0 µs USBPORT.SYS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DPCWatchLine(tt.iv, 80)
			if got != tt.want {
				t.Errorf("\ngot  %q\nwant %q", got, tt.want)
			}
			if utf8.RuneCountInString(got) > 80 {
				t.Errorf("%d runes", utf8.RuneCountInString(got))
			}
		})
	}
}
