package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(rtThrottling{}) }

// rtThrottlingName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const rtThrottlingName = "rt-throttling"

type rtThrottling struct{ linuxKnob }

func (rtThrottling) Name() string { return rtThrottlingName }
func (rtThrottling) Summary() string {
	return "how much of each period realtime threads may run on a CPU (kernel.sched_rt_runtime_us / sched_rt_period_us)"
}

var (
	rtRuntimeLoc = fileLoc("proc/sys/kernel/sched_rt_runtime_us")
	rtPeriodLoc  = fileLoc("proc/sys/kernel/sched_rt_period_us")
	rtLacks      = "realtime bandwidth control"
	rtSetHelp    = "accepted off (or -1), default (950000/1000000), or RUNTIME/PERIOD in µs with 1 <= RUNTIME <= PERIOD <= 2147483647"
)

// The kernel's defaults (kernel/sched/rt.c): 0.95 s of every second.
const (
	rtDefaultRuntime = 950000
	rtDefaultPeriod  = 1000000
)

// rtBandwidth is the pair as the kernel holds it; Runtime -1 is no limit.
type rtBandwidth struct {
	Runtime int64 `json:"runtime_us"`
	Period  int64 `json:"period_us"`
}

func (b rtBandwidth) String() string {
	if b.Runtime < 0 {
		return fmt.Sprintf("off (-1; period %d µs)", b.Period)
	}
	return fmt.Sprintf("%d/%d µs", b.Runtime, b.Period)
}

func rtMeaning(b rtBandwidth) string {
	switch {
	case b.Runtime < 0:
		return "throttling off: realtime threads may take a CPU whole; a runaway SCHED_FIFO thread holds its CPU for ever"
	case b.Runtime == rtDefaultRuntime && b.Period == rtDefaultPeriod:
		return "the default: realtime threads may run 0.95 s of every second on a CPU; the other 0.05 s is left to normal threads"
	case b.Period <= 0 || b.Runtime > b.Period:
		return "a pair the kernel does not take (runtime above the period)"
	case b.Runtime == 0:
		return "realtime threads get no CPU time at all"
	}
	pct := float64(b.Runtime) * 100 / float64(b.Period)
	return fmt.Sprintf("realtime threads may run %s µs of every %s µs on a CPU (%s%%), then wait for the next period", strconv.FormatInt(b.Runtime, 10), strconv.FormatInt(b.Period, 10), strconv.FormatFloat(pct, 'f', -1, 64))
}

// parseRT reads a set value: off, default or RUNTIME/PERIOD. A period of
// 0 is refused by the kernel, a runtime of 0 would stop every realtime
// thread (threaded interrupt handlers are SCHED_FIFO): both are refused
// here.
func parseRT(value string) (b rtBandwidth, periodSet bool, err error) {
	v := strings.ToLower(strings.TrimSpace(value))
	switch v {
	case "off", "-1":
		return rtBandwidth{Runtime: -1}, false, nil
	case "default":
		return rtBandwidth{rtDefaultRuntime, rtDefaultPeriod}, true, nil
	}
	rs, ps, ok := strings.Cut(v, "/")
	if !ok {
		return b, false, badinput.Errorf("invalid rt-throttling %q: %s", value, rtSetHelp)
	}
	r, err1 := strconv.ParseInt(strings.TrimSpace(rs), 10, 64)
	p, err2 := strconv.ParseInt(strings.TrimSpace(ps), 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return b, false, badinput.Errorf("invalid rt-throttling %q: %s", value, rtSetHelp)
	case p < 1 || p > sysctlIntMax:
		return b, false, badinput.Errorf("invalid rt-throttling period %d µs: accepted 1 to 2147483647", p)
	case r == -1:
		return rtBandwidth{-1, p}, true, nil
	case r == 0:
		return b, false, badinput.Errorf("invalid rt-throttling runtime 0: it stops every realtime thread (threaded interrupt handlers too); accepted 1 to the period, or off")
	case r < 0 || r > p:
		return b, false, badinput.Errorf("invalid rt-throttling runtime %d µs: accepted 1 to the period (%d µs), or -1 (off)", r, p)
	}
	return rtBandwidth{r, p}, true, nil
}

