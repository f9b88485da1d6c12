package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// Mode says which process holds each timer request.
type Mode string

// Modes: the measuring process requests each value itself, or a separate
// process (latlab timer set) holds it while this one measures.
const (
	InProcess Mode = "inprocess"
	Separate  Mode = "separate"
)

// Holder holds a timer request in another process until release is called;
// it returns once the request is in force, with what was granted.
type Holder func(ctx context.Context, r time.Duration) (granted time.Duration, release func() error, err error)

// Options configure a sweep.
type Options struct {
	Steps     []time.Duration
	Reference int // index into Steps of the default choice
	Samples   int // per step and pass
	Duration  time.Duration
	Method    string
	Gap       time.Duration
	Settle    time.Duration
	Random    bool // shuffle the steps in each pass
	Repeat    int
	Seed      uint64
	Mode      Mode
	Holder    Holder // for Separate
	Load      int    // busy-loop threads during the sweep
	Thread    probe.Thread
	// RankBy is the statistic of the overshoot the treatments are ranked
	// by (the zero value is the mean).
	RankBy stats.Statistic
	// LogSteps records that the steps were spaced logarithmically.
	LogSteps bool
	// Progress, when set, is called after each step with the steps done
	// and the total.
	Progress func(done, total int)
}

// MaxLoad bounds Options.Load: busy threads beside the measurement.
const MaxLoad = 256

// Validate checks the sweep's options, in the flag names of latlab sweep,
// for every caller; bad input is a badinput.Error.
func (o Options) Validate() error {
	for _, s := range o.Steps {
		if err := timer.Validate(s); err != nil {
			return badinput.Errorf("invalid sweep value: %v", err)
		}
	}
	switch {
	case len(o.Steps) == 0:
		return badinput.Errorf("no sweep values: give --from and --to")
	case o.Reference < 0 || o.Reference >= len(o.Steps):
		return badinput.Errorf("the reference is not one of the %d sweep values", len(o.Steps))
	case o.Samples <= 0:
		return badinput.Errorf("invalid --samples %d: want a positive count per step", o.Samples)
	case o.Repeat <= 0:
		return badinput.Errorf("invalid --repeat %d: want 1 or more passes", o.Repeat)
	case o.Load < 0 || o.Load > MaxLoad:
		return badinput.Errorf("invalid --load %d: want 0 to %d busy threads", o.Load, MaxLoad)
	case o.Mode != InProcess && o.Mode != Separate:
		return badinput.Errorf("invalid --mode %q: accepted inprocess or separate", o.Mode)
	}
	return probe.SleepOptions{Duration: o.Duration, Samples: o.Samples, Gap: o.Gap, Method: o.Method, Thread: o.Thread}.Validate()
}

// Step is one requested value's outcome over all passes.
type Step struct {
	RequestedNs int64 `json:"requested_ns"`
	// GrantedNs is what the OS granted: Windows NtSetTimerResolution's
	// answer (in separate mode, the holder's), Linux the slack read back.
	GrantedNs int64 `json:"granted_ns"`
	// CurrentNs is NtQueryTimerResolution's current interval after the
	// request (Windows; the largest seen over the passes).
	CurrentNs int64 `json:"current_ns,omitempty"`
	Reference bool  `json:"reference,omitempty"`
	// Samples are slept - requested sleep, each pass's in measurement
	// order, the passes in the order they ran.
	Samples []int64 `json:"overshoot_ns"`
	Passes  int     `json:"passes"`
	// Filled by Analyze.
	Summary   StepSummary `json:"summary"`
	Rank      int         `json:"rank"`
	Interrupt int         `json:"interrupted,omitempty"`
	// runs are the step's passes as measure ran them; nil for a step
	// built otherwise, whose samples then have no known order and are
	// compared as independent.
	runs []run
}

// run is one pass of a step: where its samples start in Step.Samples,
// and its place in the sweep's sequence of step passes (the order of
// Order's passes and steps), by which the passes of several steps
// granted one value are put back in time order.
type run struct{ start, seq int }

// Run is the work of `latlab sweep`: it measures every step Repeat
// times and analyses the outcome (Analyze).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	steps, err := measure(ctx, o)
	if err != nil && ctx.Err() != nil {
		// Interrupted: the steps measured so far, unranked (a partial
		// sweep has not measured every step the ranking compares).
		var done []Step
		for _, st := range steps {
			if st.Passes > 0 {
				done = append(done, st)
			}
		}
		return &Result{Steps: done, What: What, Method: o.Method, DurationNs: o.Duration.Nanoseconds(),
			Interrupted: true, Planned: len(o.Steps) * max(1, o.Repeat), ElapsedNs: time.Since(start).Nanoseconds()}, err
	}
	if err != nil {
		return nil, err
	}
	order := "ascending"
	if o.Random {
		order = "random"
	}
	r := &Result{Mode: o.Mode, Order: order, Seed: o.Seed, Repeat: o.Repeat, Load: o.Load, Method: o.Method,
		DurationNs: o.Duration.Nanoseconds(), SettleNs: o.Settle.Nanoseconds(), LogSteps: o.LogSteps,
		What: What, Steps: steps, Reference: o.Reference, Notes: o.notes(), ElapsedNs: time.Since(start).Nanoseconds()}
	if st, err := timer.Query(); err == nil {
		r.timerAfter = &st
	}
	Analyze(r, o.RankBy, o.Seed)
	return r, nil
}

