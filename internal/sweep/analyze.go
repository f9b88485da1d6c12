package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// StepSummary is a step's overshoot distribution and the ranked statistic
// with its bootstrap interval.
type StepSummary struct {
	Overshoot stats.Summary `json:"overshoot"`
	Value     float64       `json:"value"` // the --rank-by statistic of the overshoot
	// CI is the 95% bootstrap interval of Value; nil with fewer samples
	// than stats.MinSamples of the statistic (20 for a mean, 368 for a
	// p99), below which compare shows no interval either: the percentile
	// bootstrap undercovers there, and 5 samples once gave a mean of
	// 20.6µs the interval [18.4µs, 23.3µs]. Its method is a moving-block
	// bootstrap when the samples in measurement order are serially
	// dependent (stats.SerialOf): consecutive sleeps delayed together
	// make an i.i.d. interval too narrow.
	CI *stats.CI `json:"ci,omitempty"`
}

// summarize is the summary of ascending samples ranked by rankBy, with
// an interval when there are enough of them: by blocks of consecutive
// samples when ordered (the same samples in measurement order; nil when
// unknown) is serially dependent.
func summarize(sorted, ordered []int64, rankBy stats.Statistic, seed uint64) StepSummary {
	s := StepSummary{Overshoot: stats.SummarizeSorted(sorted), Value: rankBy.Of(sorted)}
	if len(sorted) >= stats.MinSamples(rankBy, 0.95) {
		side := stats.Side{Sorted: sorted}
		if len(ordered) == len(sorted) {
			if ser := stats.SerialOf(ordered); ser.Dependent {
				side.Ordered, side.Block = ordered, ser.Block
			}
		}
		ci := stats.Bootstrap{Seed: seed}.CISerial(side, rankBy)
		s.CI, s.Value = &ci, ci.Estimate
	}
	return s
}

// Result is a sweep's outcome: the Data of a sweep document.
type Result struct {
	RankBy     string `json:"rank_by"`
	Mode       Mode   `json:"mode"`
	Order      string `json:"order"`
	Seed       uint64 `json:"seed"`
	Repeat     int    `json:"repeat"`
	Load       int    `json:"load"`
	Method     string `json:"method"`
	DurationNs int64  `json:"duration_ns"`
	SettleNs   int64  `json:"settle_ns"`
	LogSteps   bool   `json:"log_steps,omitempty"`
	What       string `json:"what"` // "timer resolution" or "timer slack"
	Steps      []Step `json:"steps"`
	Best       int    `json:"best"`      // index into Steps: the best treatment's first step
	Reference  int    `json:"reference"` // index into Steps of the default choice
	Ranking    []int  `json:"ranking"`   // indices into Steps, best treatment first
	// Treatments group the steps by what the OS granted: requests granted
	// the same value are one treatment, ranked and tested as one.
	Treatments         []Treatment `json:"treatments"`
	TreatmentRanking   []int       `json:"treatment_ranking"` // indices into Treatments, best first
	BestTreatment      int         `json:"best_treatment"`
	ReferenceTreatment int         `json:"reference_treatment"`
	Verdict            Verdict     `json:"verdict"`
	Notes              []string    `json:"notes,omitempty"`
	ElapsedNs          int64       `json:"elapsed_ns"`
	// Interrupted: Ctrl-C stopped the sweep; Steps are the ones measured
	// (in full) of Planned step passes, and nothing is ranked.
	Interrupted bool `json:"interrupted,omitempty"`
	Planned     int  `json:"planned,omitempty"`
	// timerAfter is the timer state Run read at its end; nil when unread.
	timerAfter *timer.Status
}

// Treatment is the steps the OS granted the same value. Whatever was
// requested, they ran under the same timer, so they are one treatment:
// their samples are pooled, and they are ranked and tested together
// (ranking each request apart would pit a treatment against itself).
type Treatment struct {
	GrantedNs    int64       `json:"granted_ns"`
	Steps        []int       `json:"steps"` // indices into Result.Steps, ascending request
	FromNs       int64       `json:"requested_from_ns"`
	ToNs         int64       `json:"requested_to_ns"`
	Reference    bool        `json:"reference,omitempty"`
	Summary      StepSummary `json:"summary"` // of the pooled overshoot
	Rank         int         `json:"rank"`
	MannWhitneyP float64     `json:"mann_whitney_p_vs_reference,omitempty"`
	PHolm        float64     `json:"p_holm,omitempty"`
	LowerThanRef bool        `json:"lower_than_reference,omitempty"` // P(reference > this) > 1/2 in the test's sense
	// Serial is the dependence of the treatment's samples in measurement
	// order, as its comparison with the reference measured it; absent
	// without a comparison or with fewer than stats.MinPerSide samples.
	Serial  *stats.Serial `json:"serial,omitempty"`
	samples []int64       // ascending
	ordered []int64       // in measurement order (inOrder)
}

