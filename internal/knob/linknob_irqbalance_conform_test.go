package knob_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const irqbalanceUnit = "irqbalance.service"

var irqbalanceLoc = backend.Loc{Backend: backend.BackendService, Path: irqbalanceUnit}

// withIrqbalance is a systemd holding irqbalance in state st (not
// installed when st is zero).
func withIrqbalance(st backend.ServiceState) func(*testing.T, *knob.Env) {
	return func(t *testing.T, e *knob.Env) {
		units := map[string]backend.ServiceState{}
		if st.Active != "" {
			units[irqbalanceUnit] = st
		}
		e.Backends[backend.BackendService] = knobtest.NewSystemctl(units).Backend()
	}
}

// pinnedByLatlab sets IRQ 38's affinity through latlab's journal under
// the root, where the check-up finds it.
func pinnedByLatlab(t *testing.T, e *knob.Env) {
	k, err := knob.Lookup("irq-affinity")
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.Plan(e, knob.Selector{IRQ: "38"}, "1")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(e.Backends[backend.BackendFile].(backend.Files).Root, "var", "lib", "latlab"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := knob.Apply(e, j, p); err != nil {
		t.Fatal(err)
	}
}

func TestIrqbalanceConforms(t *testing.T) {
	running := backend.ServiceState{Active: "active", Enabled: "enabled"}
	service := func(active, enabled, target string) suite.Place {
		return suite.Place{Loc: irqbalanceLoc, Value: backend.ServiceState{Active: active, Enabled: enabled}.Value(), Target: target}
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "irqbalance",
		Tree:    virtioNIC(nil),
		Env:     withIrqbalance(running),
		Extra:   []backend.Loc{irqbalanceLoc},
		Explain: []string{"on", "off", "0", "1"},
		Set: []suite.Set{
			{Value: "off", Files: map[string]string{irqbalanceLoc.String(): "inactive disabled"}},
			{Value: "0", Files: map[string]string{irqbalanceLoc.String(): "inactive disabled"}},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{"stop": "accepted on|off", "": "accepted on|off"},
		Foreign: []suite.Place{
			service("active", "enabled", "x"),
			{Loc: backend.Loc{Backend: backend.BackendService, Path: "sshd.service"}, Value: running.Value()},
			suite.File("etc/default/irqbalance", "active enabled"),
			{Loc: irqbalanceLoc, Value: backend.Absent},
			{Loc: irqbalanceLoc, Value: backend.Value{Type: backend.TypeService, Data: []byte("active enabled now")}},
			service("running", "enabled", ""),
			{Loc: irqbalanceLoc, Value: backend.FileValue("active enabled")},
		},
		Rules: []suite.Rule{
			{Rule: "irqb-running", Reason: "moves interrupts between CPUs every 10 s"},
			{Env: func(t *testing.T, e *knob.Env) {
				e.Backends[backend.BackendService] = &backend.Service{
					Booted: func() error { return fmt.Errorf("systemd is not running: services are %w", backend.ErrUnavailable) },
					Run:    func(...string) ([]byte, error) { t.Fatal("systemctl ran without systemd"); return nil, nil },
				}
			}, Rule: "irqb-unavailable", Reason: "not available: systemd is not running"},
			{Env: withIrqbalance(backend.ServiceState{}), Rule: "irqb-absent", Reason: "not installed"},
			{Env: pinnedByLatlab, Rule: "irqb-undoes-affinity", Reason: "while 1 IRQ affinities latlab set by hand are in place"},
			{Files: map[string]string{"etc/default/irqbalance": "IRQBALANCE_BANNED_CPULIST=1\n"}, Env: pinnedByLatlab, Rule: "irqb-undoes-affinity"},
			{Files: map[string]string{"etc/default/irqbalance": "IRQBALANCE_BANNED_CPULIST=1\n"}, Rule: "irqb-banned",
				Reason: "keeping interrupts off CPUs 1: as tuned 2.20.0 cpu-partitioning sets [irqbalance] banned_cpus=${isolated_cores}"},
			{Env: withIrqbalance(backend.ServiceState{Active: "failed", Enabled: "enabled"}), Rule: "irqb-stopped-enabled", Reason: "starts again at the next boot"},
			{Env: withIrqbalance(backend.ServiceState{Active: "inactive", Enabled: "disabled"}), Rule: "irqb-stopped", Reason: "affinities set by hand hold"},
		},
	})
}
