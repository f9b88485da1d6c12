package knob

import (
	"errors"
	"io/fs"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// Kernel version strings as uname -v prints them (scripts/mkcompile_h).
const (
	versionDynamic = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n"
	versionRT      = "#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)\n"
	versionPreempt = "#1 SMP PREEMPT Tue Jan 9 2024\n"
	versionPlain   = "#1 SMP Tue Jan 9 2024\n"
	preemptFull    = "none voluntary (full) lazy \n" // sched_dynamic_show
)

func TestPreemptionGet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		value string
		model string
		loc   bool
	}{
		{"dynamic read", map[string]string{"proc/sys/kernel/version": versionDynamic, "sys/kernel/debug/sched/preempt": "none (voluntary) full \n"}, "voluntary (dynamic)", "voluntary", true},
		{"dynamic lazy", map[string]string{"proc/sys/kernel/version": versionDynamic, "sys/kernel/debug/sched/preempt": "none voluntary full (lazy) \n"}, "lazy (dynamic)", "lazy", true},
		{"debugfs not mounted", map[string]string{"proc/sys/kernel/version": versionDynamic, "proc/cmdline": "ro preempt=full\n"}, "full at boot (dynamic)", "", false},
		{"debugfs not mounted, no model", map[string]string{"proc/sys/kernel/version": versionDynamic, "proc/cmdline": "ro preempt=fast\n"}, "dynamic, unread", "", false},
		{"rt", map[string]string{"proc/sys/kernel/version": versionRT, "sys/kernel/realtime": "1\n"}, "PREEMPT_RT", "rt", false},
		{"rt with debugfs", map[string]string{"proc/sys/kernel/version": versionRT, "sys/kernel/debug/sched/preempt": "(full) lazy \n"}, "PREEMPT_RT (full)", "rt", true},
		{"preempt build", map[string]string{"proc/sys/kernel/version": versionPreempt}, "full", "full", false},
		{"plain build", map[string]string{"proc/sys/kernel/version": versionPlain}, "none or voluntary", "", false},
		{"nothing", nil, "unknown", "", false},
	} {
		env, _ := isolationEnv(t, tc.files)
		it := get(t, env, preemptionName, Selector{}).Items[0]
		d := it.Detail.(PreemptionDetail)
		if it.Value != tc.value || d.Model != tc.model || (it.Loc != nil) != tc.loc || it.Meaning == "" {
			t.Errorf("%s: %q model %q loc %v (%s), want %q %q %v", tc.name, it.Value, d.Model, it.Loc, it.Meaning, tc.value, tc.model, tc.loc)
		}
		if tc.name == "debugfs not mounted" && (d.BootParam != "full" || !strings.Contains(it.Meaning, "mount -t debugfs none /sys/kernel/debug")) {
			t.Errorf("%s: %+v %s", tc.name, d, it.Meaning)
		}
	}
}

// A PREEMPT_DYNAMIC kernel whose debugfs cannot be read started with its
// preempt= model, else with its configuration's, as preempt_dynamic_init
// chooses it; the reading says which and that root may have switched it.
func TestPreemptionBootModel(t *testing.T) {
	for _, tc := range []struct {
		name, cmdline string
		cfg           map[string]string
		value, from   string
		rule          string
	}{
		{"config none", "ro quiet", map[string]string{"CONFIG_PREEMPT_NONE": "y", "CONFIG_PREEMPT_DYNAMIC": "y", "CONFIG_PREEMPTION": "y"},
			"none at boot (dynamic)", "CONFIG_PREEMPT_NONE=y in /proc/config.gz, no preempt= on the kernel command line", "preempt-boot"},
		{"config voluntary", "ro", map[string]string{"CONFIG_PREEMPT_VOLUNTARY": "y", "CONFIG_PREEMPT_BUILD": "y"},
			"voluntary at boot (dynamic)", "CONFIG_PREEMPT_VOLUNTARY=y", "preempt-boot"},
		// 5.12-5.15: PREEMPT_DYNAMIC selects CONFIG_PREEMPT; the choice
		// is the _BEHAVIOUR option.
		{"config behaviour", "ro", map[string]string{"CONFIG_PREEMPT": "y", "CONFIG_PREEMPT_VOLUNTARY_BEHAVIOUR": "y"},
			"voluntary at boot (dynamic)", "CONFIG_PREEMPT_VOLUNTARY_BEHAVIOUR=y", "preempt-boot"},
		{"config lazy", "ro", map[string]string{"CONFIG_PREEMPT_LAZY": "y"}, "lazy at boot (dynamic)", "CONFIG_PREEMPT_LAZY=y", "preempt-boot-full"},
		{"config full", "ro", map[string]string{"CONFIG_PREEMPT": "y", "CONFIG_PREEMPT_DYNAMIC": "y"}, "full at boot (dynamic)", "CONFIG_PREEMPT=y", "preempt-boot-full"},
		{"param wins", "ro preempt=voluntary", map[string]string{"CONFIG_PREEMPT": "y"}, "voluntary at boot (dynamic)", "preempt=voluntary on the kernel command line", "preempt-boot"},
		{"param names no model", "ro preempt=fast", map[string]string{"CONFIG_PREEMPT_NONE": "y"}, "none at boot (dynamic)", "(preempt=fast names no model)", "preempt-boot"},
		{"no config", "ro", nil, "dynamic, unread", "", "preempt-unread"},
		{"config without a model", "ro", map[string]string{"CONFIG_HZ": "250"}, "dynamic, unread", "", "preempt-unread"},
	} {
		env, _ := isolationEnv(t, map[string]string{"proc/sys/kernel/version": versionDynamic, "proc/cmdline": tc.cmdline + "\n"})
		cfg := tc.cfg
		env.KernelConfig = func() (map[string]string, string) { return cfg, "/proc/config.gz" }
		it := get(t, env, preemptionName, Selector{}).Items[0]
		d := it.Detail.(PreemptionDetail)
		if it.Value != tc.value || d.Model != "" || !strings.Contains(d.BootFrom, tc.from) {
			t.Errorf("%s: %q from %q, want %q from %q", tc.name, it.Value, d.BootFrom, tc.value, tc.from)
		}
		if tc.from != "" && !strings.Contains(it.Meaning, "root may have switched it since") {
			t.Errorf("%s: meaning %q does not say root may have switched it", tc.name, it.Meaning)
		}
		c := baseCase(env, preemption{})
		fill(c, it, nil)
		rule := ""
		for _, r := range (preemption{}).Checkup().Rules {
			if r.Match(c) {
				rule = r.ID
				break
			}
		}
		if rule != tc.rule {
			t.Errorf("%s: rule %s, want %s", tc.name, rule, tc.rule)
		}
	}
}

