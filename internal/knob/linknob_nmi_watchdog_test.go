package knob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
)

// nmiWdFiles are the lockup detector files of a bare-metal kernel with
// both detectors on, as /proc/sys/kernel shows them.
var nmiWdFiles = map[string]string{
	"proc/sys/kernel/nmi_watchdog":    "1\n",
	"proc/sys/kernel/watchdog":        "1\n",
	"proc/sys/kernel/soft_watchdog":   "1\n",
	"proc/sys/kernel/watchdog_thresh": "10\n",
}

func TestNMIWatchdogExplain(t *testing.T) {
	k := nmiWatchdog{}
	for in, want := range map[string]string{
		"0":       "kernel.nmi_watchdog=0: no perf-counter NMIs",
		"NMI-OFF": "hard lockups are no longer detected",
		"1":       "kernel.nmi_watchdog=1",
		"off":     "kernel.watchdog=0: both lockup detectors off",
		"on":      "kernel.watchdog=1",
	} {
		ex, err := k.Explain(in, ExplainOptions{})
		if err != nil || len(ex.Text) != 1 || !strings.Contains(ex.Text[0], want) {
			t.Errorf("explain %s: %v %v, want %q", in, ex, err, want)
		}
	}
	_, err := k.Explain("2", ExplainOptions{})
	sysctlBadInput(t, "explain 2", err, "accepted nmi-off (or 0), nmi-on (or 1), off")
}

