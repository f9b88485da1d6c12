package probe

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/sched"
)

// Wake sets the system up before it measures: a memory lock the OS lacks
// is a note, any other failure a SetupError before OnStart and before any
// thread runs. What to expect is asked of sched first, so the test holds
// with and without the privileges.
func TestWakeSystemSetup(t *testing.T) {
	run := func(o WakeOptions) (*WakeResult, int, error) {
		started := 0
		o.Interval, o.Loops, o.OnStart = time.Millisecond, 3, func() { started++ }
		r, err := Wake(context.Background(), o)
		return r, started, err
	}

	undo, lockErr := sched.LockMemory()
	if lockErr == nil {
		undo()
	}
	r, started, err := run(WakeOptions{Mlock: true})
	switch {
	case errors.Is(lockErr, sched.ErrUnsupported):
		if err != nil || !slices.Equal(r.Notes, []string{lockErr.Error()}) || started != 1 {
			t.Fatalf("no memory lock here: err %v, notes %q, started %d; want the run with a note", err, r.Notes, started)
		}
	case lockErr != nil:
		var se *SetupError
		if !errors.As(err, &se) || started != 0 || r != nil {
			t.Fatalf("memory lock fails here (%v): err %v, started %d", lockErr, err, started)
		}
	default:
		if err != nil || len(r.Notes) != 0 || started != 1 || len(r.Threads[0].Latencies) != 3 {
			t.Fatalf("err %v, notes %q, started %d", err, r.Notes, started)
		}
	}

	release, dmaErr := sched.HoldDMALatency(0)
	if dmaErr == nil {
		release()
	}
	us := 0
	r, started, err = run(WakeOptions{DMALatency: &us})
	if dmaErr != nil {
		var se *SetupError
		if !errors.As(err, &se) || se.Err.Error() != dmaErr.Error() || started != 0 || r != nil {
			t.Fatalf("DMA latency cannot be held here (%v): err %v, started %d", dmaErr, err, started)
		}
		if errors.Is(dmaErr, sched.ErrUnsupported) != errors.Is(err, sched.ErrUnsupported) {
			t.Fatalf("err %v hides whether the OS lacks the setting", err)
		}
	} else if err != nil || started != 1 {
		t.Fatalf("err %v, started %d", err, started)
	}

	// Without setup nothing is noted.
	if r, started, err = run(WakeOptions{}); err != nil || r.Notes != nil || started != 1 {
		t.Fatalf("plain run: err %v, notes %q, started %d", err, r.Notes, started)
	}
}