// deniedFiles refuses sched/preempt as a kernel does that closes debugfs
// (EPERM, even to root).
type deniedFiles struct{ backend.Files }

func (d deniedFiles) Read(l backend.Loc) (backend.Value, error) {
	if l.Path == preemptLoc.Path {
		return backend.Value{}, &fs.PathError{Op: "open", Path: l.Path, Err: syscall.EPERM}
	}
	return d.Files.Read(l)
}

// sched/preempt refused: without root, root can read it; as root, debugfs
// is closed to the process, and the plan is the boot parameter, not a
// call for sudo.
func TestPreemptionDebugfsDenied(t *testing.T) {
	for _, root := range []bool{false, true} {
		env, _ := isolationEnv(t, map[string]string{"proc/sys/kernel/version": versionDynamic, "proc/cmdline": "ro preempt=voluntary\n"})
		env.Backends[backend.BackendFile] = deniedFiles{env.Backends[backend.BackendFile].(backend.Files)}
		env.Privileged = func() error { return errors.New("changing kernel settings needs root") }
		want := "which only root can read"
		if root {
			env.Privileged = func() error { return nil }
			want = "may not read even as root"
		}
		it := get(t, env, preemptionName, Selector{}).Items[0]
		if d := it.Detail.(PreemptionDetail); d.Debugfs != "denied" || it.Value != "voluntary at boot (dynamic)" || !strings.Contains(it.Meaning, want) {
			t.Errorf("root %v: %q %q (debugfs %s), want %q", root, it.Value, it.Meaning, d.Debugfs, want)
		}
		p, err := plan(env, preemptionName, Selector{}, "full")
		switch {
		case !root && (err == nil || !strings.Contains(err.Error(), "needs root")):
			t.Errorf("not root: plan %+v %v, want needs root", p, err)
		case root && (err != nil || len(p.Manual) == 0 || !strings.Contains(strings.Join(p.Notes, " "), "only at boot")):
			t.Errorf("root: plan %+v %v, want the boot steps", p, err)
		}
	}
}

// The dry run writes the bare model word, never the listing the file
// shows (the conformance test sets and reverts it).
func TestPreemptionDryRun(t *testing.T) {
	env, _ := isolationEnv(t, map[string]string{"proc/sys/kernel/version": versionDynamic, "sys/kernel/debug/sched/preempt": preemptFull})
	p, err := plan(env, preemptionName, Selector{}, "none")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || string(p.Changes[0].Old.Data) != "full\n" || string(p.Changes[0].New.Data) != "none\n" {
		t.Fatalf("plan: %+v", p.Changes)
	}
	lines, _ := Script(p.Changes, FormatSh)
	if got := lines[len(lines)-1]; got != "printf '%s\\n' 'none' > '/sys/kernel/debug/sched/preempt'" {
		t.Errorf("dry run: %s", got)
	}
}

func TestPreemptionPlanRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		value  string
		err    string // "" = a plan of manual steps
		badIn  bool
		manual string
	}{
		{"not offered", map[string]string{"proc/sys/kernel/version": versionDynamic, "sys/kernel/debug/sched/preempt": "none (voluntary) full \n"}, "lazy", "accepted none, voluntary, full", true, ""},
		{"fixed build", map[string]string{"proc/sys/kernel/version": versionPlain}, "full", "fixed when it is built", false, ""},
		{"rt", map[string]string{"proc/sys/kernel/version": versionRT}, "none", "PREEMPT_RT kernel", true, ""},
		{"debugfs not mounted", map[string]string{"proc/sys/kernel/version": versionDynamic, "proc/cmdline": "ro preempt=none\n",
			"etc/default/grub": "GRUB_CMDLINE_LINUX=\"quiet preempt=none\"\n"}, "full", "", false, `GRUB_CMDLINE_LINUX="quiet preempt=full"`},
	} {
		env, _ := isolationEnv(t, tc.files)
		p, err := plan(env, preemptionName, Selector{}, tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || badinput.Is(err) != tc.badIn {
				t.Errorf("%s: %v, want %q (bad input %v)", tc.name, err, tc.err, tc.badIn)
			}
			continue
		}
		if err != nil || len(p.Changes) != 0 || len(p.Manual) == 0 || p.Manual[0].Line != tc.manual {
			t.Errorf("%s: %+v %v, want manual steps with %q", tc.name, p, err, tc.manual)
		}
	}
}

// This machine's own reading never fails, whether debugfs is mounted or not.
func TestPreemptionRealRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads this machine's /proc and /sys")
	}
	it := get(t, NewEnv("/"), preemptionName, Selector{}).Items[0]
	if it.Value == "" || it.Meaning == "" {
		t.Errorf("%+v", it)
	}
}
