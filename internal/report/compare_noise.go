package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// compareNoiseText writes the comparison of noise results: a verdict per
// CPU and pair, then per CPU the figures of every run, the rate test and
// the lengths' statistics; then the notes.
func compareNoiseText(w io.Writer, r *compare.Result) {
	var cpus []string
	for _, c := range r.Noise {
		cpus = append(cpus, strconv.Itoa(c.CPU))
	}
	cpuWord := "CPU"
	if len(cpus) > 1 {
		cpuWord = "CPUs"
	}
	writeProse(w, fmt.Sprintf("latlab compare: noise, %d runs, %s %s, threshold %s; lengths by %s; %s CIs (seed %d)",
		len(r.Runs), cpuWord, strings.Join(cpus, ","), noiseThreshold(r), r.By, levelPct(r.Level), r.Seed), 2, fmt.Sprintf("(seed %d)", r.Seed))
	fmt.Fprintln(w, "verdict:")
	for _, c := range r.Noise {
		for _, p := range c.Pairs {
			writeProse(w, "- "+p.Verdict, 2)
		}
	}
	var settings []string
	for _, run := range r.Runs[1:] {
		if run.Settings != "" {
			settings = append(settings, fmt.Sprintf("%s: %s", run.Label, run.Settings))
		}
	}
	if len(settings) > 0 {
		writeProse(w, "settings that differ from "+r.Runs[0].Label+": "+strings.Join(settings, "; "), 2)
	}
	if len(r.Runs) == 2 {
		fmt.Fprintf(w, "\nA = %s\nB = %s\n", r.Runs[0].Label, r.Runs[1].Label)
	}
	for _, c := range r.Noise {
		fmt.Fprintln(w)
		noiseCPUTable(w, r, c)
	}
	fmt.Fprintln(w)
	for _, n := range r.Notes {
		writeProse(w, "note: "+safeText(n), 2)
	}
}

// noiseThreshold is the comparison's threshold: 0 when no side is a
// noise result (an rtla osnoise histogram does not record its own).
func noiseThreshold(r *compare.Result) string {
	if r.NoiseThresholdNs == 0 {
		return "not recorded"
	}
	return units.Duration(time.Duration(r.NoiseThresholdNs))
}

// noiseRunCells are a run's runtime, interruptions, rate, share
// available, noise and longest: "-" for what an rtla osnoise histogram
// does not record (its runtime, so its rate, share and noise). The text
// writes its durations as compare does (units.NsShort, units.NsFixed),
// the page (html) as its other tables do (pageNs).
func noiseRunCells(run compare.NoiseRun, html bool) []string {
	short, fixed := units.NsShort, units.NsFixed
	if html {
		short, fixed = pageNs, pageNs
	}
	if run.RTLA {
		return []string{"-", strconv.FormatInt(run.Count, 10), "-", "-", "-", fixed(float64(run.MaxNs))}
	}
	return []string{short(float64(run.RuntimeNs)), strconv.FormatInt(run.Count, 10), perSecond(run.PerSecond),
		availPct(run.AvailablePct), fixed(float64(run.NoiseNs)), fixed(float64(run.MaxNs))}
}

