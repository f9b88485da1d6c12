// Package dpcverdict is the one verdict on DPC and ISR execution times, in
// LatencyMon's terms: the longest execution of all, and how far it went
// past 1 ms and 2 ms. latlab dpc watch judges its recording with it and
// latlab dpcisr a LatencyMon report's highest times, so both say the same
// words on the same numbers. It stands apart from both because dpcwatch
// imports dpcisr: dpcisr could not import the rule from dpcwatch.
package dpcverdict

import (
	"fmt"
	"math"
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

// Verdict is the conclusion in LatencyMon's terms: the highest DPC and
// ISR routine execution times and the drivers they belong to.
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

// Section is what the verdict knows of one section (DPC, ISR; softirq,
// hardirq): its name and its longest execution, nil when it had none.
type Section struct {
	Name    string
	Longest *Execution
}

// Execution is a section's longest execution: how long, and the module
// (driver, softirq vector, interrupt handler) it ran in.
type Execution struct {
	Module string
	MaxUs  float64
}

// Judge names the longest execution of each section and says how far the
// longest of all (the first of equal ones) went past 1 ms and 2 ms;
// within says in the sections' words that all ended within 1 ms.
func Judge(secs []Section, within string) Verdict {
	var top *Execution
	sec := ""
	for _, s := range secs {
		if s.Longest != nil && (top == nil || s.Longest.MaxUs > top.MaxUs) {
			top, sec = s.Longest, s.Name
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
		Over1msUs: overUs(top.MaxUs, WarnUs), Over2msUs: overUs(top.MaxUs, BadUs)}
	highest := highestText(secs)
	switch {
	case top.MaxUs > BadUs:
		v.Level = LevelBad
		v.Text = fmt.Sprintf("likely drop-outs: %s ran %s for %s, %s above 2 ms (%s above 1 ms); %s",
			top.Module, withArticle(sec), units.Us(top.MaxUs), units.Us(v.Over2msUs), units.Us(v.Over1msUs), highest)
	case top.MaxUs > WarnUs:
		v.Level = LevelWarn
		v.Text = fmt.Sprintf("drop-outs possible: %s ran %s for %s, %s above 1 ms (under 2 ms); %s",
			top.Module, withArticle(sec), units.Us(top.MaxUs), units.Us(v.Over1msUs), highest)
	default:
		v.Level = LevelOK
		v.Text = fmt.Sprintf("suitable for real-time audio: %s; %s", within, highest)
	}
	return v
}

// overUs is how far maxUs went past bound, in µs to the nanosecond: the
// difference of the floats as computed (1523.4 - 1000) is
// 523.4000000000001, a digit no measurement holds.
func overUs(maxUs, bound float64) float64 {
	return max(0, math.Round((maxUs-bound)*1000)/1000)
}

// withArticle puts "a" or "an" before a section's name: "an ISR" (said
// letter by letter), "a DPC", "a softirq".
func withArticle(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

func highestText(secs []Section) string {
	var parts []string
	for _, s := range secs {
		if s.Longest != nil {
			parts = append(parts, fmt.Sprintf("highest %s routine execution time %s (%s)", s.Name, units.Us(s.Longest.MaxUs), s.Longest.Module))
		}
	}
	return strings.Join(parts, ", ")
}
