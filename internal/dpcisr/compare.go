package dpcisr

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/stats"
)

// Thresholds are the bounds at which compare reports the cumulative share.
// They are bucket boundaries, so the shares are exact.
var Thresholds = []float64{1, 2, 4, 8, 16}

// Alpha is the significance level of compare's verdict.
const Alpha = 0.05

// Labeled is one report in a comparison, with the name it goes by.
type Labeled struct {
	Label  string
	Report *Report
}

// Comparison is the result of compare for one module (or all modules).
type Comparison struct {
	Module   string              `json:"module,omitempty"`
	Labels   []string            `json:"labels"`
	Sections []SectionComparison `json:"sections"`
	// Tests is the number of sections with a chi-squared test: the family
	// over which their p-values are Holm-adjusted (PHolm), so that the
	// sections' verdicts together are at Alpha, not each alone. In a
	// verdict of latlab try the family is every value's sections
	// (AdjustFamily).
	Tests int `json:"tests,omitempty"`
	// HardFaults compares the reports' hard page faults per process image
	// (not with --module: faults belong to processes, not to modules);
	// nil when no report has them.
	HardFaults *HardFaultComparison `json:"hard_faults,omitempty"`
}

// SectionComparison compares one section (DPC or ISR) across runs.
type SectionComparison struct {
	Name string `json:"name"`
	// Source is SourceLatencyMon when the runs are LatencyMon reports,
	// whose buckets hold [lower, upper) µs and whose shares are of the
	// executions below a bound; empty for xperf's buckets.
	Source string `json:"source,omitempty"`
	// Runs has one entry per run that has this section and module.
	Runs    []RunDist `json:"runs"`
	Missing []string  `json:"missing,omitempty"` // labels of runs without it
	// Buckets is the union of the runs' buckets, ascending; Counts[i][j]
	// is run i's count in bucket j.
	Buckets []Bucket  `json:"buckets"`
	Counts  [][]int64 `json:"counts"`
	Shares  []Share   `json:"shares"`
	// Test is the chi-squared test of homogeneity on the bucket counts,
	// after pooling adjacent sparse buckets (PooledBuckets lists the
	// original bucket indexes of each pooled column).
	Test          *stats.ChiSquared `json:"test,omitempty"`
	PooledBuckets [][]int           `json:"pooled_buckets,omitempty"`
	// PHolm is Test's p Holm-adjusted across the family of Tests; the
	// verdict is at Alpha on it.
	PHolm *float64 `json:"p_holm,omitempty"`
	// Effect names the size of Cramér's V by Cohen's conventions for the
	// tested table (see EffectSize).
	Effect string `json:"effect,omitempty"`
	// Direction per run after the first: "faster", "slower", "mixed" or
	// "same" (cumulative shares compared at every bucket boundary).
	Direction []string `json:"direction,omitempty"`
	Verdict   string   `json:"verdict"`
}

// RunDist is one run's histogram with its summary.
type RunDist struct {
	Label   string    `json:"label"`
	Summary Summary   `json:"summary"`
	Hist    Histogram `json:"-"`
}

// Share is the cumulative share at or below a threshold, per run, with
// the difference from the first run in percentage points.
type Share struct {
	Us    float64   `json:"le_us"`
	Pct   []float64 `json:"pct"`
	Delta []float64 `json:"delta_pp"` // run - first run; 0 for the first
	Exact []bool    `json:"exact"`
}

// Compare compares the named module (all modules when empty) in every
// section name the runs have, DPC first (then ISR, softirq, hardirq). A section name that occurs more
// than once in a file (concatenated reports) is compared by its first
// occurrence. Without a module it compares the hard page faults too,
// which are enough when every report has them and no histogram.
func Compare(runs []Labeled, module string) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("compare needs at least 2 reports, have %d", len(runs))
	}
	th, err := thresholdsOf(runs)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Module: module}
	for _, r := range runs {
		c.Labels = append(c.Labels, r.Label)
	}
	for _, name := range []string{DPC, ISR, SoftIRQ, HardIRQ} {
		sc := SectionComparison{Name: name}
		if th[0] == LatencyMonThresholds[0] {
			sc.Source = SourceLatencyMon
		}
		for _, r := range runs {
			sec := firstSection(r.Report, name)
			if sec == nil {
				sc.Missing = append(sc.Missing, r.Label)
				continue
			}
			h, ok := sec.Pick(module)
			if !ok || h.Sum() == 0 {
				sc.Missing = append(sc.Missing, r.Label)
				continue
			}
			sc.Runs = append(sc.Runs, RunDist{Label: r.Label, Summary: Summarize(h), Hist: h})
			if module != "" {
				c.Module = h.Module // as the file spells it
			}
		}
		if len(sc.Runs) == 0 {
			continue
		}
		sc.fill(th)
		c.Sections = append(c.Sections, sc)
	}
	c.adjust()
	if module == "" {
		c.HardFaults = compareHardFaults(runs)
	}
	if len(c.Sections) == 0 {
		switch {
		case module != "":
			return nil, fmt.Errorf("no report has module %s", module)
		case c.HardFaults == nil:
			return nil, fmt.Errorf("no report has any histogram")
		case len(c.HardFaults.Missing) > 0:
			return nil, fmt.Errorf("no report has any histogram, and %s has no hard page faults", strings.Join(c.HardFaults.Missing, ", "))
		}
	}
	return c, nil
}

