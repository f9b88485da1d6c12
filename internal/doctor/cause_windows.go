package doctor

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/units"
)

// notTraced is the line the check-up shows when it cannot trace.
const notTraced = "not traced: run latlab as administrator and the check-up names the driver with the most DPC and ISR time"

// findCause watches DPCs and ISRs for o.CauseDuration (the machinery of
// latlab dpc watch), after the probes so that it does not disturb them,
// and names the driver with the most DPC and ISR time and the longest
// single DPC or ISR with its verdict, LatencyMon's answer.
func findCause(ctx context.Context, o Options) *Cause {
	if !etw.Elevated() {
		return &Cause{Missing: notTraced}
	}
	res, err := dpcwatch.Run(ctx, dpcwatch.Options{Duration: o.CauseDuration})
	if err != nil {
		var held *etw.HeldError
		if errors.As(err, &held) {
			return &Cause{Missing: "not traced: the kernel trace session is in use (stop the other trace, or run latlab dpc watch later): " + err.Error()}
		}
		return &Cause{Missing: "not traced: " + err.Error()}
	}
	c := DPCCause(res.Summary)
	c.Run = fmt.Sprintf("a %s DPC/ISR watch after the probes (latlab dpc watch's trace)", units.Duration(o.CauseDuration))
	return &c
}

// DPCCause names, from a DPC/ISR watch's summary, the driver with the
// most DPC and ISR time and the longest single execution with its verdict.
func DPCCause(s dpcwatch.Summary) Cause {
	c := Cause{Source: "etw", Kind: "driver", Notes: s.Notes}
	m := map[string]*DriverTime{}
	add := func(stats []dpcwatch.ModuleStat, isr bool) {
		for _, st := range stats {
			d := m[st.Module]
			if d == nil {
				d = &DriverTime{Module: st.Module}
				m[st.Module] = d
			}
			if isr {
				d.ISRUs += st.TotalUs
			} else {
				d.DPCUs += st.TotalUs
			}
			d.TotalUs += st.TotalUs
			d.Count += st.Count
		}
	}
	add(s.DPC, false)
	add(s.ISR, true)
	for _, d := range m {
		c.Drivers = append(c.Drivers, *d)
	}
	sort.Slice(c.Drivers, func(i, j int) bool {
		if c.Drivers[i].TotalUs != c.Drivers[j].TotalUs {
			return c.Drivers[i].TotalUs > c.Drivers[j].TotalUs
		}
		return c.Drivers[i].Module < c.Drivers[j].Module
	})
	if len(c.Drivers) > 5 {
		c.Drivers = c.Drivers[:5]
	}
	v := s.Verdict
	if len(c.Drivers) == 0 {
		c.Kind = "none"
		c.Text = fmt.Sprintf("no DPC or ISR in %.1f s of tracing", s.Seconds)
		return c
	}
	top := c.Drivers[0]
	c.Name = top.Module
	c.Longest = &Longest{Section: v.Section, Module: v.Module, MaxUs: v.MaxUs, Level: v.Level, Verdict: v.Text}
	c.Text = fmt.Sprintf("driver %s: most DPC+ISR time (%s in %.1f s); longest %s %s by %s: %s",
		top.Module, units.Us(top.TotalUs), s.Seconds, v.Section, units.Us(v.MaxUs), v.Module, levelWords(v.Level))
	return c
}

// levelWords is dpc watch's verdict level in the check-up's words.
func levelWords(level string) string {
	switch level {
	case dpcwatch.LevelBad:
		return "over 2 ms, drop-outs likely"
	case dpcwatch.LevelWarn:
		return "over 1 ms, drop-outs possible"
	case dpcwatch.LevelOK:
		return "under 1 ms, fine for real-time audio"
	}
	return level
}