// notes are what a reader of the result must know about how it was
// measured.
func (o Options) notes() []string {
	var notes []string
	if o.Mode == Separate {
		if note, _ := SeparateModeNote(); note != "" {
			notes = append(notes, note)
		}
	}
	if o.Load > 0 {
		notes = append(notes, fmt.Sprintf("%d busy-loop threads ran during the sweep", o.Load))
	}
	return notes
}

// Estimate predicts how long Run takes (see the function Estimate).
func (o Options) Estimate() time.Duration {
	return Estimate(o.Steps, o.Samples, o.Repeat, o.Duration, o.Gap, o.Settle, o.Mode == Separate)
}

// measure measures every step Repeat times.
func measure(ctx context.Context, o Options) ([]Step, error) {
	if len(o.Steps) == 0 {
		return nil, fmt.Errorf("no steps")
	}
	if o.Repeat <= 0 {
		o.Repeat = 1
	}
	if o.Mode == Separate && o.Holder == nil {
		return nil, fmt.Errorf("separate mode needs a holder process")
	}
	steps := make([]Step, len(o.Steps))
	for i, r := range o.Steps {
		steps[i] = Step{RequestedNs: r.Nanoseconds(), Reference: i == o.Reference}
	}
	stopLoad := startLoad(o.Load)
	defer stopLoad()
	done, total := 0, len(o.Steps)*o.Repeat
	for _, order := range Order(len(o.Steps), o.Random, o.Seed, o.Repeat) {
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return steps, err
			}
			if err := measureStep(ctx, o, o.Steps[i], &steps[i], done); err != nil {
				return steps, fmt.Errorf("step %s: %w", o.Steps[i], err)
			}
			done++
			if o.Progress != nil {
				o.Progress(done, total)
			}
		}
	}
	return steps, nil
}

// measureStep measures a pass of step st (the seq-th step pass of the
// sweep).
func measureStep(ctx context.Context, o Options, r time.Duration, st *Step, seq int) error {
	// A sweep reports no tool overhead: calibrating it for every step would
	// only lengthen the run.
	po := probe.SleepOptions{Duration: o.Duration, Samples: o.Samples, Gap: o.Gap, Method: o.Method, Thread: o.Thread, SkipOverhead: true}
	var res *probe.SleepResult
	var granted time.Duration
	if o.Mode == Separate {
		g, release, err := o.Holder(ctx, r)
		if err != nil {
			return err
		}
		granted = g
		if err := clock.Pause(ctx, o.Settle); err != nil {
			release()
			return err
		}
		cur := currentResolution()
		res, err = probe.Sleep(ctx, po)
		if rerr := release(); err == nil && rerr != nil {
			err = fmt.Errorf("release the holder: %w", rerr)
		}
		if err != nil {
			return err
		}
		st.CurrentNs = max(st.CurrentNs, cur)
	} else {
		var cur int64
		var err error
		res, granted, cur, err = inProcessStep(ctx, po, r, o.Settle)
		if err != nil {
			return err
		}
		st.CurrentNs = max(st.CurrentNs, cur)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st.GrantedNs = granted.Nanoseconds()
	d := o.Duration.Nanoseconds()
	st.runs = append(st.runs, run{start: len(st.Samples), seq: seq})
	for _, v := range res.Slept {
		st.Samples = append(st.Samples, v-d)
	}
	st.Passes++
	st.Interrupt += res.Interrupted
	return nil
}

// startLoad runs n busy-looping threads until the returned function is
// called, and raises GOMAXPROCS so the measuring thread still gets a P.
func startLoad(n int) (stop func()) {
	if n <= 0 {
		return func() {}
	}
	old := runtime.GOMAXPROCS(0)
	if want := n + 2; old < want {
		runtime.GOMAXPROCS(want)
	}
	var quit atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			x := uint64(i + 1)
			for !quit.Load() {
				for j := 0; j < 1<<16; j++ { // xorshift: real work the compiler cannot drop
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
			}
			sink.Add(x)
		}()
	}
	return func() {
		quit.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(old)
	}
}

var sink atomic.Uint64

// Order returns the order Run measures the n steps in, one slice of
// indices per pass: ascending, or shuffled by a generator seeded with seed
// so that a run can be repeated exactly.
func Order(n int, random bool, seed uint64, passes int) [][]int {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([][]int, passes)
	for p := range out {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		if random {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		out[p] = order
	}
	return out
}
