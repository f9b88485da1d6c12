package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/result"
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
	doc, err := SleepDocument(r, o.Samples, st, stErr)
	return r, doc, err
}

// SleepDocument is the sleep document of r: its statistics, histogram and
// kept samples, how they were taken, the timer state st (or why stErr kept
// it from being read) and the notes a reader needs to judge the numbers.
// requested is the planned sample count, 0 for a run until Ctrl-C.
func SleepDocument(r *SleepResult, requested int, st timer.Status, stErr error) (*result.Document, error) {
	if len(r.Slept) == 0 {
		return nil, ErrNoSamples
	}
	data := &SleepData{}
	doc := KindSleep.New(data)
	if stErr == nil {
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
	if len(r.Slept) < 1000 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d samples: p99.9 needs at least 1000 to differ from the maximum", len(r.Slept)))
	}
	return doc, nil
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
func RunWake(ctx context.Context, o WakeOptions) (*WakeResult, *result.Document, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	r, err := Wake(ctx, o)
	if se := (*SetupError)(nil); errors.As(err, &se) {
		return nil, nil, err // says which setup step failed
	} else if err != nil {
		return nil, nil, fmt.Errorf("wake probe: %w", err)
	}
	st, stErr := timer.Query()
	doc, err := WakeDocument(r, st, stErr, o.DMALatency)
	return r, doc, err
}

// WakeDocument is the wake document of r: the pooled and per-thread
// statistics, the same corrected for missed periods, how they were taken,
// the timer state st when stErr is nil, and the notes, the probe's own
// included. dmaLatency is the /dev/cpu_dma_latency value held during the
// run, nil when the run left it alone.
func WakeDocument(r *WakeResult, st timer.Status, stErr error, dmaLatency *int) (*result.Document, error) {
	data := &WakeData{}
	doc := KindWake.New(data)
	if stErr == nil {
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
		return nil, errors.New("no wake-ups were measured")
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
	data.SetCounts(int64(r.Planned)*int64(len(r.Threads)), int64(len(all)), stopped)
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
	doc.Notes = append(doc.Notes, r.Notes...)
	return doc, nil
}
