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
// of the cumulative shares); the block test runs over each block's
// statistic of one module's DPC histogram: the module given with
// --module, else the module that spent the most DPC time in the whole
// run.

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

// moduleDPC is module's DPC histogram in r (empty when it had none).
func moduleDPC(r *dpcisr.Report, module string) dpcisr.Histogram {
	for _, s := range r.Sections {
		if !dpcisr.Deferred(s.Name) {
			continue
		}
		if h, ok := s.Pick(module); ok {
			return h
		}
	}
	return dpcisr.Histogram{Module: module}
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
	for _, name := range []string{dpcisr.DPC, dpcisr.ISR, dpcisr.SoftIRQ, dpcisr.HardIRQ} {
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

// analyzeDPCISR is Analyze for the dpcisr probe: each arm's complete
// blocks pooled and compared with the baseline's per module (dpcisr's
// Compare), and the block test over each block's statistic of the
// module's DPC histogram.
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
	stat := make([]map[int]float64, nArms)
	for i := range stat {
		stat[i] = map[int]float64{}
	}
	for i := range res.Runs {
		b := &res.Runs[i]
		if b.DPCISR == nil {
			continue
		}
		h := moduleDPC(b.DPCISR, res.Module)
		b.Count = int(h.Sum())
		b.Stat = 0
		if res.Module != "" {
			b.Stat = bucketNs(h, p)
		}
		if b.Complete && res.Module != "" {
			stat[b.Arm][b.Round] = b.Stat
		}
	}
	pooled := make([]*dpcisr.Report, nArms)
	for i := range res.Arms {
		pooled[i] = PoolReports(perArm[i])
		res.Arms[i].Summary = nil
	}
	k := nArms - 1
	base := &res.Arms[0]
	var chiP, blockP []float64
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := &Verdict{By: by.String(), Level: 1 - Alpha/float64(k)}
		if len(perArm[0]) > 0 && len(perArm[j]) > 0 && res.Module != "" {
			c, err := dpcisr.Compare([]dpcisr.Labeled{{Label: base.Label, Report: pooled[0]}, {Label: a.Label, Report: pooled[j]}}, res.Module)
			if err == nil {
				v.DPCISR = c
			}
		}
		v.Blocks = ptr(signedRank(roundDiffs(stat, j)))
		chiP = append(chiP, dpcChiP(v))
		blockP = append(blockP, v.Blocks.P)
		a.Verdict = v
	}
	for i, q := range stats.Holm(chiP) {
		// A value without a test counts in the family (its p is 1) but
		// gets no p of its own.
		if v := res.Arms[i+1].Verdict; dpcTest(v) {
			v.ChiSquaredPHolm = &q
		}
	}
	for i, q := range stats.Holm(blockP) {
		res.Arms[i+1].Verdict.Blocks.PHolm = q
	}
	floors := blockFloors(res.Arms[1:])
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		a.Verdict.Outcome = dpcOutcome(a.Verdict, floors[j-1])
		a.Verdict.Text = dpcVerdictText(a, base, res.Module, k)
	}
	return nil
}

// dpcSection is the DPC section of a verdict's comparison, nil when
// there is none with both arms.
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

// dpcChiP is the chi-squared p of a verdict's comparison, 1 without a
// test.
func dpcChiP(v *Verdict) float64 {
	if dpcTest(v) {
		return dpcSection(v).Test.P
	}
	return 1
}

// dpcTest reports whether the verdict's comparison ran its chi-squared
// test.
func dpcTest(v *Verdict) bool {
	s := dpcSection(v)
	return s != nil && s.Test != nil
}

// dpcOutcome asks for both tests, as Analyze does (stats.Decide): the
// pooled buckets differ (chi-squared, Holm) with the value's executions
// shorter (longer) at every bound, and the rounds agree in the same
// direction. floor is the smallest adjusted p the block test can reach
// (stats.HolmFloor).
func dpcOutcome(v *Verdict, floor float64) Outcome {
	pooled := stats.Evidence{}
	if s := dpcSection(v); s != nil && s.Test != nil && v.ChiSquaredPHolm != nil {
		dir := 0
		switch s.Direction[0] {
		case "faster":
			dir = -1
		case "slower":
			dir = 1
		}
		pooled = stats.TestEvidence(*v.ChiSquaredPHolm, Alpha, dir)
	}
	return outcomeWords[stats.Decide(pooled, v.Blocks.evidence(floor))]
}

func dpcVerdictText(a, base *Arm, module string, k int) string {
	v := a.Verdict
	holm := ""
	if k > 1 {
		holm = " (Holm)"
	}
	b := v.Blocks
	s := dpcSection(v)
	switch {
	case module == "":
		return fmt.Sprintf("%s vs %s: no verdict, no DPC was recorded", a.Label, base.Label)
	case s == nil:
		return fmt.Sprintf("%s vs %s: no verdict, %s ran no DPC in the blocks of one of them", a.Label, base.Label, module)
	case (s.Test == nil || v.ChiSquaredPHolm == nil) && len(s.Buckets) > 1:
		// Pooling the sparse buckets until every expected count is at
		// least 5 left one range.
		return fmt.Sprintf("%s vs %s: no verdict for %s: too few DPCs to test (%d and %d in %d buckets, pooled to one range of expected counts of 5)",
			a.Label, base.Label, module, s.Runs[1].Summary.Count, s.Runs[0].Summary.Count, len(s.Buckets))
	case s.Test == nil || v.ChiSquaredPHolm == nil:
		return fmt.Sprintf("%s vs %s: no verdict for %s: all its DPCs fell in one bucket range, no test possible", a.Label, base.Label, module)
	}
	shares := fmt.Sprintf("%s DPCs: chi-squared %s%s, %s effect", module, stats.FormatP(*v.ChiSquaredPHolm), holm, s.Effect)
	rounds := fmt.Sprintf("blocks' %s lower in %d of %d rounds, %s%s", v.By, b.Lower, b.Rounds, stats.FormatP(b.PHolm), holm)
	switch v.Outcome {
	case TooFew:
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks",
			a.Label, base.Label, b.Rounds, Alpha, minRounds(Alpha, k))
	case Better, Worse:
		d := "shorter"
		if v.Outcome == Worse {
			d = "longer"
			rounds = fmt.Sprintf("blocks' %s higher in %d of %d rounds, %s%s", v.By, b.Higher, b.Rounds, stats.FormatP(b.PHolm), holm)
		}
		return fmt.Sprintf("%s is %s than %s: %s's DPCs ran %s%s (%s); %s", a.Label, v.Outcome, base.Label, module, d, shiftText(s), shares, rounds)
	}
	return fmt.Sprintf("%s vs %s: no difference in %s's DPCs (%s; %s)", a.Label, base.Label, module, shares, rounds)
}

// shiftText is the bound where the value's share moved most, as dpcisr
// compare says it.
func shiftText(s *dpcisr.SectionComparison) string {
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
	return fmt.Sprintf(": %.1f%% vs %.1f%% at or below %g µs", sh.Pct[1], sh.Pct[0], sh.Us)
}

// blockFloors is, for each tried arm, the smallest Holm-adjusted p its
// block test can reach with its rounds (stats.HolmFloor): a verdict of
// "no difference" from too few rounds says so.
func blockFloors(tried []Arm) []float64 {
	minP := make([]float64, len(tried))
	for i, a := range tried {
		minP[i] = a.Verdict.Blocks.MinP
	}
	return stats.HolmFloor(minP)
}
