package probe

import (
	"time"

	"github.com/latlab/latlab/internal/clock"
)

// The burst API serves callers that keep one prepared thread for a long
// time and measure in short bursts (the exporter): the same timed loops
// as Wake and Sleep, on buffers the caller owns, with no per-call thread
// setup and no garbage collection, so a burst allocates nothing.

// Sleeper is one of the sleep probe's OS sleep primitives (SleepMethods).
// Use it from a goroutine locked to its thread, e.g. inside OnThread.
type Sleeper struct {
	s      sleeper
	method string
	// The loop's buffer and stop flag live here: handed to the loop
	// through an interface on the stack, they would escape to the heap
	// on every burst.
	buf  sampleBuf
	stop deadline
}

// NewSleeper opens the sleep primitive method.
func NewSleeper(method string) (*Sleeper, error) {
	s, err := newSleeper(method)
	if err != nil {
		return nil, err
	}
	return &Sleeper{s: s, method: method}, nil
}

// Method is the sleep method's name.
func (s *Sleeper) Method() string { return s.method }

// Close releases the primitive's OS handle, if any.
func (s *Sleeper) Close() { s.s.close() }

// Overhead times 1000 zero-length sleeps and clock reads, as Sleep does
// before a run; the first failed sleep is the error.
func (s *Sleeper) Overhead() (Overhead, error) { return sleeperOverhead(s.s, s.method) }

// WaiterOverhead times 1000 waits for a passed deadline and clock reads,
// as Wake does before a run; the first failed wait is the error.
func WaiterOverhead(w Waiter) (Overhead, error) {
	var err error
	o := measureOverhead(1000, func() {
		if _, e := w.WaitUntil(clock.Now() - 1); e != nil && err == nil {
			err = e
		}
	}, "wait for a passed deadline")
	return o, err
}

// deadline stops a loop once clock.Now reaches at; it is the loop's stop
// flag, read between samples.
type deadline struct{ at int64 }

func (d *deadline) Load() bool { return clock.Now() >= d.at }

// never is a stop flag that is never set.
type never struct{}

func (never) Load() bool { return false }

// SleepBurst runs the sleep probe's loop: it asks s for d, one warm-up
// sleep and then until out is full or the clock.Now deadline until has
// passed, and stores each measured sleep (ns) in out. n: how many. It
// ends at the first sleep that fails, with its error.
func SleepBurst(s *Sleeper, d time.Duration, until int64, out []int64) (n, interrupted int, err error) {
	if len(out) == 0 {
		return 0, 0, nil
	}
	s.buf = sampleBuf{cur: out[:0:len(out)]}
	s.stop.at = until
	interrupted, _, _, _, err = sleepLoop(s.s, SleepOptions{Duration: d, Samples: len(out)}, &s.buf, &s.stop)
	n = len(s.buf.cur)
	s.buf.cur = nil // the caller owns out
	return n, interrupted, err
}

// WakeBurst runs the wake probe's loop on w: deadlines at start, start +
// interval, ..., the first one a warm-up, until len(lat) wake-ups are
// measured or one at or after start + limit. lat[:n] holds the lateness
// of each (ns); overruns counts the deadlines that passed while the
// thread was late, which the loop skips. It ends at the first wait that
// fails, with its error.
func WakeBurst(w Waiter, start int64, interval, limit time.Duration, lat []int64) (n int, overruns int64, interrupted int, err error) {
	if len(lat) == 0 || interval <= 0 {
		return 0, 0, 0, nil
	}
	n, overruns, interrupted, _, _, err = wakeLoop(w, start, interval.Nanoseconds(), len(lat), limit, lat, nil, never{}, noStopAbove, StopSample{})
	return n, overruns, interrupted, err
}
