package netload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
)

// dpcSection is a DPC section of a trace: per module, DPC counts in one
// bucket and µs per CPU.
func dpcReport(mods []string, counts []int64, usec [][]int64) *dpcisr.Report {
	sec := dpcisr.Section{Name: dpcisr.DPC}
	for i, m := range mods {
		le := int64(8)
		sec.Modules = append(sec.Modules, dpcisr.Histogram{Module: m, Total: counts[i], Buckets: []dpcisr.Bucket{{LeUs: &le, Count: counts[i]}}})
		sec.Usage = append(sec.Usage, dpcisr.ModuleUsage{Module: m, Usec: usec[i], CPUs: []int{0, 1, 2, 3}[:len(usec[i])]})
	}
	return &dpcisr.Report{Source: dpcisr.SourceETW, Sections: []dpcisr.Section{sec, {Name: dpcisr.ISR}}}
}

// NDIS.sys and the NIC's miniport are apart, most DPC time first, with the
// CPUs that ran them.
func TestModuleDPCs(t *testing.T) {
	r := dpcReport([]string{"tcpip.sys", "ndis.sys", "e2f68.sys"}, []int64{40, 900, 300}, [][]int64{{0, 0, 80, 0}, {0, 0, 1500, 700}, {0, 0, 0, 400}})
	ms := ModuleDPCs(r)
	if len(ms) != 3 || ms[0].Module != "ndis.sys" || ms[0].Role != "NDIS" || ms[0].Usec != 2200 || ms[0].DPCs != 900 ||
		ms[1].Module != "e2f68.sys" || ms[1].Role != "" || ms[1].Usec != 400 || ms[2].Role != "TCP/IP" {
		t.Fatalf("modules %+v", ms)
	}
	if len(ms[0].CPUs) != 2 || ms[0].CPUs[0] != 2 || ms[0].CPUs[1] != 3 {
		t.Errorf("ndis.sys CPUs %v, want 2 3", ms[0].CPUs)
	}
	ph := RSSPhase{Profile: "bulk", DPC: ms}
	if v := dpcVerdict(ph); v != "bulk: DPC time per driver (NDIS.sys and the NIC's driver apart): ndis.sys 2200 µs over 900 DPCs; e2f68.sys 400 µs over 300 DPCs; tcpip.sys 80 µs over 40 DPCs" {
		t.Errorf("verdict %q", v)
	}
	if ModuleDPCs(nil) != nil {
		t.Error("a missing report has modules")
	}
}

// Each phase is traced while its load runs (a fake trace over loopback),
// and a trace that fails is said without failing the phase.
func TestRunRSSTracesPhases(t *testing.T) {
	needUDP(t)
	var traced []time.Duration
	ok := func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
		t0 := time.Now()
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
		traced = append(traced, time.Since(t0))
		return dpcReport([]string{"ndis.sys"}, []int64{10}, [][]int64{{5}}), nil
	}
	r, err := RunRSS(context.Background(), RSSOptions{Duration: 100 * time.Millisecond, Share: 0.05, TraceDPC: ok})
	if err != nil {
		t.Fatal(err)
	}
	if len(traced) != 2 || len(r.Phases) != 2 {
		t.Fatalf("traced %v phases %d", traced, len(r.Phases))
	}
	for _, ph := range r.Phases {
		if len(ph.DPC) != 1 || ph.DPC[0].Module != "ndis.sys" {
			t.Errorf("phase %s: DPC %+v", ph.Profile, ph.DPC)
		}
	}
	if !strings.Contains(strings.Join(r.Verdict, "\n"), "game: DPC time per driver (NDIS.sys and the NIC's driver apart): ndis.sys 5 µs over 10 DPCs") {
		t.Errorf("verdict %q", r.Verdict)
	}
	fail := func(context.Context, time.Duration) (*dpcisr.Report, error) { return nil, errors.New("access denied") }
	r, err = RunRSS(context.Background(), RSSOptions{Duration: 50 * time.Millisecond, Share: 0.05, TraceDPC: fail})
	if err != nil || len(r.Phases) != 2 || r.Phases[0].DPCNote != "DPC trace failed: access denied" {
		t.Fatalf("failed trace: %v %+v", err, r)
	}
	r, err = RunRSS(context.Background(), RSSOptions{Duration: 50 * time.Millisecond, Share: 0.05, NoTraceDPC: "no DPC time per driver: elevated"})
	if err != nil || r.Verdict[len(r.Verdict)-1] != "no DPC time per driver: elevated" {
		t.Fatalf("no tracer: %v %q", err, r.Verdict)
	}
}
