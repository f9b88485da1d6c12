// Package sweep runs the micro-adjust experiment: for each of a series of
// timer requests (Windows timer resolution, Linux timer slack) it measures
// how long a fixed sleep overshoots, then ranks the requests with bootstrap
// confidence intervals and says whether the best one is distinguishable
// from the default choice. It never prints.
package sweep

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// MaxSteps bounds a sweep's plan; more is almost certainly a typo in --step.
const MaxSteps = 5000

// LinearSteps returns from, from+step, ... up to and including to (within
// half a quantum), each rounded to the OS's request quantum and without
// duplicates.
func LinearSteps(from, to, step, quantum time.Duration) ([]time.Duration, error) {
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	if step <= 0 {
		return nil, fmt.Errorf("--step %s gives zero steps: want a positive step such as 0.002ms", step)
	}
	n := int64((to-from)/step) + 1
	if n > MaxSteps {
		return nil, fmt.Errorf("--from %s --to %s --step %s makes %d steps: at most %d are accepted", from, to, step, n, MaxSteps)
	}
	var out []time.Duration
	for i := int64(0); i < n; i++ {
		out = appendQ(out, from+time.Duration(i)*step, quantum)
	}
	return out, nil
}

// LogSteps returns perDecade logarithmically spaced values per factor of
// ten from from up to to (to included when it is within 1% of a grid
// point or added as the last step).
func LogSteps(from, to time.Duration, perDecade int, quantum time.Duration) ([]time.Duration, error) {
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	if perDecade <= 0 {
		return nil, fmt.Errorf("--steps-per-decade %d gives zero steps: want 1 or more", perDecade)
	}
	decades := math.Log10(float64(to) / float64(from))
	n := int(math.Floor(decades*float64(perDecade)+1e-9)) + 1
	if n > MaxSteps {
		return nil, fmt.Errorf("%d steps per decade from %s to %s makes %d steps: at most %d are accepted", perDecade, from, to, n, MaxSteps)
	}
	var out []time.Duration
	for i := 0; i < n; i++ {
		v := float64(from) * math.Pow(10, float64(i)/float64(perDecade))
		out = appendQ(out, time.Duration(math.Round(v)), quantum)
	}
	if last := out[len(out)-1]; float64(to-last) > 0.01*float64(to) {
		out = appendQ(out, to, quantum)
	}
	return out, nil
}

func checkRange(from, to time.Duration) error {
	if from <= 0 {
		return fmt.Errorf("--from must be positive")
	}
	if to < from {
		return fmt.Errorf("the range is reversed: --from %s is above --to %s", from, to)
	}
	return nil
}

func appendQ(out []time.Duration, v, quantum time.Duration) []time.Duration {
	if quantum > 1 {
		v = (v + quantum/2) / quantum * quantum
		if v < quantum {
			v = quantum
		}
	}
	if len(out) > 0 && out[len(out)-1] == v {
		return out
	}
	return append(out, v)
}

// WithReference returns steps with ref inserted in order when absent, and
// the index of ref.
func WithReference(steps []time.Duration, ref time.Duration) ([]time.Duration, int) {
	if i := slices.Index(steps, ref); i >= 0 {
		return steps, i
	}
	out := append(slices.Clone(steps), ref)
	slices.Sort(out)
	return out, slices.Index(out, ref)
}

// Estimate predicts the run time of a plan: per step the settle time, a
// process start in separate mode, and per sample the sleep, the gap and an
// overshoot of about the request itself plus 100 µs (Windows Sleep rounds
// up to the timer interval; Linux adds the slack).
func Estimate(steps []time.Duration, samples, repeat int, sleep, gap, settle time.Duration, separate bool) time.Duration {
	var t time.Duration
	for _, s := range steps {
		per := sleep + gap + s + 100*time.Microsecond
		t += settle + time.Duration(samples+1)*per + 10*time.Millisecond // +1: the warm-up; 10ms: per-step setup (thread, GC)
		if separate {
			t += 50 * time.Millisecond
		}
	}
	return t * time.Duration(repeat)
}
