package probe

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// KindNoise is the kind of the noise probe's documents.
var KindNoise = result.Register[NoiseData]("noise",
	"how much the OS interrupts a thread that never sleeps, per CPU (latlab noise, the osnoise method)")

// NoiseData is the payload of a noise document: one entry per measured CPU.
type NoiseData struct {
	Measurement NoiseMeasurement `json:"measurement"`
	// Interrupted: the run was stopped (Ctrl-C) before its duration; the
	// figures cover the time measured until then.
	Interrupted bool `json:"interrupted"`
	// StoppedAbove: the run ended at its first interruption longer than
	// --stop-above, which it holds; the figures cover the time measured
	// until then. Absent when the run was not stopped so.
	StoppedAbove *StoppedAbove `json:"stopped_above,omitempty"`
	CPUs         []NoiseCPU    `json:"cpus"`
	// Explain (noise --explain) says what ran on the CPU in the longest
	// interruptions, longest first; ExplainTotals sums it by cause,
	// ExplainNext names the knob for the main one.
	Explain       []NoiseExplained `json:"explain,omitempty"`
	ExplainTotals []explain.Cause  `json:"explain_totals,omitempty"`
	ExplainNext   string           `json:"explain_next_step,omitempty"`
	// Timer is the timer state after the run (CONFIG_HZ, the tick mode,
	// the nohz_full CPUs), nil when unknown.
	Timer *timer.Status `json:"timer,omitempty"`
	// Level and Verdict are the level (quiet, light, noisy, heavy) of the
	// noisiest CPU and the verdict line the text output prints.
	Level   string `json:"level,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// NoiseExplained is one explained interruption: what held its CPU from
// the read before it to the read after it.
type NoiseExplained struct {
	CPU      int   `json:"cpu"`
	AtNs     int64 `json:"at_ns"` // since the run's start
	LengthNs int64 `json:"length_ns"`
	// Ran is what the trace shows on the CPU in the interruption, longest
	// first, the spinning thread itself left out; interrupt time is
	// counted in the handler.
	Ran []explain.Ran `json:"ran"`
	// UntracedNs is the part of the interruption no traced event
	// accounts for: the way into and out of handlers, page faults, NMIs
	// and SMIs, a hypervisor running something else.
	UntracedNs int64  `json:"untraced_ns"`
	Cause      string `json:"cause"`
	Note       string `json:"note,omitempty"`
}

// NoiseMeasurement describes how a noise run measured.
type NoiseMeasurement struct {
	Method      string `json:"method"`
	ClockSource string `json:"clock_source"`
	// ThresholdNs is the shortest step between two clock reads counted
	// as an interruption (osnoise's tracing_thresh).
	ThresholdNs    int64  `json:"threshold_ns"`
	DurationNs     int64  `json:"duration_ns"` // requested, per thread
	ElapsedNs      int64  `json:"elapsed_ns"`
	PercentileNote string `json:"percentile_definition"`
	// CountersMethod says where the per-CPU interrupt counts come from;
	// CountersNs is the time between their two readings, which encloses
	// the run.
	CountersMethod string `json:"counters_method,omitempty"`
	CountersNs     int64  `json:"counters_ns,omitempty"`
}

// NoiseCPU is one CPU's outcome, in osnoise's terms where it has them:
// runtime (RUNTIME IN US), noise (NOISE IN US), the share available to
// the thread (% OF CPU AVAILABLE), the longest interruption (MAX SINGLE
// NOISE IN US).
type NoiseCPU struct {
	ThreadSetup
	// RuntimeNs is the time the thread spun, from its first clock read
	// to the run's end, PausedNs (the loop letting its thread go for the
	// Go runtime) left out: never more than the duration. An
	// interruption still in progress at the end counts up to the end
	// only, in the noise and in its length alike.
	RuntimeNs int64 `json:"runtime_ns"`
	// NoiseNs is the summed length of the interruptions.
	NoiseNs int64 `json:"noise_ns"`
	// AvailablePct is 100 × (runtime - noise) / runtime.
	AvailablePct float64 `json:"available_pct"`
	Count        int64   `json:"interruptions"`
	PerSecond    float64 `json:"interruptions_per_s"`
	MaxNs        int64   `json:"max_single_ns"`
	// Summary is of the kept interruptions' lengths (Kept of Count).
	Summary stats.Summary `json:"summary"`
	Kept    int64         `json:"kept"`
	// ClockReads is the number of steps the loop took; ClockStepMinNs the
	// smallest: the clock read's own cost, or 0 where the clock ticks
	// more slowly than it is read.
	ClockReads     int64 `json:"clock_reads"`
	ClockStepMinNs int64 `json:"clock_step_min_ns"`
	PausedNs       int64 `json:"paused_ns"`
	Pauses         int   `json:"pauses"`
	// Longest are the longest kept interruptions, longest first.
	Longest []Interruption `json:"longest,omitempty"`
	// Histogram is of the kept lengths; LengthsNs are the kept lengths
	// themselves, in the order measured, omitted when the run's CPUs
	// kept more than result.MaxSamples together (the histogram
	// remains). compare tests their distributions. Documents written
	// before they were recorded lack both.
	Histogram *result.Histogram `json:"histogram,omitempty"`
	LengthsNs []int64           `json:"lengths_ns,omitzero"`
	// Interrupts are the hard interrupts the OS counted on the CPU over
	// the run (Measurement.CountersNs), Softirqs the softirqs (Linux),
	// DPCs the DPCs queued (Windows); absent where not read.
	Interrupts *NoiseCounts `json:"interrupts,omitempty"`
	Softirqs   *NoiseCounts `json:"softirqs,omitempty"`
	DPCs       *NoiseCounts `json:"dpcs,omitempty"`
	// InvoluntarySwitches is how often the spinning thread was switched
	// out involuntarily in its loop (preempted: getrusage's ru_nivcsw,
	// Linux); absent where the OS does not say.
	InvoluntarySwitches *int64 `json:"involuntary_switches,omitempty"`
}

// Lengths returns the kept interruptions' lengths, and whether they are
// the raw ones (false: rebuilt from the histogram, charged to b). A
// document without either is result.ErrNoDistribution.
// SamplesInOrder says the raw lengths Lengths returns are in the order
// measured (result.Ordered): the noise loop appends each interruption as
// it ends, and the document stores them unsorted.
func (c *NoiseCPU) SamplesInOrder() bool { return true }

func (c *NoiseCPU) Lengths(b *result.Budget) ([]int64, bool, error) {
	if int64(len(c.LengthsNs)) > c.Kept {
		return nil, false, fmt.Errorf("CPU %d: %d lengths of interruptions for %d kept", c.CPU, len(c.LengthsNs), c.Kept)
	}
	for i, v := range c.LengthsNs {
		if v < 0 {
			return nil, false, fmt.Errorf("CPU %d: lengths_ns[%d] is %d: the length of an interruption is never negative", c.CPU, i, v)
		}
	}
	if c.Histogram == nil && len(c.LengthsNs) == 0 {
		return nil, false, result.ErrNoDistribution
	}
	return result.Values(c.LengthsNs, c.Histogram, b)
}

// Interruption is one step of the loop of at least the threshold.
type Interruption struct {
	// AtNs is its start (the read before it) after the run's start.
	AtNs     int64 `json:"at_ns"`
	LengthNs int64 `json:"length_ns"`
}

// maxLongest is how many interruptions per CPU the document lists.
const maxLongest = 20

// ErrNoNoiseRuntime is a noise run stopped before any thread spun: it
// is ErrNoSamples, which the command line reports as a run interrupted
// before its first sample.
var ErrNoNoiseRuntime = fmt.Errorf("no CPU was measured, the run was stopped before it began: %w", ErrNoSamples)

// RunNoise is `latlab noise`: it measures as o says and returns the
// result with its document. With o.Explain it traces the measured CPUs
// while measuring and explains the longest interruptions in the
// document; a trace that cannot start is a *SetupError.
func RunNoise(ctx context.Context, o NoiseOptions) (*NoiseResult, *result.Document, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	frozen := false
	r, tl, notes, err := traced(o.CPUs, o.Explain != nil, "noise", func(freeze func() bool) (*NoiseResult, error) {
		if freeze != nil && o.StopAbove > 0 {
			// Written by the thread that stopped the run, read after
			// Noise has waited for every thread.
			o.OnStopAbove = func() { frozen = freeze() }
		}
		return Noise(ctx, o)
	})
	if err != nil {
		return nil, nil, err
	}
	doc, err := NoiseDocument(host.Collect(), r)
	if err == nil && r.StoppedAbove != nil {
		doc.Data.(*NoiseData).StoppedAbove.TraceFrozen = frozen
	}
	if err == nil {
		if st, stErr := timer.Query(); stErr == nil {
			doc.Data.(*NoiseData).Timer = &st
		} else {
			doc.Notes = append(doc.Notes, "timer state unavailable: "+stErr.Error())
		}
	}
	if err != nil || tl == nil {
		return r, doc, err
	}
	d := doc.Data.(*NoiseData)
	samples, note := pickLongest(r, *o.Explain)
	samples = withStopSample(samples, r.StoppedAbove, func(s StopSample) (explain.Sample, bool) {
		t := r.Threads[s.Thread]
		return explain.Sample{Thread: s.Thread, CPU: t.Setup.CPU, TID: t.TID, Deadline: r.Start + s.AtNs, Latency: s.ValueNs}, true
	})
	if note != "" {
		doc.Notes = append(doc.Notes, note)
	}
	ws := tl.Explain(samples, r.Start, explain.Policy)
	d.Explain = noiseExplained(ws, r.Start)
	d.ExplainTotals = explain.Totals(ws)
	for _, c := range d.ExplainTotals {
		if c.Kind != explain.KindIdle { // NextStep's idle advice is about a sleeping thread's timer
			d.ExplainNext = explain.NextStep(ws, d.ExplainTotals, 0, o.Priority == sched.Realtime)
			break
		}
	}
	doc.Notes = append(doc.Notes, "explain: "+explain.Method)
	doc.Notes = append(doc.Notes, notes...)
	return r, doc, nil
}

// pickLongest chooses the kept interruptions to explain, longest first:
// every one longer than o.Above when it is set (at most maxExplained),
// else the o.Worst longest (default 10).
func pickLongest(r *NoiseResult, o ExplainOptions) ([]explain.Sample, string) {
	var all []explain.Sample
	for i, t := range r.Threads {
		for j, l := range t.Lengths {
			if o.Above > 0 && l <= o.Above.Nanoseconds() {
				continue
			}
			all = append(all, explain.Sample{Thread: i, CPU: t.Setup.CPU, TID: t.TID, Deadline: t.Starts[j], Latency: l})
		}
	}
	return worstOf(all, o, "explain: %d interruptions were longer than %s; the longest %d are explained")
}

// noiseExplained turns the explanations of interruptions (made by the
// wake-up explainer: the "deadline" is the read before the gap, the
// "latency" its length) into the noise document's: the wake-up's timer
// and wake-to-run figures have no meaning for a thread that never slept.
func noiseExplained(ws []explain.Wakeup, start int64) []NoiseExplained {
	out := make([]NoiseExplained, 0, len(ws))
	for _, w := range ws {
		e := NoiseExplained{CPU: w.CPU, AtNs: w.DeadlineNs - start, LengthNs: w.LatencyNs, Ran: w.Ran, UntracedNs: w.LatencyNs, Cause: w.Cause}
		for _, r := range w.Ran {
			e.UntracedNs -= r.DurationNs
		}
		e.UntracedNs = max(e.UntracedNs, 0)
		switch {
		case w.Cause == "unknown":
			e.Note = w.Note
		case len(w.Ran) == 0:
			e.Cause = "untraced"
			e.Note = "no traced event on the CPU in the interruption: a page fault, an NMI or SMI, or a hypervisor running something else"
		}
		out = append(out, e)
	}
	return out
}

// NoiseDocument is the noise document of r on the host facts.
func NoiseDocument(facts host.Facts, r *NoiseResult) (*result.Document, error) {
	data := &NoiseData{}
	doc := KindNoise.New(facts, data)
	data.Measurement = NoiseMeasurement{
		Method: NoiseMethod, ClockSource: doc.Host.ClockSource, ThresholdNs: r.Threshold.Nanoseconds(),
		DurationNs: r.Duration.Nanoseconds(), ElapsedNs: r.Elapsed.Nanoseconds(), PercentileNote: result.PercentileDefinition,
	}
	if r.Counters != nil {
		data.Measurement.CountersMethod, data.Measurement.CountersNs = r.Counters.Method, r.CountersNs
	}
	if data.Measurement.ClockSource == "" {
		data.Measurement.ClockSource = clock.Source()
	}
	measured := false
	kept := 0
	for _, t := range r.Threads {
		kept += len(t.Lengths)
	}
	if r.StoppedAbove != nil {
		sa := *r.StoppedAbove
		data.StoppedAbove = &sa
	}
	for _, t := range r.Threads {
		// A run ended by --stop-above was not interrupted: StoppedAbove
		// says why it is short.
		data.Interrupted = data.Interrupted || (t.Stopped && r.StoppedAbove == nil)
		c := noiseCPU(t, r.Start)
		if len(t.Lengths) > 0 {
			h, err := result.EncodeHistogram(stats.HistogramOf(t.Lengths))
			if err != nil {
				return nil, fmt.Errorf("CPU %d: histogram of the interruptions: %w", t.Setup.CPU, err)
			}
			c.Histogram = h
			if kept <= result.MaxSamples {
				c.LengthsNs = t.Lengths
			}
		}
		if r.Counters != nil {
			n := r.Counters.PerCPU[c.CPU]
			c.Interrupts, c.Softirqs, c.DPCs = n.Interrupts, n.Softirqs, n.DPCs
		}
		measured = measured || c.RuntimeNs > 0
		data.CPUs = append(data.CPUs, c)
		if t.Dropped > 0 {
			doc.Notes = append(doc.Notes, fmt.Sprintf("CPU %d: %d interruptions, the first %d kept: the percentiles are of those; the count, the noise and the longest are of all",
				t.Setup.CPU, t.Count, len(t.Lengths)))
		}
		if n := MaxPercentilesNote(len(t.Lengths), "interruptions"); n != "" && len(t.Lengths) > 0 {
			doc.Notes = append(doc.Notes, fmt.Sprintf("CPU %d: %s", t.Setup.CPU, n))
		}
	}
	if !measured {
		return nil, ErrNoNoiseRuntime
	}
	if kept > result.MaxSamples {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d interruptions kept on all CPUs together: their lengths are stored above %d as histograms only", kept, result.MaxSamples))
	}
	for _, t := range r.Threads {
		if t.Setup.PriorityNote != "" {
			doc.Notes = append(doc.Notes, t.Setup.PriorityNote)
			break
		}
	}
	doc.Notes = append(doc.Notes, r.Notes...)
	return doc, nil
}

// noiseCPU is one thread's entry in the document; start is the run's.
func noiseCPU(t NoiseThread, start int64) NoiseCPU {
	c := NoiseCPU{
		ThreadSetup: t.Setup, RuntimeNs: max(t.RuntimeNs(), 0), NoiseNs: t.TotalNs, Count: t.Count, MaxNs: t.MaxNs,
		Kept: int64(len(t.Lengths)), ClockReads: t.Reads, ClockStepMinNs: max(t.MinStepNs, 0), PausedNs: t.PausedNs, Pauses: t.Pauses,
	}
	if t.InvoluntarySwitches >= 0 {
		c.InvoluntarySwitches = &t.InvoluntarySwitches
	}
	if c.RuntimeNs > 0 {
		c.AvailablePct = 100 * float64(c.RuntimeNs-c.NoiseNs) / float64(c.RuntimeNs)
		c.PerSecond = float64(c.Count) * 1e9 / float64(c.RuntimeNs)
	}
	c.Summary = stats.Summarize(t.Lengths)
	idx := make([]int, len(t.Lengths))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case t.Lengths[a] > t.Lengths[b]:
			return -1
		case t.Lengths[a] < t.Lengths[b]:
			return 1
		}
		return 0
	})
	for _, i := range idx[:min(len(idx), maxLongest)] {
		c.Longest = append(c.Longest, Interruption{AtNs: t.Starts[i] - start, LengthNs: t.Lengths[i]})
	}
	return c
}

// WriteCyclictestHist writes the kept interruptions' lengths in the
// layout of cyclictest -h, a column per CPU (WakeResult's method says
// how).
func (r *NoiseResult) WriteCyclictestHist(out io.Writer, maxUs int) error {
	cols := make([][]int64, len(r.Threads))
	for i, t := range r.Threads {
		cols[i] = t.Lengths
	}
	return writeCyclictestHist(out, cols, maxUs, -1)
}
