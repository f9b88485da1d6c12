package try

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/stats"
)

// The dpcisr probe: each block runs the live DPC/ISR watch (an ETW kernel
// session, as latlab dpc watch) for the block's duration and keeps its
// report, in xperf's power-of-two µs buckets. An arm's blocks are pooled
// into one report per arm and compared with the baseline's as latlab
// dpcisr compare does (a chi-squared test over the buckets, the direction
// of the cumulative shares), in every section the module ran in (DPC,
// and ISR where it has interrupts; on Linux softirq or hard interrupt
// handlers); the block test runs per section over each block's statistic
// of the module's histogram. The module is the one given with --module,
// else the module that spent the most DPC time in the whole run.

// watch runs the DPC/ISR watch for d; tests put a fake in its place.
var watch = func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
	r, err := dpcwatch.Run(ctx, dpcwatch.Options{Duration: d})
	if err != nil {
		return nil, err
	}
	return r.Report, nil
}

// checkWatch makes sure a kernel trace can start (Windows, elevated, not
// Wine) before anything is changed: a watch that ends as it starts.
var checkWatch = func(ctx context.Context) error {
	c, cancel := context.WithCancel(ctx)
	cancel()
	_, err := dpcwatch.Run(c, dpcwatch.Options{})
	return err
}

// dpcMethod says how a dpcisr block measures.
const dpcMethod = "DPC and ISR execution times from an ETW kernel session (flags " + dpcwatch.FlagNames + "), on Linux softirq and hard interrupt times from tracefs, in xperf's power-of-two µs buckets"

// DPCBy is the statistic of a dpcisr block unless --by says otherwise:
// the tail of the module's DPC times.
var DPCBy = stats.Quantile(99)

// validDPCBy reports whether by can be read off a histogram of buckets:
// a quantile (max is p100); a mean or a spread cannot.
func validDPCBy(by stats.Statistic) bool {
	_, ok := quantileOf(by)
	return ok
}

// quantileOf is the percentile of a quantile statistic (max is p100).
func quantileOf(by stats.Statistic) (float64, bool) {
	rest, ok := strings.CutPrefix(by.String(), "p")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseFloat(rest, 64)
	return p, err == nil
}

// bucketNs is the statistic's bucket as one number for the block test:
// its upper bound in ns (twice the lower bound for xperf's open last
// bucket). The block test uses only the order of the blocks' values and
// of their differences' sizes, which the bounds keep.
func bucketNs(h dpcisr.Histogram, p float64) float64 {
	b, ok := dpcisr.QuantileBucket(h, p)
	if !ok {
		return 0
	}
	if b.Open() {
		return float64(2*b.GtUs) * 1e3
	}
	return float64(*b.LeUs) * 1e3
}

// moduleHist is module's histogram in r's section name (empty when it
// had none there).
func moduleHist(r *dpcisr.Report, section, module string) dpcisr.Histogram {
	for _, s := range r.Sections {
		if s.Name != section {
			continue
		}
		if h, ok := s.Pick(module); ok {
			return h
		}
	}
	return dpcisr.Histogram{Module: module}
}

// sectionNames are the sections of a report in the order they are
// compared (dpcisr.Compare's).
var sectionNames = []string{dpcisr.DPC, dpcisr.ISR, dpcisr.SoftIRQ, dpcisr.HardIRQ}