// RankingReason is why sweep ranks by the mean overshoot by default rather
// than by the deviation PC-Tuning names as the goal ("a sweet spot with a
// low STDEV"): on its own measurements the deviation alone is lowest at
// 0.9996 ms, where Sleep(1) lasts 2 ms every time, while its pick, 0.5068
// ms, has the lowest mean and a low deviation; ties go to the lower stdev
// (TestRankingOnPCTuningsMeasurements holds the figures).
const RankingReason = "the mean overshoot by default, ties by the lower stdev: PC-Tuning's goal is a low STDEV, but on its own measurements the deviation alone is lowest at 0.9996 ms (Sleep(1) 2 ms every time), while its pick, 0.5068 ms (1.012 ms), has the lowest mean and a low deviation; --rank-by stdev ranks by the deviation alone"

// PopulationFindings is what PC-Tuning's 30+ candidates found comparing
// 0.500 ms with 0.507 ms under load: the spread a sweep on another
// machine should expect.
const PopulationFindings = "PC-Tuning asked 30+ people to compare 0.500 ms with 0.507 ms under load: most reproduced 0.507 ms as the more precise, a few did better at 0.500 ms (no setting explained why), one laptop needed 0.600 ms for low deltas, and on Windows 7 0.500 ms was precise for everyone (no ~0.49 ms deltas): the best value is the machine's own, which is what sweep measures"

// Verdict compares the best treatment with the default choice's.
type Verdict struct {
	Distinguishable bool      `json:"distinguishable"`
	TooFew          bool      `json:"too_few_samples,omitempty"`
	Diff            *stats.CI `json:"diff,omitempty"` // best - reference, in the rank-by statistic
	// Test names the rank test of the best against the reference: the
	// i.i.d. Mann-Whitney test or its form for serially dependent
	// samples (stats.SerialMannWhitneyTest), of the deviations from the
	// median for --rank-by stdev (stats.SpreadTest,
	// stats.SerialSpreadTest); absent when none was made.
	Test string `json:"test,omitempty"`
	Text string `json:"text"`
}

// Alpha is the family-wise error rate of a sweep's verdict.
const Alpha = 0.05

