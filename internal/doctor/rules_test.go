package doctor

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
)

// win changes the default Windows machine of a rule case.
type win func(env *knob.Env, reg, bcd *knobtest.Mem)

func setReg(path, name string, v backend.Value) win {
	return func(_ *knob.Env, reg, _ *knobtest.Mem) { reg.Set(path, name, v) }
}

func delReg(path, name string) win {
	return func(_ *knob.Env, reg, _ *knobtest.Mem) {
		reg.Write(backend.Loc{Backend: backend.BackendRegistry, Path: path, Name: name}, backend.Absent)
	}
}

func build(b uint32, w ...win) win {
	return func(env *knob.Env, reg, bcd *knobtest.Mem) {
		env.Build = b
		for _, f := range w {
			f(env, reg, bcd)
		}
	}
}

// server is build b of Windows Server.
func server(b uint32, w ...win) win {
	return func(env *knob.Env, reg, bcd *knobtest.Mem) {
		env.Server = true
		build(b, w...)(env, reg, bcd)
	}
}

// ruleCases are the machines whose audit checks what the check-up adds to
// a knob's rule: the rules for any knob, the try step a finding suggests,
// the is-default of a platform's shipped value. Every knob's own rules are
// reached beside it, by its conformance test (knobtest/suite).
type ruleCase struct {
	rule   string
	knob   string
	linux  map[string]string // changes to the Linux tree
	win    win               // changes to the Windows machine (build 22631 client)
	verd   knob.Verdict
	reason string // part of the reason
	value  string // part of the value, when it matters
	// try is the latlab try step the finding suggests ("" for none).
	try string
}

var ruleCases = []ruleCase{
	{rule: "needs-privilege", knob: "tsc-sync-policy", verd: knob.Unknown, reason: "needs an elevated prompt (Administrator)", value: "unknown (needs Administrator)",
		win: func(env *knob.Env, _, _ *knobtest.Mem) {
			env.Privileged = func() error { return errors.New("not elevated") }
			env.Backends[backend.BackendBCD] = &backend.BCD{Run: func(...string) ([]byte, error) {
				return nil, errors.New("bcdedit /enum {current}: exit status 1: The boot configuration data store could not be opened.\r\nAccess is denied.")
			}}
		}},
	{rule: "unreadable", knob: "tcp-recovery", verd: knob.Unknown, reason: "does not exist on this kernel", value: "unknown",
		linux: map[string]string{"proc/sys/net/ipv4/tcp_recovery": ""}},
	// The default tree has no /sys/kernel/mm: it does not say whether the
	// kernel has KSM.
	{rule: "not-shown", knob: "ksm", verd: knob.Unknown, reason: "not in this tree: /sys/kernel/mm is missing too", value: "absent"},

	{rule: "prisep-high-bits", knob: "win32-priority-separation", verd: knob.Suspicious, reason: "0x126 acts as 0x26",
		win: setReg(prioKey, "Win32PrioritySeparation", backend.DWORD(0x126)), try: "latlab try win32-priority-separation 0x2 --probe sleep"},
	{rule: "prisep-other", knob: "win32-priority-separation", verd: knob.Changed, reason: "0x28 = short, fixed quanta, foreground 18 units",
		win: setReg(prioKey, "Win32PrioritySeparation", backend.DWORD(0x28)), try: "latlab try win32-priority-separation 0x2 --probe sleep"},

	{rule: "gtrr-server-2022", knob: "global-timer-resolution-requests", verd: knob.Default, reason: "the Windows Server 2022 default: global again",
		win: server(20348, setReg(kernelKey, "GlobalTimerResolutionRequests", backend.DWORD(1)))},
	{rule: "gtrr-server-2022-off", knob: "global-timer-resolution-requests", verd: knob.Changed, reason: "changed from the Windows Server 2022 default 1: per process",
		win: server(20348, setReg(kernelKey, "GlobalTimerResolutionRequests", backend.DWORD(0)))},

	{rule: "slack-changed", knob: "timer-slack", verd: knob.Changed, reason: "inherited this slack from the program that started it: timers may fire up to 1µs late",
		linux: map[string]string{"proc/self/timerslack_ns": "1000\n"}, try: "latlab try timer-slack 50us --probe sleep"},

	{rule: "cs-slow-tsc-available", knob: "clocksource", verd: knob.Suspicious, reason: "hpet is slow to read and tsc is available",
		linux: map[string]string{"sys/devices/system/clocksource/clocksource0/current_clocksource": "hpet\n",
			"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet acpi_pm \n"}, try: "latlab try clocksource tsc --probe sleep"},

	{rule: "governor-lowest", knob: "cpu-governor", verd: knob.Suspicious, reason: "powersave pins the lowest frequency",
		linux: map[string]string{"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
			"sys/devices/system/cpu/cpu0/cpufreq/scaling_driver": "acpi-cpufreq\n"}, try: "latlab try cpu-governor performance --probe sleep"},

	{rule: "energy-saving", knob: "energy-performance-preference", verd: knob.Suspicious, reason: "saves power first: slowest to ramp up: wake-ups start at a low clock",
		linux: map[string]string{"sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference": "power\n"}, try: "latlab try energy-performance-preference performance --probe sleep"},

	{rule: "idle-disabled", knob: "cpu-idle-states", verd: knob.Changed, reason: "C6, exit latency 85µs: disabled, so wake-ups never wait for it to be left; the cost is power and heat (tuned 2.20.0 latency-performance sets [cpu] force_latency=cstate.id_no_zero:1|3)",
		value: "disabled", linux: idleState("C6", "85", "1"), try: "latlab try cpu-idle-states all --probe sleep"},

	{rule: "stat-interval-long", knob: "stat-interval", verd: knob.Changed, reason: "every 10 s instead of every second", value: "10",
		linux: map[string]string{"proc/sys/vm/stat_interval": "10\n"}, try: "latlab try stat-interval 1 --probe sleep"},

	{rule: "timer-mig-off", knob: "timer-migration", verd: knob.Changed, reason: "off: every timer fires on the CPU that armed it",
		linux: map[string]string{"proc/sys/kernel/timer_migration": "0\n"}, try: "latlab try timer-migration 1 --probe sleep"},
}

