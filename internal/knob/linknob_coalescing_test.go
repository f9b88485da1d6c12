package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

var eth0Coalesce = backend.Loc{Backend: backend.BackendEthtool, Path: "eth0", Name: "coalesce"}

// ethtoolWith is a driver reporting c for eth0 (knobtest.Mem stands in
// for ethtool's ioctl: it keeps what is written).
func ethtoolWith(c backend.Coalesce) func(*testing.T, *knob.Env) {
	return func(t *testing.T, e *knob.Env) {
		m := knobtest.NewMem()
		m.Set(eth0Coalesce.Path, eth0Coalesce.Name, c.Value())
		e.Backends[backend.BackendEthtool] = m
	}
}

func TestCoalescingConforms(t *testing.T) {
	linuxNICs(t)
	var adaptive backend.Coalesce
	adaptive[0], adaptive[1], adaptive[9] = 8, 0, 1 // rx-usecs 8, adaptive-rx on
	var fixed backend.Coalesce
	fixed[0], fixed[1] = 50, 1
	want := func(c backend.Coalesce) map[string]string {
		return map[string]string{eth0Coalesce.String(): c.Value().String()}
	}
	set := adaptive
	set[0], set[9] = 50, 0
	suite.RunFiles(t, suite.Files{
		Knob:    "coalescing",
		Sel:     knob.Selector{Iface: "eth0"},
		Tree:    virtioNIC(nil),
		Env:     ethtoolWith(adaptive),
		Extra:   []backend.Loc{eth0Coalesce},
		Explain: []string{"rx-usecs=50", "adaptive-rx=off", "rx-usecs=50,adaptive-rx=off"},
		Set: []suite.Set{
			{Value: "rx-usecs=50,adaptive-rx=off", Files: want(set)},
			{Value: "rx-usecs=8", NoChange: true},
		},
		Bad: map[string]string{
			"rx-usec=5":     "unknown coalescing parameter",
			"adaptive-rx=2": "accepted on|off",
			"rx-usecs=-1":   "want a whole number 0-4294967295",
			"fast":          "want NAME=VALUE",
		},
		Foreign: []suite.Place{
			{Loc: backend.Loc{Backend: backend.BackendEthtool, Path: "eth1", Name: "coalesce"}, Value: adaptive.Value(), Target: "eth0"},
			{Loc: eth0Coalesce, Value: backend.FileValue("{}"), Target: "eth0"},
			{Loc: eth0Coalesce, Value: adaptive.Value(), Target: "../eth0"},
			{Loc: eth0Coalesce, Value: adaptive.Value()}, // no interface target
		},
		Rules: []suite.Rule{
			{Rule: "coal-read", Reason: "adaptive: the driver varies the rx interrupt delay"},
			{Env: ethtoolWith(fixed), Rule: "coal-read", Reason: "50"},
			{Files: noDevice, Rule: "coal-none", Reason: "no network interface backed by a device"},
		},
	})
}
