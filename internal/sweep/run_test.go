package sweep

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
)

// Run measures the steps in the order Order gives for its seed: a holder
// that records each request sees exactly that sequence.
func TestRunFollowsOrder(t *testing.T) {
	steps := []time.Duration{100 * time.Microsecond, 200 * time.Microsecond, 300 * time.Microsecond, 400 * time.Microsecond, 500 * time.Microsecond}
	var asked []time.Duration
	o := Options{
		Steps: steps, Samples: 1, Duration: time.Millisecond, Method: probe.SleepMethods()[0],
		Random: true, Repeat: 2, Seed: 11, Mode: Separate, Thread: probe.Thread{CPU: -1},
		Holder: func(_ context.Context, r time.Duration) (time.Duration, func() error, error) {
			asked = append(asked, r)
			return r, func() error { return nil }, nil
		},
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var want []time.Duration
	for _, pass := range Order(len(steps), true, 11, 2) {
		for _, i := range pass {
			want = append(want, steps[i])
		}
	}
	if !slices.Equal(asked, want) {
		t.Errorf("measured in order %v, want %v", asked, want)
	}
	for i, s := range res {
		if s.Passes != 2 || len(s.Samples) != 2 || s.GrantedNs != steps[i].Nanoseconds() {
			t.Errorf("step %d: %d passes, %d samples, granted %d", i, s.Passes, len(s.Samples), s.GrantedNs)
		}
	}
}
