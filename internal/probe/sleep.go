package probe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/units"
)

// SleepOptions configure the sleep probe: ask the OS to sleep Duration,
// Samples times, and time each sleep.
type SleepOptions struct {
	Duration time.Duration
	Samples  int           // measured samples after the warm-up; 0 = until ctx is cancelled
	Gap      time.Duration // unmeasured pause between samples
	Method   string        // see SleepMethods
	Thread   Thread
	// Live, when set, receives each measured sample (ns) without blocking
	// the loop: a full channel drops the value and counts it.
	Live chan<- int64
	// SkipOverhead leaves SleepResult.Overhead zero instead of timing 1000
	// zero-length waits first: for callers that run many short probes and
	// report no overhead (a sweep's steps, crossproc's holds).
	SkipOverhead bool
}

// SleepResult holds the raw outcome of a sleep run.
type SleepResult struct {
	Method      string
	Requested   time.Duration
	Slept       []int64 // ns, warm-up excluded
	WarmupNs    int64   // the discarded first sample
	Interrupted int     // waits cut short by a signal and resumed
	// Stopped: ctx ended the run before Samples were measured (for a run
	// until ctx is cancelled, always).
	Stopped     bool
	LiveDropped int
	Setup       ThreadSetup
	Overhead    Overhead // zero with SkipOverhead
	Elapsed     time.Duration
}

// WriteCSV writes every measured sample, warm-up excluded, as rows of
// index,slept_ns,overshoot_ns (overshoot = slept - requested).
func (r *SleepResult) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "index,slept_ns,overshoot_ns")
	req := r.Requested.Nanoseconds()
	for i, v := range r.Slept {
		fmt.Fprintf(bw, "%d,%d,%d\n", i, v, v-req)
	}
	return bw.Flush()
}

// sleeper is one OS sleep primitive. sleep blocks for about d and returns
// how many times a signal interrupted it; an error names the OS call that
// failed.
type sleeper interface {
	sleep(d int64) (interrupted int, err error)
	close()
}

// SleepMethods lists the methods on this OS; the first is the default.
func SleepMethods() []string { return slices.Clone(sleepMethods) }

// Validate checks options that do not depend on the running system, in
// the flag names of latlab sleep; bad input is a badinput.Error.
func (o SleepOptions) Validate() error {
	if !slices.Contains(sleepMethods, o.Method) {
		return badinput.Errorf("unknown --method %q: accepted on %s: %v", o.Method, runtime.GOOS, sleepMethods)
	}
	if o.Duration <= 0 {
		return badinput.Errorf("invalid --sleep-length %s: must be positive", units.Duration(o.Duration))
	}
	if o.Duration > MaxWait {
		return badinput.Errorf("invalid --sleep-length %s: accepted up to %s (%s)", units.Duration(o.Duration), units.Duration(MaxWait), maxWaitWhy)
	}
	if o.Samples < 0 {
		return badinput.Errorf("--samples must be 0 (until Ctrl-C) or more")
	}
	if o.Samples > MaxSamples {
		return badinput.Errorf("invalid --samples %d: accepted up to %d (every sample is kept in memory), or 0 to run until Ctrl-C", o.Samples, MaxSamples)
	}
	return badinput.Wrap(validateMethod(o))
}

// Sleep runs the sleep probe.
func Sleep(ctx context.Context, o SleepOptions) (*SleepResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	res := &SleepResult{Method: o.Method, Requested: o.Duration}
	stop, cancel := stopFlag(ctx)
	defer cancel()
	restore := quiet()
	defer restore()

	setup, err := OnThread(o.Thread, func(ThreadSetup) error {
		s, err := newSleeper(o.Method)
		if err != nil {
			return err
		}
		defer s.close()
		if !o.SkipOverhead {
			if res.Overhead, err = sleeperOverhead(s, o.Method); err != nil {
				return err
			}
		}
		buf := newSampleBuf(o.Samples)
		begin := clock.Now()
		res.Interrupted, res.LiveDropped, res.WarmupNs, res.Stopped, err = sleepLoop(s, o, buf, stop)
		res.Elapsed = time.Duration(clock.Now() - begin)
		res.Slept = buf.all()
		return err
	})
	res.Setup = setup
	if err != nil {
		return nil, err
	}
	return res, nil
}

// sleeperOverhead times 1000 zero-length sleeps and clock reads; the
// first failed sleep is the error.
func sleeperOverhead(s sleeper, method string) (Overhead, error) {
	var err error
	o := measureOverhead(1000, func() {
		if _, e := s.sleep(0); e != nil && err == nil {
			err = e
		}
	}, method+"(0)")
	return o, err
}

// gapSlice is the longest single wait of a gap between samples: whole
// milliseconds, as Windows' Sleep method needs.
const gapSlice = int64(100 * time.Millisecond)

// sleepLoop is the timed loop. It allocates only when an unbounded run
// fills a chunk, and never prints. stopped: it ended on stop, not on the
// sample count. It ends at the first sleep that fails, with its error.
func sleepLoop(s sleeper, o SleepOptions, buf *sampleBuf, stop interface{ Load() bool }) (interrupted, dropped int, warmup int64, stopped bool, err error) {
	d := o.Duration.Nanoseconds()
	gap := o.Gap.Nanoseconds()
	// Held for the whole loop: see Yielder.
	y := NewYielder(clock.Now())
	defer y.Stop()
	h := HoldThread()
	defer func() { h.Release() }()
	for i := -1; o.Samples == 0 || i < o.Samples; i++ {
		if stop.Load() {
			stopped = true
			break
		}
		t0 := clock.Now()
		n, err := s.sleep(d)
		t1 := clock.Now()
		interrupted += n
		if err != nil {
			return interrupted, dropped, warmup, false, err
		}
		v := t1 - t0
		if i < 0 {
			warmup = v // first sample: caches, page faults, timer setup
		} else {
			buf.add(v)
			if o.Live != nil {
				select {
				case o.Live <- v:
				default:
					dropped++
				}
			}
		}
		// The gap is not measured: it waits in slices, so that Ctrl-C
		// ends a run with a long gap within one slice.
		for left := gap; left > 0 && !stop.Load(); left -= gapSlice {
			n, err := s.sleep(min(left, gapSlice))
			interrupted += n
			if err != nil {
				return interrupted, dropped, warmup, false, err
			}
		}
		// The next sample starts its own clock after the yield.
		if y.Due(clock.Now(), math.MaxInt64) {
			h = y.Yield(h, clock.Now)
		}
	}
	return interrupted, dropped, warmup, stopped, nil
}
