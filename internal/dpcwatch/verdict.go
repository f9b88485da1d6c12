package dpcwatch

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/units"
)

// Bounds of the verdict, in µs: an execution above 1 ms may already cost
// an audio buffer at low latency settings; above 2 ms drop-outs are
// likely.
const (
	WarnUs = 1000
	BadUs  = 2000
)

// Verdict levels.
const (
	LevelOK   = "ok"
	LevelWarn = "over-1ms"
	LevelBad  = "over-2ms"
	LevelNone = "no-executions"
)

// Verdict is the watch's conclusion in LatencyMon's terms: the highest
// DPC and ISR routine execution times and the drivers they belong to.
type Verdict struct {
	Level string `json:"level"`
	Text  string `json:"text"`
	// The longest execution of all, and whose.
	Section string  `json:"section,omitempty"` // DPC or ISR; softirq or hardirq on Linux
	Module  string  `json:"module,omitempty"`
	MaxUs   float64 `json:"max_us,omitempty"`
	// How far above the bounds it was, in µs (0 when below).
	Over1msUs float64 `json:"over_1ms_us"`
	Over2msUs float64 `json:"over_2ms_us"`
}

// Judge names the longest DPC and ISR (dpc and isr sorted longest first)
// and says how far the longest of all went past 1 ms and 2 ms.
func Judge(dpc, isr []ModuleStat) Verdict {
	return JudgeSections([]SectionStats{{"DPC", dpc}, {"ISR", isr}}, "every DPC and ISR ended within 1 ms")
}

// JudgeSections is Judge over named sections (a Linux trace's softirq and
// hardirq); within says in the section's words that all ended within 1 ms.
func JudgeSections(secs []SectionStats, within string) Verdict {
	var top *ModuleStat
	sec := ""
	for _, s := range secs {
		if len(s.Stats) > 0 && (top == nil || s.Stats[0].MaxUs > top.MaxUs) {
			top, sec = &s.Stats[0], s.Name
		}
	}
	if top == nil {
		names := make([]string, len(secs))
		for i, s := range secs {
			names[i] = s.Name
		}
		return Verdict{Level: LevelNone, Text: fmt.Sprintf("no %s was recorded: nothing to judge", strings.Join(names, " or "))}
	}
	v := Verdict{Section: sec, Module: top.Module, MaxUs: top.MaxUs,
		Over1msUs: max(0, top.MaxUs-WarnUs), Over2msUs: max(0, top.MaxUs-BadUs)}
	highest := highestText(secs)
	switch {
	case top.MaxUs > BadUs:
		v.Level = LevelBad
		v.Text = fmt.Sprintf("likely drop-outs: %s ran a %s for %s, %s above 2 ms (%s above 1 ms); %s",
			top.Module, sec, units.Us(top.MaxUs), units.Us(v.Over2msUs), units.Us(v.Over1msUs), highest)
	case top.MaxUs > WarnUs:
		v.Level = LevelWarn
		v.Text = fmt.Sprintf("drop-outs possible: %s ran a %s for %s, %s above 1 ms (under 2 ms); %s",
			top.Module, sec, units.Us(top.MaxUs), units.Us(v.Over1msUs), highest)
	default:
		v.Level = LevelOK
		v.Text = fmt.Sprintf("suitable for real-time audio: %s; %s", within, highest)
	}
	return v
}

func highestText(secs []SectionStats) string {
	var parts []string
	for _, s := range secs {
		if len(s.Stats) > 0 {
			parts = append(parts, fmt.Sprintf("highest %s routine execution time %s (%s)", s.Name, units.Us(s.Stats[0].MaxUs), s.Stats[0].Module))
		}
	}
	return strings.Join(parts, ", ")
}
