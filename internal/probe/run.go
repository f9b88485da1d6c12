package probe

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// ErrNoSamples is a run that ended before its first measured sample.
var ErrNoSamples = errors.New("no samples were taken")

// RunSleep is `latlab sleep`: it measures as o says, reads the timer state
// after the run and returns the result with its document.
func RunSleep(ctx context.Context, o SleepOptions) (*SleepResult, *result.Document, error) {
	r, err := Sleep(ctx, o)
	if err != nil {
		return nil, nil, fmt.Errorf("sleep probe: %w", err)
	}
	st, stErr := timer.Query()
	doc, err := SleepDocument(host.Collect(), r, o.Samples, st, stErr)
	return r, doc, err
}

// measuringThreadSlack makes st's timer slack the measuring thread's when
// the run asked for one (--resolution on Linux, where slack is per
// thread): st is read on another thread, which keeps the default 50 µs,
// and the printed timer line and the verdict judged a run at 1 µs slack by
// 50 µs. A realtime thread has no slack (st reads 0) and Windows none at
// all: st stays as read.
func measuringThreadSlack(st *timer.Status, th ThreadSetup) {
	if st.TimerSlackNs > 0 && th.RequestedNs > 0 && th.GrantedNs > 0 {
		st.TimerSlackNs = th.GrantedNs
	}
}

// SleepDocument is the sleep document of r on the host facts: its statistics,
// histogram and kept samples, how they were taken, the timer state st (or
// why stErr kept it from being read) and the notes a reader needs to judge
// the numbers. requested is the planned sample count, 0 for a run until
// Ctrl-C.
func SleepDocument(facts host.Facts, r *SleepResult, requested int, st timer.Status, stErr error) (*result.Document, error) {
	if len(r.Slept) == 0 {
		return nil, ErrNoSamples
	}
	data := &SleepData{}
	doc := KindSleep.New(facts, data)
	if stErr == nil {
		measuringThreadSlack(&st, r.Setup)
		data.Timer = &st
	} else {
		doc.Notes = append(doc.Notes, "timer state unavailable: "+stErr.Error())
	}
	setup := r.Setup
	data.Measurement = Measurement{
		Method:         r.Method,
		RequestedNs:    r.Requested.Nanoseconds(),
		WarmupNs:       r.WarmupNs,
		Interrupted:    r.Interrupted,
		ElapsedNs:      r.Elapsed.Nanoseconds(),
		Thread:         &setup,
		ClockSource:    doc.Host.ClockSource,
		PercentileNote: result.PercentileDefinition,
	}
	data.Overhead = r.Overhead
	data.SetCounts(int64(requested), int64(len(r.Slept)), r.Stopped)
	data.Summary = stats.Summarize(r.Slept)
	data.Overshoot = stats.Summarize(stats.Shift(r.Slept, r.Requested.Nanoseconds()))
	h, err := result.EncodeHistogram(stats.HistogramOf(r.Slept))
	if err != nil {
		return nil, err
	}
	data.Histogram = *h
	var note string
	if data.Samples, note = result.KeepSamples(r.Slept); note != "" {
		doc.Notes = append(doc.Notes, note)
	}
	doc.Notes = append(doc.Notes, SleepWarmupNote(r.WarmupNs))
	if setup.PriorityNote != "" {
		doc.Notes = append(doc.Notes, setup.PriorityNote)
	}
	if r.LiveDropped > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d live lines not printed (terminal too slow); all samples are in the statistics", r.LiveDropped))
	}
	if n := MaxPercentilesNote(len(r.Slept), "samples"); n != "" {
		doc.Notes = append(doc.Notes, n)
	}
	return doc, nil
}

// MaxPercentilesNote says which printed percentiles of n samples are the
// maximum itself, "" when none is: a nearest-rank p-th percentile is the
// largest sample until n reaches 100/(100-p) (10 for p90, 100 for p99,
// 1000 for p99.9). A run of 7 sleeps once said only that p99.9 needed
// 1000, beside a p90 and a p99 that were the maximum too. unit names the
// samples (samples, wake-ups).
func MaxPercentilesNote(n int, unit string) string {
	var parts []string
	for _, q := range []struct {
		name string
		need int
	}{{"p90", 10}, {"p99", 100}, {"p99.9", 1000}} {
		if n >= q.need {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s needs at least %d", q.name, q.need))
		} else {
			parts = append(parts, fmt.Sprintf("%s at least %d", q.name, q.need))
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
	default:
		parts = []string{strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]}
	}
	return fmt.Sprintf("%d %s: %s to differ from the maximum", n, unit, parts[0])
}

// SleepWarmupNote is the sleep document's note on the discarded first
// sample; the text report says it on a line of its own instead.
func SleepWarmupNote(warmupNs int64) string {
	return fmt.Sprintf("first sample (%s) discarded as warm-up", units.Duration(time.Duration(warmupNs)))
}