func swapFiles(swappiness string) map[string]string {
	return map[string]string{"proc/sys/vm/swappiness": swappiness,
		"proc/swaps": "Filename\tType\tSize\tUsed\tPriority\n/swapfile\tfile\t1048572\t0\t-2\n"}
}

// idleState is CPU 0 with one idle state.
func idleState(name, latency, disable string) map[string]string {
	d := "sys/devices/system/cpu/cpu0/cpuidle/state0/"
	return map[string]string{d + "name": name + "\n", d + "latency": latency + "\n", d + "disable": disable + "\n"}
}

// TestRules runs one case per rule: the knob's setting must be decided by
// that rule, with its verdict, a reason that says what was found and,
// where the rule quotes evidence, the quote.
func TestRules(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.rule, func(t *testing.T) {
			r, s := auditRuleCase(t, c.rule)
			if s.Rule != c.rule || s.Verdict != c.verd {
				t.Fatalf("decided by %s (%s), want %s (%s): %+v", s.Rule, s.Verdict, c.rule, c.verd, s)
			}
			if !strings.Contains(s.Reason, c.reason) {
				t.Errorf("reason %q, want it to contain %q", s.Reason, c.reason)
			}
			if !strings.Contains(s.Value, c.value) {
				t.Errorf("value %q, want it to contain %q", s.Value, c.value)
			}
			if r.Evidence != nil && len(s.Evidence) < 20 {
				t.Errorf("the rule quotes evidence but the quote is %q", s.Evidence)
			}
			if r.Next != nil && s.next == nil {
				t.Errorf("the rule suggests a step but gave none")
			}
			if s.Default == "" {
				t.Errorf("no default stated")
			}
			switch {
			case s.Verdict == knob.Unknown && s.IsDefault != nil:
				t.Errorf("an unknown value is said to be default=%v", *s.IsDefault)
			case s.Verdict == knob.Suspicious:
				if s.IsDefault == nil || *s.IsDefault {
					t.Errorf("a %s value is not the default", s.Verdict)
				}
			}
		})
	}
}