func (rtThrottling) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: rtThrottlingName}
	if value == "" {
		ex.Text = []string{
			"kernel.sched_rt_period_us (default 1000000) and kernel.sched_rt_runtime_us (default 950000): realtime threads (SCHED_FIFO, SCHED_RR) together may run RUNTIME µs of every PERIOD µs on a CPU; then they are throttled until the period ends, so normal threads get the rest.",
			"-1 turns throttling off: realtime threads may take a CPU whole. A runaway SCHED_FIFO thread then holds its CPU for ever: nothing else runs there, not the kernel threads that CPU needs either (latlab wake --priority runs one). tuned's realtime profile sets kernel.sched_rt_runtime_us=-1, so a realtime thread is never stopped mid-period.",
			"Values: off (-1), default (950000/1000000), RUNTIME/PERIOD in µs. The kernel refuses a runtime above the period, and with realtime group scheduling a period below a group's runtime; latlab writes the two files in the order that never passes through such a pair, and undoes the first write if the kernel refuses the second.",
		}
		return ex, nil
	}
	b, periodSet, err := parseRT(value)
	if err != nil {
		return nil, err
	}
	if !periodSet {
		ex.Text = []string{"off: sched_rt_runtime_us=-1 (the period stays): " + rtMeaning(b)}
	} else {
		ex.Text = []string{b.String() + ": " + rtMeaning(b)}
	}
	ex.Data = b
	return ex, nil
}

// readRT reads both files; ok false when the kernel lacks either.
func readRT(env *Env) (b rtBandwidth, rv, pv backend.Value, ok bool, err error) {
	r, rv, rok, err := sysctlInt(env, rtRuntimeLoc)
	if err != nil {
		return b, rv, pv, false, err
	}
	p, pv, pok, err := sysctlInt(env, rtPeriodLoc)
	if err != nil {
		return b, rv, pv, false, err
	}
	return rtBandwidth{r, p}, rv, pv, rok && pok, nil
}

func (k rtThrottling) Get(env *Env, sel Selector) (*Reading, error) {
	b, rv, pv, ok, err := readRT(env)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	if !ok {
		l := rtRuntimeLoc
		if !rv.IsAbsent() {
			l = rtPeriodLoc
		}
		a, err := absenceOf(env, l, rtLacks)
		if err != nil {
			return nil, err
		}
		it := item("", rtRuntimeLoc, rv, a.why(sysctlName(l)))
		it.Value, it.NotShown = "absent", a.notShown()
		r.Items = append(r.Items, it)
		return r, nil
	}
	it := item("", rtRuntimeLoc, rv, rtMeaning(b))
	it.Value = b.String()
	it.Detail = b
	it.Extra = []Change{{Loc: rtPeriodLoc, Old: backend.Absent, New: pv}}
	r.Notes = append(r.Notes, fmt.Sprintf("%s=%d, %s=%d", sysctlName(rtRuntimeLoc), b.Runtime, sysctlName(rtPeriodLoc), b.Period))
	if b.Runtime < 0 {
		it.Warnings = append(it.Warnings, "a runaway realtime thread can hold its CPU for ever")
	}
	r.Items = append(r.Items, it)
	return r, nil
}