// WakeWarmupNote is the wake document's note on the discarded first
// wake-ups; the text report says it in its header instead.
const WakeWarmupNote = "the first wake-up of each thread is discarded as warm-up"

// RunWake is `latlab wake`: it measures as o says, reads the timer state
// after the run and returns the result with its document.
//
// With o.Explain it traces the measured CPUs (every thread must be
// pinned) while measuring, and explains the worst wake-ups in the
// document (WakeData.Explain); a trace that cannot start is a
// *SetupError.
func RunWake(ctx context.Context, o WakeOptions) (*WakeResult, *result.Document, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	var cpus []int
	if o.Explain != nil {
		o.KeepDeadlines = true
		for _, c := range o.CPUs {
			if c < 0 {
				return nil, nil, &SetupError{errors.New("--explain needs every measuring thread pinned to a CPU")}
			}
			cpus = append(cpus, c)
		}
	}
	frozen := false
	r, tl, notes, err := traced(cpus, o.Explain != nil, "wake", func(freeze func() bool) (*WakeResult, error) {
		if freeze != nil && o.StopAbove > 0 {
			// Written by the thread that stopped the run, read after
			// Wake has waited for every thread.
			o.OnStopAbove = func() { frozen = freeze() }
		}
		return Wake(ctx, o)
	})
	if err != nil {
		return nil, nil, err
	}
	st, stErr := timer.Query()
	doc, err := WakeDocument(host.Collect(), r, st, stErr, o.DMALatency)
	if err == nil && r.StoppedAbove != nil {
		doc.Data.(*WakeData).StoppedAbove.TraceFrozen = frozen
	}
	if nw := (*NoWakeupsError)(nil); errors.As(err, &nw) && tl != nil {
		nw.Explained = explainWarmups(tl, r, warmupSamples(r))
		return r, nil, nw
	}
	if err != nil || tl == nil {
		return r, doc, err
	}
	d := doc.Data.(*WakeData)
	samples, note := pickWorst(r, *o.Explain)
	samples = withStopSample(samples, r.StoppedAbove, func(s StopSample) (explain.Sample, bool) {
		t := r.Threads[s.Thread]
		if s.Index >= int64(len(t.Deadlines)) {
			return explain.Sample{}, false
		}
		return explain.Sample{Thread: s.Thread, CPU: t.Setup.CPU, TID: t.TID, Deadline: t.Deadlines[s.Index], Latency: s.ValueNs}, true
	})
	if note != "" {
		doc.Notes = append(doc.Notes, note)
	}
	// A thread held off its CPU for the whole run measured nothing; its
	// warm-up is then its only wake-up, and the worst of the run.
	warm := warmupSamples(r)
	d.Explain = append(explainWarmups(tl, r, warm), tl.Explain(samples, r.Start, explain.Policy)...)
	d.ExplainTotals = explain.Totals(d.Explain)
	slack := int64(0)
	if stErr == nil {
		slack = st.DefaultTimerSlackNs
	}
	if o.Resolution > 0 {
		slack = o.Resolution.Nanoseconds()
	}
	if len(d.Explain) > 0 {
		d.ExplainNext = explain.NextStep(d.Explain, d.ExplainTotals, slack, o.Priority == sched.Realtime)
	}
	doc.Notes = append(doc.Notes, "explain: "+explain.Method)
	doc.Notes = append(doc.Notes, notes...)
	return r, doc, nil
}

// withStopSample adds the sample that stopped the run (stop, nil when
// none did) to those to explain, unless they hold it: the trace was
// frozen for it. of finds it in the run's samples.
func withStopSample(samples []explain.Sample, stop *StoppedAbove, of func(StopSample) (explain.Sample, bool)) []explain.Sample {
	if stop == nil {
		return samples
	}
	s, ok := of(stop.Sample)
	if !ok {
		return samples
	}
	for _, x := range samples {
		if x.Thread == s.Thread && x.Deadline == s.Deadline {
			return samples
		}
	}
	return append(samples, s)
}

// maxExplained bounds --explain-above: each explanation is a walk over
// the CPU's events and a few hundred bytes of document.
const maxExplained = 1000

// pickWorst chooses the wake-ups to explain, worst first.
func pickWorst(r *WakeResult, o ExplainOptions) ([]explain.Sample, string) {
	var all []explain.Sample
	for i, t := range r.Threads {
		for j, l := range t.Latencies {
			if j >= len(t.Deadlines) {
				break
			}
			if o.Above > 0 && l <= o.Above.Nanoseconds() {
				continue
			}
			all = append(all, explain.Sample{Thread: i, CPU: t.Setup.CPU, TID: t.TID, Deadline: t.Deadlines[j], Latency: l})
		}
	}
	return worstOf(all, o, "explain: %d wake-ups were above %s; the worst %d are explained")
}

