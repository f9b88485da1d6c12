package knob

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/testutil"
)

const irqbUnit = "irqbalance.service"

func svc(active, enabled string) backend.ServiceState {
	return backend.ServiceState{Active: active, Enabled: enabled}
}

// serviceEnv is a fixture root with a systemd in memory holding
// irqbalance in state st (not installed when st is nil). The root is
// empty: the tests write the configuration files they read.
func serviceEnv(t *testing.T, st *backend.ServiceState) (*Env, *knobtest.Systemctl, string) {
	t.Helper()
	root := testutil.TempDir(t)
	units := map[string]backend.ServiceState{}
	if st != nil {
		units[irqbUnit] = *st
	}
	sys := knobtest.NewSystemctl(units)
	env := &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}, backend.BackendService: sys.Backend()}}
	return env, sys, root
}

func TestParseServiceShow(t *testing.T) {
	for _, tc := range []struct {
		out       string
		want      backend.ServiceState
		installed bool
		err       string
	}{
		{"LoadState=loaded\nActiveState=active\nUnitFileState=enabled\n", svc("active", "enabled"), true, ""},
		{"LoadState=loaded\nActiveState=failed\nUnitFileState=disabled\n", svc("failed", "disabled"), true, ""},
		{"LoadState=masked\nActiveState=inactive\nUnitFileState=masked\n", svc("inactive", "masked"), true, ""},
		{"LoadState=loaded\nActiveState=active\nUnitFileState=\n", svc("active", "-"), true, ""},
		{"LoadState=not-found\nActiveState=inactive\nUnitFileState=\n", backend.ServiceState{}, false, ""},
		{"ActiveState=active\n", backend.ServiceState{}, false, "no LoadState"},
		{"LoadState=loaded\nActiveState=Active now\nUnitFileState=enabled\n", backend.ServiceState{}, false, "unexpected state"},
		{strings.Repeat("x", 5000), backend.ServiceState{}, false, "more than"},
	} {
		got, ok, err := backend.ParseServiceShow([]byte(tc.out))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.out, err, tc.err)
			}
			continue
		}
		if err != nil || ok != tc.installed || got != tc.want {
			t.Errorf("%q: %+v %v %v, want %+v %v", tc.out, got, ok, err, tc.want, tc.installed)
		}
	}
}

func FuzzParseServiceShow(f *testing.F) {
	f.Add([]byte("LoadState=loaded\nActiveState=active\nUnitFileState=enabled\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok, err := backend.ParseServiceShow(b)
		if err == nil && ok {
			if _, err := backend.DecodeService(st.Value()); err != nil {
				t.Fatalf("a parsed state does not decode: %v", err)
			}
		}
	})
}

func TestServiceUnitNames(t *testing.T) {
	for s, want := range map[string]bool{"irqbalance.service": true, "getty@tty1.service": true, "-x.service": false,
		".service": false, "irqbalance": false, "a b.service": false, "../x.service": false, "x.socket": false} {
		if backend.ValidUnit(s) != want {
			t.Errorf("ValidUnit(%q) = %v", s, !want)
		}
	}
	sys := knobtest.NewSystemctl(map[string]backend.ServiceState{})
	if _, err := sys.Backend().Read(backend.Loc{Backend: backend.BackendService, Path: "--now.service"}); err == nil {
		t.Error("an option as a unit name was read")
	}
	if len(sys.Calls) != 0 {
		t.Errorf("systemctl ran for a bad unit name: %v", sys.Calls)
	}
}

func TestIrqbalanceGet(t *testing.T) {
	running := svc("active", "enabled")
	env, _, root := serviceEnv(t, &running)
	testutil.WriteTree(t, root, map[string]string{"etc/default/irqbalance": "# irqbalance\n#IRQBALANCE_ONESHOT=\nIRQBALANCE_BANNED_CPULIST=\"2-3\"\n"})
	it := get(t, env, irqbalanceName, Selector{}).Items[0]
	d := it.Detail.(IrqbalanceDetail)
	if it.Value != "active, enabled" || !d.Running || !d.Installed || d.BannedCPUList != "2-3" || d.Config != "/etc/default/irqbalance" ||
		!strings.Contains(it.Meaning, "CPUs 2-3 banned") {
		t.Errorf("running: %+v %+v", it, d)
	}

	env, _, root = serviceEnv(t, nil)
	testutil.WriteTree(t, root, map[string]string{"etc/sysconfig/irqbalance": "IRQBALANCE_BANNED_CPUS=0000000c\n"})
	it = get(t, env, irqbalanceName, Selector{}).Items[0]
	if d := it.Detail.(IrqbalanceDetail); it.Value != "not installed" || d.Installed || !d.Available || d.BannedCPUs != "0000000c" {
		t.Errorf("not installed: %+v", it)
	}

	// No systemd (this kind of container): a reading that says so.
	env, _, _ = serviceEnv(t, &running)
	b := env.Backends[backend.BackendService].(*backend.Service)
	b.Booted = func() error { return fmt.Errorf("systemd is not running: services are %w", backend.ErrUnavailable) }
	it = get(t, env, irqbalanceName, Selector{}).Items[0]
	if it.Value != "not available" || it.Loc != nil || it.Detail.(IrqbalanceDetail).Available {
		t.Errorf("without systemd: %+v", it)
	}
	if _, err := plan(env, irqbalanceName, Selector{}, "off"); !errors.Is(err, backend.ErrUnavailable) {
		t.Errorf("plan without systemd: %v", err)
	}
	// The machine's own backend under a fixture root never runs systemctl.
	if _, err := NewEnv(testutil.TempDir(t)).read(irqbalanceLoc); HostOS == "linux" && (!errors.Is(err, backend.ErrUnavailable) || !strings.Contains(err.Error(), "under --root")) {
		t.Errorf("under a fixture root: %v", err)
	}
}

