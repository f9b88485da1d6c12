package explain

import (
	"context"
	"fmt"

	"github.com/latlab/latlab/internal/tracefs"
)

// Method says how explanations are made.
const Method = "tracefs events sched_switch, sched_wakeup, hrtimer_expire_entry, irq_handler_entry/exit, softirq_entry/exit and (x86) irq_vectors:* of the measured CPUs (tracing_cpumask), private instance, clock mono (the probe's CLOCK_MONOTONIC)"

// Tracer records a timeline while a measurement runs.
type Tracer struct {
	s      *tracefs.Session
	tl     *Timeline
	cancel context.CancelFunc
	done   chan error
	// freezeErr is why Freeze failed; written by Freeze's caller before
	// Stop is called.
	freezeErr error
}

// Freeze stops the kernel's recording now, while the run still goes on
// (tracing_on 0: a run stopped by --stop-above, as cyclictest -b does),
// so the trace ends at what stopped it; the events recorded until then
// are still read by Stop. It reports whether the trace was frozen; a
// failure is one of Stop's notes.
func (t *Tracer) Freeze() bool {
	if err := t.s.Freeze(); err != nil {
		t.freezeErr = err
		return false
	}
	return true
}

// Start traces the CPUs until Stop. Off Linux it returns
// tracefs.ErrUnsupported.
func Start(cpus []int) (*Tracer, error) {
	// The reader gives up its CPU after each page of a drain's first 64
	// (Options.Yield), and the timeline grows by chunks (Timeline.push):
	// where every CPU is measured, the reader shares one with a measuring
	// thread. Without either, latlab's own threads held the measured CPUs
	// of 4 s runs on both CPUs of a 2-CPU machine for 0 to 12.7 ms of the
	// wake-ups later than 300 µs (longest 2 ms); with both, for 0 to 15 µs
	// (5 runs each, alternating). A lower priority instead (nice 19,
	// SCHED_IDLE) left the reader so far behind a storm of context
	// switches (stress-ng --switch) that the buffer lost millions of
	// events in runs where a reader at normal priority lost none.
	s, err := tracefs.Open(tracefs.Options{Events: Events, Optional: tracefs.VectorEvents, CPUs: cpus, BufferKB: 8192, Yield: true})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tracer{s: s, tl: NewTimeline(), cancel: cancel, done: make(chan error, 1)}
	go func() { t.done <- s.Follow(ctx, t.tl.Add) }()
	return t, nil
}

// Stop ends the trace, removes the instance and returns the timeline;
// notes say what it lacks (lost events, a full timeline).
func (t *Tracer) Stop() (*Timeline, []string, error) {
	t.cancel()
	err := <-t.done
	var notes []string
	if t.freezeErr != nil {
		notes = append(notes, fmt.Sprintf("explain: the trace could not be frozen at the stop, it ran on until the run's end: %v", t.freezeErr))
	}
	if n := t.s.Lost(); n > 0 {
		notes = append(notes, fmt.Sprintf("explain: the ring buffer lost %d events; explanations near the loss may miss what ran", n))
	}
	if t.tl.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("explain: %d events past the timeline's bound of %d were dropped", t.tl.Dropped, MaxEvents))
	}
	if cerr := t.s.Close(); err == nil {
		err = cerr
	}
	// The runtime's threads, the reader's among them, are still there.
	t.tl.own = ownThreads()
	return t.tl, notes, err
}