// worstOf keeps the samples to explain, worst first: with o.Above every
// one (at most maxExplained, noteFormat saying how many were left out:
// its verbs take the count, o.Above and the count kept), else the
// o.Worst worst (default 10).
func worstOf(all []explain.Sample, o ExplainOptions, noteFormat string) ([]explain.Sample, string) {
	sort.SliceStable(all, func(a, b int) bool { return all[a].Latency > all[b].Latency })
	n := o.Worst
	if n <= 0 {
		n = 10
	}
	note := ""
	if o.Above > 0 {
		n = maxExplained
		if len(all) > n {
			note = fmt.Sprintf(noteFormat, len(all), o.Above, n)
		}
	}
	return all[:min(len(all), n)], note
}

// WakeDocument is the wake document of r on the host facts: the pooled and
// per-thread statistics, the same corrected for missed periods, how they
// were taken, the timer state st when stErr is nil, and the notes, the
// probe's own included. dmaLatency is the /dev/cpu_dma_latency value held during the
// run, nil when the run left it alone.
func WakeDocument(facts host.Facts, r *WakeResult, st timer.Status, stErr error, dmaLatency *int) (*result.Document, error) {
	data := &WakeData{}
	doc := KindWake.New(facts, data)
	if stErr == nil {
		if len(r.Threads) > 0 {
			measuringThreadSlack(&st, r.Threads[0].Setup) // every thread asks the same
		}
		data.Timer = &st
	}
	interval := r.Interval.Nanoseconds()
	var all []int64
	var over int64
	intr := 0
	for _, t := range r.Threads {
		all = append(all, t.Latencies...)
		over += t.Overruns
		intr += t.Interrupted
		s := stats.Summarize(t.Latencies)
		th := ThreadOutcome{ThreadSetup: t.Setup, Summary: s, Overruns: t.Overruns, WarmupNs: t.WarmupNs, Interrupted: t.Interrupted}
		if t.Overruns > 0 {
			cs := stats.SummarizeHistogram(stats.CorrectedHistogramOf(t.Latencies, interval))
			th.CorrectedSummary = &cs
		}
		data.Threads = append(data.Threads, th)
	}
	if len(all) == 0 {
		_, longest := r.Starved()
		return nil, &NoWakeupsError{WarmupNs: longest}
	}
	data.Measurement = Measurement{
		Method: WakeMethod, IntervalNs: interval, WarmupNs: r.Threads[0].WarmupNs, Interrupted: intr,
		ElapsedNs: r.Elapsed.Nanoseconds(), ClockSource: doc.Host.ClockSource, PercentileNote: result.PercentileDefinition,
	}
	data.Overhead = r.Overhead
	data.Summary = stats.Summarize(all)
	h, err := result.EncodeHistogram(stats.HistogramOf(all))
	if err != nil {
		return nil, err
	}
	data.Histogram = *h
	data.Overruns = over
	ch := stats.CorrectedHistogramOf(all, interval)
	data.CorrectedSummary = stats.SummarizeHistogram(ch)
	if h, err = result.EncodeHistogram(ch); err != nil {
		return nil, err
	}
	data.CorrectedHistogram = *h
	var note string
	if data.Samples, note = result.KeepSamples(all); note != "" {
		doc.Notes = append(doc.Notes, note)
	}
	stopped := false
	for _, t := range r.Threads {
		stopped = stopped || t.Stopped
	}
	// A run ended by --stop-above was not interrupted: StoppedAbove
	// says why it is short.
	data.SetCounts(int64(r.Planned)*int64(len(r.Threads)), int64(len(all)), stopped && r.StoppedAbove == nil)
	if r.StoppedAbove != nil {
		sa := *r.StoppedAbove
		data.StoppedAbove = &sa
	}
	doc.Notes = append(doc.Notes, WakeWarmupNote)
	for _, t := range r.Threads {
		if t.Setup.PriorityNote != "" { // the same for every thread: the class is per process
			doc.Notes = append(doc.Notes, t.Setup.PriorityNote)
			break
		}
	}
	if dmaLatency != nil {
		doc.Notes = append(doc.Notes, fmt.Sprintf("/dev/cpu_dma_latency held at %dus during the run", *dmaLatency))
	}
	if n := MaxPercentilesNote(len(all), "wake-ups"); n != "" {
		doc.Notes = append(doc.Notes, n)
	}
	starved, _ := r.Starved()
	doc.Notes = append(doc.Notes, starved...)
	doc.Notes = append(doc.Notes, r.Notes...)
	return doc, nil
}

// NoWakeupsError is a wake run that measured no wake-up. When the threads'
// first wake-ups (the warm-up, left out of the statistics) came after the
// run's end, WarmupNs is the latest one's lateness: something held the
// CPUs the whole run, and with --explain Explained says what.
type NoWakeupsError struct {
	WarmupNs  int64
	Explained []explain.Wakeup
}