// moduleSections are the sections in which module ran in any of rs, in
// compare's order: the sections whose tests make up the family.
func moduleSections(rs []*dpcisr.Report, module string) []string {
	var out []string
	for _, name := range sectionNames {
		for _, r := range rs {
			if moduleHist(r, name, module).Sum() > 0 {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// PoolReports merges reports into one: per section name, the overall
// histograms and each module's histograms (by name, case-insensitive)
// bucket by bucket, and each module's CPU time summed over CPUs. It is
// what an arm's blocks add up to.
func PoolReports(rs []*dpcisr.Report) *dpcisr.Report {
	out := &dpcisr.Report{Source: dpcisr.SourceETW, Encoding: "etw", Sections: []dpcisr.Section{}}
	for _, r := range rs {
		if r != nil && r.Source == dpcisr.SourceTracefs {
			out.Source, out.Encoding = r.Source, r.Source
			break
		}
	}
	for _, name := range sectionNames {
		var overall []dpcisr.Histogram
		mods := map[string][]dpcisr.Histogram{}
		usec := map[string]int64{}
		var order []string
		for _, r := range rs {
			if r == nil {
				continue
			}
			for _, s := range r.Sections {
				if s.Name != name {
					continue
				}
				if s.Overall != nil {
					overall = append(overall, *s.Overall)
				}
				for _, m := range s.Modules {
					k := strings.ToLower(m.Module)
					if _, ok := mods[k]; !ok {
						order = append(order, k)
					}
					mods[k] = append(mods[k], m)
				}
				for _, u := range s.Usage {
					usec[strings.ToLower(u.Module)] += u.TotalUsec()
				}
			}
		}
		if len(overall) == 0 && len(order) == 0 {
			continue
		}
		sec := dpcisr.Section{Name: name, Heading: name, Modules: []dpcisr.Histogram{}}
		if len(overall) > 0 {
			h := dpcisr.Merge("", overall...)
			sec.Overall = &h
		}
		for _, k := range order {
			h := dpcisr.Merge(mods[k][0].Module, mods[k]...)
			sec.Modules = append(sec.Modules, h)
			if t, ok := usec[k]; ok {
				sec.Usage = append(sec.Usage, dpcisr.ModuleUsage{Module: h.Module, Usec: []int64{t}, Percent: []float64{0}, CPUs: []int{-1}})
			}
		}
		out.Sections = append(out.Sections, sec)
	}
	return out
}

// Busiest is the module that spent the most DPC (Linux: softirq) time in
// r (by the usage table; by the number of executions where r has none),
// "" when r has none.
func Busiest(r *dpcisr.Report) string {
	best, bestT, bestN := "", int64(-1), int64(-1)
	for _, s := range r.Sections {
		if !dpcisr.Deferred(s.Name) {
			continue
		}
		t := map[string]int64{}
		for _, u := range s.Usage {
			t[strings.ToLower(u.Module)] += u.TotalUsec()
		}
		for _, m := range s.Modules {
			mt, n := t[strings.ToLower(m.Module)], m.Sum()
			if mt > bestT || (mt == bestT && n > bestN) || (mt == bestT && n == bestN && m.Module < best) {
				best, bestT, bestN = m.Module, mt, n
			}
		}
	}
	return best
}

// DPCISRSectionVerdict is a value against the baseline in one section
// (DPC or ISR; on Linux softirq or hard interrupt handlers) of the module
// the dpcisr probe follows: the verdict a run of that section alone
// would get, with every (value, section) test of the run Holm-adjusted
// together.
type DPCISRSectionVerdict struct {
	Section string  `json:"section"`
	Outcome Outcome `json:"outcome"`
	// ChiSquaredPHolm is the p of the section's chi-squared test (its
	// entry in the verdict's dpcisr comparison), Holm-adjusted over every
	// value's and section's test that could run; absent when this one
	// could not (the module ran none in one arm, too few executions, all
	// in one bucket range).
	ChiSquaredPHolm *float64 `json:"chi_squared_p_holm,omitempty"`
	// Blocks is the block test over each block's --by bucket of the
	// module's histogram in this section, Holm-adjusted over every value
	// and section.
	Blocks BlockTest `json:"block_test"`
	Text   string    `json:"text"`
}

// sectionTest is one value against the baseline in one section, before
// and after the adjustments over the run's family.
type sectionTest struct {
	name string
	sc   *dpcisr.SectionComparison // nil: neither arm ran the module in it
	// noBlocks: the baseline or the value has no complete block, and so
	// no comparison.
	noBlocks bool
	blocks   BlockTest
	floor    float64
	outcome  Outcome
}

// analyzeDPCISR is Analyze for the dpcisr probe: each arm's complete
// blocks pooled and compared with the baseline's per section of the
// module (dpcisr's Compare), and the block test over each block's
// statistic of the module's histogram in the section. Every (value,
// section) chi-squared test is Holm-adjusted together (dpcisr's
// AdjustFamily, as compare adjusts a comparison's sections), and so is
// every block test: a value gets a verdict per section the module ran in
// (DPC, and ISR where it has interrupts), under one that sums them up.
func analyzeDPCISR(res *Result, by stats.Statistic) error {
	nArms := len(res.Arms)
	if nArms < 2 {
		return fmt.Errorf("internal: %d arms", nArms)
	}
	p, ok := quantileOf(by)
	if !ok {
		return fmt.Errorf("internal: statistic %s of a histogram", by)
	}
	perArm := make([][]*dpcisr.Report, nArms)
	var all []*dpcisr.Report
	for i := range res.Arms {
		res.Arms[i].Complete = 0
	}
	for i := range res.Runs {
		b := &res.Runs[i]
		if b.Arm < 0 || b.Arm >= nArms {
			return fmt.Errorf("block %d names arm %d of %d", b.Index, b.Arm, nArms)
		}
		if !b.Complete || b.DPCISR == nil {
			continue
		}
		res.Arms[b.Arm].Complete++
		perArm[b.Arm] = append(perArm[b.Arm], b.DPCISR)
		all = append(all, b.DPCISR)
	}
	if res.ModuleGiven == "" {
		res.Module = Busiest(PoolReports(all))
	} else {
		res.Module = res.ModuleGiven
	}
	var sections []string
	if res.Module != "" {
		sections = moduleSections(all, res.Module)
	}
	// The block's own figure (Stat, Count) is of the first section: DPC
	// (softirq), unless the module ran none.
	first := dpcisr.DPC
	if len(sections) > 0 {
		first = sections[0]
	} else if len(all) > 0 && all[0].Source == dpcisr.SourceTracefs {
		first = dpcisr.SoftIRQ
	}
	statNames := sections
	if len(statNames) == 0 {
		statNames = []string{first}
	}
	// stat[section][arm][round] of complete blocks.
	stat := make([][]map[int]float64, len(statNames))
	for s := range stat {
		stat[s] = make([]map[int]float64, nArms)
		for i := range stat[s] {
			stat[s][i] = map[int]float64{}
		}
	}
	for i := range res.Runs {
		b := &res.Runs[i]
		if b.DPCISR == nil {
			continue
		}
		for s, name := range statNames {
			h := moduleHist(b.DPCISR, name, res.Module)
			x := 0.0
			if res.Module != "" {
				x = bucketNs(h, p)
			}
			if s == 0 {
				b.Count, b.Stat = int(h.Sum()), x
			}
			if b.Complete && res.Module != "" {
				stat[s][b.Arm][b.Round] = x
			}
		}
	}
	pooled := make([]*dpcisr.Report, nArms)
	for i := range res.Arms {
		pooled[i] = PoolReports(perArm[i])
		res.Arms[i].Summary = nil
	}
	k := nArms - 1
	base := &res.Arms[0]
	// tests[j-1][s], and the block tests' p-values in that order.
	tests := make([][]sectionTest, k)
	var comps []*dpcisr.Comparison
	var blockP, minP []float64
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := &Verdict{By: by.String(), Level: 1 - Alpha/float64(k)}
		if len(perArm[0]) > 0 && len(perArm[j]) > 0 && res.Module != "" {
			c, err := dpcisr.Compare([]dpcisr.Labeled{{Label: base.Label, Report: pooled[0]}, {Label: a.Label, Report: pooled[j]}}, res.Module)
			if err == nil {
				v.DPCISR = c
				comps = append(comps, c)
			}
		}
		for s, name := range statNames {
			t := sectionTest{name: name, blocks: signedRank(roundDiffs(stat[s], j)), noBlocks: len(perArm[0]) == 0 || len(perArm[j]) == 0}
			if v.DPCISR != nil {
				for i := range v.DPCISR.Sections {
					if v.DPCISR.Sections[i].Name == name {
						t.sc = &v.DPCISR.Sections[i]
					}
				}
			}
			tests[j-1] = append(tests[j-1], t)
			blockP = append(blockP, t.blocks.P)
			minP = append(minP, t.blocks.MinP)
		}
		a.Verdict = v
	}
	dpcisr.AdjustFamily(comps)
	blockQ, floors := stats.Holm(blockP), stats.HolmFloor(minP)
	nb := len(statNames)
	for j := range tests {
		for s := range tests[j] {
			t, i := &tests[j][s], j*nb+s
			t.blocks.PHolm, t.floor = blockQ[i], floors[i]
			t.outcome = sectionOutcome(t)
		}
	}
	family := familyWords(k, len(statNames))
	f := famSize{by: by.String(), blocks: len(blockP)}
	if len(comps) > 0 {
		f.chi = comps[0].Tests
	}
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := a.Verdict
		ts := tests[j-1]
		v.Blocks = ptr(ts[0].blocks)
		if s := dpcSection(v); s != nil && s.Test != nil {
			v.ChiSquaredPHolm = s.PHolm
		}
		if len(sections) == 0 {
			v.Outcome = TooFew
			if res.Module == "" {
				v.Text = fmt.Sprintf("%s vs %s: no verdict, no DPC was recorded", a.Label, base.Label)
			} else {
				v.Text = fmt.Sprintf("%s vs %s: no verdict, %s ran no DPC nor ISR in the complete blocks", a.Label, base.Label, res.Module)
			}
			continue
		}
		for _, t := range ts {
			sv := DPCISRSectionVerdict{Section: t.name, Outcome: t.outcome, Blocks: t.blocks, Text: sectionText(a.Label, base.Label, res.Module, t, f)}
			if t.tested() {
				sv.ChiSquaredPHolm = t.sc.PHolm
			}
			v.DPCISRSections = append(v.DPCISRSections, sv)
		}
		if len(ts) == 1 {
			v.Outcome, v.Text = ts[0].outcome, v.DPCISRSections[0].Text
			continue
		}
		v.Outcome = dpcSummaryOutcome(v.DPCISRSections)
		v.Text = dpcSummaryText(a.Label, base.Label, res.Module, ts, v.Outcome, family)
	}
	return nil
}

// familyWords names the family of a run's Holm adjustment: values x
// sections.
func familyWords(values, sections int) string {
	if values == 1 {
		return fmt.Sprintf("Holm over %d sections", sections)
	}
	return fmt.Sprintf("Holm over %d values x %d sections", values, sections)
}

// dpcSection is the DPC (softirq) section of a verdict's comparison, nil
// when there is none with both arms.
func dpcSection(v *Verdict) *dpcisr.SectionComparison {
	if v.DPCISR == nil {
		return nil
	}
	for i := range v.DPCISR.Sections {
		s := &v.DPCISR.Sections[i]
		if dpcisr.Deferred(s.Name) && len(s.Runs) == 2 {
			return s
		}
	}
	return nil
}

// tested reports whether the section's chi-squared test ran (and so was
// adjusted).
func (t *sectionTest) tested() bool {
	return t.sc != nil && len(t.sc.Runs) == 2 && t.sc.Test != nil && t.sc.PHolm != nil
}

// sectionOutcome asks for both tests, as Analyze does (stats.Decide): the
// pooled buckets differ (chi-squared, Holm) with the value's executions
// shorter (longer) at every bound, and the rounds agree in the same
// direction.
func sectionOutcome(t *sectionTest) Outcome {
	pooled := stats.Evidence{}
	if t.tested() {
		dir := 0
		switch t.sc.Direction[0] {
		case "faster":
			dir = -1
		case "slower":
			dir = 1
		}
		pooled = stats.TestEvidence(*t.sc.PHolm, Alpha, dir)
	}
	return outcomeWords[stats.Decide(pooled, t.blocks.evidence(t.floor))]
}

// dpcSummaryOutcome is a value's outcome over the module's sections, as
// noiseSummaryOutcome's over CPUs: better when better in one and worse in
// none, mixed when better in one and worse in another, too few when no
// section could have a verdict.
func dpcSummaryOutcome(ss []DPCISRSectionVerdict) Outcome {
	return summaryOutcome(ss, func(s DPCISRSectionVerdict) Outcome { return s.Outcome })
}

// sectionNoun is what a section's executions are called.
func sectionNoun(name string) string {
	switch name {
	case dpcisr.DPC:
		return "DPCs"
	case dpcisr.ISR:
		return "ISRs"
	case dpcisr.SoftIRQ:
		return "softirqs"
	}
	return "hard interrupts"
}

// holmWord marks an adjusted p (", Holm") when its family has more than
// one test.
func holmWord(n int) string {
	if n > 1 {
		return ", Holm"
	}
	return ""
}

// whyNone is why a section has no chi-squared test, in compare's words
// ("" when it has one).
func (t *sectionTest) whyNone() string {
	sc := t.sc
	switch {
	case t.noBlocks:
		return "no complete block of one of them"
	case sc == nil:
		return "it ran none in either's complete blocks"
	case len(sc.Runs) < 2:
		return "it ran none in the complete blocks of " + strings.Join(sc.Missing, " and ")
	case sc.Test == nil && len(sc.Buckets) > 1:
		// Pooling the sparse buckets until every expected count is at
		// least 5 left one range.
		return fmt.Sprintf("too few executions to test (%d and %d in %d buckets): pooling sparse buckets until every expected count is at least 5 left one range",
			sc.Runs[1].Summary.Count, sc.Runs[0].Summary.Count, len(sc.Buckets))
	case sc.Test == nil:
		return "all its executions fell in one bucket range, no test possible"
	}
	return ""
}

// famSize is the sizes of a run's families of tests, for the words of
// its verdicts.
type famSize struct {
	by     string // the block's statistic
	chi    int    // chi-squared tests that ran
	blocks int    // block tests
}

// sectionText is a value's verdict against the baseline in one section,
// the answer first, then the shares and the tests it rests on.
func sectionText(label, base, module string, t sectionTest, f famSize) string {
	n := sectionNoun(t.name)
	if w := t.whyNone(); w != "" {
		return fmt.Sprintf("%s vs %s: no verdict for %s's %s: %s", label, base, module, n, w)
	}
	sc, b := t.sc, t.blocks
	if t.outcome == TooFew {
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks",
			label, base, b.Rounds, Alpha, minRounds(Alpha, f.blocks))
	}
	chi := fmt.Sprintf("chi-squared %s%s, %s effect", stats.FormatP(*sc.PHolm), holmWord(f.chi), sc.Effect)
	rounds := fmt.Sprintf("blocks' %s lower in %d of %d rounds, %s%s", f.by, b.Lower, b.Rounds, stats.FormatP(b.PHolm), holmWord(f.blocks))
	shares := shareText(sc)
	switch t.outcome {
	case Better, Worse:
		d := "shorter"
		if t.outcome == Worse {
			d = "longer"
			rounds = fmt.Sprintf("blocks' %s higher in %d of %d rounds, %s%s", f.by, b.Higher, b.Rounds, stats.FormatP(b.PHolm), holmWord(f.blocks))
		}
		if shares != "" {
			shares = ", " + shares
		}
		return fmt.Sprintf("%s is %s than %s: %s %s of %s%s (%s; %s)", label, t.outcome, base, d, n, module, shares, chi, rounds)
	}
	if shares != "" {
		shares += "; "
	}
	s := fmt.Sprintf("%s vs %s: no difference in %s's %s (%s%s; %s)", label, base, module, n, shares, chi, rounds)
	if *sc.PHolm < Alpha && b.PHolm >= Alpha {
		s += "; the pooled buckets differ but the rounds do not agree: drift or noise between blocks, not the setting, can explain it"
	}
	return s
}

// dpcSummaryText is the verdict line of a value over the module's
// sections: the answer, each changed section with the share and the p it
// rests on, then the others; each section's own text has the rest.
func dpcSummaryText(label, base, module string, ts []sectionTest, o Outcome, family string) string {
	// Each clause is a pattern of the section's noun: the first one said
	// names the module too.
	var changed, same, none []string
	for _, t := range ts {
		switch t.outcome {
		case Better, Worse:
			d := "shorter"
			if t.outcome == Worse {
				d = "longer"
			}
			ev := fmt.Sprintf("chi-squared %s, block test %s", stats.FormatP(*t.sc.PHolm), stats.FormatP(t.blocks.PHolm))
			if sh := shareText(t.sc); sh != "" {
				ev = sh + ", " + ev
			}
			changed = append(changed, fmt.Sprintf("%s %s (%s)", d, nounMark(t.name), ev))
		case NoDifference:
			same = append(same, fmt.Sprintf("no difference in %s (chi-squared %s, block test %s)", nounMark(t.name), stats.FormatP(*t.sc.PHolm), stats.FormatP(t.blocks.PHolm)))
		default:
			why := "too few complete rounds"
			if t.whyNone() != "" {
				why = "no test"
				if t.sc != nil && len(t.sc.Runs) == 2 && len(t.sc.Buckets) > 1 {
					why = "too few executions"
				}
			}
			none = append(none, fmt.Sprintf("no verdict on %s (%s)", nounMark(t.name), why))
		}
	}
	head := fmt.Sprintf("%s vs %s: ", label, base)
	switch o {
	case Better, Worse:
		head = fmt.Sprintf("%s is %s than %s: ", label, o, base)
	case Mixed:
		head += "mixed, "
	}
	clauses := append(append(changed, same...), none...)
	for i, c := range clauses {
		for _, name := range sectionNames {
			n := sectionNoun(name)
			if i == 0 {
				n += " of " + module
			}
			c = strings.Replace(c, nounMark(name), n, 1)
		}
		clauses[i] = c
	}
	return head + strings.Join(clauses, "; ") + "; " + family
}

// nounMark stands for a section's noun in a clause until it is known
// whether the clause is the first.
func nounMark(name string) string { return "\x00" + name + "\x00" }

// shareText is the bound where the value's share moved most, as dpcisr
// compare says it ("" when none moved).
func shareText(s *dpcisr.SectionComparison) string {
	best := -1
	for i, sh := range s.Shares {
		if len(sh.Delta) < 2 || math.IsNaN(sh.Delta[1]) {
			continue
		}
		if best < 0 || math.Abs(sh.Delta[1]) > math.Abs(s.Shares[best].Delta[1]) {
			best = i
		}
	}
	if best < 0 || s.Shares[best].Delta[1] == 0 {
		return ""
	}
	sh := s.Shares[best]
	return fmt.Sprintf("%.1f%% vs %.1f%% at or below %g µs", sh.Pct[1], sh.Pct[0], sh.Us)
}
