package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// Probe is one measurement of the check-up.
type Probe struct {
	Name string `json:"name"` // sleep, wake, wake-realtime, wake-per-cpu
	// What says what was measured, in words.
	What       string `json:"what"`
	Method     string `json:"method"`
	RequestNs  int64  `json:"requested_ns,omitempty"` // sleep: the asked-for sleep
	IntervalNs int64  `json:"interval_ns,omitempty"`  // wake: the period
	// Summary is of the overshoot (slept - requested) for sleep and of
	// the lateness (wake time - deadline) for wake.
	Summary  stats.Summary `json:"summary"`
	Overruns int64         `json:"missed_periods,omitempty"`
	Threads  []ThreadStat  `json:"threads,omitempty"` // per-CPU probe
	Band     string        `json:"band,omitempty"`    // good, fair, mediocre, poor, too few (wake)
	Verdict  string        `json:"verdict"`
	Notes    []string      `json:"notes,omitempty"`
	// Samples are the raw values (ns) behind Summary: the bundle carries
	// them as text, the HTML page plots them; the document holds only the
	// summary.
	Samples []int64 `json:"-"`
}

// ThreadStat is one thread of a multi-thread wake probe.
type ThreadStat struct {
	CPU      int           `json:"cpu"`
	Priority string        `json:"priority"`
	Summary  stats.Summary `json:"summary"`
	Overruns int64         `json:"missed_periods"`
}

func runProbes(ctx context.Context, o Options, r *Result, st timer.Status) error {
	if o.SleepSamples > 0 && ctx.Err() == nil {
		o.progress("sleep probe")
		p, err := sleepProbe(ctx, o, st)
		if err != nil {
			return fmt.Errorf("sleep probe: %w", err)
		}
		r.Sleep = p
	}
	if o.WakeDuration > 0 && ctx.Err() == nil {
		o.progress("wake probe")
		p, ov, err := wakeProbe(ctx, o, "wake", probe.WakeOptions{Interval: o.WakeInterval, Duration: o.WakeDuration, CPUs: []int{-1}})
		if err != nil {
			return fmt.Errorf("wake probe: %w", err)
		}
		r.Wake, r.Overhead = p, ov
	}
	if o.Realtime && o.ExtraDuration > 0 && ctx.Err() == nil {
		o.progress("realtime wake probe")
		p, _, err := wakeProbe(ctx, o, "wake-realtime", probe.WakeOptions{Interval: o.WakeInterval, Duration: o.ExtraDuration,
			CPUs: []int{-1}, Priority: sched.Realtime, RTPrio: 80})
		if err != nil {
			// Not allowed here (no CAP_SYS_NICE, say): the check-up
			// says so and goes on.
			r.Notes = append(r.Notes, "no realtime wake probe: "+err.Error())
		} else {
			r.Extra = append(r.Extra, *p)
		}
	}
	if o.PerCPU && o.ExtraDuration > 0 && ctx.Err() == nil {
		o.progress("wake probe on each CPU")
		cpus := make([]int, numCPU())
		for i := range cpus {
			cpus[i] = i
		}
		p, _, err := wakeProbe(ctx, o, "wake-per-cpu", probe.WakeOptions{Interval: o.WakeInterval, Duration: o.ExtraDuration, CPUs: cpus})
		if err != nil {
			r.Notes = append(r.Notes, "no per-CPU wake probe: "+err.Error())
		} else {
			r.Extra = append(r.Extra, *p)
		}
	}
	return nil
}

func sleepProbe(ctx context.Context, o Options, st timer.Status) (*Probe, error) {
	method := probe.SleepMethods()[0]
	req := time.Millisecond
	sr, err := probe.Sleep(ctx, probe.SleepOptions{Duration: req, Samples: o.SleepSamples, Gap: o.SleepGap,
		Method: method, Thread: probe.Thread{CPU: -1}, SkipOverhead: true})
	if err != nil {
		return nil, err
	}
	over := stats.Shift(sr.Slept, req.Nanoseconds())
	s := stats.Summarize(over)
	p := &Probe{Name: "sleep", Method: method, RequestNs: req.Nanoseconds(), Summary: s, Samples: over,
		What: fmt.Sprintf("asking %s for 1ms, %d times: overshoot (slept - requested)", method, s.Count)}
	p.Verdict = SleepVerdict(s, st)
	return p, nil
}

// tooFewSleeps is the sleep verdict of a run with fewer sleeps than its
// p50, which every sleep verdict explains, needs (stats.MinSamples: 20,
// as compare requires to judge a p50), and false for a run with enough:
// `latlab sleep --samples 3` explained its overshoot by the timer slack
// from three sleeps.
func tooFewSleeps(over stats.Summary) (string, bool) {
	need := stats.MinSamples(stats.Quantile(50), 0.95)
	if over.Count >= int64(need) {
		return "", false
	}
	return fmt.Sprintf("too few sleeps to explain the overshoot: %d measured, p50 needs at least %d", over.Count, need), true
}

