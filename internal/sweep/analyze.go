package sweep

import (
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/internal/stats"
)

// StepSummary is a step's overshoot distribution and the ranked statistic
// with its bootstrap interval.
type StepSummary struct {
	Overshoot stats.Summary `json:"overshoot"`
	Value     float64       `json:"value"` // the --rank-by statistic of the overshoot
	CI        stats.CI      `json:"ci"`
}

// Result is a sweep's outcome: the Data of a sweep document.
type Result struct {
	RankBy     string   `json:"rank_by"`
	Mode       Mode     `json:"mode"`
	Order      string   `json:"order"`
	Seed       uint64   `json:"seed"`
	Repeat     int      `json:"repeat"`
	Load       int      `json:"load"`
	Method     string   `json:"method"`
	DurationNs int64    `json:"duration_ns"`
	SettleNs   int64    `json:"settle_ns"`
	LogSteps   bool     `json:"log_steps,omitempty"`
	What       string   `json:"what"` // "timer resolution" or "timer slack"
	Steps      []Step   `json:"steps"`
	Best       int      `json:"best"`      // index into Steps
	Reference  int      `json:"reference"` // index into Steps of the default choice
	Ranking    []int    `json:"ranking"`   // indices into Steps, best first
	Verdict    Verdict  `json:"verdict"`
	Notes      []string `json:"notes,omitempty"`
	ElapsedNs  int64    `json:"elapsed_ns"`
}

// Verdict compares the best step with the default choice.
type Verdict struct {
	Distinguishable bool     `json:"distinguishable"`
	Diff            stats.CI `json:"diff"` // best - reference, in the rank-by statistic
	Text            string   `json:"text"`
}

// Analyze summarises each step, ranks the steps by rankBy (lower is
// better; ties by stdev) with 95% bootstrap intervals, and compares the best
// with the reference step. The comparison's interval is Bonferroni-adjusted
// for the number of steps the best was picked from, so a lucky step among
// many is not called a winner.
func Analyze(r *Result, rankBy stats.Statistic, seed uint64) {
	r.RankBy = rankBy.String()
	for i := range r.Steps {
		s := &r.Steps[i]
		sorted := slices.Clone(s.Samples)
		slices.Sort(sorted)
		s.Summary.Overshoot = stats.SummarizeSorted(sorted)
		s.Summary.CI = stats.Bootstrap{Seed: seed + uint64(i)}.CI(sorted, rankBy)
		s.Summary.Value = s.Summary.CI.Estimate
	}
	r.Ranking = make([]int, len(r.Steps))
	for i := range r.Ranking {
		r.Ranking[i] = i
	}
	slices.SortStableFunc(r.Ranking, func(a, b int) int {
		sa, sb := r.Steps[a].Summary, r.Steps[b].Summary
		if c := cmpNaN(sa.Value, sb.Value); c != 0 {
			return c
		}
		return cmpNaN(sa.Overshoot.Stdev, sb.Overshoot.Stdev)
	})
	for rank, i := range r.Ranking {
		r.Steps[i].Rank = rank + 1
	}
	r.Best = r.Ranking[0]
	r.Verdict = verdict(r, rankBy, seed)
}

func cmpNaN(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func verdict(r *Result, rankBy stats.Statistic, seed uint64) Verdict {
	best, ref := r.Steps[r.Best], r.Steps[r.Reference]
	name := func(s Step) string { return FormatRequest(s.RequestedNs) }
	if r.Best == r.Reference {
		return Verdict{Text: fmt.Sprintf("the default choice %s is itself the best step (%s overshoot %s)", name(ref), r.RankBy, fmtNs(ref.Summary.Value))}
	}
	k := max(len(r.Steps)-1, 1)
	level := 1 - 0.05/float64(k)
	a, b := sorted(ref.Samples), sorted(best.Samples)
	ci := stats.Bootstrap{Seed: seed, Level: level, Replicates: stats.ReplicatesFor(level, 2000)}.DiffCI(a, b, rankBy)
	v := Verdict{Diff: ci, Distinguishable: ci.Hi < 0}
	lvl := fmt.Sprintf("%.2f%% CI, Bonferroni for %d steps", level*100, len(r.Steps))
	if v.Distinguishable {
		v.Text = fmt.Sprintf("best %s (granted %s): %s overshoot %s vs %s at the default %s, better by %s [%s, %s] (%s): distinguishable from the default",
			name(best), FormatRequest(best.GrantedNs), r.RankBy, fmtNs(best.Summary.Value), fmtNs(ref.Summary.Value), name(ref),
			fmtNs(-ci.Estimate), fmtNs(-ci.Hi), fmtNs(-ci.Lo), lvl)
	} else {
		v.Text = fmt.Sprintf("best %s (granted %s): %s overshoot %s vs %s at the default %s; difference %s [%s, %s] (%s): not distinguishable from the default at this sample size",
			name(best), FormatRequest(best.GrantedNs), r.RankBy, fmtNs(best.Summary.Value), fmtNs(ref.Summary.Value), name(ref),
			fmtNs(ci.Estimate), fmtNs(ci.Lo), fmtNs(ci.Hi), lvl)
	}
	return v
}

func sorted(s []int64) []int64 {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// FormatRequest renders a request (or a sleep) in ms with up to 4
// decimals (0.5068ms) from 0.1 ms, the unit timer-resolution tools use,
// else in µs or ns.
func FormatRequest(ns int64) string {
	if ns >= 100_000 {
		return trimZeros(fmt.Sprintf("%.4f", float64(ns)/1e6)) + "ms"
	}
	if ns >= 1000 {
		return trimZeros(fmt.Sprintf("%.3f", float64(ns)/1e3)) + "µs"
	}
	return fmt.Sprintf("%dns", ns)
}

func fmtNs(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return "-"
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.4f", v/1e6)) + "ms"
	case a >= 1e3:
		return trimZeros(fmt.Sprintf("%.2f", v/1e3)) + "µs"
	}
	return fmt.Sprintf("%.0fns", v)
}

func trimZeros(s string) string {
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