// auditRuleCase audits the machine of the rule case id and returns its
// rule and the setting of its knob.
func auditRuleCase(t *testing.T, id string) (*knob.Rule, Setting) {
	t.Helper()
	i := slices.IndexFunc(ruleCases, func(c ruleCase) bool { return c.rule == id })
	if i < 0 {
		t.Fatalf("no case of rule %s", id)
	}
	c := ruleCases[i]
	var r *knob.Rule
	for i := range Rules {
		if Rules[i].ID == c.rule {
			r = &Rules[i]
		}
	}
	if r == nil {
		t.Fatalf("no rule %s", c.rule)
	}
	k, err := knob.Lookup(c.knob)
	if err != nil {
		t.Fatal(err)
	}
	var ss []Setting
	if k.OS() == "windows" {
		env, reg, bcd := windowsEnv(22631, false)
		if c.win != nil {
			c.win(env, reg, bcd)
		}
		ss = Audit(env, "windows")
	} else {
		env := linuxEnv(linuxTree(t, c.linux))
		ss = Audit(env, "linux")
	}
	return r, find(t, ss, c.knob, "")
}

// Where a finding is tuned or suspicious and latlab try can switch the
// knob live with a probe that needs no peer, the next steps include the
// experiment that measures it against the default; no other finding
// suggests one.
func TestDoctorTrySteps(t *testing.T) {
	n := 0
	for _, c := range ruleCases {
		t.Run(c.rule, func(t *testing.T) {
			_, s := auditRuleCase(t, c.rule)
			got := ""
			if s.try != nil {
				got = s.try.Command
				if s.try.Why == "" || s.try.Benefit <= 0 {
					t.Errorf("step %+v", s.try)
				}
				n++
			}
			if got != c.try {
				t.Errorf("try step %q, want %q", got, c.try)
			}
			if got != "" && !slices.ContainsFunc(NextSteps(&Result{Profile: Thorough, Settings: []Setting{s}}), func(st Step) bool { return st.Command == got }) {
				t.Errorf("%s is not among the next steps", got)
			}
		})
	}
	if n < 4 {
		t.Errorf("only %d findings suggest latlab try", n)
	}
}

// Every rule of the table has its case, and every case names a rule.
func TestEveryRuleHasACase(t *testing.T) {
	var tested []string
	for _, c := range ruleCases {
		tested = append(tested, c.rule)
	}
	// A knob's conformance test reaches every rule of the knob.
	conformed := conformedKnobs(t)
	if len(conformed) == 0 {
		t.Error("no knob runs the conformance suite")
	}
	for n := range conformed {
		if _, err := knob.Lookup(n); err != nil {
			t.Errorf("a conformance test names %s: %v", n, err)
		}
	}
	for _, k := range knob.All() {
		if !conformed[k.Name()] {
			t.Errorf("knob %s runs no conformance suite (knobtest/suite) from its test file", k.Name())
		}
	}
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] {
			t.Errorf("rule %s twice", r.ID)
		}
		seen[r.ID] = true
		if !slices.Contains(tested, r.ID) && !conformed[r.Knob] {
			t.Errorf("rule %s has no case", r.ID)
		}
		if r.When == "" || r.Match == nil || r.Reason == nil {
			t.Errorf("rule %s is incomplete", r.ID)
		}
		if _, err := knob.Lookup(r.Knob); err != nil && r.Knob != "*" {
			t.Errorf("rule %s: %v", r.ID, err)
		}
	}
	// Each knob's rules end with a catch-all, so no value goes unjudged.
	for _, k := range knob.All() {
		var last *knob.Rule
		for i := range Rules {
			if Rules[i].Knob == k.Name() {
				last = &Rules[i]
			}
		}
		if last == nil {
			t.Errorf("knob %s has no rules", k.Name())
			continue
		}
		if !last.Match(&knob.Case{Knob: k.Name(), Raw: backend.Absent}) {
			t.Errorf("the last rule of %s (%s) is not a catch-all", k.Name(), last.ID)
		}
	}
}

// PC-Tuning ("Fixing Timing Precision in Windows After The Great Rule
// Change", https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
// "the registry key is present and set to 1 by default on Windows Server
// 2022". The check-up called it "is_default": false, "tuned" there, while
// timer status on the same machine said Server 2022 ships with it set.
func TestGlobalTimerServer2022ShipsSetTo1(t *testing.T) {
	_, s := auditRuleCase(t, "gtrr-server-2022")
	if s.Verdict != knob.Default || s.IsDefault == nil || !*s.IsDefault || !strings.HasPrefix(s.Default, "1") {
		t.Errorf("Server 2022 with its shipped 1: verdict %s, is_default %v, default %q", s.Verdict, s.IsDefault, s.Default)
	}
	_, s = auditRuleCase(t, "gtrr-server-2022-off")
	if s.IsDefault == nil || *s.IsDefault {
		t.Errorf("Server 2022 with 0 is not its default: %+v", s)
	}
}

