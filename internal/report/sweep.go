package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/units"
)

// SweepInterrupted prints what an interrupted sweep measured: each
// step done, unranked.
func SweepInterrupted(w io.Writer, r *sweep.Result) {
	fmt.Fprintf(w, "latlab sweep: interrupted: %d of %d step passes measured; a partial sweep is not ranked\n", len(r.Steps), r.Planned)
	if len(r.Steps) == 0 {
		return
	}
	var rows [][]string
	for _, st := range r.Steps {
		s := stats.Summarize(st.Samples)
		rows = append(rows, []string{units.Request(st.RequestedNs), units.Request(st.GrantedNs), strconv.Itoa(len(st.Samples)),
			units.Ns(s.P50), units.Ns(s.P99), units.Ns(s.Max)})
	}
	fmt.Fprintln(w)
	Table(w, []string{"requested", "granted", "samples", "overshoot p50", "p99", "max"}, rows)
}

// Sweep prints `sweep`, the answer first: the head and the verdict, then
// one ranked row per granted value, the seed that repeats the run and
// the notes.
func Sweep(w io.Writer, r *sweep.Result) {
	head := fmt.Sprintf("latlab sweep: %s(%s) overshoot per requested %s, ranked by %s (95%% bootstrap CI), %d pass(es), %s order, mode %s",
		r.Method, units.Request(r.DurationNs), r.What, r.RankBy, r.Repeat, r.Order, r.Mode)
	if r.Load > 0 {
		head += fmt.Sprintf(", %d busy threads", r.Load)
	}
	writeProse(w, head, 2)
	writeProse(w, "verdict: "+r.Verdict.Text, 2)
	fmt.Fprintln(w)
	curDiffers := 0
	for _, s := range r.Steps {
		if s.CurrentNs > 0 && s.CurrentNs != s.GrantedNs {
			curDiffers++
		}
	}
	// One row per treatment (the requests granted one value). Columns are
	// kept to what fits 80 columns; the CSV and JSON hold every statistic.
	hdr := []string{"#", "requested", "granted", "n", r.RankBy + " [95% CI]"}
	extra := []string{"p99"}
	if r.RankBy == "p99" {
		extra = []string{"p50"}
	}
	// A p99 of fewer than 100 samples is the maximum (nearest rank): the
	// default 50 samples a step once showed their maximum as "p99". Then
	// the column is the maximum, and says so.
	for _, t := range r.Treatments {
		if extra[0] == "p99" && t.Summary.Overshoot.Count < 100 {
			extra[0] = "max"
		}
	}
	hdr = append(append(hdr, extra...), "")
	var rows [][]string
	few := false
	for _, ti := range r.TreatmentRanking {
		t := r.Treatments[ti]
		ov := t.Summary.Overshoot
		req := units.Request(t.FromNs)
		if len(t.Steps) > 1 {
			req = fmt.Sprintf("%s-%s (%d)", strings.TrimSuffix(units.Request(t.FromNs), "ms"), units.Request(t.ToNs), len(t.Steps))
		}
		row := []string{fmt.Sprint(t.Rank), req, units.Request(t.GrantedNs)}
		row = append(row, fmt.Sprint(ov.Count), sweepValueCI(t.Summary, units.NsShort))
		if t.Summary.CI == nil {
			few = true
		}
		for _, st := range extra {
			v := ov.P50
			switch st {
			case "p99":
				v = ov.P99
			case "max":
				v = ov.Max
			}
			row = append(row, units.NsShort(float64(v)))
		}
		mark := ""
		switch {
		case ti == r.BestTreatment && t.Reference:
			mark = "best, default"
		case ti == r.BestTreatment:
			mark = "best"
		case t.Reference:
			mark = "default"
		}
		rows = append(rows, append(row, mark))
	}
	Table(w, hdr, rows)
	if slices.ContainsFunc(r.Treatments, func(t sweep.Treatment) bool { return sweepBlockCI(t.Summary) }) {
		fmt.Fprintln(w)
		writeProse(w, sweepBlockNote, 3)
	}
	if few {
		fmt.Fprintf(w, "\n[-]: no interval, too few samples for %s (needs %d per treatment; --samples, --repeat)\n",
			r.RankBy, sweepMinSamples(r.RankBy))
	}
	if len(r.Treatments) < len(r.Steps) {
		fmt.Fprintf(w, "\n%d requests, %d granted values: a row is one granted value (requested from-to (steps)), its samples pooled\n",
			len(r.Steps), len(r.Treatments))
	}
	sweepSerial(w, r)
	if curDiffers > 0 {
		fmt.Fprintf(w, "NtQueryTimerResolution's current interval differed from the grant for %d requests (CSV column CurrentMs)\n", curDiffers)
	}
	fmt.Fprintf(w, "\nseed %d (rerun with --seed %d for the same order and intervals); took %s\n", r.Seed, r.Seed, units.Duration(time.Duration(r.ElapsedNs).Round(time.Millisecond)))
	for _, n := range r.Notes {
		writeNote(w, n)
	}
}

