package probe

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/units"
)

// StopSample is the sample that ended a run stopped by --stop-above:
// the first single sample above the threshold, as cyclictest -b and rtla
// osnoise -s stop at.
type StopSample struct {
	// ValueNs is the sample: a wake-up's lateness (wake) or an
	// interruption's length (noise).
	ValueNs int64 `json:"value_ns"`
	// AtNs is when it came, after the run's start: a wake-up's time
	// stamp, an interruption's start (the read before it).
	AtNs int64 `json:"at_ns"`
	// Thread is the measuring thread's index, CPU the CPU it was pinned
	// to (-1: not pinned).
	Thread int `json:"thread"`
	CPU    int `json:"cpu"`
	// Index is the sample's number in its thread, from 0: the measured
	// wake-ups (the warm-up left out) or the interruptions.
	Index int64 `json:"index"`
}

// StoppedAbove says why a run ended before its duration: a single
// sample above --stop-above.
type StoppedAbove struct {
	ThresholdNs int64      `json:"threshold_ns"`
	Sample      StopSample `json:"sample"`
	// TraceFrozen says the run's kernel trace (--explain) was stopped
	// (tracing_on 0) just after this sample, as cyclictest -b freezes
	// the trace: the trace, and the explanations drawn from it, end there.
	TraceFrozen bool `json:"trace_frozen,omitempty"`
}

// validateStopAbove checks --stop-above against the run's planned
// length, which length names in flags ("--duration 10s"): 0 is off (no
// flag), a negative value is no threshold, and a sample as long as the
// run can end no run early: a noise interruption that does not reach the
// run's end is shorter than the run, and a wake-up that late after any
// measured deadline of a --duration run comes at or past its end, where
// it stops nothing. A --loops run could in principle meet a wake-up later
// than its planned length (a stall, the deadlines it skipped counted as
// missed), but the flag keeps one bound for both commands and both kinds
// of run.
func validateStopAbove(d, run time.Duration, length string) error {
	if d != 0 && (d < 0 || d >= run) {
		return badinput.Errorf("invalid --stop-above %s: accepted more than 0 and below the run's length, %s", units.Duration(d), length)
	}
	return nil
}

// stopAbove is the state a run's threads share for --stop-above,
// allocated before the run: the threshold, the first thread to cross it
// and its sample, and the run's stop flag, which ends the other threads
// as Ctrl-C does.
type stopAbove struct {
	// limit is the threshold in ns, math.MaxInt64 when off: the loops
	// compare their sample with it and nothing else.
	limit int64
	flag  *atomic.Bool
	// winner is the index + 1 of the thread whose sample is kept, 0
	// before any: only that thread writes sample.
	winner atomic.Int64
	sample StopSample
}

// noStopAbove is a stopAbove that never fires, for loops run without a
// threshold (WakeBurst): no sample exceeds math.MaxInt64.
var noStopAbove = &stopAbove{limit: math.MaxInt64}

func newStopAbove(d time.Duration, flag *atomic.Bool) *stopAbove {
	s := &stopAbove{limit: math.MaxInt64, flag: flag}
	if d > 0 {
		s.limit = d.Nanoseconds()
	}
	return s
}

// fire records smp if it is the run's first sample above the limit and
// stops the run. It runs held (heldCode): atomics and a copy only. It
// reports whether smp was the first.
func (s *stopAbove) fire(smp StopSample) bool {
	first := s.winner.CompareAndSwap(0, int64(smp.Thread)+1)
	if first {
		s.sample = smp
	}
	s.flag.Store(true)
	return first
}

// firedBy says whether thread i's sample ended the run.
func (s *stopAbove) firedBy(i int) bool { return s.winner.Load() == int64(i)+1 }

// result is the stop, its AtNs made relative to the run's start, or nil
// when no sample crossed the limit. Call it once the threads are done.
func (s *stopAbove) result(start int64) *StoppedAbove {
	if s == nil || s.winner.Load() == 0 {
		return nil
	}
	smp := s.sample
	smp.AtNs -= start
	return &StoppedAbove{ThresholdNs: s.limit, Sample: smp}
}

// StopAbove is the sample that ended the run (--stop-above), nil when
// none did: through it a reader of a wake or noise document learns why
// the run is shorter than planned.
func (d *WakeData) StopAbove() *StoppedAbove { return d.StoppedAbove }

// StopAbove is the interruption that ended the run (--stop-above), nil
// when none did.
func (d *NoiseData) StopAbove() *StoppedAbove { return d.StoppedAbove }
