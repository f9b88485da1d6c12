package netload

import (
	"fmt"
	"runtime"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
)

// onPacedThread runs fn on a fresh OS thread set up as t asks (probe's
// thread runner), with the wake probe's absolute-deadline wait and what
// the thread obtained. A thread
// that does not ask for a timer resolution gets paceResolution.
//
// GOMAXPROCS is raised by one for the run: the Linux wait is a raw system
// call that keeps the thread's scheduler slot while it sleeps, which would
// otherwise starve the goroutines receiving echoes or writing the stream.
func onPacedThread(t probe.Thread, fn func(w probe.Waiter, got probe.ThreadSetup) error) (probe.ThreadSetup, error) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + 1)
	defer runtime.GOMAXPROCS(prev)
	if t.Resolution == 0 {
		t.Resolution = paceResolution
	}
	var slice time.Duration
	var sliceErr error
	setup, err := probe.OnThread(t, func(got probe.ThreadSetup) error {
		// The thread ends with the run (probe.OnThread), and its
		// slice with it.
		slice, sliceErr = sched.RequestSlice(paceSlice)
		w, err := probe.NewWaiter()
		if err != nil {
			return fmt.Errorf("pacing thread: %w", err)
		}
		defer w.Close()
		return fn(w, got)
	})
	setup.SliceNs = int64(slice)
	if sliceErr != nil {
		setup.SliceNote = "the default slice: " + sliceErr.Error()
	}
	return setup, err
}

// paceSlice is the time slice the pacing thread asks Linux's fair
// scheduler for (sched.RequestSlice): its smallest, so that the thread's
// wake-up preempts a thread at the default slice. Without it, beside two
// CPU hogs (stress-ng) at normal priority, pinned to CPU 0, more than 1%
// of the pacing thread's wake-ups waited out a hog's slice (perf sched:
// 2.6-3.9 ms), and the game profile's send lag p99 was over a
// millisecond in 16 of 32 alternating 5 s rounds; with it, and the spin's
// back-off on a late wake-up, 19-137 µs in 24 of 24 rounds, against
// cyclictest's lateness of 72-635 µs in the same rounds (0.22-0.50x).
const paceSlice = 100 * time.Microsecond

// defaultThread is a pacing thread at normal priority, not pinned.
var defaultThread = probe.Thread{CPU: -1}

// PacerMethod names the wait primitive for result documents.
func PacerMethod() string { return pacerMethod }
