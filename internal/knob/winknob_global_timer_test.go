package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const kernelKey = `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`

func gtrr(v backend.Value) suite.Value {
	return suite.Reg(kernelKey, "GlobalTimerResolutionRequests", v)
}

func TestGlobalTimerConforms(t *testing.T) {
	server := func(t *testing.T, e *knob.Env) { e.Build, e.Server = 20348, true }
	suite.RunRegistry(t, suite.Registry{
		Knob:    "global-timer-resolution-requests",
		Build:   22631,
		Values:  []suite.Value{suite.Reg(kernelKey, "", backend.KeyValue)},
		Explain: []string{"0", "1"},
		Set: []suite.RegSet{
			{Value: "1", Values: []suite.Value{gtrr(backend.DWORD(1))}},
			{Value: "0", Values: []suite.Value{gtrr(backend.DWORD(0))}},
		},
		Bad: map[string]string{"2": "accepted 0|1", "x": "accepted 0|1", "": "accepted 0|1"},
		Foreign: []suite.Place{
			suite.RegPlace(kernelKey, "DisableTsx", backend.DWORD(1), ""),
			suite.RegPlace(kernelKey, "GlobalTimerResolutionRequests", backend.SZ("1; x"), ""),
			suite.RegPlace(kernelKey, "GlobalTimerResolutionRequests", backend.DWORD(1), "x"),
		},
		Rules: []suite.RegRule{
			{Rule: "gtrr-default", Reason: "not set: per process (Windows 10 2004+, build 22631)"},
			{Values: []suite.Value{gtrr(backend.DWORD(1))}, Rule: "gtrr-on", Reason: "global again"},
			{Values: []suite.Value{gtrr(backend.DWORD(2))}, Rule: "gtrr-not-boolean", Reason: "not one of the documented values 0 and 1"},
			{Values: []suite.Value{gtrr(backend.DWORD(1))}, Env: func(t *testing.T, e *knob.Env) { e.Build = 19045 },
				Rule: "gtrr-ignored", Reason: "set to 1, but build 19045 ignores it"},
			// PC-Tuning ("Fixing Timing Precision in Windows After The
			// Great Rule Change"): Server 2022 ships it set to 1.
			{Values: []suite.Value{gtrr(backend.DWORD(1))}, Env: server, Rule: "gtrr-server-2022", Reason: "the Windows Server 2022 default: global again"},
			{Values: []suite.Value{gtrr(backend.DWORD(0))}, Env: server, Rule: "gtrr-server-2022-off", Reason: "changed from the Windows Server 2022 default 1: per process"},
		},
	})
}
