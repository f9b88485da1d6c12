package sweep

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/stats"
)

const us = time.Microsecond

func TestLinearSteps(t *testing.T) {
	got, err := LinearSteps(500*us, 800*us, 2*us, 100*time.Nanosecond)
	if err != nil || len(got) != 151 || got[0] != 500*us || got[150] != 800*us {
		t.Fatalf("research default: %d steps, %v", len(got), err)
	}
	// 0.5068 ms must be a step: the research's famous value.
	got, _ = LinearSteps(500*us, 510*us, 200*time.Nanosecond, 100*time.Nanosecond)
	if !slices.Contains(got, 506800*time.Nanosecond) {
		t.Errorf("0.5068ms missing from %v", got)
	}
	// Steps below the quantum collapse to distinct quantised values.
	got, _ = LinearSteps(500*us, 501*us, 50*time.Nanosecond, 100*time.Nanosecond)
	if len(got) != 11 {
		t.Errorf("quantised to 100ns: %v", got)
	}
	for _, c := range []struct {
		from, to, step time.Duration
		want           string
	}{
		{800 * us, 500 * us, 2 * us, "reversed"},
		{500 * us, 800 * us, 0, "zero steps"},
		{0, 800 * us, 2 * us, "positive"},
		{1, time.Second, 1, "at most"},
	} {
		if _, err := LinearSteps(c.from, c.to, c.step, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v..%v/%v: %v, want %q", c.from, c.to, c.step, err, c.want)
		}
	}
}

func TestLogSteps(t *testing.T) {
	got, err := LogSteps(time.Nanosecond, 100*us, 1, time.Nanosecond)
	want := []time.Duration{1, 10, 100, 1000, 10000, 100000}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("%v %v", got, err)
	}
	got, _ = LogSteps(time.Nanosecond, 100*us, 3, time.Nanosecond)
	if len(got) != 16 || got[1] != 2 || got[2] != 5 || got[15] != 100*us {
		t.Errorf("3 per decade: %v", got)
	}
	got, _ = LogSteps(time.Microsecond, 50*us, 1, time.Nanosecond)
	if got[len(got)-1] != 50*us {
		t.Errorf("the end of the range is kept: %v", got)
	}
	if _, err := LogSteps(us, 100*us, 0, 1); err == nil || !strings.Contains(err.Error(), "zero steps") {
		t.Errorf("0 per decade: %v", err)
	}
	if _, err := LogSteps(100*us, us, 3, 1); err == nil || !strings.Contains(err.Error(), "reversed") {
		t.Errorf("reversed: %v", err)
	}
}

func TestWithReference(t *testing.T) {
	s, i := WithReference([]time.Duration{10, 30}, 20)
	if !slices.Equal(s, []time.Duration{10, 20, 30}) || i != 1 {
		t.Fatal(s, i)
	}
	s, i = WithReference([]time.Duration{10, 30}, 30)
	if len(s) != 2 || i != 1 {
		t.Fatal(s, i)
	}
}

func TestEstimate(t *testing.T) {
	// 151 steps x (1s settle + 51 x (1ms + 2ms gap + ~0.65ms + 0.1ms)) is about 3.5 minutes.
	steps, _ := LinearSteps(500*us, 800*us, 2*us, 100)
	e := Estimate(steps, 50, 1, time.Millisecond, 2*time.Millisecond, time.Second, false)
	if e < 3*time.Minute || e > 4*time.Minute {
		t.Errorf("estimate %v", e)
	}
	if Estimate(steps, 50, 2, time.Millisecond, 0, 0, false) <= Estimate(steps, 50, 1, time.Millisecond, 0, 0, false) {
		t.Error("two passes take longer")
	}
}