func (k rtThrottling) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	want, periodSet, err := parseRT(value)
	if err != nil {
		return nil, err
	}
	cur, _, _, ok, err := readRT(env)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sysctlAbsentError(env, rtRuntimeLoc, rtLacks)
	}
	if !periodSet {
		want.Period = cur.Period
	}
	p := &Plan{Knob: k.Name(), Request: value}
	runtime := func() error {
		return p.add(env, rtRuntimeLoc, backend.FileValue(strconv.FormatInt(want.Runtime, 10)+"\n"))
	}
	period := func() error {
		return p.add(env, rtPeriodLoc, backend.FileValue(strconv.FormatInt(want.Period, 10)+"\n"))
	}
	// The kernel checks the pair after each write (runtime <= period):
	// the period goes first unless the runtime in force does not fit the
	// new period. Then the new runtime fits the period in force: it is at
	// most the new period, which is below the runtime in force, which fits
	// the period in force. A revert undoes the writes newest first, back
	// through the same valid pair.
	first, second := period, runtime
	if cur.Runtime >= 0 && cur.Runtime > want.Period {
		first, second = runtime, period
	}
	if err := first(); err != nil {
		return nil, err
	}
	if err := second(); err != nil {
		return nil, err
	}
	if want.Runtime < 0 && cur.Runtime >= 0 {
		p.Warnings = append(p.Warnings, "with throttling off a runaway SCHED_FIFO or SCHED_RR thread (latlab wake --priority runs one) holds its CPU for ever: nothing else runs there, not the kernel threads that CPU needs either")
	}
	if len(p.Changes) == 2 {
		p.Notes = append(p.Notes, "if the kernel refuses the second write (realtime groups' cpu.rt_runtime_us or SCHED_DEADLINE reservations that no longer fit), the first is undone")
	}
	return p, nil
}

func (k rtThrottling) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	switch l {
	case rtRuntimeLoc:
		return vetSysctlInt(v, -1, sysctlIntMax)
	case rtPeriodLoc:
		return vetSysctlInt(v, 1, sysctlIntMax)
	}
	return notMine(k.Name(), target, l)
}

// Checkup is what the check-up knows of rt-throttling: its default, how
// its instances are read, the verdict rules and whose advice they cite.
func (rtThrottling) Checkup() Checkup {
	return Checkup{Default: text("950000/1000000 µs (0.95 s of every second)"), Rules: rtThrottlingRules, References: rtThrottlingRefs}
}

// Experiment is how a change of rt-throttling takes effect for latlab
// try: at once, but no probe shows it: a probe's thread sleeps most of
// the time, so it never runs a whole runtime and is never throttled.
func (rtThrottling) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "throttling stops realtime threads only once they have run the runtime of a period, and a probe's thread sleeps most of the time, so it never gets there"}
}

var rtThrottlingRefs = []Reference{
	tunedRef("realtime", "sysctl", "kernel.sched_rt_runtime_us", "-1"),
}

func rtOf(c *Case) (rtBandwidth, bool) {
	b, ok := c.Detail.(rtBandwidth)
	return b, ok
}

var rtThrottlingRules = []Rule{
	{ID: "rt-absent", Verdict: Default, When: "the kernel has no such files",
		Match:     func(c *Case) bool { _, ok := rtOf(c); return !ok },
		Reason:    func(c *Case) string { return c.Meaning + "; nothing to tune" },
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "rt-default", Verdict: Default, When: "950000/1000000",
		Match: func(c *Case) bool {
			b, _ := rtOf(c)
			return b == rtBandwidth{rtDefaultRuntime, rtDefaultPeriod}
		},
		Reason: func(c *Case) string {
			return c.Meaning + "; " + rtThrottlingRefs[0].Cite() + ", so a realtime thread is never stopped mid-period, at the risk of a runaway one holding its CPU"
		}},
	{ID: "rt-off", Verdict: Changed, When: "-1 (off)",
		Match: func(c *Case) bool { b, _ := rtOf(c); return b.Runtime < 0 },
		Reason: func(c *Case) string {
			return "throttling off, as " + rtThrottlingRefs[0].Cite() + "; the risk: a runaway SCHED_FIFO thread (latlab wake --priority runs one) holds its CPU for ever, kernel threads included"
		},
		Evidence: func(c *Case) string {
			return quote(rtThrottlingName, "", "A runaway SCHED_FIFO thread then holds its CPU")
		}},
	{ID: "rt-changed", Verdict: Changed, When: "another runtime or period",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
