package netload

import (
	"fmt"
	"runtime"

	"github.com/latlab/latlab/internal/probe"
)

// onPacedThread runs fn on a fresh OS thread set up as t asks (probe's
// thread runner), with the wake probe's absolute-deadline wait. A thread
// that does not ask for a timer resolution gets paceResolution.
//
// GOMAXPROCS is raised by one for the run: the Linux wait is a raw system
// call that keeps the thread's scheduler slot while it sleeps, which would
// otherwise starve the goroutines receiving echoes or writing the stream.
func onPacedThread(t probe.Thread, fn func(w probe.Waiter) error) (probe.ThreadSetup, error) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + 1)
	defer runtime.GOMAXPROCS(prev)
	if t.Resolution == 0 {
		t.Resolution = paceResolution
	}
	return probe.OnThread(t, func(probe.ThreadSetup) error {
		w, err := probe.NewWaiter()
		if err != nil {
			return fmt.Errorf("pacing thread: %w", err)
		}
		defer w.Close()
		return fn(w)
	})
}

// defaultThread is a pacing thread at normal priority, not pinned.
var defaultThread = probe.Thread{CPU: -1}

// PacerMethod names the wait primitive for result documents.
func PacerMethod() string { return pacerMethod }