func TestNMIWatchdogGet(t *testing.T) {
	cases := []struct {
		name    string
		changes map[string]string
		value   string
		meaning string
		notes   []string
	}{
		{"both on", nil, "nmi_watchdog=1", "NMI watchdog on: each CPU's cycle counter raises an NMI after every 10 s of busy time to check for hard lockups; soft lockup detector on: a per-CPU hrtimer every 4 s",
			[]string{"kernel.watchdog=1", "kernel.soft_watchdog=1", "kernel.watchdog_thresh=10"}},
		// A VM without a hard lockup detector: nmi_watchdog reads 0.
		{"vm", map[string]string{"proc/sys/kernel/nmi_watchdog": "0\n"}, "nmi_watchdog=0", "NMI watchdog off: hard lockups (a CPU stuck with interrupts off) are not detected (or this kernel or VM has no hard lockup detector); soft lockup detector on", nil},
		{"all off", map[string]string{"proc/sys/kernel/nmi_watchdog": "0\n", "proc/sys/kernel/watchdog": "0\n", "proc/sys/kernel/soft_watchdog": "0\n"}, "nmi_watchdog=0", "both lockup detectors off (kernel.watchdog=0)", nil},
		{"thresh 0", map[string]string{"proc/sys/kernel/watchdog_thresh": "0\n"}, "nmi_watchdog=1", "watchdog_thresh is 0: lockup detection is off altogether", nil},
		{"thresh 5", map[string]string{"proc/sys/kernel/watchdog_thresh": "5\n"}, "nmi_watchdog=1", "after every 5 s of busy time to check for hard lockups; soft lockup detector on: a per-CPU hrtimer every 2 s", nil},
		{"no soft detector", map[string]string{"proc/sys/kernel/soft_watchdog": ""}, "nmi_watchdog=1", "NMI watchdog on", []string{"kernel.soft_watchdog: absent"}},
		{"no detector", map[string]string{"proc/sys/kernel/nmi_watchdog": "", "proc/sys/kernel/watchdog": "", "proc/sys/kernel/soft_watchdog": "", "proc/sys/kernel/watchdog_thresh": ""},
			"absent", "kernel.nmi_watchdog does not exist: this kernel has no lockup detector", nil},
	}
	for _, c := range cases {
		env, _ := sysctlEnv(t, sysctlWith(nmiWdFiles, c.changes))
		r, err := nmiWatchdog{}.Get(env, Selector{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(r.Items) != 1 || r.Items[0].Value != c.value || !strings.Contains(r.Items[0].Meaning, c.meaning) {
			t.Errorf("%s: %+v, want %q: %q", c.name, r.Items, c.value, c.meaning)
		}
		for _, n := range c.notes {
			if !slices.Contains(r.Notes, n) {
				t.Errorf("%s: notes %q lack %q", c.name, r.Notes, n)
			}
		}
	}
}

func TestNMIWatchdogPlan(t *testing.T) {
	cases := []struct {
		name    string
		changes map[string]string
		value   string
		want    []string
		note    string
	}{
		{"nmi off", nil, "nmi-off", []string{"proc/sys/kernel/nmi_watchdog=0"}, "soft lockup detector and its per-CPU hrtimer keep running"},
		{"0", nil, "0", []string{"proc/sys/kernel/nmi_watchdog=0"}, "no longer detected"},
		{"both off", nil, "off", []string{"proc/sys/kernel/watchdog=0"}, "no longer detected"},
		{"already on", nil, "on", nil, ""},
		{"nmi on", map[string]string{"proc/sys/kernel/nmi_watchdog": "0\n"}, "nmi-on", []string{"proc/sys/kernel/nmi_watchdog=1"}, ""},
		{"both on", map[string]string{"proc/sys/kernel/watchdog": "0\n", "proc/sys/kernel/nmi_watchdog": "0\n"}, "on", []string{"proc/sys/kernel/watchdog=1"}, ""},
		{"nmi off under master off", map[string]string{"proc/sys/kernel/watchdog": "0\n", "proc/sys/kernel/nmi_watchdog": "0\n"}, "nmi-off", nil, "both lockup detectors are off already"},
	}
	for _, c := range cases {
		env, _ := sysctlEnv(t, sysctlWith(nmiWdFiles, c.changes))
		p, err := nmiWatchdog{}.Plan(env, Selector{}, c.value)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := sysctlChanges(p); !slices.Equal(got, c.want) {
			t.Errorf("%s: changes %q, want %q", c.name, got, c.want)
		}
		if c.note != "" && !strings.Contains(strings.Join(p.Notes, "; "), c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, p.Notes, c.note)
		}
	}
	// nmi-on under kernel.watchdog=0 would read back 0 whatever it wrote.
	env, _ := sysctlEnv(t, sysctlWith(nmiWdFiles, map[string]string{"proc/sys/kernel/watchdog": "0\n", "proc/sys/kernel/nmi_watchdog": "0\n"}))
	_, err := nmiWatchdog{}.Plan(env, Selector{}, "nmi-on")
	sysctlBadInput(t, "nmi-on under watchdog=0", err, "set on first")
	_, err = nmiWatchdog{}.Plan(env, Selector{}, "yes")
	sysctlBadInput(t, "yes", err, "accepted nmi-off")
	// A kernel without the file: nothing to set, said plainly.
	env, _ = sysctlEnv(t, map[string]string{})
	if _, err := (nmiWatchdog{}).Plan(env, Selector{}, "nmi-off"); err == nil || !strings.Contains(err.Error(), "kernel.nmi_watchdog does not exist") {
		t.Errorf("absent: %v", err)
	}
}

func TestNMIWatchdogCrashAtEveryWrite(t *testing.T) {
	crashEverywhere(t, []setStep{{nmiWatchdogName, Selector{}, "nmi-off"}, {nmiWatchdogName, Selector{}, "off"}, {nmiWatchdogName, Selector{}, "on"}},
		func(t *testing.T) (*Env, func() map[string]string) {
			env, root := sysctlEnv(t, nmiWdFiles)
			return env, func() map[string]string { return snapshotTree(t, root) }
		})
}

// The conformance suite (linknob_nmi_watchdog_conform_test.go) vets what
// its plans write and find; an original spelt without a newline is one
// Revert may put back too.
func TestNMIWatchdogVetOriginals(t *testing.T) {
	k := nmiWatchdog{}
	for _, l := range []backend.Loc{nmiWdLoc, wdLoc} {
		for _, v := range []string{"0\n", "1\n", "1"} {
			if err := k.Vet("", l, backend.FileValue(v)); err != nil {
				t.Errorf("%s %q: %v", l, v, err)
			}
		}
	}
}

// readOnlyFiles is a file backend that cannot open one file for writing,
// as the kernel makes nmi_watchdog 0444 where there is no hard lockup
// detector (root writes any file of a fixture tree, so chmod cannot
// show it).
type readOnlyFiles struct {
	backend.Files
	ro backend.Loc
}

func (f readOnlyFiles) CheckWrite(l backend.Loc) error {
	if l == f.ro {
		return errors.New("permission denied")
	}
	return f.Files.CheckWrite(l)
}

// A VM without a hard lockup detector: nmi-on says why it cannot be,
// instead of a bare "permission denied" at the write.
func TestNMIWatchdogOnWithoutDetector(t *testing.T) {
	env, root := sysctlEnv(t, sysctlWith(nmiWdFiles, map[string]string{"proc/sys/kernel/nmi_watchdog": "0\n"}))
	env.Backends[backend.BackendFile] = readOnlyFiles{backend.Files{Root: root}, nmiWdLoc}
	_, err := nmiWatchdog{}.Plan(env, Selector{}, "nmi-on")
	if err == nil || !strings.Contains(err.Error(), "no hard lockup detector, so the NMI watchdog cannot be turned on") {
		t.Errorf("nmi-on: %v", err)
	}
	// Without the privilege to write anything, nothing is concluded.
	env.Backends[backend.BackendFile] = readOnlyFiles{backend.Files{Root: root}, wdLoc}
	if p, err := (nmiWatchdog{}).Plan(env, Selector{}, "nmi-on"); err != nil || len(p.Changes) != 1 {
		t.Errorf("nmi-on with kernel.watchdog unwritable too: %+v %v", p, err)
	}
}
