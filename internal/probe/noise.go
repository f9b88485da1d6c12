package probe

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/units"
)

// NoiseOptions configure the noise probe (the osnoise method): one thread
// per CPU, pinned, reads the clock in a tight loop for Duration; every
// step between two successive reads of at least Threshold is one
// interruption of the thread by the OS (an interrupt, a softirq, another
// thread, a page fault, SMI or NMI: anything that ran instead of it).
type NoiseOptions struct {
	Duration  time.Duration
	Threshold time.Duration
	CPUs      []int // one spinning thread pinned to each
	Priority  sched.Priority
	RTPrio    int
	// Mlock locks memory for the run, as wake's does.
	Mlock bool
	// OnStart, when set, is called once the system is set up, before the
	// threads start.
	OnStart func()
	// Keep is the number of interruptions each thread keeps (start and
	// length); 0 is MaxNoiseKept. The rest are counted, summed and
	// their maximum kept, but not stored.
	Keep int
	// Counters, when set, reads the OS's per-CPU interrupt counters: it
	// is called while the threads wait to start, the function it returns
	// once they have stopped, which gives what was counted in between
	// (noisecount.Reader). Neither runs on a thread in its loop.
	Counters func() (end func() (*NoiseCounters, error), err error)
	// Explain, when set, traces the measured CPUs and says what ran in
	// the longest interruptions (RunNoise; Linux), as wake --explain
	// does for late wake-ups.
	Explain *ExplainOptions
	// StopAbove, when positive, ends the run at the first interruption
	// longer than this (rtla osnoise -s): the run stops as on Ctrl-C, and
	// NoiseResult.StoppedAbove holds the interruption. An interruption
	// still in progress at the run's end, cut there, stops nothing: the
	// run lasted its duration.
	StopAbove time.Duration
	// OnStopAbove, when set, is called once when StopAbove ends the run,
	// by the thread that saw the interruption, just after its loop (off
	// the timed code): RunNoise freezes the --explain trace with it.
	OnStopAbove func()
}

// DefaultNoiseThreshold is the shortest step between two clock reads
// that counts as an interruption: the osnoise tracer's default since
// Linux 6.11 (trace_osnoise.c, "rtla/osnoise: set the default threshold
// to 1us"; osnoise-tracer.rst still says 5 µs, the value before).
const DefaultNoiseThreshold = time.Microsecond

// MaxNoiseDuration bounds a noise run. Its thread holds a whole CPU for
// the run; wake allows 37 hours at its default interval, and a day is
// below that.
const MaxNoiseDuration = 24 * time.Hour

// MaxNoiseThreshold bounds --threshold: a step of a second is no
// interruption but a thread off its CPU.
const MaxNoiseThreshold = time.Second

// MaxNoiseKept is the number of interruptions a thread keeps by default:
// 16 bytes each, 2 MiB per thread, allocated and written before the run.
// An idle CPU with a 1000 Hz tick is interrupted about a thousand times
// a second, so 10 s keep all of them; beyond, the count, the total and
// the longest stay exact and a note says how many were kept.
const MaxNoiseKept = 1 << 17

// NoiseMethod names what the noise probe measures with.
const NoiseMethod = "a pinned thread reading the clock in a loop (the osnoise method)"