// adjust Holm-adjusts the p-values of the sections tested across them
// (DPC and ISR, or softirq and hard interrupt handlers: each at 5% alone
// would call a difference in one of two equal pairs of sections nearly
// twice as often), then gives every section its verdict.
func (c *Comparison) adjust() { AdjustFamily([]*Comparison{c}) }

// AdjustFamily Holm-adjusts the p-values of every section tested in cs as
// one family, then gives every section its verdict at Alpha on its
// adjusted p. compare's family is one comparison's sections; latlab try
// --probe dpcisr makes a comparison per value against the baseline and
// adjusts over all their sections, so that neither more values nor more
// sections make a chance difference likelier to pass. A section without
// a test (too few executions, one run without the module) is no member:
// it can find nothing. Each comparison's Tests is the family's size.
func AdjustFamily(cs []*Comparison) {
	var ps []float64
	var tested []*SectionComparison
	for _, c := range cs {
		for i := range c.Sections {
			if sc := &c.Sections[i]; sc.Test != nil {
				ps = append(ps, sc.Test.P)
				tested = append(tested, sc)
			}
		}
	}
	for i, p := range stats.Holm(ps) {
		tested[i].PHolm = &p
	}
	for _, c := range cs {
		c.Tests = len(tested)
		for i := range c.Sections {
			c.Sections[i].Verdict = c.Sections[i].verdict(c.Tests)
		}
	}
}

// HolmNote says over what the sections' p-values were adjusted, "" when
// one section or none was tested (nothing to adjust).
func (c *Comparison) HolmNote() string {
	if c.Tests < 2 {
		return ""
	}
	return fmt.Sprintf("the chi-squared p-values are Holm-adjusted across the %d tests (one per section tested): each verdict is at %s on its adjusted p",
		c.Tests, stats.FormatLevel(Alpha))
}

func firstSection(r *Report, name string) *Section {
	for i := range r.Sections {
		if r.Sections[i].Name == name {
			return &r.Sections[i]
		}
	}
	return nil
}

// thresholdsOf is the bounds of the cumulative shares for runs: xperf's
// for xperf's reports and latlab's traces (which share its buckets),
// LatencyMon's for LatencyMon reports. Reports of the two kinds have
// buckets that overlap (0-250 µs against 0-1, 1-2 ... 128-256 µs): a test
// over their union would count the same executions in different
// columns, so they are not compared.
func thresholdsOf(runs []Labeled) ([]float64, error) {
	var lm, other *Labeled
	for i := range runs {
		if runs[i].Report.Source == SourceLatencyMon {
			lm = cmp.Or(lm, &runs[i])
		} else {
			other = cmp.Or(other, &runs[i])
		}
	}
	switch {
	case lm == nil:
		return Thresholds, nil
	case other == nil:
		return LatencyMonThresholds, nil
	}
	kind := "an xperf report"
	if Live(other.Report.Source) {
		kind = "a dpc watch trace"
	}
	return nil, fmt.Errorf("different buckets: %s is a LatencyMon report (<250, 250-500 ... >=4000 µs), %s is %s (0-1, 1-2, 2-4 ... µs): compare LatencyMon reports only with LatencyMon reports", lm.Label, other.Label, kind)
}

func (sc *SectionComparison) fill(thresholds []float64) {
	idx := map[bucketKey]Bucket{}
	for _, r := range sc.Runs {
		for _, b := range r.Hist.Buckets {
			idx[b.key()] = Bucket{GtUs: b.GtUs, LeUs: b.LeUs}
		}
	}
	for _, b := range idx {
		sc.Buckets = append(sc.Buckets, b)
	}
	sort.Slice(sc.Buckets, func(i, j int) bool { return sc.Buckets[i].key().less(sc.Buckets[j].key()) })
	pos := map[bucketKey]int{}
	for j, b := range sc.Buckets {
		pos[b.key()] = j
	}
	table := make([][]float64, len(sc.Runs)) // the counts, for the test
	for i, r := range sc.Runs {
		row := make([]int64, len(sc.Buckets))
		for _, b := range r.Hist.Buckets {
			row[pos[b.key()]] += b.Count
		}
		sc.Counts = append(sc.Counts, row)
		table[i] = make([]float64, len(row))
		for j, n := range row {
			table[i][j] = float64(n)
		}
	}
	for _, us := range thresholds {
		s := Share{Us: us}
		for _, r := range sc.Runs {
			p, ex := ShareAtMost(r.Hist, us)
			s.Pct = append(s.Pct, p)
			s.Exact = append(s.Exact, ex)
			s.Delta = append(s.Delta, p-s.Pct[0])
		}
		sc.Shares = append(sc.Shares, s)
	}
	if len(sc.Runs) < 2 {
		return
	}
	for i := 1; i < len(sc.Runs); i++ {
		sc.Direction = append(sc.Direction, direction(sc.Counts[0], sc.Counts[i]))
	}
	pooled, groups := stats.PoolColumns(table, 5)
	if len(groups) >= 2 {
		if t, err := stats.ChiSquaredTest(pooled); err == nil {
			sc.Test = &t
			sc.PooledBuckets = groups
			// df* of the tested table: every run has executions, and
			// PoolColumns keeps no empty column.
			sc.Effect = EffectSize(t.CramersV, min(len(sc.Runs), len(groups))-1)
		}
	}
}