// Analyze groups the steps into treatments by the value granted,
// summarises each step and treatment, ranks the treatments by rankBy
// (lower is better; ties by stdev) with 95% bootstrap intervals, and says
// whether the best is distinguishable from the default choice.
//
// The best of many treatments looks good by chance alone, and one far
// outlier moves a mean, a stdev or a high percentile of 50 samples a long
// way, so the verdict asks for three things: enough samples for the
// statistic (stats.MinSamples), a Mann-Whitney test of the best against
// the default, Holm-adjusted over every treatment compared with the
// default, at 5% (ranks: one outlier moves it by one rank), and the
// rank-by difference's bootstrap interval, Bonferroni-adjusted for the
// same comparisons, excluding zero. For --rank-by stdev the test compares
// absolute deviations from each treatment's median, a rank test of spread
// (taken in measurement order, with their long-run variance, when a
// treatment is dependent, as the samples themselves are for the others).
func Analyze(r *Result, rankBy stats.Statistic, seed uint64) {
	r.RankBy = rankBy.String()
	for i := range r.Steps {
		s := &r.Steps[i]
		s.Summary = summarize(sorted(s.Samples), inOrder(r.Steps, []int{i}), rankBy, seed+uint64(i))
	}
	r.Treatments = Group(r.Steps)
	for ti := range r.Treatments {
		t := &r.Treatments[ti]
		for _, i := range t.Steps {
			t.samples = append(t.samples, r.Steps[i].Samples...)
			if i == r.Reference {
				t.Reference = true
				r.ReferenceTreatment = ti
			}
		}
		t.ordered = inOrder(r.Steps, t.Steps)
		slices.Sort(t.samples)
		if len(t.Steps) == 1 { // the step's own summary and interval
			t.Summary = r.Steps[t.Steps[0]].Summary
			continue
		}
		t.Summary = summarize(t.samples, t.ordered, rankBy, seed+uint64(len(r.Steps)+ti))
	}
	r.TreatmentRanking = make([]int, len(r.Treatments))
	for i := range r.TreatmentRanking {
		r.TreatmentRanking[i] = i
	}
	slices.SortStableFunc(r.TreatmentRanking, func(a, b int) int {
		sa, sb := r.Treatments[a].Summary, r.Treatments[b].Summary
		if c := cmpNaN(sa.Value, sb.Value); c != 0 {
			return c
		}
		return cmpNaN(sa.Overshoot.Stdev, sb.Overshoot.Stdev)
	})
	r.Ranking = r.Ranking[:0]
	for rank, ti := range r.TreatmentRanking {
		t := &r.Treatments[ti]
		t.Rank = rank + 1
		for _, i := range t.Steps {
			r.Steps[i].Rank = t.Rank
			r.Ranking = append(r.Ranking, i)
		}
	}
	r.BestTreatment = r.TreatmentRanking[0]
	r.Best = r.Treatments[r.BestTreatment].Steps[0]
	if n, g := len(r.Steps), len(r.Treatments); g < n {
		r.Notes = append(r.Notes, fmt.Sprintf("%d requests were granted %d distinct values: requests granted the same value are one treatment (their samples pooled), ranked and tested as one", n, g))
	}
	c := testAgainstReference(r, rankBy, seed)
	r.Verdict = verdict(r, c)
	r.Notes = append(r.Notes, serialNotes(r, c)...)
}

// inOrder returns the samples of the steps idx (one treatment) in
// measurement order: every pass of them in the order the sweep ran it
// (Step.runs); nil when a step has no record of its passes, whose order
// is then unknown. Within a pass the samples are consecutive sleeps, and
// a burst of interference delays several in a row: the randomized order
// of the passes answers drift between them, not that. The joins between
// passes are not consecutive sleeps, but a moving-block bootstrap only
// needs most of its blocks to be: a few joins among hundreds of samples
// cost it little.
func inOrder(steps []Step, idx []int) []int64 {
	type piece struct {
		seq     int
		samples []int64
	}
	var ps []piece
	for _, i := range idx {
		st := steps[i]
		if len(st.runs) == 0 || st.runs[0].start != 0 {
			return nil
		}
		for k, ru := range st.runs {
			end := len(st.Samples)
			if k+1 < len(st.runs) {
				end = st.runs[k+1].start
			}
			ps = append(ps, piece{ru.seq, st.Samples[ru.start:end]})
		}
	}
	slices.SortFunc(ps, func(a, b piece) int { return cmp.Compare(a.seq, b.seq) })
	var out []int64
	for _, p := range ps {
		out = append(out, p.samples...)
	}
	return out
}

