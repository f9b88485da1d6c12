package netload

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/irq"
)

// Over loopback both loads run against a server RunRSS starts itself, and
// the verdict says why RSS cannot show there.
func TestRunRSSLoopback(t *testing.T) {
	needUDP(t)
	var phases []string
	r, err := RunRSS(context.Background(), RSSOptions{Duration: 100 * time.Millisecond, Share: 0.05,
		OnPhase: func(p Profile) { phases = append(phases, p.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(phases, []string{"game", "bulk"}) || len(r.Phases) != 2 {
		t.Fatalf("phases begun %v, done %d", phases, len(r.Phases))
	}
	if !r.Loopback || !strings.HasPrefix(r.Peer, "127.0.0.1:") || r.Network == nil {
		t.Fatalf("peer %s loopback %v network %v", r.Peer, r.Loopback, r.Network)
	}
	for _, ph := range r.Phases {
		if ph.Sent == 0 || ph.Interval == nil || len(ph.WorkPerCPU) != len(ph.Interval.CPUs) {
			t.Fatalf("phase %+v", ph)
		}
	}
	if len(r.Verdict) != 3 || !strings.HasPrefix(r.Verdict[0], "the traffic went over loopback") {
		t.Fatalf("verdict %q", r.Verdict)
	}
}

func TestRunRSSNoRoute(t *testing.T) {
	if _, err := RunRSS(context.Background(), RSSOptions{Peer: "not an address", EchoPort: 7, Duration: time.Second, Share: 0.05}); err == nil {
		t.Fatal("no error for a peer that cannot be routed to")
	}
}

// A phase's work is the network rows per CPU, and the queues used are the
// interface's interrupts that fired, named by queue where known.
func TestPhaseWorkAndQueues(t *testing.T) {
	iv := &irq.Interval{CPUs: []int{0, 1}, Rows: []irq.Row{
		{Source: "interrupts", Name: "38", Queue: "rx-0", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{5, 0}, Total: 5},
		{Source: "interrupts", Name: "39", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{0, 2}, Total: 2},
		{Source: "interrupts", Name: "40", Queue: "rx-2", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{0, 0}, Total: 0},
		{Source: "softirqs", Name: "NET_RX", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{1, 1}, Total: 2},
		{Source: "interrupts", Name: "LOC", Unit: irq.UnitCount, PerCPU: irq.Values{100, 100}, Total: 200},
	}}
	work, role := phaseWork(iv)
	if !slices.Equal(work, []float64{6, 3}) || role != "interface interrupts + NET_RX/NET_TX softirqs" {
		t.Errorf("work %v role %q", work, role)
	}
	if q := queuesUsed(iv); !slices.Equal(q, []string{"rx-0", "IRQ 39"}) {
		t.Errorf("queues %q", q)
	}
	dpc := &irq.Interval{CPUs: []int{0}, Rows: []irq.Row{{Source: "pdh", Name: "DPCs Queued/sec", Role: irq.RoleDPC, Unit: irq.UnitCount, PerCPU: irq.Values{7}, Total: 7}}}
	if work, role := phaseWork(dpc); !slices.Equal(work, []float64{7}) || role != "DPCs queued (all drivers)" {
		t.Errorf("DPC work %v role %q", work, role)
	}
	if q := queuesUsed(dpc); q == nil || len(q) != 0 {
		t.Errorf("DPC queues %q: want an empty list (stored as [])", q)
	}
}

func TestRSSVerdict(t *testing.T) {
	phases := func(game, bulk []string) []RSSPhase {
		return []RSSPhase{{Profile: "game", BusyCPUs: []int{0}, QueuesUsed: game}, {Profile: "bulk", BusyCPUs: []int{0, 1}, QueuesUsed: bulk}}
	}
	multi := &irq.Iface{Name: "eth0", Driver: "igb", RxQueues: 4}
	for _, c := range []struct {
		name string
		r    RSSResult
		ifc  *irq.Iface
		want []string
	}{
		{"loopback", RSSResult{Loopback: true, Phases: phases(nil, nil)}, nil, []string{
			"the traffic went over loopback",
			"game: network work on CPU 0; no queue interrupt",
			"bulk: network work on CPU 0-1; no queue interrupt"}},
		{"queues not visible", RSSResult{Interface: "Ethernet"}, nil, []string{`interface "Ethernet" carries the traffic but its queues are not visible`}},
		{"virtual", RSSResult{}, &irq.Iface{Name: "veth0", Virtual: true}, []string{"veth0 is a virtual device"}},
		{"one queue", RSSResult{}, &irq.Iface{Name: "eth0", Driver: "virtio_net", RxQueues: 1}, []string{"eth0 (virtio_net) has a single receive queue"}},
		{"one queue each", RSSResult{Phases: phases([]string{"rx-0"}, []string{"rx-0"})}, multi, []string{
			"game: network work on CPU 0; 1 queue interrupt(s) active (rx-0)",
			"bulk: network work on CPU 0-1; 1 queue interrupt(s) active (rx-0)",
			"both loads used one queue"}},
		{"bulk spreads", RSSResult{Phases: phases([]string{"rx-0"}, []string{"rx-0", "rx-1", "rx-3"})}, multi, []string{
			"game:", "bulk:", "bulk traffic spread over 3 queues against 1 for the game load"}},
	} {
		got := rssVerdict(&c.r, c.ifc)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s: verdict %q, want lines starting %q", c.name, got, c.want)
		}
	}
}
