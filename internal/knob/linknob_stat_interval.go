package knob

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

func init() { register(statIntervalKnob) }

// statIntervalName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const statIntervalName = "stat-interval"

var statIntervalKnob = &intSysctl{
	name:     statIntervalName,
	summary:  "seconds between the per-CPU folds of the VM statistics, each a kworker wake-up on every busy CPU (vm.stat_interval)",
	loc:      statIntervalLoc,
	lacks:    statIntervalLacks,
	parse:    parseStatInterval,
	accepted: statIntervalAccepted,
	meaning:  statIntervalMeaning,
	explain: []string{
		"vm.stat_interval: the seconds between updates of the VM statistics, 1 by default (Documentation/admin-guide/sysctl/vm.rst).",
		"The kernel counts memory events per CPU and folds the counts into the global ones every interval: a shepherd work looks at every CPU each interval and queues the vmstat_update work on each CPU whose counters changed. So every busy CPU is interrupted by a kworker once a second, a wake-up that preempts whatever runs there.",
		"A longer interval makes those wake-ups rarer: tuned's realtime and cpu-partitioning profiles set 10. The cost: /proc/vmstat, /proc/meminfo and the counters memory reclaim reads approximately lag by up to the interval.",
	},
	data: func(n int) map[string]any { return map[string]any{"seconds": n} },
	checkup: Checkup{Default: text("1"), Rules: statIntervalRules, References: statIntervalRefs,
		// the default, against the longer interval
		TryValue: tryAfter("stat-interval-long", "1")},
	// The sleep probe sees the kworker wake-ups a longer interval
	// removes. A new interval applies once the works queued at the old
	// one have run (the shepherd requeues itself with the interval it
	// reads then), up to the old interval later: the settle covers
	// tuned's 10 s; try --settle covers a longer one.
	experiment: Experiment{Scope: ScopeSystem, Settle: 10 * time.Second, Probe: ProbeSleep},
}

var statIntervalLoc = fileLoc("proc/sys/vm/stat_interval")

const statIntervalLacks = "vm.stat_interval"

// statIntervalMax bounds a request: an hour. The kernel takes more, but
// counters an hour stale are of no use to anyone reading /proc/vmstat.
const statIntervalMax = 3600

const statIntervalAccepted = "accepted whole seconds 1-3600, e.g. 10 or 10s"

// parseStatInterval takes whole seconds, with or without an "s".
func parseStatInterval(s string) (int, bool) {
	return parseIntIn(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s"), 1, statIntervalMax)
}

// The kernel (mm/vmstat.c) keeps VM counters per CPU and folds them into
// the global ones every stat_interval: vmstat_shepherd looks at every CPU
// each interval and queues the per-CPU vmstat_update work on each whose
// counters changed, so every busy CPU runs a kworker that often.
func statIntervalMeaning(s string) string {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return "unreadable: " + s
	case n <= 0:
		return fmt.Sprintf("%d: the statistics work is requeued with no delay, a kworker running on and on", n)
	case n == 1:
		return "1 s, the default: a kworker folds the VM counters on each busy CPU every second"
	}
	return fmt.Sprintf("%d s: a kworker folds the VM counters on each busy CPU every %d s instead of every second; /proc/vmstat and /proc/meminfo lag up to %d s", n, n, n)
}

var statIntervalRefs = []Reference{
	tunedRef("realtime", "sysctl", "vm.stat_interval", "10"),
	tunedRef("cpu-partitioning", "sysctl", "vm.stat_interval", "10"),
}

var statIntervalRules = []Rule{
	absentRule("stat-interval-absent"),
	{ID: "stat-interval-default", Verdict: Default, When: "1",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return "the default: a kworker wakes on each busy CPU every second to fold the VM counters; " + statIntervalRefs[0].Cite()
		}},
	{ID: "stat-interval-zero", Verdict: Suspicious, When: "0 or less",
		Match: func(c *Case) bool { n, err := strconv.Atoi(c.Text()); return err == nil && n <= 0 },
		Reason: func(c *Case) string {
			return c.Meaning
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set stat-interval 1", Why: "the VM statistics work runs without pause (latlab knob revert stat-interval undoes it)", Benefit: 40}
		}},
	{ID: "stat-interval-long", Verdict: Changed, When: "more than 1 s",
		Match: func(c *Case) bool { n, err := strconv.Atoi(c.Text()); return err == nil && n > 1 },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + statIntervalRefs[0].Cite()
		}},
	{ID: "stat-interval-other", Verdict: Unknown, When: "not a number",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
