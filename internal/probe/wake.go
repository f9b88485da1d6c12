package probe

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// WakeOptions configure the periodic wake-up probe (the cyclictest method):
// each thread sleeps until an absolute deadline, wakes, notes how late it
// is, and advances the deadline by Interval.
type WakeOptions struct {
	Interval   time.Duration
	Duration   time.Duration // used when Loops is 0
	Loops      int
	CPUs       []int // one thread per entry; -1 = not pinned
	Priority   sched.Priority
	RTPrio     int
	Resolution time.Duration
	// Mlock locks memory for the run (cyclictest -m); where the OS has no
	// such lock, WakeResult.Notes says so and the run goes on, so that one
	// command line works on both OSes.
	Mlock bool
	// DMALatency, when set, holds /dev/cpu_dma_latency at that many µs for
	// the run, as plain cyclictest does (Linux).
	DMALatency *int
	// OnStart, when set, is called once the system is set up, before the
	// threads start.
	OnStart func()
	// KeepDeadlines keeps each wake-up's deadline and the threads' ids
	// (WakeThread.Deadlines, TID), for explanations.
	KeepDeadlines bool
	// Explain, when set, traces the measured CPUs and explains the worst
	// wake-ups (RunWake; Linux).
	Explain *ExplainOptions
	// StopAbove, when positive, ends the run at the first wake-up later
	// than its deadline by more than this (cyclictest -b): the run stops
	// as on Ctrl-C, and WakeResult.StoppedAbove holds the wake-up. The
	// run's last wake-up stops nothing: the run ends there anyway.
	StopAbove time.Duration
	// OnStopAbove, when set, is called once when StopAbove ends the run,
	// by the thread whose wake-up crossed it, just after its loop (off
	// the timed code): RunWake freezes the --explain trace with it.
	OnStopAbove func()
}

// ExplainOptions choose the wake-ups to explain: every one above Above
// when it is set, else the Worst (default 10).
type ExplainOptions struct {
	Worst int
	Above time.Duration
}

// MaxWait bounds one wait of the probes (wake's --interval, sleep's
// --sleep-length): a wait in progress cannot be cut short (Ctrl-C ends a
// run after its current wait), and a longer one is no latency
// measurement. rtla timerlat refuses a period longer than 1 s too.
const MaxWait = time.Second

const maxWaitWhy = "Ctrl-C ends a run only after the wait in progress"

// MaxSamples bounds the samples one run keeps in memory. The probes keep
// every sample (8 bytes, 16 with deadlines) in buffers allocated before the
// run, so that the timed loop never allocates: without a bound, --loops or
// --duration beyond the machine's memory crashed the process before the
// first wake-up. 1<<27 samples are 1 GiB: 37 hours of wake-ups at 1 ms.
const MaxSamples = 1 << 27

// Validate checks what a caller asks of the probe, in the flag names of
// latlab wake: the rules hold for every caller, not only the command line.
// Bad input is a badinput.Error.
func (o WakeOptions) Validate() error {
	switch {
	case o.Interval > MaxWait:
		return badinput.Errorf("invalid --interval %s: accepted up to %s (%s)", units.Duration(o.Interval), units.Duration(MaxWait), maxWaitWhy)
	case o.Loops < 0:
		return badinput.Errorf("invalid --loops %d: want a positive count (or 0 to use --duration)", o.Loops)
	case o.RTPrio < 0 || o.RTPrio > sched.MaxRTPrio:
		return badinput.Errorf("invalid --rtprio %d: accepted 0 (normal) or 1-99", o.RTPrio)
	case o.DMALatency != nil && *o.DMALatency < 0:
		return badinput.Errorf("invalid --dma-latency %d: want µs >= 0, or -1 to leave the system alone", *o.DMALatency)
	}
	if o.Resolution != 0 {
		if err := timer.Validate(o.Resolution); err != nil {
			return badinput.Errorf("invalid --resolution: %v", err)
		}
	}
	if o.Loops == 0 && o.Duration < o.Interval {
		return badinput.Errorf("--duration %s is shorter than --interval %s", units.Duration(o.Duration), units.Duration(o.Interval))
	}
	if err := o.validateSize(); err != nil {
		return err
	}
	// After validateSize: --loops × --interval is bounded there.
	run, length := o.Duration, "--duration "+units.Duration(o.Duration)
	if o.Loops > 0 {
		run = time.Duration(o.Loops) * o.Interval
		length = fmt.Sprintf("%s (--loops %d × --interval %s)", units.Duration(run), o.Loops, units.Duration(o.Interval))
	}
	return validateStopAbove(o.StopAbove, run, length)
}