// One meaning per build: before Windows 10 2004 (build 19041) requests
// are global whatever the value, and the knob's reading, the check-up's
// reason and its timer rule all say so. knob get printed "per-process ...
// (Windows 10 2004+ behaviour)" on any build.
func TestGlobalTimerOneMeaningPerBuild(t *testing.T) {
	for _, b := range []uint32{18362, 19045, 22631} {
		env, _, _ := windowsEnv(b, false)
		k, err := knob.Lookup("global-timer-resolution-requests")
		if err != nil {
			t.Fatal(err)
		}
		rd, err := k.Get(env, knob.Selector{})
		if err != nil {
			t.Fatal(err)
		}
		meaning := rd.Items[0].Meaning
		rule := TimerRule(b, false, nil)
		if meaning != rule {
			t.Errorf("build %d: knob get says %q, the timer rule %q", b, meaning, rule)
		}
		global := strings.HasPrefix(meaning, "global")
		if global != (b < 19041) {
			t.Errorf("build %d: %q", b, meaning)
		}
	}
}

// Under Wine no Scaling value is stored and QueryDisplayConfig reports an
// identity path: knob list said "identity in use" while the check-up said
// "(none)". Both now give the stored nothing and the identity in use.
func TestDisplayScalingNoneStoredNamesTheActiveMode(t *testing.T) {
	env, reg, bcd := windowsEnv(22631, false)
	delReg(graphicsKey+`\`+displayID+`\00\00`, "Scaling")(env, reg, bcd)
	env.Display = func() ([]knob.DisplayPath, error) {
		return []knob.DisplayPath{{Scaling: 1, ScalingName: "identity", RefreshHz: 60, Active: true}}, nil
	}
	for _, s := range Audit(env, "windows") {
		if s.Knob != "display-scaling" {
			continue
		}
		if s.Value != "none stored; in use: identity" || !strings.Contains(s.Reason, "the active paths use identity") {
			t.Errorf("value %q, reason %q", s.Value, s.Reason)
		}
		return
	}
	t.Fatal("no display-scaling setting")
}

// TestAbsentSettingVerdicts: a setting file there is judged; missing
// while the directory every kernel has above it is there, it is the
// kernel's lack, nothing to tune; missing with that directory, the tree
// does not show it, and nothing is judged (not the default either).
func TestAbsentSettingVerdicts(t *testing.T) {
	for _, c := range []struct {
		knob, file, anchorFile, content string
	}{
		{"ksm", "sys/kernel/mm/ksm/run", "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n"},
		{"swappiness", "proc/sys/vm/swappiness", "proc/sys/vm/overcommit_memory", "60\n"},
		{"sched-autogroup", "proc/sys/kernel/sched_autogroup_enabled", "proc/sys/kernel/ostype", "1\n"},
	} {
		for _, tr := range []struct {
			name         string
			files        map[string]string
			verdict      knob.Verdict
			rule, reason string
			defaultKnown bool
			valueAbsent  bool
		}{
			{"present", map[string]string{c.file: c.content, c.anchorFile: "0\n"}, knob.Default, "", "", true, false},
			{"kernel lacks", map[string]string{c.anchorFile: "0\n"}, knob.Default, "-absent", "this kernel has no", false, true},
			// (the default tree's /proc/sys/kernel holds version only)
			{"tree does not show", map[string]string{"proc/sys/kernel": ""}, knob.Unknown, "not-shown", "is missing too, so the tree does not say whether the kernel has", false, true},
		} {
			ss := Audit(linuxEnv(linuxTree(t, tr.files)), "linux")
			s := find(t, ss, c.knob, "")
			what := c.knob + ", " + tr.name
			if s.Verdict != tr.verdict || !strings.Contains(s.Rule, tr.rule) || !strings.Contains(s.Reason, tr.reason) {
				t.Errorf("%s: %s by %s (%q), want %s by %s saying %q", what, s.Verdict, s.Rule, s.Reason, tr.verdict, tr.rule, tr.reason)
			}
			if (s.IsDefault != nil) != tr.defaultKnown {
				t.Errorf("%s: is default %v, want it known: %v", what, s.IsDefault, tr.defaultKnown)
			}
			if (s.Value == "absent") != tr.valueAbsent {
				t.Errorf("%s: value %q", what, s.Value)
			}
		}
	}
}
