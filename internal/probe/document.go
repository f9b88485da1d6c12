package probe

import (
	"fmt"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// The kinds of the sleep and wake probes' documents. Older documents kept
// these payloads at the top level; Moved reads them.
var (
	KindSleep = result.Register[SleepData]("sleep", "slept time of repeated sleeps and its overshoot (latlab sleep)",
		result.Moved(sleepMoved...))
	KindWake = result.Register[WakeData]("wake", "periodic wake-up latency, per thread and corrected for missed periods (latlab wake)",
		result.Moved(append(sleepMoved, "overruns", "corrected_summary", "corrected_histogram", "threads")...))
)

var sleepMoved = []string{"timer", "measurement", "overhead", "interrupted", "requested_count", "measured_count",
	"summary", "overshoot", "histogram", "samples_ns"}

// Measurement describes how the samples of a payload were taken.
type Measurement struct {
	Method         string       `json:"method"`
	RequestedNs    int64        `json:"requested_ns,omitempty"` // sleep duration
	IntervalNs     int64        `json:"interval_ns,omitempty"`  // wake period
	WarmupNs       int64        `json:"warmup_discarded_ns"`    // the first sample, not in the statistics
	Interrupted    int          `json:"interrupted"`            // waits resumed after a signal
	ElapsedNs      int64        `json:"elapsed_ns"`
	Thread         *ThreadSetup `json:"thread,omitempty"`
	ClockSource    string       `json:"clock_source"`
	PercentileNote string       `json:"percentile_definition"`
}

// Counts says whether a sleep or wake run was stopped (Ctrl-C, SIGTERM)
// before its planned count; the statistics cover the MeasuredCount
// samples taken until then. RequestedCount is the planned count (samples
// for sleep, wake-ups of all threads for wake), absent for a run until
// Ctrl-C.
type Counts struct {
	Interrupted    bool  `json:"interrupted"`
	RequestedCount int64 `json:"requested_count,omitempty"`
	MeasuredCount  int64 `json:"measured_count"`
}

// SetCounts records a run's planned and measured counts; stopped says the
// run ended on Ctrl-C. A planned count of 0 is a run until Ctrl-C, which
// is never interrupted.
func (c *Counts) SetCounts(requested, measured int64, stopped bool) {
	c.Interrupted = stopped && requested > 0
	c.RequestedCount, c.MeasuredCount = requested, measured
}

// RunCounts is c: through it a reader of any payload that embeds Counts
// (sleep, wake) learns whether the run was cut short.
func (c *Counts) RunCounts() Counts { return *c }

// SleepsRun is what the documents of experiments on sleeps (crossproc,
// sweep) hold besides their result: how the sleeps were measured, and the
// timer state after the run, absent when it could not be read. Embedded,
// its fields sit beside the result's in the payload.
type SleepsRun struct {
	Timer       *timer.Status `json:"timer,omitempty"`
	Measurement Measurement   `json:"measurement"`
}

// TimerState is the timer state after the run, nil when unknown.
func (d *SleepsRun) TimerState() *timer.Status { return d.Timer }

// SleepData is the payload of a sleep document. Summary is of the slept
// time, Overshoot of slept - requested.
type SleepData struct {
	// Timer is the timer state after the run; absent when it could not
	// be read (a note says why).
	Timer       *timer.Status `json:"timer,omitempty"`
	Measurement Measurement   `json:"measurement"`
	Overhead    Overhead      `json:"overhead"`
	Counts
	Summary   stats.Summary    `json:"summary"`
	Overshoot stats.Summary    `json:"overshoot"`
	Histogram result.Histogram `json:"histogram"`
	// Samples are the raw slept times in ns, kept so compare can run
	// exact tests; omitted above result.MaxSamples (the histogram
	// remains).
	Samples []int64 `json:"samples_ns,omitzero"`
	// Verdict is the verdict line the text output prints (the
	// check-up's words for the overshoot); absent without the timer
	// state, which it rests on.
	Verdict string `json:"verdict,omitempty"`
}

// Values returns the slept times (result.Sampled).
func (d *SleepData) Values(b *result.Budget) ([]int64, bool, error) {
	if err := nonNegative(d.Samples, "a slept time"); err != nil {
		return nil, false, err
	}
	return result.Values(d.Samples, &d.Histogram, b)
}

// SamplesInOrder says the raw slept times are in the order they were
// measured (result.Ordered): sleepLoop appends each as it is timed and
// the document stores them unsorted.
func (d *SleepData) SamplesInOrder() bool { return true }

// nonNegative refuses samples below zero: a slept time is the difference
// of two readings of a monotonic clock, and a wake-up never comes before
// its deadline (the wait is resumed until it has passed), so a document
// holding one was not written by latlab as it stands.
func nonNegative(samples []int64, what string) error {
	for i, v := range samples {
		if v < 0 {
			return fmt.Errorf("data.samples_ns[%d] is %d: %s is never negative", i, v, what)
		}
	}
	return nil
}

// Measured says how the samples were taken.
func (d *SleepData) Measured() *Measurement { return &d.Measurement }

// TimerState is the timer state after the run, nil when unknown.
func (d *SleepData) TimerState() *timer.Status { return d.Timer }

// WakeData is the payload of a wake document: the latency of every
// thread's wake-ups together, and per thread. The corrected summary and
// histogram fill in the periods missed by late wakes (coordinated-omission
// correction).
type WakeData struct {
	Timer       *timer.Status `json:"timer,omitempty"`
	Measurement Measurement   `json:"measurement"`
	Overhead    Overhead      `json:"overhead"`
	Counts
	Summary            stats.Summary    `json:"summary"`
	Histogram          result.Histogram `json:"histogram"`
	Overruns           int64            `json:"overruns"`
	CorrectedSummary   stats.Summary    `json:"corrected_summary"`
	CorrectedHistogram result.Histogram `json:"corrected_histogram"`
	Threads            []ThreadOutcome  `json:"threads"`
	// StoppedAbove: the run ended at its first wake-up later than
	// --stop-above, which it holds; the statistics cover the wake-ups
	// measured until then. Absent when the run was not stopped so.
	StoppedAbove *StoppedAbove `json:"stopped_above,omitempty"`
	// Samples are the raw latencies in ns, all threads in thread order;
	// omitted above result.MaxSamples.
	Samples []int64 `json:"samples_ns,omitzero"`
	// Explain (wake --explain) says what ran on the measured CPU between
	// the deadline and the time stamp of the worst wake-ups, worst first;
	// ExplainTotals sums it by cause, ExplainNext names the knob for the
	// main one.
	Explain       []explain.Wakeup `json:"explain,omitempty"`
	ExplainTotals []explain.Cause  `json:"explain_totals,omitempty"`
	ExplainNext   string           `json:"explain_next_step,omitempty"`
	// Band and Verdict are the check-up's band (good, fair, mediocre,
	// poor, too few) and the verdict line the text output prints.
	Band    string `json:"band,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// Values returns the wake-up latencies (result.Sampled).
func (d *WakeData) Values(b *result.Budget) ([]int64, bool, error) {
	if err := nonNegative(d.Samples, "a wake-up's lateness"); err != nil {
		return nil, false, err
	}
	return result.Values(d.Samples, &d.Histogram, b)
}

// SamplesInOrder says the raw latencies are in the order they were
// measured (result.Ordered): each thread's wake-ups in order (wakeLoop
// stores the i-th at index i), the threads one after another.
func (d *WakeData) SamplesInOrder() bool { return true }

// Measured says how the samples were taken.
func (d *WakeData) Measured() *Measurement { return &d.Measurement }

// TimerState is the timer state after the run, nil when unknown.
func (d *WakeData) TimerState() *timer.Status { return d.Timer }

// ThreadOutcome is one wake thread's outcome in a wake document.
type ThreadOutcome struct {
	ThreadSetup
	Summary          stats.Summary  `json:"summary"`
	Overruns         int64          `json:"overruns"`
	CorrectedSummary *stats.Summary `json:"corrected_summary,omitempty"`
	WarmupNs         int64          `json:"warmup_discarded_ns"`
	Interrupted      int            `json:"interrupted"`
}
