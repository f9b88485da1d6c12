package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

func bcd(name, v string) suite.Value {
	val := backend.Absent
	if v != "" {
		val = backend.Value{Type: backend.TypeBCD, Data: []byte(v)}
	}
	return suite.Value{Loc: backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: name}, Value: val}
}

func TestTscSyncConforms(t *testing.T) {
	place := func(path, name, v, target string) suite.Place {
		return suite.Place{Loc: backend.Loc{Backend: backend.BackendBCD, Path: path, Name: name}, Value: backend.Value{Type: backend.TypeBCD, Data: []byte(v)}, Target: target}
	}
	suite.RunRegistry(t, suite.Registry{
		Knob:    "tsc-sync-policy",
		Build:   22631,
		Values:  []suite.Value{bcd("description", "Windows 11")},
		Explain: []string{"default", "legacy", "enhanced", "Enhanced"},
		Set: []suite.RegSet{
			{Value: "enhanced", Values: []suite.Value{bcd("tscsyncpolicy", "enhanced")}},
			{Value: "Legacy", Values: []suite.Value{bcd("tscsyncpolicy", "legacy")}},
			{Value: "remove", NoChange: true},
		},
		Bad: map[string]string{"fast": "accepted default|legacy|enhanced|remove", "": "accepted default|legacy|enhanced|remove"},
		Foreign: []suite.Place{
			place("{bootmgr}", "path", "x", ""),
			place("{current}", "useplatformclock", "yes", ""),
			place("{current}", "tscsyncpolicy", "fast", ""),
			place("{current}", "tscsyncpolicy", "enhanced", "x"),
			{Loc: backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}, Value: backend.SZ("enhanced")},
		},
		Rules: []suite.RegRule{
			{Rule: "tsc-default", Reason: "HalpTscSyncPolicy 0"},
			{Values: []suite.Value{bcd("tscsyncpolicy", "Default")}, Rule: "tsc-default"},
			{Values: []suite.Value{bcd("tscsyncpolicy", "Enhanced")}, Rule: "tsc-set", Reason: "set to enhanced without a measured benefit"},
		},
	})
	// From a policy set back to none: remove deletes the element, and
	// revert puts it back.
	suite.RunRegistry(t, suite.Registry{
		Knob:   "tsc-sync-policy",
		Values: []suite.Value{bcd("tscsyncpolicy", "Legacy")},
		Set:    []suite.RegSet{{Value: "remove", Values: []suite.Value{bcd("tscsyncpolicy", "")}}},
		More:   true,
	})
}
