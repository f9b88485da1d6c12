package dpcwatch

import (
	"fmt"

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
	Section string  `json:"section,omitempty"` // DPC or ISR
	Module  string  `json:"module,omitempty"`
	MaxUs   float64 `json:"max_us,omitempty"`
	// How far above the bounds it was, in µs (0 when below).
	Over1msUs float64 `json:"over_1ms_us"`
	Over2msUs float64 `json:"over_2ms_us"`
}

// Judge names the longest DPC and ISR (dpc and isr sorted longest first)
// and says how far the longest of all went past 1 ms and 2 ms.
func Judge(dpc, isr []ModuleStat) Verdict {
	var top *ModuleStat
	sec := ""
	if len(dpc) > 0 {
		top, sec = &dpc[0], "DPC"
	}
	if len(isr) > 0 && (top == nil || isr[0].MaxUs > top.MaxUs) {
		top, sec = &isr[0], "ISR"
	}
	if top == nil {
		return Verdict{Level: LevelNone, Text: "no DPC or ISR was recorded: nothing to judge"}
	}
	v := Verdict{Section: sec, Module: top.Module, MaxUs: top.MaxUs,
		Over1msUs: max(0, top.MaxUs-WarnUs), Over2msUs: max(0, top.MaxUs-BadUs)}
	highest := highestText(dpc, isr)
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
		v.Text = fmt.Sprintf("suitable for real-time audio: every DPC and ISR ended within 1 ms; %s", highest)
	}
	return v
}

func highestText(dpc, isr []ModuleStat) string {
	s := ""
	if len(dpc) > 0 {
		s = fmt.Sprintf("highest DPC routine execution time %s (%s)", units.Us(dpc[0].MaxUs), dpc[0].Module)
	}
	if len(isr) > 0 {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("highest ISR routine execution time %s (%s)", units.Us(isr[0].MaxUs), isr[0].Module)
	}
	return s
}