// validateSize refuses a run whose samples would not fit MaxSamples.
func (o WakeOptions) validateSize() error {
	per := MaxSamples / max(len(o.CPUs), 1)
	if o.KeepDeadlines {
		per /= 2
	}
	if o.Loops > per {
		return badinput.Errorf("invalid --loops %d: accepted up to %d wake-ups per thread with %d thread(s) (every one is kept in memory)", o.Loops, per, max(len(o.CPUs), 1))
	}
	if o.Loops == 0 && o.Interval > 0 && o.Duration/o.Interval >= time.Duration(per) {
		return badinput.Errorf("invalid --duration %s: accepted up to %s at --interval %s with %d thread(s) (every wake-up is kept in memory)",
			units.Duration(o.Duration), units.Duration(time.Duration(per-1)*o.Interval), units.Duration(o.Interval), max(len(o.CPUs), 1))
	}
	return nil
}

// SetupError is a failure to set the system up as WakeOptions asked
// (lock memory, hold the DMA latency): nothing was measured.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// WakeThread is one thread's raw outcome.
type WakeThread struct {
	Setup       ThreadSetup
	Latencies   []int64 // wake time - deadline, ns, warm-up excluded
	Deadlines   []int64 // each latency's deadline (CLOCK_MONOTONIC ns), with KeepDeadlines
	TID         int     // the measuring thread's id, with KeepDeadlines
	WarmupNs    int64
	Overruns    int64 // deadlines that had already passed when the thread woke
	Interrupted int
	// Stopped: ctx ended this thread's run before its planned wake-ups.
	Stopped bool
}

// WakeResult is the outcome of a wake run.
type WakeResult struct {
	Interval time.Duration
	// Planned is the number of wake-ups each thread was to measure:
	// Loops, or Duration / Interval.
	Planned  int
	Threads  []WakeThread
	Overhead Overhead
	Elapsed  time.Duration
	// Start is the threads' first deadline, their warm-up's (clock.Now).
	Start int64
	// Notes say what of WakeOptions' system setup could not be done.
	Notes []string
	// StoppedAbove is the wake-up that ended the run (StopAbove), nil
	// when none did.
	StoppedAbove *StoppedAbove
}

// Waiter sleeps until an absolute clock.Now deadline with the OS wait the
// wake probe measures (Linux: raw clock_nanosleep TIMER_ABSTIME; Windows: a
// high-resolution waitable timer, set with a relative due time computed
// just before each wait). It never returns before the deadline unless it
// fails; the error names the OS call. Use it from a goroutine locked to
// its thread, e.g. inside OnThread.
type Waiter interface {
	WaitUntil(deadline int64) (interrupted int, err error)
	Close()
}

