package ui

import (
	"cmp"
	"errors"
	"runtime"
	"slices"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
)

// dpcRows is how many drivers (or handlers) the panel lists.
const dpcRows = 10

// DPCPanel is the DPC and ISR panel (on Linux softirqs and hard
// interrupt handlers): the watch's figures since the view started.
type DPCPanel struct {
	// Status says what the panel shows, or why it shows nothing.
	Status string `json:"status"`
	// Watching is true once the watch runs.
	Watching bool `json:"watching"`
	// Sections name the two kinds: DPC and ISR, or softirq and hardirq.
	Sections [2]string `json:"sections"`
	Seconds  float64   `json:"seconds"`
	// Rows are the drivers or handlers with the most time, most first.
	Rows []DPCRow `json:"rows"`
	// Verdict is dpc watch's: the longest single execution, whose, and
	// what it means for real-time audio.
	Verdict dpcwatch.Verdict `json:"verdict"`
}

// DPCRow is one driver's (or handler's) time in one section.
type DPCRow struct {
	Section string  `json:"section"`
	Module  string  `json:"module"`
	Count   int64   `json:"count"`
	TotalUs float64 `json:"total_us"`
	MaxUs   float64 `json:"max_us"`
}

// dpcPanel turns a watch's summary into the panel.
func dpcPanel(s dpcwatch.Summary) DPCPanel {
	p := DPCPanel{Status: "watching", Watching: true, Seconds: s.Seconds, Verdict: s.Verdict, Rows: []DPCRow{}}
	secs := s.Sections()
	for i, sec := range secs[:2] {
		p.Sections[i] = sec.Name
		for _, m := range sec.Stats {
			p.Rows = append(p.Rows, DPCRow{Section: sec.Name, Module: m.Module, Count: m.Count, TotalUs: m.TotalUs, MaxUs: m.MaxUs})
		}
	}
	slices.SortStableFunc(p.Rows, func(a, b DPCRow) int {
		return cmp.Or(cmp.Compare(b.TotalUs, a.TotalUs), cmp.Compare(a.Module, b.Module))
	})
	if len(p.Rows) > dpcRows {
		p.Rows = p.Rows[:dpcRows]
	}
	return p
}

// dpcUnavailable is the panel when the watch cannot run, saying why and
// what adds it.
func dpcUnavailable(err error) DPCPanel {
	var ae *etw.AccessError
	var he *etw.HeldError
	var ue *etw.UnavailableError
	msg := "not watched: " + err.Error()
	switch {
	case errors.As(err, &ae) && runtime.GOOS == "windows":
		msg = "not watched: DPC and ISR time per driver needs an elevated (Administrator) prompt; run latlab ui there to add it"
	case errors.As(err, &ae):
		msg = "not watched: softirq and hard interrupt handler time needs root; sudo latlab ui adds it"
	case errors.As(err, &he):
		msg = "not watched: " + he.Error()
	case errors.As(err, &ue):
		msg = "not watched: " + ue.Error()
	case errors.Is(err, etw.ErrUnsupported):
		msg = "not watched on this system: DPC and ISR time is read on Windows and Linux"
	}
	return DPCPanel{Status: msg, Rows: []DPCRow{}}
}