// TooFewBand is the wake band of a run with too few wake-ups for the
// p99 the other bands rest on (WakeVerdict).
const TooFewBand = "too few"

func wakeProbe(ctx context.Context, o Options, name string, wo probe.WakeOptions) (*Probe, *Overhead, error) {
	wr, err := probe.Wake(ctx, wo)
	if err != nil {
		return nil, nil, err
	}
	var all []int64
	var over int64
	p := &Probe{Name: name, Method: probe.WakeMethod, IntervalNs: wo.Interval.Nanoseconds()}
	for _, t := range wr.Threads {
		all = append(all, t.Latencies...)
		over += t.Overruns
		if len(wr.Threads) > 1 {
			p.Threads = append(p.Threads, ThreadStat{CPU: t.Setup.CPU, Priority: t.Setup.Priority,
				Summary: stats.Summarize(t.Latencies), Overruns: t.Overruns})
		}
		if t.Setup.PriorityNote != "" && len(p.Notes) == 0 {
			p.Notes = append(p.Notes, t.Setup.PriorityNote)
		}
	}
	starved, longest := wr.Starved()
	switch {
	case len(all) == 0 && longest > 0:
		// Held off the CPU for the whole probe: its one wake-up, the
		// warm-up, is the probe's only sample, and a poor one.
		all = []int64{longest}
		p.Notes = append(p.Notes, "the thread was held off its CPU for the whole probe: its one wake-up, the warm-up that is otherwise discarded, is the sample")
	case len(all) == 0:
		return nil, nil, &probe.NoWakeupsError{}
	default:
		p.Notes = append(p.Notes, starved...)
	}
	p.Samples, p.Overruns = all, over
	p.Summary = stats.Summarize(all)
	every := fmt.Sprintf("a %s periodic wake-up", units.Ns(wo.Interval.Nanoseconds()))
	switch name {
	case "wake-realtime":
		prio := "realtime"
		if len(wr.Threads) > 0 && wr.Threads[0].Setup.Priority != "" {
			prio = wr.Threads[0].Setup.Priority
		}
		p.What = fmt.Sprintf("%s at %s priority, %d times: lateness", every, prio, p.Summary.Count)
	case "wake-per-cpu":
		p.What = fmt.Sprintf("%s on each of %d CPUs at once, %d times in all: lateness", every, len(wr.Threads), p.Summary.Count)
	default:
		p.What = fmt.Sprintf("%s, %d times: lateness (wake time - deadline)", every, p.Summary.Count)
	}
	// A thread held off its CPU for the run has no samples; its one
	// wait, the warm-up, is the probe's latest wake-up, and is judged.
	judged := p.Summary
	judged.Max = max(judged.Max, longest)
	p.Band, p.Verdict = WakeVerdict(judged, over, wo.Interval)
	ov := wr.Overhead
	return p, &ov, nil
}

// WakeVerdict puts a wake-up distribution of a periodic loop with the
// given interval in terms of common deadlines: a 1 ms audio buffer, a
// 4 ms (240 Hz) frame. It returns the band and the sentence.
//
// A wake-up over 4 ms late or a missed period is evidence however few
// wake-ups were measured. The other bands speak of the 99th percentile,
// which needs stats.MinSamples of p99 (368) before a distribution-free
// interval for it ends on a measured wake-up: with fewer (a 50 ms run
// has 50), p99 is the maximum, and "99% within 200 µs" would rest on
// nothing. Then the band is TooFewBand and the sentence says how many
// the run had and needed.
func WakeVerdict(s stats.Summary, overruns int64, interval time.Duration) (band, text string) {
	need := stats.MinSamples(stats.Quantile(99), 0.95)
	switch {
	case s.Max > int64(4*time.Millisecond):
		return "poor", "poor: some wake-ups came later than a 240 Hz frame (4 ms); something on this machine holds the CPU or the timer"
	case overruns > 0:
		return "mediocre", fmt.Sprintf("mediocre: %d %s: some wake-ups (up to %s late) came after the next %s deadline had passed, enough to break small audio buffers",
			overruns, plural(int(overruns), "missed period", "missed periods"), units.Ns(s.Max), units.Ns(interval.Nanoseconds()))
	case s.Count < int64(need):
		return TooFewBand, fmt.Sprintf("too few wake-ups to judge the tail: %d measured, p99 needs at least %d (a longer run); none missed its period, the latest was %s late",
			s.Count, need, units.Ns(s.Max))
	case s.P99 > int64(time.Millisecond):
		return "mediocre", "mediocre: 1 in 100 wake-ups is over 1 ms late, enough to break small audio buffers"
	case s.P99 > int64(200*time.Microsecond):
		return "fair", "fair: wake-ups are mostly timely, with a tail over 200 µs; `latlab wake --rtprio 80 --mlock` shows whether priority fixes it"
	}
	return "good", "good: 99% of wake-ups within 200 µs of their deadline"
}