// Validate checks what a caller asks of the probe, in the flag names of
// latlab noise. Bad input is a badinput.Error.
func (o NoiseOptions) Validate() error {
	switch {
	case o.Duration <= 0 || o.Duration > MaxNoiseDuration:
		return badinput.Errorf("invalid --duration %s: accepted more than 0 and up to %s (the thread holds a whole CPU)", units.Duration(o.Duration), units.Duration(MaxNoiseDuration))
	case o.Threshold <= 0 || o.Threshold > MaxNoiseThreshold:
		return badinput.Errorf("invalid --threshold %s: accepted more than 0 and up to %s (default %s)", units.Duration(o.Threshold), units.Duration(MaxNoiseThreshold), units.Duration(DefaultNoiseThreshold))
	case o.RTPrio < 0 || o.RTPrio > sched.MaxRTPrio:
		return badinput.Errorf("invalid --rtprio %d: accepted 0 (normal) or 1-99", o.RTPrio)
	case len(o.CPUs) == 0:
		return badinput.Errorf("no CPU to measure: give --cpus, e.g. 1 or 0,2-3")
	case o.Keep < 0 || o.Keep > MaxNoiseKept:
		return badinput.Errorf("invalid number of interruptions to keep %d: accepted 0-%d", o.Keep, MaxNoiseKept)
	case o.Explain != nil && o.Explain.Above < 0:
		return badinput.Errorf("invalid --explain-above %s: want a positive duration", o.Explain.Above)
	}
	if err := validateStopAbove(o.StopAbove, o.Duration, "--duration "+units.Duration(o.Duration)); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, c := range o.CPUs {
		if c < 0 {
			return badinput.Errorf("invalid CPU %d: every noise thread is pinned to a CPU", c)
		}
		if seen[c] {
			return badinput.Errorf("CPU %d is listed twice: one thread per CPU", c)
		}
		seen[c] = true
	}
	return nil
}

// NoiseThread is one spinning thread's raw outcome. Times are clock.Now
// nanoseconds.
type NoiseThread struct {
	Setup ThreadSetup
	gapCounts
	// StartNs is the loop's first clock read, EndNs the end of its
	// window: the run's end, or the last read of a run stopped early
	// (spin says why an interruption at the end is clipped to it).
	StartNs, EndNs int64
	// PausedNs is the time the loop let its thread go for the Go
	// runtime (Yielder), Pauses how often: neither runtime nor noise.
	PausedNs int64
	Pauses   int
	// Starts and Lengths are the kept interruptions, in time order.
	Starts, Lengths []int64
	// Stopped: ctx ended the run before Duration.
	Stopped bool
	// TID is the spinning thread's id, as the scheduler's events name it.
	TID int
	// InvoluntarySwitches is how often the thread was switched out
	// involuntarily in its loop (Linux), -1 where it is not known.
	InvoluntarySwitches int64
}

// RuntimeNs is the time the thread spent in its loop, its pauses left out.
func (t *NoiseThread) RuntimeNs() int64 { return t.EndNs - t.StartNs - t.PausedNs }

// NoiseResult is the outcome of a noise run.
type NoiseResult struct {
	Duration  time.Duration
	Threshold time.Duration
	Threads   []NoiseThread
	// Start is the common start of the threads (clock.Now).
	Start   int64
	Elapsed time.Duration
	// Counters is what the OS counted per CPU (interrupts, softirqs,
	// DPCs) from just before the threads started to just after they
	// stopped, CountersNs apart; nil if they could not be read (a note
	// says why).
	Counters   *NoiseCounters
	CountersNs int64
	// Notes say what of the system setup could not be done.
	Notes []string
	// StoppedAbove is the interruption that ended the run (StopAbove),
	// nil when none did.
	StoppedAbove *StoppedAbove
}

// gapCounts are the figures a gap scan keeps besides the kept list.
type gapCounts struct {
	Count   int64 // interruptions (steps of at least the threshold)
	TotalNs int64 // their summed length
	MaxNs   int64 // the longest
	Dropped int64 // interruptions counted but not kept (the buffer was full)
	Reads   int64 // clock reads after the first
	// MinStepNs is the smallest step between two reads: the clock read's
	// own cost, or 0 where the clock advances in ticks longer than a
	// read (QueryPerformanceCounter at 10 MHz). -1 before any step.
	MinStepNs int64
}

// gaps scans the steps between successive clock reads of a spinning
// thread: the pure core of the noise loop. Its buffers are allocated and
// written (prefault) before the loop; step never allocates.
type gaps struct {
	threshold int64
	starts    []int64 // len = what may be kept; n are used
	lens      []int64
	n         int
	gapCounts
	// sa ends the run at an interruption above its limit (--stop-above);
	// who names the thread for its sample.
	sa  *stopAbove
	who StopSample
}