// Group returns the treatments of steps: one per granted value (steps
// whose grant is unknown, 0, stand alone), in ascending order of the grant.
func Group(steps []Step) []Treatment {
	var out []Treatment
	byGrant := map[int64]int{}
	for i, s := range steps {
		if j, ok := byGrant[s.GrantedNs]; ok && s.GrantedNs > 0 {
			t := &out[j]
			t.Steps = append(t.Steps, i)
			t.FromNs, t.ToNs = min(t.FromNs, s.RequestedNs), max(t.ToNs, s.RequestedNs)
			continue
		}
		byGrant[s.GrantedNs] = len(out)
		out = append(out, Treatment{GrantedNs: s.GrantedNs, Steps: []int{i}, FromNs: s.RequestedNs, ToNs: s.RequestedNs})
	}
	for i := range out {
		slices.SortFunc(out[i].Steps, func(a, b int) int { return cmpInt(steps[a].RequestedNs, steps[b].RequestedNs) })
	}
	slices.SortStableFunc(out, func(a, b Treatment) int {
		if c := cmpInt(a.GrantedNs, b.GrantedNs); c != 0 {
			return c
		}
		return cmpInt(a.FromNs, b.FromNs)
	})
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// testAgainstReference compares every treatment with the reference's
// (stats.Compare, interval and ranks), Holm-adjusting the rank tests'
// p-values over all of them, and returns the best treatment's comparison
// (its interval is the only one computed: the verdict is about the best).
// Each treatment's samples go in measurement order as well, so that a
// treatment whose consecutive sleeps are measurably dependent gets the
// block bootstrap and the dependent Mann-Whitney test.
func testAgainstReference(r *Result, rankBy stats.Statistic, seed uint64) stats.Comparison {
	rt := &r.Treatments[r.ReferenceTreatment]
	ref := rt.samples
	k := len(r.Treatments) - 1
	var idx []int
	var cs []stats.Comparison
	for ti := range r.Treatments {
		if ti == r.ReferenceTreatment {
			continue
		}
		o := stats.CompareOptions{By: rankBy, Alpha: Alpha, Family: k, Seed: seed, Rule: stats.IntervalAndRanks, TestOnly: ti != r.BestTreatment,
			OrderedA: rt.ordered, OrderedB: r.Treatments[ti].ordered}
		idx = append(idx, ti)
		cs = append(cs, stats.Compare(ref, r.Treatments[ti].samples, o))
	}
	stats.AdjustFamily(cs)
	var best stats.Comparison
	for i, c := range cs {
		t := &r.Treatments[idx[i]]
		t.MannWhitneyP, t.PHolm, t.LowerThanRef = c.MWU.P, c.PAdjusted, c.LowerThanA()
		t.Serial, rt.Serial = c.SerialB, c.SerialA
		if idx[i] == r.BestTreatment {
			best = c
		}
	}
	return best
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

// Describe names a treatment: its grant, and the requests that got it.
func (t Treatment) Describe() string {
	if len(t.Steps) == 1 {
		return fmt.Sprintf("%s (granted %s)", units.Request(t.FromNs), units.Request(t.GrantedNs))
	}
	return fmt.Sprintf("granted %s (requests %s-%s, %d steps)", units.Request(t.GrantedNs), units.Request(t.FromNs), units.Request(t.ToNs), len(t.Steps))
}

// verdict says the engine's verdict of the best treatment against the
// reference's (c) in sweep's words: distinguishable when it is better,
// not distinguishable otherwise.
func verdict(r *Result, c stats.Comparison) Verdict {
	best, ref := r.Treatments[r.BestTreatment], r.Treatments[r.ReferenceTreatment]
	refName := units.Request(r.Steps[r.Reference].RequestedNs)
	if len(ref.Steps) > 1 {
		refName += fmt.Sprintf(" (granted %s with %d other requests)", units.Request(ref.GrantedNs), len(ref.Steps)-1)
	}
	if r.BestTreatment == r.ReferenceTreatment {
		// Ranked first by its value alone: no test compares it with the
		// next, so it is not called better than the others. With too few
		// samples for the statistic even the ranking says nothing (5
		// sleeps a step once made the default "the best treatment").
		head := fmt.Sprintf("the default choice %s ranks first (%s overshoot %s): no other treatment was lower", refName, r.RankBy, units.NsTrimmed(ref.Summary.Value))
		st, err := stats.ParseStatistic(r.RankBy)
		if err != nil {
			return Verdict{Text: head}
		}
		level := 1 - Alpha/float64(max(len(r.Treatments)-1, 1))
		fewest := int64(math.MaxInt64)
		for _, t := range r.Treatments {
			fewest = min(fewest, t.Summary.Overshoot.Count)
		}
		if need := stats.MinSamples(st, level); fewest < int64(need) {
			return Verdict{TooFew: true, Text: fmt.Sprintf("%s; no verdict, too few samples (fewest %d): judging %s at %s needs at least %d per treatment (--samples, --repeat)",
				head, fewest, r.RankBy, pct(level), need)}
		}
		return Verdict{Text: head}
	}
	k := len(r.Treatments) - 1
	lvl := pct(c.Level) + " CI"
	if c.Dependent() {
		lvl = pct(c.Level) + " block-bootstrap CI"
	}
	if k > 1 {
		lvl += fmt.Sprintf(", Bonferroni for %d comparisons", k)
	}
	head := fmt.Sprintf("best %s: %s overshoot %s vs %s at the default %s", best.Describe(), r.RankBy, units.NsTrimmed(best.Summary.Value), units.NsTrimmed(ref.Summary.Value), refName)
	head += sleepTicksNote(r, best, ref)
	if c.Interval == nil {
		return Verdict{TooFew: true, Test: c.Test, Text: fmt.Sprintf("%s; no verdict, too few samples (%d and %d): judging %s at %s needs at least %d per treatment (--samples, --repeat)",
			head, c.NB, c.NA, r.RankBy, pct(c.Level), c.MinSamples)}
	}
	ci := *c.Interval
	v := Verdict{Diff: &ci, Distinguishable: c.Verdict == stats.Better, Test: c.Test}
	mw := fmt.Sprintf("%s %s, Holm over %d", stats.RankTestShort(c.Test), stats.FormatP(c.PAdjusted), k)
	if v.Distinguishable {
		v.Text = fmt.Sprintf("%s, better by %s [%s, %s] (%s), %s: distinguishable from the default",
			head, units.NsTrimmed(-ci.Estimate), units.NsTrimmed(-ci.Hi), units.NsTrimmed(-ci.Lo), lvl, mw)
	} else {
		v.Text = fmt.Sprintf("%s; difference %s [%s, %s] (%s), %s: not distinguishable from the default at this sample size",
			head, units.NsTrimmed(ci.Estimate), units.NsTrimmed(ci.Lo), units.NsTrimmed(ci.Hi), lvl, mw)
	}
	return v
}

// serialNotes say, for the reference and the best treatment when their
// samples are measurably dependent in measurement order (c: the best's
// comparison with the reference), how much and what the verdict did
// about it, in compare's words.
func serialNotes(r *Result, c stats.Comparison) []string {
	if r.BestTreatment == r.ReferenceTreatment {
		return nil
	}
	// A note is made only of a dependent side, whose comparison used
	// the rank test for dependent samples.
	test := "the Mann-Whitney test uses the long-run variance"
	if c.Test == stats.SerialSpreadTest {
		test = "the Mann-Whitney test on deviations from the median takes them in measurement order and uses their long-run variance"
	}
	var notes []string
	for _, x := range []struct {
		name string
		t    Treatment
	}{{"the default", r.Treatments[r.ReferenceTreatment]}, {"the best", r.Treatments[r.BestTreatment]}} {
		s := x.t.Serial
		if s == nil || !s.Dependent {
			continue
		}
		n := x.t.Summary.Overshoot.Count
		did := test
		if c.Interval != nil { // none with too few samples for the statistic
			did = fmt.Sprintf("the verdict's interval resamples blocks of %d in measurement order (passes in the order they ran), and %s", s.Block, test)
		}
		notes = append(notes, fmt.Sprintf("%s, %s: its %d samples are serially dependent (lag-1 autocorrelation %.2f, above 3/sqrt(n) = %.2f) and weigh as %.0f independent ones: %s",
			x.name, x.t.Describe(), n, s.Lag1, stats.DependenceThreshold(int(n)), s.EffectiveN, did))
	}
	return notes
}

// sleepTicksNote is what the rule timer.SleepTicks predicts for the best
// and the default grant of a Windows timer resolution sweep: Sleep(d)
// lasts floor(d/P)+1 ticks of the granted interval P, so at 0.5 ms a
// Sleep(1) takes 3 ticks (1.5 ms) and at 0.5068 ms 2 (1.0136 ms), as
// PC-Tuning measured ("Micro-Adjusting Timer Resolution for Higher
// Precision", https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md).
// Empty for Linux's timer slack, which has no ticks.
func sleepTicksNote(r *Result, best, ref Treatment) string {
	if r.What != whatResolution || r.DurationNs <= 0 || best.GrantedNs <= 0 || ref.GrantedNs <= 0 {
		return ""
	}
	d := time.Duration(r.DurationNs)
	ticks := func(t Treatment) string {
		p := time.Duration(t.GrantedNs)
		n, unit := timer.SleepTicks(d, p), "ticks"
		if n == 1 {
			unit = "tick"
		}
		return fmt.Sprintf("%d %s = %s", n, unit, units.Request(int64(timer.SleepDuration(d, p))))
	}
	return fmt.Sprintf(" (floor(d/P)+1 ticks of the grant predict a %s sleep of %s vs %s)", units.Request(r.DurationNs), ticks(best), ticks(ref))
}

// whatResolution is Result.What of a Windows sweep.
const whatResolution = "timer resolution"

func pct(level float64) string { return stats.FormatLevel(level) }

func sorted(s []int64) []int64 {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
