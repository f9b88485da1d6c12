package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	slackFile = "proc/4242/timerslack_ns"
	statFile  = "proc/4242/stat"
)

func TestTimerSlackConforms(t *testing.T) {
	forPID := func(p suite.Place) suite.Place { p.Target = "pid 4242"; return p }
	suite.RunFiles(t, suite.Files{
		Knob: "timer-slack",
		Sel:  knob.Selector{PID: "4242"},
		Tree: map[string]string{
			slackFile:                 "50000\n",
			"proc/self/timerslack_ns": "50000\n", // the check-up judges latlab's own
			// Field 22, the start time, tells this process from a later
			// one with its PID: the plan guards the revert with it.
			statFile: "4242 (game (x) srv) S 1 4242 4242 0 -1 4194560 1529 0 0 0 12 3 0 0 20 0 4 0 98765 10000000 900 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		},
		Explain: []string{"1ns", "50us", "0", "1ms"},
		Set: []suite.Set{
			{Value: "1ns", Files: map[string]string{slackFile: "1\n"}},
			{Value: "100us", Files: map[string]string{slackFile: "100000\n"}},
			{Value: "50us", NoChange: true},
		},
		Bad: map[string]string{
			"11s":  "timer-slack 11s is out of range: accepted 0 to 10s",
			"-5":   "must not be negative",
			"fast": `invalid timer-slack "fast"`,
			"":     `invalid timer-slack ""`,
		},
		Foreign: []suite.Place{
			forPID(suite.File("proc/4243/timerslack_ns", "1\n")),
			forPID(suite.File("proc/4242/oom_score_adj", "-1000\n")),
			forPID(suite.File(slackFile, "-1\n")),
			forPID(suite.File(slackFile, "1ms\n")),
			forPID(suite.File(slackFile, "")),
			suite.File(slackFile, "1\n"), // no pid target
			{Loc: suite.File("proc/4242/../1/timerslack_ns", "").Loc, Value: suite.File("", "1\n").Value, Target: "pid 4242/../1"},
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "slack-default", Reason: "50µs: normal threads' timers may fire up to 50µs late"},
			{Files: map[string]string{"proc/self/timerslack_ns": "1000\n"}, Rule: "slack-changed", Reason: "inherited this slack from the program that started it: timers may fire up to 1µs late"},
		},
	})
}
