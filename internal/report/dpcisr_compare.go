package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/stats"
)

// DPCISRComparePanels are the CDF panels of a comparison, one per
// section: each run's cumulative share at the upper bound of every
// bucket but the open one.
func DPCISRComparePanels(c *dpcisr.Comparison) []CDFPanel {
	var ps []CDFPanel
	for _, s := range c.Sections {
		title := s.Name
		if c.Module != "" {
			title += " " + c.Module
		}
		pn := CDFPanel{Title: title}
		for i, r := range s.Runs {
			cs := CDFSeries{Label: r.Label}
			var cum, n int64
			for _, v := range s.Counts[i] {
				n += v
			}
			for j, b := range s.Buckets {
				cum += s.Counts[i][j]
				if b.Open() {
					continue
				}
				cs.X = append(cs.X, b.Upper())
				cs.Y = append(cs.Y, 100*float64(cum)/float64(n))
			}
			pn.Series = append(pn.Series, cs)
		}
		ps = append(ps, pn)
	}
	return ps
}

// DPCISRCompareText prints a comparison as `latlab dpcisr compare` does:
// per section the distributions side by side, the shares at or below
// the thresholds, the chi-squared test and the verdict.
func DPCISRCompareText(w io.Writer, c *dpcisr.Comparison) {
	what := "all modules"
	if len(c.Sections) > 0 && HandlerColumn(c.Sections[0].Name) != "module" {
		what = "all softirqs and interrupt handlers"
	}
	if c.Module != "" {
		what = c.Module
	}
	if len(c.Sections) == 0 {
		what = "hard page faults"
	}
	// The module, the labels (file names) and the images are the user's
	// and the traces': escaped before they are laid out.
	wrapTo(w, safeText(fmt.Sprintf("latlab dpcisr compare: %s in %s", what, strings.Join(c.Labels, " vs "))), "", "  ")
	if n := c.HolmNote(); n != "" {
		wrapTo(w, n, "", "  ")
	}
	for _, s := range c.Sections {
		dpcisrCompareSection(w, s, nil, c.Tests)
		wrapTo(w, "verdict: "+s.Verdict, "", "  ")
	}
	if c.HardFaults != nil {
		hardFaultCompareText(w, c.HardFaults)
	}
}

// dpcisrCompareSection prints a section of a comparison: the runs'
// buckets side by side, the shares at or below the thresholds and the
// chi-squared test, its p Holm-adjusted too when it is one of tests.
// names maps a run's label to its column's heading (nil: the label
// itself).
func dpcisrCompareSection(w io.Writer, s dpcisr.SectionComparison, names map[string]string, tests int) {
	name := func(label string) string {
		if n, ok := names[label]; ok {
			return n
		}
		return safeText(label)
	}
	fmt.Fprintf(w, "\n== %s\n", safeText(s.Name))
	if len(s.Missing) > 0 {
		var missing []string
		for _, m := range s.Missing {
			missing = append(missing, name(m))
		}
		wrapTo(w, "not in: "+strings.Join(missing, ", "), "", "  ")
	}
	rng, share := dpcisr.Bucket.Range, "share at or below"
	if s.Source == dpcisr.SourceLatencyMon {
		rng, share = LMRange, "share below"
	}
	hdr := []string{"bucket"}
	for _, r := range s.Runs {
		hdr = append(hdr, name(r.Label), "%")
	}
	rows := [][]string{}
	for j, b := range s.Buckets {
		row := []string{rng(b)}
		for i, r := range s.Runs {
			row = append(row, fmt.Sprint(s.Counts[i][j]), fmt.Sprintf("%.2f", 100*float64(s.Counts[i][j])/float64(r.Summary.Count)))
		}
		rows = append(rows, row)
	}
	total := []string{"total"}
	for _, r := range s.Runs {
		total = append(total, fmt.Sprint(r.Summary.Count), "")
	}
	rows = append(rows, total)
	for _, p := range dpcisr.Percentiles {
		row := []string{"p" + dpcisrP(p) + " in"}
		for _, r := range s.Runs {
			b, _ := dpcisr.QuantileBucket(r.Hist, p)
			row = append(row, rng(b), "")
		}
		rows = append(rows, row)
	}
	Table(w, hdr, rows)

	fmt.Fprintln(w)
	hdr = []string{share}
	for i, r := range s.Runs {
		hdr = append(hdr, name(r.Label))
		if i > 0 {
			hdr = append(hdr, "vs "+name(s.Runs[0].Label))
		}
	}
	rows = nil
	for _, sh := range s.Shares {
		row := []string{fmt.Sprintf("%g µs", sh.Us)}
		for i := range s.Runs {
			mark := ""
			if !sh.Exact[i] {
				mark = "~"
			}
			row = append(row, mark+dpcisrSharePct(sh.Pct[i]))
			if i > 0 {
				row = append(row, fmt.Sprintf("%+.2f pp", sh.Delta[i]))
			}
		}
		rows = append(rows, row)
	}
	Table(w, hdr, rows)
	if s.Test != nil {
		fmt.Fprintln(w)
		p := stats.FormatP(s.Test.P)
		if tests > 1 && s.PHolm != nil {
			p += fmt.Sprintf(" (Holm-adjusted across the %d tests: %s)", tests, stats.FormatP(*s.PHolm))
		}
		wrapTo(w, fmt.Sprintf("chi-squared test of homogeneity: X² = %.2f, df %d, %s, Cramér's V %.3f, n %.0f",
			s.Test.Statistic, s.Test.DF, p, s.Test.CramersV, s.Test.N), "", "  ")
		if len(s.PooledBuckets) < len(s.Buckets) {
			wrapTo(w, "buckets pooled to keep expected counts >= 5: "+dpcisrPooled(s), "  ", "    ")
		}
	}
}

func dpcisrSharePct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", v)
}

// dpcisrPooled names the bucket ranges the chi-squared test pooled.
func dpcisrPooled(s dpcisr.SectionComparison) string {
	var parts []string
	for _, g := range s.PooledBuckets {
		lo, hi := s.Buckets[g[0]], s.Buckets[g[len(g)-1]]
		if len(g) == 1 {
			parts = append(parts, lo.Range())
			continue
		}
		if hi.Open() {
			parts = append(parts, fmt.Sprintf("> %d µs", lo.GtUs))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d µs", lo.GtUs, *hi.LeUs))
		}
	}
	return strings.Join(parts, ", ")
}
