package doctor

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/knob"
)

// Rules is the verdict table: the rules for any knob, then each knob's
// own (declared in its file in internal/knob). README's check-up section
// lists it.
var Rules = append(anyKnob, knob.CheckupRules()...)

var anyKnob = []knob.Rule{
	// --- any knob ------------------------------------------------------
	{ID: "needs-privilege", Knob: "*", Verdict: knob.Unknown, When: "the value cannot be read without elevation",
		Match: func(c *knob.Case) bool { return c.Err != nil && c.Privilege != "" },
		Reason: func(c *knob.Case) string {
			return fmt.Sprintf("reading it needs %s; the check-up never asks for elevation (%s)", privilegeWords(c.Privilege), firstLine(c.Err.Error()))
		}},
	{ID: "unreadable", Knob: "*", Verdict: knob.Unknown, When: "reading the value failed",
		Match:  func(c *knob.Case) bool { return c.Err != nil },
		Reason: func(c *knob.Case) string { return firstLine(c.Err.Error()) }},
	// A partial --root tree (or a system without sysfs or procfs where
	// latlab reads them) that lacks a setting file and the directory
	// every kernel has above it does not say whether the kernel has the
	// setting: not the kernel's default, nothing judged (knob/absence.go).
	{ID: "not-shown", Knob: "*", Verdict: knob.Unknown, When: "the setting file and the directory every kernel has above it are both missing (a partial --root tree)",
		Match:  func(c *knob.Case) bool { return c.Err == nil && c.NotShown != "" },
		Reason: func(c *knob.Case) string { return c.Meaning }},
}

// firstLine is an error's first line without the empty tail a command's
// missing output leaves ("...: ").
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimRight(strings.TrimSpace(s), ":")
}

func privilegeWords(p string) string {
	if p == "Administrator" {
		return "an elevated prompt (Administrator)"
	}
	return p
}