func TestIrqbalancePlan(t *testing.T) {
	for _, tc := range []struct {
		from  *backend.ServiceState
		value string
		want  string // the planned state; "" no change
		err   string
	}{
		{&backend.ServiceState{Active: "active", Enabled: "enabled"}, "off", "inactive disabled", ""},
		{&backend.ServiceState{Active: "inactive", Enabled: "disabled"}, "on", "active enabled", ""},
		{&backend.ServiceState{Active: "inactive", Enabled: "disabled"}, "off", "", ""},
		{&backend.ServiceState{Active: "failed", Enabled: "disabled"}, "off", "", ""},
		{&backend.ServiceState{Active: "failed", Enabled: "enabled"}, "off", "failed disabled", ""},
		{&backend.ServiceState{Active: "active", Enabled: "static"}, "off", "inactive static", ""},
		{&backend.ServiceState{Active: "inactive", Enabled: "masked"}, "on", "", "masked: latlab does not unmask"},
		{nil, "off", "", "irqbalance.service is not installed: there is nothing to stop"},
	} {
		env, sys, _ := serviceEnv(t, tc.from)
		p, err := plan(env, irqbalanceName, Selector{}, tc.value)
		name := fmt.Sprintf("%v %s", tc.from, tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tc.want == "" {
			if len(p.Changes) != 0 {
				t.Errorf("%s: changes %+v, want none", name, p.Changes)
			}
			continue
		}
		if len(p.Changes) != 1 || string(p.Changes[0].New.Data) != tc.want || p.Changes[0].Loc != irqbalanceLoc {
			t.Errorf("%s: %+v, want %s", name, p.Changes, tc.want)
		}
		for _, c := range sys.Calls {
			if !strings.HasPrefix(c, "show ") {
				t.Errorf("%s: planning ran systemctl %s", name, c)
			}
		}
	}
}

// Set and revert go through the journal and restore the original
// states, including a failed unit and one whose enablement latlab leaves.
func TestIrqbalanceSetRevert(t *testing.T) {
	for _, tc := range []struct {
		from  backend.ServiceState
		value string
		calls []string // the writes of the set, in order
	}{
		{svc("active", "enabled"), "off", []string{"stop", "disable"}},
		{svc("inactive", "disabled"), "on", []string{"enable", "start"}},
		{svc("failed", "enabled"), "on", []string{"start"}},
		{svc("active", "static"), "off", []string{"stop"}},
		{svc("active", "disabled"), "off", []string{"stop"}},
	} {
		from := tc.from
		env, sys, _ := serviceEnv(t, &from)
		dir := testutil.TempDir(t)
		applySteps(t, env, dir, []setStep{{irqbalanceName, Selector{}, tc.value}})
		var writes []string
		for _, c := range sys.Calls {
			if v, _, _ := strings.Cut(c, " "); v != "show" {
				writes = append(writes, v)
			}
		}
		if !slices.Equal(writes, tc.calls) {
			t.Errorf("%v %s: systemctl %v, want %v", tc.from, tc.value, writes, tc.calls)
		}
		j, err := journal.Read(dir)
		if err != nil || len(j.Entries) != 1 || !backend.Same(j.Entries[0].Original, tc.from.Value()) {
			t.Fatalf("%v: journal %+v %v", tc.from, j, err)
		}
		revertAll(t, env, dir)
		got, _ := sys.State(irqbUnit)
		if got.Enabled != tc.from.Enabled || got.Running() != tc.from.Running() {
			t.Errorf("%v %s: after revert %v", tc.from, tc.value, got)
		}
	}
}

// A write that fails half-way (stopped, then disable fails) is rolled
// back: the unit runs again and nothing stays open in the journal.
func TestIrqbalanceRollback(t *testing.T) {
	from := svc("active", "enabled")
	env, sys, _ := serviceEnv(t, &from)
	sys.Fail["disable "+irqbUnit] = true
	p, err := plan(env, irqbalanceName, Selector{}, "off")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(testutil.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := Apply(env, j, p); err == nil {
		t.Fatal("a failed disable was not reported")
	}
	if got, _ := sys.State(irqbUnit); got != from {
		t.Errorf("after rollback %v, want %v", got, from)
	}
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry left open: %+v", e)
		}
	}
}