// sweepSerial says, when the default's or the best treatment's samples
// are measurably dependent in measurement order, how much (both), and
// the methods the verdict used, as compare's ranking says them.
func sweepSerial(w io.Writer, r *sweep.Result) {
	if r.BestTreatment == r.ReferenceTreatment || len(r.Treatments) < 2 {
		return
	}
	ref, best := r.Treatments[r.ReferenceTreatment], r.Treatments[r.BestTreatment]
	dep := func(s *stats.Serial) bool { return s != nil && s.Dependent }
	if !dep(ref.Serial) && !dep(best.Serial) {
		return
	}
	var serial []string
	for _, x := range []struct {
		name string
		s    *stats.Serial
	}{{"default", ref.Serial}, {"best", best.Serial}} {
		if x.s != nil {
			serial = append(serial, fmt.Sprintf("%s %.2f, %.0f", x.name, x.s.Lag1, x.s.EffectiveN))
		}
	}
	fmt.Fprintln(w)
	writeProse(w, "lag-1 autocorrelation, effective samples: "+strings.Join(serial, "; "), 2, serial...)
	test := stats.RankTestShort(r.Verdict.Test)
	if !stats.SerialTest(r.Verdict.Test) {
		// A sweep written before the rank test of spread (--rank-by
		// stdev) took the deviations from the median in measurement
		// order: it counted them as independent.
		test = stats.RankTestShort(stats.SpreadTest) + " (as if independent)"
	}
	line := "best vs default: " + test
	if r.Verdict.Diff != nil {
		line = fmt.Sprintf("best vs default: interval by %s; %s", r.Verdict.Diff.Method, test)
	}
	writeProse(w, line, 2, test)
}

// sweepValueCI is a ranked value with its interval, "[-]" without one
// (too few samples: sweep.StepSummary), marked "*" when the interval
// resampled blocks (sweepBlockNote).
func sweepValueCI(s sweep.StepSummary, f func(float64) string) string {
	if s.CI == nil {
		return f(s.Value) + " [-]"
	}
	mark := ""
	if sweepBlockCI(s) {
		mark = "*"
	}
	return f(s.Value) + " [" + f(s.CI.Lo) + ", " + f(s.CI.Hi) + "]" + mark
}

// sweepBlockCI reports whether a summary's interval came from the
// moving-block bootstrap (its samples serially dependent).
func sweepBlockCI(s sweep.StepSummary) bool {
	return s.CI != nil && strings.HasPrefix(s.CI.Method, "moving-block")
}

// sweepBlockNote is the footnote of the intervals marked "*".
const sweepBlockNote = "*: serially dependent samples (consecutive sleeps delayed together); the interval resamples blocks of consecutive samples (moving-block bootstrap)"

// sweepMinSamples is how many samples a treatment needs for an interval
// of the statistic named rankBy at 95%.
func sweepMinSamples(rankBy string) int {
	st, err := stats.ParseStatistic(rankBy)
	if err != nil {
		return stats.MinPerSide
	}
	return stats.MinSamples(st, 0.95)
}
