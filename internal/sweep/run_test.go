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
	wantRuns := make([][]run, len(steps)) // each pass's place in the sweep
	for p, pass := range Order(len(steps), true, 11, 2) {
		for _, i := range pass {
			wantRuns[i] = append(wantRuns[i], run{start: p, seq: len(want)})
			want = append(want, steps[i])
		}
	}
	if !slices.Equal(asked, want) {
		t.Errorf("measured in order %v, want %v", asked, want)
	}
	for i, s := range res.Steps {
		if s.Passes != 2 || len(s.Samples) != 2 || s.GrantedNs != steps[i].Nanoseconds() {
			t.Errorf("step %d: %d passes, %d samples, granted %d", i, s.Passes, len(s.Samples), s.GrantedNs)
		}
		if !slices.Equal(s.runs, wantRuns[i]) {
			t.Errorf("step %d: passes recorded as %v, want %v", i, s.runs, wantRuns[i])
		}
	}
}

// Run's result says how the sweep was made, carries the notes a reader
// needs and is analysed: every treatment ranked, a verdict given.
func TestRunResult(t *testing.T) {
	steps := []time.Duration{100 * time.Microsecond, 200 * time.Microsecond}
	hold := func(_ context.Context, r time.Duration) (time.Duration, func() error, error) {
		return r, func() error { return nil }, nil
	}
	var modeNote []string // what this OS says of separate mode, if anything
	if note, _ := SeparateModeNote(); note != "" {
		modeNote = []string{note}
	}
	for _, c := range []struct {
		name      string
		random    bool
		load      int
		order     string
		wantNotes []string
	}{
		{"ascending", false, 0, "ascending", modeNote},
		{"random under load", true, 1, "random", append(slices.Clip(modeNote), "1 busy-loop threads ran during the sweep")},
	} {
		o := Options{Steps: steps, Reference: 1, Samples: 2, Duration: time.Millisecond, Method: probe.SleepMethods()[0],
			Random: c.random, Repeat: 1, Seed: 5, Mode: Separate, Holder: hold, Load: c.load, Thread: probe.Thread{CPU: -1}, LogSteps: true}
		r, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Order != c.order || r.Mode != Separate || r.Seed != 5 || r.Load != c.load || !r.LogSteps || r.What != What ||
			r.DurationNs != 1e6 || r.Reference != 1 || !r.Steps[1].Reference || r.ElapsedNs <= 0 {
			t.Errorf("%s: result %+v", c.name, r)
		}
		if !slices.Equal(r.Notes, c.wantNotes) {
			t.Errorf("%s: notes %q, want %q", c.name, r.Notes, c.wantNotes)
		}
		if r.RankBy != "mean" || len(r.Treatments) != 2 || len(r.TreatmentRanking) != 2 || r.Verdict.Text == "" {
			t.Errorf("%s: not analysed: rank by %q, %d treatments, verdict %q", c.name, r.RankBy, len(r.Treatments), r.Verdict.Text)
		}
	}
}

func TestRunStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := Options{Steps: []time.Duration{time.Microsecond}, Samples: 1, Duration: time.Millisecond, Method: probe.SleepMethods()[0],
		Mode: InProcess, Thread: probe.Thread{CPU: -1}}
	if r, err := Run(ctx, o); err == nil || r != nil {
		t.Fatalf("result %v, err %v after the context ended", r, err)
	}
}
