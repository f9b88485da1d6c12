package netload

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
)

// Per-module DPC time of an rss-experiment phase. The research read its
// RSS and interrupt moderation answers off xperf's DPC report for
// NDIS.sys under load (GamingPCSetup, djdallmann: "Avg NDIS DPC
// Performance" per level under 900 Mbit/s of TCP; PC-Tuning,
// valleyofdoom: the ndis.sys xperf reports at ~300 kb/s and 1 Gbps). When
// a trace can run (Windows, elevated), each phase is traced as latlab dpc
// watch traces, and the phase lists the DPC time of every module: NDIS.sys
// and the NIC's own miniport driver (e1d68x64.sys, e2f68.sys, rt640x64.sys
// and the like) each on its own line, with tcpip.sys and the rest.

// DPCTracer traces DPC/ISR execution for d; nil where no trace can run.
type DPCTracer func(ctx context.Context, d time.Duration) (*dpcisr.Report, error)

// ModuleDPC is one driver module's DPC work in a phase.
type ModuleDPC struct {
	Module string `json:"module"`
	// Role: "NDIS" (ndis.sys), "TCP/IP" (tcpip.sys), or "" for any other
	// module (the NIC's miniport driver among them).
	Role string `json:"role,omitempty"`
	DPCs int64  `json:"dpcs"`
	Usec int64  `json:"usec"`
	// CPUs that ran its DPCs, as the trace's usage table lists them.
	CPUs []int `json:"cpus,omitempty"`
}

// maxPhaseModules bounds the modules a phase lists.
const maxPhaseModules = 16

// moduleRoles name the network modules that are not the NIC's driver.
var moduleRoles = map[string]string{"ndis.sys": "NDIS", "tcpip.sys": "TCP/IP"}

// ModuleDPCs is the DPC work per module of a report, most time first.
func ModuleDPCs(r *dpcisr.Report) []ModuleDPC {
	if r == nil {
		return nil
	}
	by := map[string]*ModuleDPC{}
	var order []string
	for _, s := range r.Sections {
		if s.Name != dpcisr.DPC {
			continue
		}
		get := func(name string) *ModuleDPC {
			k := strings.ToLower(name)
			m, ok := by[k]
			if !ok {
				m = &ModuleDPC{Module: name, Role: moduleRoles[k]}
				by[k] = m
				order = append(order, k)
			}
			return m
		}
		for _, h := range s.Modules {
			get(h.Module).DPCs += h.Sum()
		}
		for _, u := range s.Usage {
			m := get(u.Module)
			m.Usec += u.TotalUsec()
			for i, c := range u.CPUs {
				if i < len(u.Usec) && u.Usec[i] > 0 {
					m.CPUs = append(m.CPUs, c)
				}
			}
		}
	}
	out := make([]ModuleDPC, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Usec != out[j].Usec {
			return out[i].Usec > out[j].Usec
		}
		return out[i].DPCs > out[j].DPCs
	})
	if len(out) > maxPhaseModules {
		out = out[:maxPhaseModules]
	}
	return out
}

// tracePhase runs load while trace traces for d; the trace's report goes
// into the phase's modules. A trace that fails is said, not fatal: the
// phase's counters stand without it.
func tracePhase(ctx context.Context, trace DPCTracer, d time.Duration, load func() error) ([]ModuleDPC, string, error) {
	if trace == nil {
		return nil, "", load()
	}
	type done struct {
		r   *dpcisr.Report
		err error
	}
	ch := make(chan done, 1)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		r, err := trace(tctx, d)
		ch <- done{r, err}
	}()
	lerr := load()
	cancel()
	t := <-ch
	if t.err != nil {
		return nil, "DPC trace failed: " + t.err.Error(), lerr
	}
	return ModuleDPCs(t.r), "", lerr
}

// dpcVerdict says what the phase's DPC work per module was.
func dpcVerdict(ph RSSPhase) string {
	if len(ph.DPC) == 0 {
		return ""
	}
	var parts []string
	for _, m := range ph.DPC {
		if len(parts) == 4 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d µs over %d DPCs", m.Module, m.Usec, m.DPCs))
	}
	return fmt.Sprintf("%s: DPC time per driver (NDIS.sys and the NIC's driver apart): %s", ph.Profile, strings.Join(parts, "; "))
}
