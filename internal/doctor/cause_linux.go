package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// notTraced is the line the check-up shows when it cannot trace.
const notTraced = "not traced: run as root (sudo latlab) and the check-up names what delayed the worst wake-ups"

// findCause runs a second, traced wake run of o.CauseDuration, a thread
// pinned to each CPU of o.CauseCPUs (default: every CPU this process may
// use, at most maxCauseCPUs), and names what held the CPUs in its worst
// wake-ups. The check-up's own figures come from the first, untraced run.
func findCause(ctx context.Context, o Options) *Cause {
	if os.Geteuid() != 0 {
		return &Cause{Missing: notTraced}
	}
	cpus := o.CauseCPUs
	if len(cpus) == 0 {
		cpus = allowedCPUs()
	}
	wo := probe.WakeOptions{Interval: o.WakeInterval, Duration: o.CauseDuration, CPUs: cpus,
		Explain: &probe.ExplainOptions{Worst: explainWorst}}
	_, doc, err := probe.RunWake(ctx, wo)
	if nw := (*probe.NoWakeupsError)(nil); errors.As(err, &nw) && len(nw.Explained) > 0 {
		// Held off the CPU for the whole run: the one case where naming
		// what held it matters most, from the trace of that one wait.
		c := CauseOf(nw.Explained)
		c.Source = "tracefs"
		c.Explained = nw.Explained
		c.Run = fmt.Sprintf("a traced %s run on CPU %s that measured no wake-up: its threads' first wake-ups came up to %s late, after the run's end (the figures above are untraced)",
			units.Duration(o.CauseDuration), cpuList(cpus), units.NsShort(float64(nw.WarmupNs)))
		return &c
	}
	if err != nil {
		return &Cause{Missing: "not traced: " + err.Error()}
	}
	d := doc.Data.(*probe.WakeData)
	c := CauseOf(d.Explain)
	c.Source = "tracefs"
	s := d.Summary
	c.Traced, c.TracedOverruns = &s, d.Overruns
	c.Explained = d.Explain
	c.Run = tracedRun(o.CauseDuration, cpus, len(d.Explain), s)
	for _, n := range doc.Notes {
		// What the trace lacks (lost events); its method is said once.
		if strings.HasPrefix(n, "explain:") && n != "explain: "+explain.Method {
			c.Notes = append(c.Notes, n)
		}
	}
	return &c
}

// explainWorst is how many of the traced run's worst wake-ups are
// explained, as wake --explain does by default.
const explainWorst = 10

// maxCauseCPUs bounds the CPUs the traced run measures: a thread and a
// trace buffer each.
const maxCauseCPUs = 8

// tracedRun says which run a Linux cause came from, with its figures to
// set beside the check-up's.
func tracedRun(d time.Duration, cpus []int, n int, s stats.Summary) string {
	return fmt.Sprintf("the %d worst wake-ups of a second, traced %s run on CPU %s (p99 %s, max %s; the figures above are untraced)",
		n, units.Duration(d), cpuList(cpus), units.NsShort(float64(s.P99)), units.NsShort(float64(s.Max)))
}

// allowedCPUs are the CPUs this process may run on (taskset, cgroup
// cpusets), at most maxCauseCPUs of them.
func allowedCPUs() []int {
	var cpus []int
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		for c := 0; c < len(set)*64 && len(cpus) < maxCauseCPUs; c++ {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
	}
	if len(cpus) == 0 {
		for c := 0; c < sched.NumCPU() && len(cpus) < maxCauseCPUs; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