func (e *NoWakeupsError) Error() string {
	s := "no wake-ups were measured"
	if e.WarmupNs <= 0 {
		return s
	}
	s += fmt.Sprintf(": the first wake-up, which is discarded as warm-up, came %s after its deadline, after the run's end",
		units.NsShort(float64(e.WarmupNs)))
	if top, cpu, ok := topRan(e.Explained); ok {
		s += fmt.Sprintf("; %s held CPU %d for %s of that wait", explain.Name(top.Kind, top.Name, top.PID, top.Own), cpu, units.NsShort(float64(top.DurationNs)))
	}
	return s
}

// Starved says which threads measured nothing because their first
// wake-up, the warm-up, came after the run's end, a note for each, and the
// longest such wait (0: none): a thread held off its CPU for the whole
// run, which its empty statistics would otherwise hide.
func (r *WakeResult) Starved() (notes []string, longestNs int64) {
	for i, t := range r.Threads {
		if len(t.Latencies) == 0 && t.WarmupNs > 0 {
			notes = append(notes, starvedNote(i, t))
			longestNs = max(longestNs, t.WarmupNs)
		}
	}
	return notes, longestNs
}

// starvedNote is Starved's note on thread i.
func starvedNote(i int, t WakeThread) string {
	where := ""
	if t.Setup.CPU >= 0 {
		where = fmt.Sprintf(" (CPU %d)", t.Setup.CPU)
	}
	return fmt.Sprintf("thread %d%s measured no wake-up: its first, the warm-up, came %s after its deadline, after the run's end",
		i, where, units.NsShort(float64(t.WarmupNs)))
}

// warmupSamples are the warm-up wake-ups of the threads that measured
// none, to explain beside the measured ones: each is the longest wait of
// its thread, and the only trace of what held its CPU.
func warmupSamples(r *WakeResult) []explain.Sample {
	var out []explain.Sample
	for i, t := range r.Threads {
		if len(t.Latencies) == 0 && t.WarmupNs > 0 && t.TID > 0 && t.Setup.CPU >= 0 {
			out = append(out, explain.Sample{Thread: i, CPU: t.Setup.CPU, TID: t.TID, Deadline: r.Start, Latency: t.WarmupNs})
		}
	}
	return out
}

// explainWarmups explains the warm-up wake-ups ws, each marked as one.
func explainWarmups(tl *explain.Timeline, r *WakeResult, ws []explain.Sample) []explain.Wakeup {
	if len(ws) == 0 {
		return nil
	}
	out := tl.Explain(ws, r.Start, explain.Policy)
	for i := range out {
		if out[i].Note == "" {
			out[i].Note = WarmupNote
		} else {
			out[i].Note = WarmupNote + "; " + out[i].Note
		}
	}
	return out
}

// WarmupNote marks an explained wake-up that is a thread's warm-up.
const WarmupNote = "the thread's first wake-up (the warm-up, not in the statistics): it came after the run's end, so the thread measured nothing"

// topRan is what held a CPU longest in the explained wake-ups ws, the
// idle task aside, and that CPU.
func topRan(ws []explain.Wakeup) (top explain.Ran, cpu int, ok bool) {
	for _, w := range ws {
		for _, r := range w.Ran {
			if r.Kind != explain.KindIdle && r.DurationNs > top.DurationNs {
				top, cpu, ok = r, w.CPU, true
			}
		}
	}
	return top, cpu, ok
}

// traced runs run, with the kernel traced on cpus when on (--explain):
// a trace that cannot start or stop is a *SetupError, which says which
// step failed; another failure is wrapped as the named probe's.
//
// run is given freeze, which stops the kernel's recording at once (the
// trace frozen at a --stop-above sample) and says whether it did; nil
// when the run is not traced.
func traced[R any](cpus []int, on bool, probe string, run func(freeze func() bool) (R, error)) (r R, tl *explain.Timeline, notes []string, err error) {
	var tr *explain.Tracer
	var freeze func() bool
	if on {
		if tr, err = explain.Start(cpus); err != nil {
			return r, nil, nil, &SetupError{fmt.Errorf("--explain: %w", err)}
		}
		freeze = tr.Freeze
	}
	r, err = run(freeze)
	if tr != nil {
		var terr error
		tl, notes, terr = tr.Stop()
		if err == nil && terr != nil {
			err = &SetupError{fmt.Errorf("--explain: %w", terr)}
		}
	}
	if se := (*SetupError)(nil); errors.As(err, &se) {
		return r, nil, nil, err
	} else if err != nil {
		return r, nil, nil, fmt.Errorf("%s probe: %w", probe, err)
	}
	return r, tl, notes, nil
}
