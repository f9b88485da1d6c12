package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// CompareText writes `latlab compare`'s human output, the answer first:
// the verdict (one per run against the first for more than two), then
// the evidence: for two runs the table of statistics with their
// intervals and the tests, for more the ranking; then the notes.
func CompareText(w io.Writer, r *compare.Result) {
	if len(r.Noise) > 0 {
		compareNoiseText(w, r)
		return
	}
	if r.DPCISR != nil {
		compareDPCISRText(w, r)
		return
	}
	what := "runs"
	if r.PerRun {
		what = "sides"
	}
	boot := "bootstrap"
	if dependent(r.Runs...) {
		boot = "block-bootstrap"
	}
	writeProse(w, fmt.Sprintf("latlab compare: %s, %d %s, verdict by %s; %s %s CIs (seed %d)", r.Quantity, len(r.Runs), what, r.By, boot, levelPct(r.Level), r.Seed), 2, fmt.Sprintf("(seed %d)", r.Seed))
	if len(r.Runs) == 2 {
		writeProse(w, "verdict: "+r.Pairs[0].Verdict, 2, runLabels(r)...)
		fmt.Fprintln(w)
		comparePair(w, r, r.Pairs[0])
	} else {
		for _, p := range r.Pairs {
			writeProse(w, "- "+p.Verdict, 2, runLabels(r)...)
		}
		fmt.Fprintln(w)
		compareRanking(w, r)
	}
	for _, n := range r.Notes {
		writeProse(w, "note: "+safeText(n), 2)
	}
}

// levelPct renders a confidence level as a percentage (stats.FormatLevel).
func levelPct(level float64) string { return stats.FormatLevel(level) }

func comparePair(w io.Writer, r *compare.Result, p compare.Pair) {
	a, b := r.Runs[p.A], r.Runs[p.B]
	noun := "sample"
	if r.PerRun {
		noun = "run"
	}
	writeProse(w, fmt.Sprintf("A = %s (%s%s%s)", a.Label, count(a.Summary.Count, noun), serialText(a.Serial), sourceText(a)), 2)
	bLine := fmt.Sprintf("B = %s (%s%s%s)", b.Label, count(b.Summary.Count, noun), serialText(b.Serial), sourceText(b))
	if b.Settings != "" {
		bLine += ": " + b.Settings
	}
	writeProse(w, bLine, 2)
	fmt.Fprintln(w)
	var rows, gp [][]string
	var short, unknown []string
	unit, div := units.BitrateUnit(a.GoodputP50)
	for _, row := range p.Rows {
		fv, fs := units.NsFixed, units.SignedNsFixed
		if row.Unit == "bit/s" {
			// Goodput gets its own table, in one unit, to stay narrow.
			fv = func(v float64) string { return fmt.Sprintf("%.3f", v/div) }
			fs = func(v float64) string { return fmt.Sprintf("%+.3f", v/div) }
		}
		cells := []string{row.Stat, fv(row.A), fv(row.B), "-", "-", ""}
		if row.Unknown != "" {
			// a value not known is -1: no value, and the line says why
			for i, v := range []float64{row.A, row.B} {
				if v < 0 {
					cells[1+i] = "?"
				}
			}
			unknown = append(unknown, row.Unknown)
		} else if row.Diff == nil {
			need := fmt.Sprint(row.NeedsSamples)
			if row.NeedsSamples == math.MaxInt {
				need = "no count suffices"
			} else if len(short) == 0 {
				need = "needs " + need
			}
			short = append(short, fmt.Sprintf("%s (%s)", row.Stat, need))
		} else {
			cells = []string{row.Stat, fv(row.A), fv(row.B), fs(row.Diff.Estimate),
				"[" + fs(row.Diff.Lo) + ", " + fs(row.Diff.Hi) + "]", fmt.Sprintf("%+.1f%%", row.RelChange*100)}
		}
		if row.Unit == "bit/s" {
			cells[0] = strings.TrimSuffix(cells[0], " goodput")
			gp = append(gp, cells)
		} else {
			rows = append(rows, cells)
		}
	}
	hdr := []string{"", "A", "B", "B - A", levelPct(r.Level) + " CI", "change"}
	if r.PerRun {
		hdr[0] = "duration"
	}
	Table(WithWidth(w, pageCols(w)), hdr, rows)
	if len(gp) > 0 {
		fmt.Fprintln(w)
		Table(WithWidth(w, pageCols(w)), []string{"goodput (" + unit + ")", "A", "B", "B - A", levelPct(r.Level) + " CI", "change"}, gp)
	}
	if len(short) > 0 {
		per := "samples per run"
		if r.PerRun {
			per = "runs per side"
		}
		fmt.Fprintln(w)
		// a statistic with its count is one item, never cut
		writeProse(w, fmt.Sprintf("no interval, too few %s for: %s", per, strings.Join(short, ", ")), 2, short...)
	}
	for i, u := range unknown {
		if i == 0 {
			fmt.Fprintln(w)
		}
		writeProse(w, "? "+u, 2)
	}
	fmt.Fprintln(w)
	mw := "Mann-Whitney U"
	if p.Test == stats.SerialMannWhitneyTest {
		mw = "Mann-Whitney U for dependent samples"
	}
	ks, asIf := ksName(p.KS), ""
	if !p.KS.Dependent() && dependent(a, b) {
		// A document written before the dependent p-value was: its p
		// is the i.i.d. one, and said to be.
		asIf = " (as if independent)"
	}
	writeProse(w, fmt.Sprintf("%s = %.0f, %s (P(A > B) = %.2f); %s D = %.3f, %s%s",
		mw, p.MWU.U, stats.FormatP(p.PAdjusted), p.MWU.Superiority, ks, p.KS.D, stats.FormatP(p.KS.P), asIf), 2, mw, ks+" D", asIf)
	if p.ByDiff != nil && dependent(a, b) {
		writeProse(w, "intervals: "+p.ByDiff.Method, 2)
	}
}