// Vet takes every state the unit may be found in (the conformance test
// refuses the others).
func TestIrqbalanceVet(t *testing.T) {
	for _, st := range []backend.ServiceState{svc("active", "enabled"), svc("failed", "static"), svc("active", "-")} {
		if err := (irqbalance{}).Vet("", irqbalanceLoc, st.Value()); err != nil {
			t.Errorf("Vet(%v) = %v", st, err)
		}
	}
}

func TestIrqbalanceScript(t *testing.T) {
	loc := irqbalanceLoc
	for _, tc := range []struct {
		old, new backend.Value
		want     string
	}{
		{svc("active", "enabled").Value(), svc("inactive", "disabled").Value(), "systemctl stop 'irqbalance.service'\nsystemctl disable 'irqbalance.service'"},
		{svc("inactive", "disabled").Value(), svc("active", "enabled").Value(), "systemctl enable 'irqbalance.service'\nsystemctl start 'irqbalance.service'"},
		{backend.Absent, svc("active", "enabled").Value(), "systemctl enable 'irqbalance.service'\nsystemctl start 'irqbalance.service'"},
		{backend.Absent, svc("inactive", "static").Value(), "systemctl stop 'irqbalance.service'\n# irqbalance.service is static (left as it is)"},
	} {
		lines, _ := Script([]Change{{Loc: loc, Old: tc.old, New: tc.new}}, FormatSh)
		if got := strings.Join(lines[3:], "\n"); got != tc.want {
			t.Errorf("%s -> %s:\n%s\nwant\n%s", tc.old, tc.new, got, tc.want)
		}
	}
}

// The settings files as distributions ship them and as tuned and users
// edit them, read as sh reads them; a value latlab cannot know is left
// out, not shown as written.
func TestIrqbalanceConfigRead(t *testing.T) {
	for _, tc := range []struct {
		name, path, text string
		cpus, list       string
	}{
		// openSUSE's /etc/sysconfig/irqbalance (anthon-os/anthonos_SuSE_historical):
		// "## Type:" headers, an empty mask in quotes.
		{"suse", "etc/sysconfig/irqbalance", "## Path:        System/Kernel/IRQ Balancing\n## Default:\t\"\"\n#\n# Bitmap of CPUs that are banned from IRQ balancing\n#\nIRQBALANCE_BANNED_CPUS=\"\"\n\nIRQBALANCE_ONESHOT=auto\n", "", ""},
		// irqbalance's own misc/irqbalance.env: every setting commented out.
		{"upstream", "etc/sysconfig/irqbalance", "# IRQBALANCE_BANNED_CPUS\n#    64 bit bitmask ...\n#\n#IRQBALANCE_BANNED_CPUS=\n", "", ""},
		// Debian's older file (OXTbuilders/builder2017): ENABLED and OPTIONS only.
		{"debian sysv", "etc/default/irqbalance", "#Configuration for the irqbalance daemon\n\n#Should irqbalance be enabled?\nENABLED=\"1\"\nONESHOT=\"0\"\nOPTIONS=\"--hintpolicy=ignore\"\n", "", ""},
		{"single quotes", "etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST='2-3'\n", "", "2-3"},
		{"last wins", "etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=1\n#IRQBALANCE_BANNED_CPULIST=\nIRQBALANCE_BANNED_CPULIST=\"2-3\"\n", "", "2-3"},
		// Where sh and systemd's EnvironmentFile= parser differ or may:
		// sh ends the value at the comment, systemd's env-file.c goes on
		// reading the value after the closing quote; "export" is sh's.
		{"trailing comment", "etc/default/irqbalance", "IRQBALANCE_BANNED_CPUS=\"0000000c\" # CPUs 2 and 3\n", "", ""},
		{"export", "etc/default/irqbalance", "export IRQBALANCE_BANNED_CPULIST=2-3\n", "", ""},
		{"expansion", "etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=\"$ISOLATED\"\n", "", ""},
		{"command", "etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=$(cat /sys/devices/system/cpu/isolated)\n", "", ""},
	} {
		env, _ := isolationEnv(t, map[string]string{tc.path: tc.text})
		var d IrqbalanceDetail
		readIrqbalanceConfig(env, &d)
		if d.Config != "/"+tc.path || d.BannedCPUs != tc.cpus || d.BannedCPUList != tc.list {
			t.Errorf("%s: %+v, want banned %q and %q", tc.name, d, tc.cpus, tc.list)
		}
	}
}
