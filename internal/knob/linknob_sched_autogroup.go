package knob

func init() { register(schedAutogroupKnob) }

// schedAutogroupName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const schedAutogroupName = "sched-autogroup"

// sched(7), "The autogroup feature" (Linux 2.6.38, CONFIG_SCHED_AUTOGROUP),
// and Documentation/admin-guide/sysctl/kernel.rst: 1 by default, 0 when
// booted with noautogroup. Each session (setsid) is a task group; CFS
// shares the CPU between groups, so a nice value ranks a thread only
// within its own session. The realtime policies and threads already in a
// CPU cgroup other than the root are not autogrouped.
var schedAutogroupKnob = &intSysctl{
	name:     schedAutogroupName,
	summary:  "whether the scheduler groups each session's processes and shares the CPU between the groups (kernel.sched_autogroup_enabled)",
	loc:      fileLoc("proc/sys/kernel/sched_autogroup_enabled"),
	lacks:    "autogroup scheduling (CONFIG_SCHED_AUTOGROUP)",
	parse:    parseBool01,
	accepted: "accepted 0|1|on|off",
	meaning:  autogroupMeaning,
	explain: []string{
		"kernel.sched_autogroup_enabled: 1 on (the default, unless the kernel was booted with noautogroup), 0 off; kernels built without CONFIG_SCHED_AUTOGROUP lack the file (sched(7), Documentation/admin-guide/sysctl/kernel.rst).",
		"On, every session (setsid: a terminal, a login, a daemon that detaches) is a task group, and the fair scheduler shares the CPU between the groups before it shares a group's share between its threads: a make -j of ten CPU-bound processes gets as much CPU as one video player in another session. A nice value then ranks a thread only against the threads of its own session; setting it on a latency-sensitive program does not favour it over another session's work.",
		"Off, every fair-scheduled thread competes with every other, and nice values rank them system-wide. Neither setting touches realtime threads (SCHED_FIFO, SCHED_RR), nor threads in a CPU cgroup other than the root (systemd's services when the cpu controller is on), which the cgroup groups instead. tuned's postgresql profile sets 0; its desktop profile sets 1.",
	},
	numbered: true,
	data:     boolData,
	vet:      vetBool01,
	checkup: Checkup{Default: text("1 (on)"), Rules: schedAutogroupRules,
		References: schedAutogroupRefs},
	// The grouping shows only against CPU load in another session, which
	// try's probes do not make.
	experiment: Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "it shares the CPU between sessions, and try's probes put no load in another session: run the workload beside its usual neighbours and compare"},
}

func autogroupMeaning(s string) string {
	switch s {
	case "1":
		return "on (the default): each session's processes are one group, the CPU is shared between the groups, and nice ranks a thread only within its session"
	case "0":
		return "off: every fair-scheduled thread competes with every other, and nice values rank them system-wide"
	}
	return "a value the kernel does not take (0 or 1)"
}

var schedAutogroupRefs = []Reference{
	tunedRef("postgresql", "sysctl", "kernel.sched_autogroup_enabled", "0"),
	tunedRef("desktop", "sysctl", "kernel.sched_autogroup_enabled", "1"),
}

var schedAutogroupRules = []Rule{
	absentRule("autogroup-absent"),
	{ID: "autogroup-on", Verdict: Default, When: "1",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return c.Meaning + "; a nice value set for latency favours a program only over its own session; " + schedAutogroupRefs[0].Cite()
		}},
	{ID: "autogroup-off", Verdict: Changed, When: "0",
		Match: func(c *Case) bool { return c.Text() == "0" },
		Reason: func(c *Case) string {
			return c.Meaning + ", as " + schedAutogroupRefs[0].Cite()
		}},
	{ID: "autogroup-other", Verdict: Unknown, When: "another value",
		Match:  always,
		Reason: func(c *Case) string { return "kernel.sched_autogroup_enabled reads " + c.Text() + ", " + c.Meaning }},
}