// Wake runs the wake probe: all threads start together and share deadlines.
func Wake(ctx context.Context, o WakeOptions) (*WakeResult, error) {
	if o.Interval <= 0 {
		return nil, fmt.Errorf("--interval must be positive")
	}
	if len(o.CPUs) == 0 {
		o.CPUs = []int{-1}
	}
	loops := o.Loops
	var deadline time.Duration
	if loops <= 0 {
		if o.Duration <= 0 {
			return nil, fmt.Errorf("give --duration or --loops")
		}
		deadline = o.Duration
		loops = int(o.Duration/o.Interval) + 1
	}
	// Each measuring thread keeps its P while it waits (the wait bypasses
	// the runtime's syscall bookkeeping).
	notes, stop, end, err := startRun(ctx, o, len(o.CPUs), o.OnStart)
	if err != nil {
		return nil, err
	}
	defer end()

	res := &WakeResult{Interval: o.Interval, Planned: loops, Threads: make([]WakeThread, len(o.CPUs)), Notes: notes}
	if deadline > 0 {
		// The loop ends at the first wake-up at or after start +
		// Duration: the deadlines after the warm-up's up to the first at
		// or past it, Duration / Interval rounded up.
		res.Planned = int((o.Duration + o.Interval - 1) / o.Interval)
	}
	interval := o.Interval.Nanoseconds()
	// Threads wait for a common start so their deadlines line up, like
	// cyclictest -d0.
	var ready, started sync.WaitGroup
	ready.Add(len(o.CPUs))
	started.Add(1)
	var start int64
	errs := make([]error, len(o.CPUs))
	sa := newStopAbove(o.StopAbove, stop)
	var done sync.WaitGroup
	done.Add(len(o.CPUs))
	for i, cpu := range o.CPUs {
		go func() {
			defer done.Done()
			// Linux timer slack is per thread, so every thread asks.
			t := Thread{Priority: o.Priority, RTPrio: o.RTPrio, CPU: cpu, Resolution: o.Resolution}
			th := &res.Threads[i]
			var once sync.Once
			signal := func() { once.Do(ready.Done) }
			setup, err := OnThread(t, func(ThreadSetup) error {
				w, err := NewWaiter()
				if err != nil {
					signal()
					return err
				}
				defer w.Close()
				if i == 0 {
					if res.Overhead, err = WaiterOverhead(w); err != nil {
						signal()
						return err
					}
				}
				lat := make([]int64, loops)
				prefault(lat)
				var dl []int64
				if o.KeepDeadlines {
					dl = make([]int64, loops)
					prefault(dl)
					th.TID = threadID()
				}
				signal()
				started.Wait()
				n, over, intr, warm, stopped, err := wakeLoop(w, start, interval, loops, deadline, lat, dl, stop, sa, StopSample{Thread: i, CPU: cpu})
				if stopped && o.OnStopAbove != nil && sa.firedBy(i) {
					o.OnStopAbove()
				}
				th.Latencies, th.Overruns, th.Interrupted, th.WarmupNs, th.Stopped = lat[:n], over, intr, warm, stopped
				if dl != nil {
					th.Deadlines = dl[:n]
				}
				return err
			})
			signal()
			th.Setup = setup
			errs[i] = err
		}()
	}
	ready.Wait()
	for _, err := range errs {
		if err != nil {
			stop.Store(true)
		}
	}
	start = clock.Now() + int64(2*time.Millisecond)
	started.Done()
	done.Wait()
	res.Elapsed = time.Duration(clock.Now() - start)
	res.Start = start
	res.StoppedAbove = sa.result(start)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("thread %d: %w", i, err)
		}
	}
	return res, nil
}

// setUpSystem locks memory and holds the DMA latency as o asks; undo
// gives both back.
// startRun prepares the process for threads measuring on n CPUs: the
// system set up as o asks (setUpSystem), onStart called, a P left for
// everything else besides the n the measuring threads keep, the stop
// flag of ctx, the collector off. end undoes it all, in reverse order.
func startRun(ctx context.Context, o WakeOptions, n int, onStart func()) (notes []string, stop *atomic.Bool, end func(), err error) {
	notes, undo, err := setUpSystem(o)
	if err != nil {
		return nil, nil, nil, err
	}
	if onStart != nil {
		onStart()
	}
	old := runtime.GOMAXPROCS(0)
	if old < n+1 {
		runtime.GOMAXPROCS(n + 1)
	}
	stop, cancel := stopFlag(ctx)
	restore := quiet()
	return notes, stop, func() {
		restore()
		cancel()
		if old < n+1 {
			runtime.GOMAXPROCS(old)
		}
		undo()
	}, nil
}