func newGaps(threshold time.Duration, keep int) *gaps {
	if keep <= 0 {
		keep = MaxNoiseKept
	}
	g := &gaps{threshold: threshold.Nanoseconds(), starts: make([]int64, keep), lens: make([]int64, keep), sa: noStopAbove}
	g.MinStepNs = -1
	prefault(g.starts)
	prefault(g.lens)
	return g
}

// step takes the step from one read (prev) to the next (now); true: it
// was an interruption above the stop threshold, which ends the run.
func (g *gaps) step(prev, now int64) bool {
	d := now - prev
	g.Reads++
	if d < g.MinStepNs || g.MinStepNs < 0 {
		g.MinStepNs = d
	}
	if d < g.threshold {
		return false
	}
	g.record(prev, d)
	if d > g.sa.limit {
		who := g.who
		who.ValueNs, who.AtNs, who.Index = d, prev, g.Count-1
		g.sa.fire(who)
		return true
	}
	return false
}

// stepCut takes the loop's last step, from prev to a read at now past
// the window's end: the step is a real read's (MinStepNs), but only its
// part up to end is in the window (spin), and only that part is noise.
// It never stops the run (--stop-above): the run has reached its end,
// and the part is cut there, not an interruption that ended the run
// early.
func (g *gaps) stepCut(prev, now, end int64) {
	g.Reads++
	if d := now - prev; d < g.MinStepNs || g.MinStepNs < 0 {
		g.MinStepNs = d
	}
	if d := end - prev; d >= g.threshold {
		g.record(prev, d)
	}
}

// record notes one interruption that began after the read at prev and
// lasted d.
func (g *gaps) record(prev, d int64) {
	g.Count++
	g.TotalNs += d
	if d > g.MaxNs {
		g.MaxNs = d
	}
	if g.n == len(g.starts) {
		g.Dropped++
	} else {
		g.starts[g.n], g.lens[g.n] = prev, d
		g.n++
	}
}

// checkEvery is how often the loop checks whether to stop or to let its
// thread go (check): one comparison per read otherwise.
const checkEvery = int64(time.Millisecond)

// spin is the timed loop: read the clock (now) until end, giving each
// step to g. Every checkEvery it calls check with the time: check says
// whether to stop, and returns the clock after any pause it made (at when
// it made none), which is left out of both the runtime and the noise. It
// returns the first read, the window's end (last) and the time paused.
//
// The window is exactly [first, end): the read that finds the loop past
// end counts as a read at end, so an interruption that straddles the end
// is clipped to it (its length is its part in the window) and a pause
// that outlasts the end is left out only up to it. The runtime
// (last - first - paused) is then the time the run claims, and the noise
// is interrupted time inside that same window, so noise / runtime stays
// the share of the window the thread lost. The osnoise tracer does the
// other thing (run_osnoise in kernel/trace/trace_osnoise.c stops at the
// first read past its runtime and reports runtime and noise up to that
// read): equally consistent for one sample, but a window that grows by
// whatever interruption its end falls in is stopped inside an
// interruption by construction, which lengthens both runtime and noise
// by exactly the noisy part and biases the share upwards; blocks of a
// fixed runtime (try) would also stop being equal. A run stopped early
// (check) ends at its last read, with no interruption in progress.
// A first read at or past end leaves the window empty: last = first.
func spin(now func() int64, end int64, g *gaps, check func(at int64) (resumed int64, stop bool)) (first, last, paused int64, pauses int, stopped bool) {
	prev := now()
	first = prev
	if first >= end {
		return first, first, 0, 0, false
	}
	next := min(prev+checkEvery, end)
	for {
		t := now()
		if t < next {
			if g.step(prev, t) {
				prev, stopped = t, true
				break
			}
			prev = t
			continue
		}
		if t >= end {
			g.stepCut(prev, t, end)
			prev = end
			break
		}
		if g.step(prev, t) {
			prev, stopped = t, true
			break
		}
		prev = t
		r, s := check(t)
		if s {
			stopped = true
			break
		}
		if r != t {
			pauses++
			if r >= end {
				paused += end - t
				prev = end
				break
			}
			paused += r - t
			prev = r
		}
		next = min(prev+checkEvery, end)
	}
	return first, prev, paused, pauses, stopped
}