func TestOrderSeeded(t *testing.T) {
	a, b := Order(20, true, 7, 2), Order(20, true, 7, 2)
	if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) || slices.Equal(a[0], a[1]) {
		t.Errorf("random order must be seeded and differ between passes: %v", a)
	}
	if c := Order(20, true, 8, 2); slices.Equal(a[0], c[0]) {
		t.Errorf("seeds 7 and 8 gave the same order %v", a[0])
	}
	for _, pass := range a {
		if len(pass) != 20 || !slices.Equal(slices.Sorted(slices.Values(pass)), Order(20, false, 0, 1)[0]) {
			t.Errorf("a pass is not a permutation of the steps: %v", pass)
		}
	}
	if asc := Order(5, false, 7, 1); !slices.Equal(asc[0], []int{0, 1, 2, 3, 4}) {
		t.Error(asc)
	}
}

func TestAnalyzeRanksAndVerdict(t *testing.T) {
	mk := func(req int64, base, spread int64, ref bool) Step {
		s := Step{RequestedNs: req, GrantedNs: req, Reference: ref}
		for i := int64(0); i < 60; i++ {
			s.Samples = append(s.Samples, base+(i*7919)%spread)
		}
		return s
	}
	r := &Result{Steps: []Step{mk(500000, 497000, 4000, true), mk(506800, 12000, 4000, false), mk(510000, 30000, 4000, false)}}
	Analyze(r, stats.Mean, 1)
	if r.Best != 1 || r.Steps[1].Rank != 1 || r.Steps[0].Rank != 3 {
		t.Fatalf("ranking %v best %d", r.Ranking, r.Best)
	}
	if !r.Verdict.Distinguishable || !strings.Contains(r.Verdict.Text, "best 0.5068ms") || !strings.Contains(r.Verdict.Text, "distinguishable from the default") {
		t.Errorf("verdict %+v", r.Verdict)
	}
	// Same distribution everywhere: not distinguishable.
	r = &Result{Steps: []Step{mk(500000, 1000, 50000, true), mk(506800, 1000, 50001, false)}}
	Analyze(r, stats.Quantile(50), 1)
	if r.Verdict.Distinguishable && r.Best != r.Reference {
		t.Errorf("identical steps called distinguishable: %+v", r.Verdict)
	}
	// Ties are broken by stdev: equal medians, the steadier step wins.
	wide := Step{RequestedNs: 1, Reference: true}
	steady := Step{RequestedNs: 2}
	for i := 0; i < 30; i++ {
		wide.Samples = append(wide.Samples, 100, 200)
		steady.Samples = append(steady.Samples, 100, 100)
	}
	r = &Result{Steps: []Step{wide, steady}}
	Analyze(r, stats.Quantile(50), 1)
	if r.Steps[0].Summary.Value != r.Steps[1].Summary.Value || r.Best != 1 {
		t.Errorf("tie on p50 %v/%v not broken by stdev: best %d", r.Steps[0].Summary.Value, r.Steps[1].Summary.Value, r.Best)
	}
}

// The verdict of a Windows sweep says what the rule floor(1/P)+1 ticks
// predicts for the best and the default grant: PC-Tuning measured
// Sleep(1) at 1.497 ms with 0.4992 ms and 1.012 ms with 0.5068 ms
// ("Micro-Adjusting Timer Resolution for Higher Precision",
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md).
func TestVerdictPredictsSleepTicks(t *testing.T) {
	mk := func(req int64, base int64, ref bool) Step {
		s := Step{RequestedNs: req, GrantedNs: req, Reference: ref}
		for i := int64(0); i < 60; i++ {
			s.Samples = append(s.Samples, base+(i*7919)%4000)
		}
		return s
	}
	r := &Result{What: "timer resolution", DurationNs: 1e6, Steps: []Step{mk(499200, 497000, true), mk(506800, 12000, false)}}
	Analyze(r, stats.Quantile(50), 1)
	if want := "predict a 1ms sleep of 2 ticks = 1.0136ms vs 3 ticks = 1.4976ms"; !strings.Contains(r.Verdict.Text, want) {
		t.Errorf("verdict %q lacks %q", r.Verdict.Text, want)
	}
	r = &Result{What: "timer slack", DurationNs: 1e6, Steps: []Step{mk(50000, 497000, true), mk(1000, 12000, false)}}
	Analyze(r, stats.Quantile(50), 1)
	if strings.Contains(r.Verdict.Text, "ticks") {
		t.Errorf("Linux slack has no ticks: %q", r.Verdict.Text)
	}
}