func setUpSystem(o WakeOptions) (notes []string, undo func(), err error) {
	var undos []func()
	undo = func() {
		for i := len(undos) - 1; i >= 0; i-- {
			undos[i]()
		}
	}
	if o.Mlock {
		u, err := sched.LockMemory()
		switch {
		case errors.Is(err, sched.ErrUnsupported):
			notes = append(notes, err.Error())
		case err != nil:
			return nil, nil, &SetupError{err}
		default:
			undos = append(undos, u)
		}
	}
	if o.DMALatency != nil {
		release, err := sched.HoldDMALatency(*o.DMALatency)
		if err != nil {
			undo()
			return nil, nil, &SetupError{err}
		}
		undos = append(undos, release)
	}
	return notes, undo, nil
}

// advance returns the deadline after next for a thread that woke at now,
// and how many deadlines it missed: those at or before now, which the loop
// skips (as cyclictest does) and counts as overruns.
func advance(next, now, interval int64) (after, missed int64) {
	after = next + interval
	if now >= after {
		missed = (now-after)/interval + 1
		after += missed * interval
	}
	return after, missed
}

// wakeLoop is the timed loop: wait for next, timestamp, record, advance.
// Deadlines that passed while the thread was late are skipped and counted,
// never silently dropped. It does not allocate, and it holds its thread
// (HoldThread) from start to end. stopped: it ended on stop,
// not on the count or the time limit. It ends at the first wait that
// fails, with its error.
//
// A measured wake-up later than sa's limit ends the loop (stopped) after
// it is recorded, and the run with it: sa keeps it, who saying which
// thread took it. The loop's last wake-up does not: the run ends there
// anyway, so it ends no run early (--stop-above), and the other threads
// finish theirs.
func wakeLoop(w Waiter, start, interval int64, loops int, limit time.Duration, lat, deadlines []int64, stop interface{ Load() bool }, sa *stopAbove, who StopSample) (n int, overruns int64, interrupted int, warmup int64, stopped bool, err error) {
	next := start
	end := int64(-1)
	if limit > 0 {
		end = start + int64(limit)
	}
	// Held for the whole loop: see Yielder.
	y := NewYielder(clock.Now())
	defer y.Stop()
	h := HoldThread()
	defer func() { h.Release() }()
	for i := -1; i < loops; i++ {
		if stop.Load() {
			stopped = true
			break
		}
		k, err := y.WaitUntil(&h, w, next, clock.Now)
		interrupted += k
		if err != nil {
			return n, overruns, interrupted, warmup, false, err
		}
		now := clock.Now()
		over := false
		if i < 0 {
			warmup = now - next
		} else {
			l := now - next
			lat[n] = l
			if deadlines != nil {
				deadlines[n] = next
			}
			// The last wake-up (of the loops, or the first at or past
			// the end) ends the loop anyway: above the limit, it is in
			// the statistics but ends no run early.
			last := i == loops-1 || (end >= 0 && now >= end)
			if l > sa.limit && !last {
				who.ValueNs, who.AtNs, who.Index = l, now, int64(n)
				sa.fire(who)
				over = true
			}
			n++
		}
		var missed int64
		next, missed = advance(next, now, interval)
		if i >= 0 { // the warm-up's lateness is not in the statistics, nor its overruns
			overruns += missed
		}
		if over {
			stopped = true
			break
		}
		if end >= 0 && now >= end {
			break
		}
		y.Plan(now, next)
	}
	return n, overruns, interrupted, warmup, stopped, nil
}
