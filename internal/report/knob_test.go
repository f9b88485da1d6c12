package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/knob"
)

// Each case of a list row: a knob of the other OS, one that could not be
// read, one instance, none, several (which points to knob get), and a
// meaning too long for the table.
func TestKnobList(t *testing.T) {
	l := &knob.List{OS: "linux", Knobs: []knob.ListEntry{
		{Name: "clocksource", OS: "linux", Summary: "the clock source", Reading: &knob.Reading{Knob: "clocksource",
			Items: []knob.Item{{Value: "tsc", Meaning: "the CPU's time-stamp counter"}}}},
		{Name: "coalescing", OS: "linux", Summary: "interrupt coalescing", Reading: &knob.Reading{Knob: "coalescing"}},
		{Name: "rps", OS: "linux", Summary: "receive packet steering", Reading: &knob.Reading{Knob: "rps",
			Items: []knob.Item{{Target: "eth0 rx-0", Value: "0"}, {Target: "eth0 rx-1", Value: "3"}}}},
		{Name: "timer-slack", OS: "linux", Summary: "timer slack", Error: "/proc/self/timerslack_ns does not exist"},
		{Name: "tcp-dsack", OS: "linux", Summary: "D-SACK", Reading: &knob.Reading{Knob: "tcp-dsack",
			Items: []knob.Item{{Value: strings.Repeat("1", 40), Meaning: strings.Repeat("long meaning ", 10)}}}},
		{Name: "rss", OS: "windows", Summary: "receive side scaling"},
	}}
	var b bytes.Buffer
	KnobList(&b, l)
	goldie.New(t).Assert(t, "knob-list", b.Bytes())
}