// noiseCPUTable is one CPU's evidence: each run's figures, then for each
// pair the rate test and the lengths compared.
func noiseCPUTable(w io.Writer, r *compare.Result, c compare.NoiseCPU) {
	rows := [][]string{}
	for i, run := range c.Runs {
		name := run.Label
		if len(c.Runs) == 2 {
			name = string(rune('A' + i))
		}
		rows = append(rows, append([]string{name}, noiseRunCells(run, false)...))
	}
	Table(w, []string{fmt.Sprintf("CPU %d", c.CPU), "runtime", "interruptions", "per s", "available", "noise", "longest"}, rows)
	for _, p := range c.Pairs {
		rt := p.Rate
		fmt.Fprintln(w)
		who := "B/A"
		if len(c.Runs) > 2 {
			who = p.BLabel + " / " + p.ALabel
		}
		if p.RateOutcome == compare.NotCompared {
			writeProse(w, fmt.Sprintf("rate %s: %s", who, p.RateNote), 2)
		} else {
			writeProse(w, fmt.Sprintf("rate ratio %s = %s [%s, %s] (%d and %d interruptions in %s and %s); exact test %s (Holm), unadjusted %s",
				who, compare.Sig3(float64(rt.Ratio)), compare.Sig3(rt.Lo), compare.Sig3(float64(rt.Hi)), rt.NB, rt.NA,
				units.NsShort(rt.TB*1e9), units.NsShort(rt.TA*1e9), stats.FormatP(p.RatePHolm), stats.FormatP(rt.P)), 2)
		}
		l := p.Lengths
		if l == nil {
			writeProse(w, "lengths "+p.LengthsNote, 2)
			continue
		}
		var lr [][]string
		var short, unknown []string
		for _, row := range l.Rows {
			if row.Unknown != "" {
				// a value not known is -1: no value, and a line says why
				cells := []string{row.Stat, units.NsFixed(row.A), units.NsFixed(row.B), "-", "-", ""}
				for i, v := range []float64{row.A, row.B} {
					if v < 0 {
						cells[1+i] = "?"
					}
				}
				lr = append(lr, cells)
				unknown = append(unknown, row.Unknown)
				continue
			}
			if row.Diff == nil {
				need := fmt.Sprint(row.NeedsSamples)
				if row.NeedsSamples == math.MaxInt {
					need = "no count suffices"
				}
				short = append(short, fmt.Sprintf("%s (%s)", row.Stat, need))
				lr = append(lr, []string{row.Stat, units.NsFixed(row.A), units.NsFixed(row.B), "-", "-", ""})
				continue
			}
			lr = append(lr, []string{row.Stat, units.NsFixed(row.A), units.NsFixed(row.B), units.SignedNsFixed(row.Diff.Estimate),
				"[" + units.SignedNsFixed(row.Diff.Lo) + ", " + units.SignedNsFixed(row.Diff.Hi) + "]", fmt.Sprintf("%+.1f%%", row.RelChange*100)})
		}
		fmt.Fprintln(w)
		hdr := "lengths"
		if len(c.Runs) > 2 {
			hdr = "lengths, " + p.BLabel
		}
		Table(w, []string{hdr, "A", "B", "B - A", levelPct(r.Level) + " CI", "change"}, lr)
		if len(short) > 0 {
			writeProse(w, "no interval, too few interruptions per run for: "+strings.Join(short, ", "), 2, short...)
		}
		for _, u := range unknown {
			writeProse(w, safeText(u), 2)
		}
		mw, ks := "Mann-Whitney U", ksName(l.KS)
		if l.Test == stats.SerialMannWhitneyTest {
			mw = "Mann-Whitney U for dependent samples"
		}
		writeProse(w, fmt.Sprintf("%s = %.0f, %s (Holm; P(A > B) = %.2f); %s D = %.3f, %s",
			mw, l.MWU.U, stats.FormatP(l.PAdjusted), l.MWU.Superiority, ks, l.KS.D, stats.FormatP(l.KS.P)), 2, mw, ks+" D")
	}
}

// compareNoiseHTML is the report's view of a comparison of noise
// results: every CPU's verdicts, and a table per CPU of each run's
// figures with its rate ratio and the lengths by --by against the first.
func compareNoiseHTML(r *compare.Result) (verdicts []string, tables []htmlTable) {
	for _, c := range r.Noise {
		for _, p := range c.Pairs {
			verdicts = append(verdicts, p.Verdict)
		}
	}
	for _, c := range r.Noise {
		t := htmlTable{Caption: fmt.Sprintf("CPU %d: interruptions over %s; intervals at %s", c.CPU, noiseThreshold(r), levelPct(r.Level)),
			Header: []string{"run", "runtime", "interruptions", "per s", "available", "noise", "longest", "rate ratio vs first [CI]", "p (Holm)", r.By + " length vs first [CI]"}}
		for i, run := range c.Runs {
			ratio, p, by := "baseline", "", ""
			if i > 0 && i-1 < len(c.Pairs) {
				pp := c.Pairs[i-1]
				rt := pp.Rate
				ratio = fmt.Sprintf("%s [%s, %s]", compare.Sig3(float64(rt.Ratio)), compare.Sig3(rt.Lo), compare.Sig3(float64(rt.Hi)))
				p = stats.FormatP(pp.RatePHolm)
				if pp.RateOutcome == compare.NotCompared {
					ratio, p = "not compared", ""
				}
				by = pp.LengthsNote
				if l := pp.Lengths; l != nil {
					by = string(l.Outcome)
					if d := l.ByDiff; d != nil {
						by = fmt.Sprintf("%s [%s, %s]", units.SignedNs(d.Estimate), units.SignedNs(d.Lo), units.SignedNs(d.Hi))
					}
				}
			}
			row := append([]string{run.Label}, noiseRunCells(run, true)...)
			t.Rows = append(t.Rows, append(row, ratio, p, by))
		}
		tables = append(tables, t)
	}
	return verdicts, tables
}
