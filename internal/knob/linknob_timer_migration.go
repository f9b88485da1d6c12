package knob

import ()

func init() { register(timerMigrationKnob) }

// timerMigrationName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const timerMigrationName = "timer-migration"

var timerMigrationKnob = &intSysctl{
	name:     timerMigrationName,
	summary:  "whether timers armed on idle or isolated CPUs move to busy ones (kernel.timer_migration)",
	loc:      timerMigLoc,
	lacks:    timerMigLacks,
	absent:   absentSysctlName,
	parse:    parseBool01,
	accepted: "accepted 0|1|on|off",
	meaning:  timerMigMeaning,
	explain: []string{
		"kernel.timer_migration (default 1): 1 on, 0 off.",
		"On, a timer that is not pinned to its CPU may be queued on another CPU when the CPU arming it is idle or not a housekeeping CPU for timers (nohz_full, isolcpus=nohz): timers of an isolated CPU, hrtimers such as a sleep's too, can fire on a housekeeping CPU, which then sends the isolated CPU an interrupt to wake the sleeper. Idle CPUs are left alone longer, so they reach and keep deeper C-states (power).",
		"Off, every timer fires where it was armed: a wake-up on an isolated CPU needs no other CPU, at the cost of more wake-ups of idle CPUs (power) and timer interrupts on the isolated ones. tuned's realtime and cpu-partitioning profiles set kernel.timer_migration=0.",
	},
	numbered: true,
	data:     boolData,
	vet:      vetBool01,
	notes: func(env *Env, n int) []string {
		if n == 0 {
			return []string{"the cost: idle CPUs wake for their own timers (power)"}
		}
		return nil
	},
	checkup: Checkup{Default: text("1 (on)"), Rules: timerMigrationRules,
		References: timerMigrationRefs,
		TryValue:   tryAfter("timer-mig-off", "1")},
	// A change takes effect at once, for the timers armed after it; the
	// sleep probe's timers are.
	experiment: Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep},
}

var (
	timerMigLoc   = fileLoc("proc/sys/kernel/timer_migration")
	timerMigLacks = "timer migration (it needs CONFIG_SMP and CONFIG_NO_HZ_COMMON)"
)

func timerMigMeaning(s string) string {
	switch s {
	case "1":
		return "on (the default): timers of idle CPUs, and of CPUs isolated from timer work (nohz_full), may fire on a busy CPU, so idle CPUs sleep longer (power); a wake-up such a timer causes crosses CPUs"
	case "0":
		return "off: every timer fires on the CPU that armed it, so a wake-up stays on its CPU; idle CPUs wake for their own timers (power) and isolated CPUs take their own timer interrupts"
	}
	return "a value the kernel does not take (0 or 1)"
}

var timerMigrationRefs = []Reference{
	tunedRef("realtime", "sysctl", "kernel.timer_migration", "0"),
	tunedRef("cpu-partitioning", "sysctl", "kernel.timer_migration", "0"),
}

var timerMigrationRules = []Rule{
	{ID: "timer-mig-absent", Verdict: Default, When: "the kernel has no such file",
		Match:     func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason:    func(c *Case) string { return c.Meaning + "; nothing to tune" },
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "timer-mig-on", Verdict: Default, When: "1",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + timerMigrationRefs[0].Cite() + " (cpu-partitioning too) to keep wake-ups on isolated CPUs local"
		}},
	{ID: "timer-mig-off", Verdict: Changed, When: "0",
		Match: func(c *Case) bool { return c.Text() == "0" },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + timerMigrationRefs[0].Cite() + " (cpu-partitioning too)"
		},
		Evidence: func(c *Case) string {
			return quote(timerMigrationName, "", "a wake-up on an isolated CPU needs no other CPU")
		}},
	{ID: "timer-mig-other", Verdict: Unknown, When: "another value",
		Match:  always,
		Reason: func(c *Case) string { return "kernel.timer_migration reads " + c.Text() + ", " + c.Meaning }},
}