// ksName is the short name of a pair's Kolmogorov-Smirnov test.
func ksName(k stats.KS) string {
	if k.Dependent() {
		return "Kolmogorov-Smirnov for dependent samples"
	}
	return "Kolmogorov-Smirnov"
}

// serialText says how dependent a run's samples are in measurement
// order, after its count; empty when they have no order.
func serialText(s *stats.Serial) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("; lag-1 autocorrelation %.2f, effective %.0f", s.Lag1, s.EffectiveN)
}

// sourceText says, after the count, what a run was read from when it is
// not a result document, and that its order is not known.
func sourceText(r compare.RunSummary) string {
	s := ""
	if r.Source != "" {
		s = "; " + r.Source
	}
	if r.OrderUnknown {
		s += "; order unknown, taken as independent"
	}
	return s
}

// nsOrUnknown writes a summary value, "?" for one not known (-1).
func nsOrUnknown(v float64) string {
	if v < 0 {
		return "?"
	}
	return units.NsFixed(v)
}

// dependent reports whether either run's samples are measurably
// dependent, so that the comparison used the methods for them.
func dependent(runs ...compare.RunSummary) bool {
	for _, r := range runs {
		if r.Serial != nil && r.Serial.Dependent {
			return true
		}
	}
	return false
}

// runLabels are the labels of a comparison's runs: a file's name with a
// space in it is not cut where a verdict names it.
func runLabels(r *compare.Result) []string {
	var l []string
	for _, run := range r.Runs {
		if strings.Contains(run.Label, " ") {
			l = append(l, run.Label)
		}
	}
	return l
}

// runCounts are the sample counts of a comparison's runs.
func runCounts(r *compare.Result) []int64 {
	var n []int64
	for _, run := range r.Runs {
		n = append(n, run.Summary.Count)
	}
	return n
}

func compareRanking(w io.Writer, r *compare.Result) {
	var ranks, diffs [][]string
	var settings []string
	// A p99 of fewer than 100 samples is their maximum (nearest rank):
	// then the column is the maximum, and says so, as sweep's does.
	tail, tailOf := p99Column(runCounts(r)...)
	for rank, i := range r.Ranking {
		run := r.Runs[i]
		out := "baseline"
		if i > 0 {
			pp := r.Pairs[i-1]
			out = string(pp.Outcome)
			diff, ci := "-", "-"
			if d := pp.ByDiff; d != nil {
				diff, ci = units.SignedNsFixed(d.Estimate), "["+units.SignedNsFixed(d.Lo)+", "+units.SignedNsFixed(d.Hi)+"]"
			}
			diffs = append(diffs, []string{fmt.Sprint(rank + 1), run.Label, diff, ci, stats.FormatP(pp.PAdjusted)})
		}
		ranks = append(ranks, []string{fmt.Sprint(rank + 1), run.Label, out, fmt.Sprint(run.Summary.Count), nsOrUnknown(float64(run.Summary.P50)),
			nsOrUnknown(float64(tailOf(run.Summary))), nsOrUnknown(run.Summary.Mean)})
		if run.Settings != "" {
			settings = append(settings, fmt.Sprintf("%d %s: %s", rank+1, run.Label, run.Settings))
		}
	}
	// Two tables, as one did not fit 80 columns: the ranking with each
	// run's outcome (the answer, beside the run: a narrow terminal drops
	// columns from the right), then the differences from the first run
	// that decided it (the evidence), for the runs compared with it.
	pageTable(w, tableSpec{header: []string{"#", "run", "outcome", "n", "p50", tail, "mean"}, rows: ranks,
		right: []bool{true, false, false, true, true, true, true}})
	fmt.Fprintln(w)
	pageTable(w, tableSpec{header: []string{"#", "run", r.By + " vs first", levelPct(r.Level) + " CI", "MWU (Holm)"}, rows: diffs,
		right: []bool{true, false, true, true, true}})
	// Each run's serial dependence, on lines of its own for the same
	// reason as the settings.
	var serial []string
	for _, i := range r.Ranking {
		if run := r.Runs[i]; run.Serial != nil {
			serial = append(serial, fmt.Sprintf("%s %.2f, %.0f", run.Label, run.Serial.Lag1, run.Serial.EffectiveN))
		}
	}
	if len(serial) > 0 {
		fmt.Fprintln(w)
		writeProse(w, "lag-1 autocorrelation, effective samples: "+strings.Join(serial, "; "), 2, serial...)
	}
	if dependent(r.Runs...) {
		for _, p := range r.Pairs {
			if p.ByDiff != nil {
				writeProse(w, fmt.Sprintf("%s vs first: intervals by %s; %s", p.BLabel, p.ByDiff.Method, stats.RankTestShort(p.Test)), 2)
			}
		}
	}
	// The settings are lines of their own: as a column they made the
	// table wider than any terminal.
	if len(settings) > 0 {
		fmt.Fprintln(w, "settings that differ:")
		for _, s := range settings {
			writeProse(w, "  "+s, 4)
		}
	}
}