// Noise runs the noise probe: the threads start together and spin for
// o.Duration each.
func Noise(ctx context.Context, o NoiseOptions) (*NoiseResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// Each spinning thread keeps its P for the whole run.
	notes, stop, end, err := startRun(ctx, WakeOptions{Mlock: o.Mlock}, len(o.CPUs), o.OnStart)
	if err != nil {
		return nil, err
	}
	defer end()

	res := &NoiseResult{Duration: o.Duration, Threshold: o.Threshold, Threads: make([]NoiseThread, len(o.CPUs)), Notes: notes}
	var ready, started, done sync.WaitGroup
	ready.Add(len(o.CPUs))
	started.Add(1)
	done.Add(len(o.CPUs))
	var start int64
	errs := make([]error, len(o.CPUs))
	sa := newStopAbove(o.StopAbove, stop)
	for i, cpu := range o.CPUs {
		go func() {
			defer done.Done()
			th := &res.Threads[i]
			th.InvoluntarySwitches = -1
			var once sync.Once
			signal := func() { once.Do(ready.Done) }
			t := Thread{Priority: o.Priority, RTPrio: o.RTPrio, CPU: cpu}
			setup, err := OnThread(t, func(ThreadSetup) error {
				g := newGaps(o.Threshold, o.Keep)
				g.sa, g.who = sa, StopSample{Thread: i, CPU: cpu}
				th.TID = threadID()
				signal()
				started.Wait()
				noiseThread(th, g, start, start+o.Duration.Nanoseconds(), stop)
				if o.OnStopAbove != nil && sa.firedBy(i) {
					o.OnStopAbove()
				}
				return nil
			})
			signal()
			th.Setup = setup
			errs[i] = err
		}()
	}
	ready.Wait()
	// The counters are read while the threads wait, outside their loops.
	var endCounters func() (*NoiseCounters, error)
	var cerr error
	if o.Counters != nil {
		endCounters, cerr = o.Counters()
	}
	countersAt := clock.Now()
	start = clock.Now() + int64(2*time.Millisecond)
	started.Done()
	done.Wait()
	res.Start = start
	res.Elapsed = time.Duration(clock.Now() - start)
	res.StoppedAbove = sa.result(start)
	if endCounters != nil {
		res.Counters, cerr = endCounters()
		res.CountersNs = clock.Now() - countersAt
	}
	if cerr != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("no interrupt counts: %v", cerr))
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("thread %d (CPU %d): %w", i, o.CPUs[i], err)
		}
	}
	return res, nil
}

// noiseThread waits for start, spins until end and fills th. It holds its
// thread for the loop (HoldThread) and lets go only when the Yielder says
// the rest of the process waits for it (Linux) or the runtime would
// preempt it (Windows, every 8 ms): a pause, left out of the figures.
func noiseThread(th *NoiseThread, g *gaps, start, end int64, stop interface{ Load() bool }) {
	y := NewYielder(clock.Now())
	defer y.Stop()
	h := HoldThread()
	defer func() { h.Release() }()
	// The stop is checked before the wait as well as during it: a thread
	// scheduled after start (a loaded machine) would otherwise spin once
	// for a run stopped before it began.
	for {
		if stop.Load() {
			th.Stopped = true
			th.MinStepNs = -1
			return
		}
		if clock.Now() >= start {
			break
		}
	}
	check := func(at int64) (int64, bool) {
		if stop.Load() {
			return at, true
		}
		if y.Due(at, at+y.Margin+1) {
			h = y.Yield(h, clock.Now)
			return clock.Now(), false
		}
		return at, false
	}
	sw := involuntarySwitches()
	th.StartNs, th.EndNs, th.PausedNs, th.Pauses, th.Stopped = spin(clock.Now, end, g, check)
	if sw2 := involuntarySwitches(); sw >= 0 && sw2 >= sw {
		th.InvoluntarySwitches = sw2 - sw
	}
	th.gapCounts = g.gapCounts
	th.Starts, th.Lengths = g.starts[:g.n], g.lens[:g.n]
}