// direction compares the cumulative distributions of b against a at every
// bucket boundary: "faster" when b has at least as large a share at or
// below every boundary (and more at one), "slower" for the reverse.
func direction(a, b []int64) string {
	var na, nb int64
	for j := range a {
		na += a[j]
		nb += b[j]
	}
	if na == 0 || nb == 0 {
		return "same"
	}
	var ca, cb int64
	more, less := false, false
	for j := range a {
		ca += a[j]
		cb += b[j]
		fa, fb := float64(ca)/float64(na), float64(cb)/float64(nb)
		switch {
		case fb > fa+1e-12:
			more = true
		case fb < fa-1e-12:
			less = true
		}
	}
	switch {
	case more && !less:
		return "faster"
	case less && !more:
		return "slower"
	case more && less:
		return "mixed"
	}
	return "same"
}

// EffectSize names Cramér's V by Cohen's conventions (Statistical Power
// Analysis for the Behavioral Sciences, 1988, ch. 7): small, medium and
// large effects are w = 0.1, 0.3 and 0.5, and V = w / sqrt(df*) with
// df* = min(rows, columns) - 1 of the tested table. For two reports
// (df* = 1) the cut-offs are 0.1, 0.3, 0.5; for three, 0.071, 0.21, 0.35.
func EffectSize(v float64, dfStar int) string {
	s := math.Sqrt(float64(max(dfStar, 1)))
	switch {
	case v < 0.1/s:
		return "negligible"
	case v < 0.3/s:
		return "small"
	case v < 0.5/s:
		return "medium"
	}
	return "large"
}

// verdict is the section's, its test one of tests Holm-adjusted
// (PHolm): the p it is judged on is the adjusted one, and says so.
func (sc *SectionComparison) verdict(tests int) string {
	if len(sc.Runs) < 2 {
		return fmt.Sprintf("only %s has this; nothing to compare", sc.Runs[0].Label)
	}
	first := sc.Runs[0].Label
	if sc.Test == nil {
		if len(sc.Buckets) < 2 {
			return fmt.Sprintf("%s: every run has all executions in one bucket range; no test possible", sc.Name)
		}
		// The buckets differ, but pooling them until every expected
		// count is at least 5 left one range: too few executions.
		var n []string
		for _, r := range sc.Runs {
			n = append(n, fmt.Sprint(r.Summary.Count))
		}
		return fmt.Sprintf("%s: no verdict, too few executions to test (%s in %d buckets): pooling sparse buckets until every expected count is at least 5 left one range",
			sc.Name, andList(n), len(sc.Buckets))
	}
	t := sc.Test
	p := stats.FormatP(*sc.PHolm)
	if tests > 1 {
		p = "Holm-adjusted " + p
	}
	stat := fmt.Sprintf("chi-squared %.1f, df %d, %s, Cramér's V %.2f", t.Statistic, t.DF, p, t.CramersV)
	if *sc.PHolm >= Alpha {
		return fmt.Sprintf("%s: no significant difference between %s (%s)", sc.Name, strings.Join(labels(sc.Runs), ", "), stat)
	}
	var parts []string
	for i, d := range sc.Direction {
		r := sc.Runs[i+1]
		switch d {
		case "faster", "slower":
			parts = append(parts, fmt.Sprintf("%s is %s than %s%s", r.Label, d, first, sc.biggestShift(i+1)))
		case "mixed":
			parts = append(parts, fmt.Sprintf("%s differs from %s in shape (neither is faster at every bound)%s", r.Label, first, sc.biggestShift(i+1)))
		default:
			parts = append(parts, fmt.Sprintf("%s matches %s", r.Label, first))
		}
	}
	return fmt.Sprintf("%s: %s (%s; %s effect)", sc.Name, strings.Join(parts, "; "), stat, sc.Effect)
}

// biggestShift describes the threshold where run i moved most from run 0.
func (sc *SectionComparison) biggestShift(i int) string {
	best := -1
	for k, s := range sc.Shares {
		if math.IsNaN(s.Delta[i]) {
			continue
		}
		if best < 0 || math.Abs(s.Delta[i]) > math.Abs(sc.Shares[best].Delta[i]) {
			best = k
		}
	}
	if best < 0 || sc.Shares[best].Delta[i] == 0 {
		return ""
	}
	s := sc.Shares[best]
	return fmt.Sprintf(": %.1f%% vs %.1f%% at or below %g µs (%+.1f points)", s.Pct[i], s.Pct[0], s.Us, s.Delta[i])
}

// andList joins "a", "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func labels(rs []RunDist) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Label)
	}
	return out
}
