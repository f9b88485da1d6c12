package try

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// dpcHist is a histogram in the watch's buckets: counts by bucket index
// (k: (2^(k-1), 2^k] µs).
func dpcHist(module string, counts map[int]int64) dpcisr.Histogram {
	h := dpcisr.Histogram{Module: module, Buckets: []dpcisr.Bucket{}}
	for k := 0; k < 64; k++ {
		if c := counts[k]; c > 0 {
			b := dpcwatch.Bucket(k)
			b.Count = c
			h.Buckets = append(h.Buckets, b)
			h.Total += c
		}
	}
	return h
}

// dpcReport is a watch's report with one DPC section of the given modules
// (and their CPU time in µs), the overall histogram their sum.
func dpcReport(mods map[string]map[int]int64, usec map[string]int64) *dpcisr.Report {
	sec := dpcisr.Section{Name: dpcisr.DPC, Heading: dpcisr.DPC, Modules: []dpcisr.Histogram{}}
	var hs []dpcisr.Histogram
	for _, name := range []string{"ndis.sys", "storport.sys", "nvlddmkm.sys"} {
		c, ok := mods[name]
		if !ok {
			continue
		}
		h := dpcHist(name, c)
		hs = append(hs, h)
		sec.Modules = append(sec.Modules, h)
		sec.Usage = append(sec.Usage, dpcisr.ModuleUsage{Module: name, Usec: []int64{usec[name]}, Percent: []float64{0}, CPUs: []int{0}})
	}
	all := dpcisr.Merge("", hs...)
	sec.Overall = &all
	return &dpcisr.Report{Source: dpcisr.SourceETW, Sections: []dpcisr.Section{sec}}
}

// Pooling adds the blocks' histograms bucket by bucket per module and
// their CPU time, and the busiest module is the one with the most DPC
// time, not the most DPCs.
func TestTryPoolReports(t *testing.T) {
	a := dpcReport(map[string]map[int]int64{"ndis.sys": {3: 10, 4: 2}, "storport.sys": {1: 50}}, map[string]int64{"ndis.sys": 100, "storport.sys": 60})
	b := dpcReport(map[string]map[int]int64{"ndis.sys": {3: 5, 6: 1}, "storport.sys": {1: 40}}, map[string]int64{"ndis.sys": 90, "storport.sys": 50})
	p := PoolReports([]*dpcisr.Report{a, b})
	if len(p.Sections) != 1 {
		t.Fatalf("%d sections", len(p.Sections))
	}
	s := p.Sections[0]
	nd, _ := s.Pick("NDIS.SYS")
	want := map[int64]int64{8: 15, 16: 2, 64: 1} // by upper bound in µs
	if nd.Sum() != 18 || len(nd.Buckets) != 3 {
		t.Fatalf("ndis.sys pooled %+v", nd.Buckets)
	}
	for _, bk := range nd.Buckets {
		if want[*bk.LeUs] != bk.Count {
			t.Errorf("bucket %s: %d, want %d", bk.Range(), bk.Count, want[*bk.LeUs])
		}
	}
	if s.Overall == nil || s.Overall.Sum() != 18+90 {
		t.Errorf("overall %+v", s.Overall)
	}
	if got := Busiest(p); got != "ndis.sys" {
		t.Errorf("busiest %q, want ndis.sys (190 µs against storport.sys's 110 µs in more DPCs)", got)
	}
}

// dpcRun is a dpcisr experiment over 8 rounds in which ndis.sys's DPCs of
// the value's blocks take the buckets of value, the baseline's those of
// base, with storport.sys alike in both.
func dpcRun(base, value map[int]int64, module string) *Result {
	r := &Result{Knob: "interrupt-moderation", Probe: ProbeDPCISR, Blocks: 8, ModuleGiven: module,
		Arms: []Arm{{Label: "current", Baseline: true}, {Label: "off", Value: "off"}}, Order: Order(2, 8, 5)}
	for i, a := range r.Order {
		c := base
		if a == 1 {
			c = value
		}
		rep := dpcReport(map[string]map[int]int64{"ndis.sys": c, "storport.sys": {1: 400, 2: 30}}, map[string]int64{"ndis.sys": 9000, "storport.sys": 500})
		r.Runs = append(r.Runs, Block{Index: i, Round: i / 2, Arm: a, Complete: true, DPCISR: rep})
	}
	return r
}

// The verdict of a dpcisr experiment: each arm's blocks pooled and
// compared as dpcisr compare does, and the block test over each block's
// p99 bucket of the module.
func TestTryDPCISRVerdict(t *testing.T) {
	slow := map[int]int64{3: 200, 4: 100, 5: 40, 6: 10}
	fast := map[int]int64{2: 200, 3: 100, 4: 40, 5: 10}
	for _, c := range []struct {
		name        string
		base, value map[int]int64
		module      string
		want        Outcome
		text        string
	}{
		{"shorter", slow, fast, "", Better, "off is better than current: shorter DPCs of ndis.sys, 57.1% vs 0.0% at or below 4 µs"},
		{"longer", fast, slow, "", Worse, "off is worse than current: longer DPCs of ndis.sys, 0.0% vs 57.1% at or below 4 µs"},
		{"same", slow, slow, "", NoDifference, "off vs current: no difference in ndis.sys's DPCs"},
		// The module given is followed, though another spends more time.
		{"given", slow, fast, "storport.sys", NoDifference, "no difference in storport.sys's DPCs"},
		// One DPC a block: the buckets differ, but pooled to expected
		// counts of 5 they leave one range, and the verdict says so.
		{"few", slow, map[int]int64{2: 1}, "", TooFew,
			"off vs current: no verdict for ndis.sys's DPCs: too few executions to test (8 and 2800 in 5 buckets)"},
	} {
		r := dpcRun(c.base, c.value, c.module)
		if err := Analyze(r, DPCBy, 1); err != nil {
			t.Fatal(err)
		}
		v := r.Arms[1].Verdict
		wantMod := "ndis.sys"
		if c.module != "" {
			wantMod = c.module
		}
		if r.Module != wantMod || v.Outcome != c.want || !strings.Contains(v.Text, c.text) || v.DPCISR == nil {
			t.Errorf("%s: module %q, %s: %s", c.name, r.Module, v.Outcome, v.Text)
			continue
		}
		// The pooled comparison is dpcisr's own, over 8 blocks' worth.
		sc := dpcSection(v)
		if sc == nil || sc.Runs[0].Summary.Count != 8*sum(c.base) && c.module == "" {
			t.Errorf("%s: pooled comparison %+v", c.name, sc)
		}
		if r.Arms[0].Complete != 8 || r.Runs[0].Stat == 0 {
			t.Errorf("%s: %d complete baseline blocks, first block's p99 %v", c.name, r.Arms[0].Complete, r.Runs[0].Stat)
		}
	}
}

func sum(m map[int]int64) int64 {
	var n int64
	for _, c := range m {
		n += c
	}
	return n
}

// The block's statistic is the upper bound of the bucket holding the
// quantile: p99 of {8-16 µs: 99, 16-32 µs: 1} is in 8-16 µs, max in
// 16-32 µs.
func TestTryDPCBlockStatistic(t *testing.T) {
	h := dpcHist("x.sys", map[int]int64{4: 99, 5: 1})
	if got := bucketNs(h, 99); got != 16e3 {
		t.Errorf("p99 %v ns, want 16000", got)
	}
	if got := bucketNs(h, 100); got != 32e3 {
		t.Errorf("max %v ns, want 32000", got)
	}
	for _, c := range []struct {
		by stats.Statistic
		ok bool
	}{{stats.Quantile(99), true}, {stats.Quantile(100), true}, {stats.Mean, false}, {stats.Stdev, false}} {
		if validDPCBy(c.by) != c.ok {
			t.Errorf("%s: valid %v", c.by, !c.ok)
		}
	}
}

// Too few rounds give no verdict, as for the other probes.
func TestTryDPCISRTooFewRounds(t *testing.T) {
	r := dpcRun(map[int]int64{3: 200, 6: 10}, map[int]int64{2: 200, 5: 10}, "")
	r.Runs = r.Runs[:4]
	if err := Analyze(r, DPCBy, 1); err != nil {
		t.Fatal(err)
	}
	if v := r.Arms[1].Verdict; v.Outcome != TooFew || !strings.Contains(v.Text, "too few complete rounds (2)") {
		t.Errorf("%s: %s", v.Outcome, v.Text)
	}
}

// dpcDocument is the try document of a dpcisr experiment over 8 rounds
// whose arms' blocks have ndis.sys's DPCs in the buckets of counts (the
// baseline's first), read back from its JSON both as a generic tree and
// as a Result.
func dpcDocument(t *testing.T, module string, counts ...map[int]int64) (map[string]any, *Result) {
	t.Helper()
	r := &Result{Knob: "interrupt-moderation", Probe: ProbeDPCISR, Blocks: 8, ModuleGiven: module, Arms: []Arm{{Label: "current", Baseline: true}},
		Order: Order(len(counts), 8, 5)}
	for i := range counts[1:] {
		v := fmt.Sprint(i + 1)
		r.Arms = append(r.Arms, Arm{Label: v, Value: v})
	}
	for i, a := range r.Order {
		rep := dpcReport(map[string]map[int]int64{"ndis.sys": counts[a], "storport.sys": {1: 400, 2: 30}}, map[string]int64{"ndis.sys": 9000, "storport.sys": 500})
		r.Runs = append(r.Runs, Block{Index: i, Round: i / len(counts), Arm: a, Complete: true, DPCISR: rep})
	}
	if err := Analyze(r, DPCBy, 1); err != nil {
		t.Fatal(err)
	}
	doc, err := Document(host.Facts{}, r, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := result.Write(&buf, doc); err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(buf.Bytes(), &tree); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(back)
	if err != nil {
		t.Fatal(err)
	}
	return tree, res
}

// The dpcisr probe's p is its chi-squared test's, Holm-adjusted over the
// values, and the document says so: chi_squared_p_holm, beside the
// comparison. It runs no Mann-Whitney test, so mann_whitney and
// mann_whitney_p_holm are absent rather than a p of 0 no test gave.
func TestTryDPCISRDocumentChiSquared(t *testing.T) {
	slow := map[int]int64{3: 200, 4: 100, 5: 40, 6: 10}
	fast := map[int]int64{3: 210, 4: 100, 5: 30, 6: 10} // a little shorter
	near := map[int]int64{3: 205, 4: 100, 5: 35, 6: 10} // half as much
	tree, res := dpcDocument(t, "", slow, fast, near)
	arms := tree["data"].(map[string]any)["arms"].([]any)
	// The raw p of each value's test, from the comparison in the document.
	var raw []float64
	for _, a := range arms[1:] {
		v := a.(map[string]any)["verdict"].(map[string]any)
		secs := v["dpcisr"].(map[string]any)["sections"].([]any)
		raw = append(raw, secs[0].(map[string]any)["test"].(map[string]any)["p"].(float64))
	}
	if raw[0] >= raw[1] || raw[1] >= 0.5 || raw[0] == 0 {
		t.Fatalf("raw p %v: the case needs the first value's p the smaller, both above 0 and below 0.5", raw)
	}
	// Holm over two: the smaller p doubled, the larger kept (it is above
	// the doubled smaller one here, or lifted to it).
	want := []float64{2 * raw[0], math.Max(raw[1], 2*raw[0])}
	for i, a := range arms[1:] {
		v := a.(map[string]any)["verdict"].(map[string]any)
		got, ok := v["chi_squared_p_holm"].(float64)
		if !ok || math.Abs(got-want[i]) > 1e-12 {
			t.Errorf("value %d: chi_squared_p_holm %v (present %v), want %v", i+1, v["chi_squared_p_holm"], ok, want[i])
		}
		for _, k := range []string{"mann_whitney_p_holm", "mann_whitney"} {
			if x, ok := v[k]; ok {
				t.Errorf("value %d: %s is %v: the dpcisr probe runs no Mann-Whitney test", i+1, k, x)
			}
		}
		tv := res.Arms[i+1].Verdict
		if tv.ChiSquaredPHolm == nil || *tv.ChiSquaredPHolm != got || tv.PHolm != nil || tv.MannWhitney != nil {
			t.Errorf("value %d read back: chi-squared %v, Mann-Whitney %v %v", i+1, tv.ChiSquaredPHolm, tv.PHolm, tv.MannWhitney)
		}
		if p := stats.FormatP(want[i]); !strings.Contains(tv.Text, "chi-squared "+p+", Holm") {
			t.Errorf("value %d: %q lacks chi-squared %s, Holm", i+1, tv.Text, p)
		}
	}
	// A module that ran no DPC has no test: no p, only the verdict that
	// says why.
	tree, _ = dpcDocument(t, "nvlddmkm.sys", slow, fast)
	v := tree["data"].(map[string]any)["arms"].([]any)[1].(map[string]any)["verdict"].(map[string]any)
	for _, k := range []string{"chi_squared_p_holm", "mann_whitney_p_holm", "mann_whitney"} {
		if x, ok := v[k]; ok {
			t.Errorf("no test ran, yet %s is %v", k, x)
		}
	}
	if !strings.Contains(v["text"].(string), "no verdict, nvlddmkm.sys ran no DPC nor ISR") {
		t.Errorf("text %q", v["text"])
	}
}

// dpcisrRun is dpcRun with ndis.sys's interrupts too: the ISR section of
// the value's blocks in the buckets of value, the baseline's in those of
// base (none when nil).
func dpcisrRun(dpcBase, dpcValue, isrBase, isrValue map[int]int64) *Result {
	r := dpcRun(dpcBase, dpcValue, "")
	for i := range r.Runs {
		c := isrBase
		if r.Runs[i].Arm == 1 {
			c = isrValue
		}
		if c == nil {
			continue
		}
		h := dpcHist("ndis.sys", c)
		r.Runs[i].DPCISR.Sections = append(r.Runs[i].DPCISR.Sections, dpcisr.Section{Name: dpcisr.ISR, Heading: dpcisr.ISR,
			Modules: []dpcisr.Histogram{h}, Overall: &h,
			Usage: []dpcisr.ModuleUsage{{Module: "ndis.sys", Usec: []int64{400}, Percent: []float64{0}, CPUs: []int{0}}}})
	}
	return r
}

// A dpcisr verdict weighs every section the module ran in: DPC and ISR,
// each with its chi-squared test and block test, all Holm-adjusted
// together, and its line says which section changed. The histograms are
// a bucket apart, so that each block's p99 moves with them.
func TestTryDPCISRSections(t *testing.T) {
	slow := map[int]int64{3: 200, 4: 100, 5: 40, 6: 10}
	fast := map[int]int64{2: 200, 3: 100, 4: 40, 5: 10}
	isr := map[int]int64{1: 200, 2: 100, 3: 40, 4: 10}
	isrLong := map[int]int64{2: 200, 3: 100, 4: 40, 5: 10}
	one := map[int]int64{1: 1} // an interrupt a block: too few to test
	for _, c := range []struct {
		name                       string
		dpcBase, dpcVal            map[int]int64
		isrBase, isrVal            map[int]int64
		want, wantDPC, wantISR     Outcome
		text, dpcText, isrText     string
		dpcTested, isrTested, isrs bool
	}{
		{"DPC only", slow, fast, isr, isr, Better, Better, NoDifference,
			"off is better than current: shorter DPCs of ndis.sys (57.1% vs 0.0% at or below 4 µs, chi-squared p < 0.001, block test p = 0.016); no difference in ISRs (chi-squared p = 1.000, block test p = 1.000); Holm over 2 sections",
			"off is better than current: shorter DPCs of ndis.sys, 57.1% vs 0.0% at or below 4 µs (chi-squared p < 0.001, Holm, large effect; blocks' p99 lower in 8 of 8 rounds, p = 0.016, Holm)",
			"off vs current: no difference in ndis.sys's ISRs (chi-squared p = 1.000, Holm", true, true, true},
		{"ISR only", slow, slow, isr, isrLong, Worse, NoDifference, Worse,
			"off is worse than current: longer ISRs of ndis.sys (0.0% vs 57.1% at or below 2 µs, chi-squared p < 0.001, block test p = 0.016); no difference in DPCs (chi-squared p = 1.000, block test p = 1.000); Holm over 2 sections",
			"off vs current: no difference in ndis.sys's DPCs",
			"off is worse than current: longer ISRs of ndis.sys, 0.0% vs 57.1% at or below 2 µs (chi-squared p < 0.001, Holm, large effect; blocks' p99 higher in 8 of 8 rounds, p = 0.016, Holm)", true, true, true},
		{"both", slow, fast, isrLong, isr, Better, Better, Better,
			"off is better than current: shorter DPCs of ndis.sys (57.1% vs 0.0% at or below 4 µs, chi-squared p < 0.001, block test p = 0.016); shorter ISRs (57.1% vs 0.0% at or below 2 µs, chi-squared p < 0.001, block test p = 0.016); Holm over 2 sections",
			"off is better than current: shorter DPCs", "off is better than current: shorter ISRs", true, true, true},
		{"mixed", slow, fast, isr, isrLong, Mixed, Better, Worse,
			"off vs current: mixed, shorter DPCs of ndis.sys (57.1% vs 0.0% at or below 4 µs, chi-squared p < 0.001, block test p = 0.016); longer ISRs (0.0% vs 57.1% at or below 2 µs, chi-squared p < 0.001, block test p = 0.016); Holm over 2 sections",
			"off is better than current: shorter DPCs", "off is worse than current: longer ISRs", true, true, true},
		{"neither", slow, slow, isr, isr, NoDifference, NoDifference, NoDifference,
			"off vs current: no difference in DPCs of ndis.sys (chi-squared p = 1.000, block test p = 1.000); no difference in ISRs (chi-squared p = 1.000, block test p = 1.000); Holm over 2 sections",
			"off vs current: no difference in ndis.sys's DPCs", "off vs current: no difference in ndis.sys's ISRs", true, true, true},
		// The ISR section has too few interrupts for a test: it says so
		// and counts for nothing; the DPC section still decides.
		{"too few ISRs", slow, fast, isr, one, Better, Better, TooFew,
			"off is better than current: shorter DPCs of ndis.sys (57.1% vs 0.0% at or below 4 µs, chi-squared p < 0.001, block test p = 0.016); no verdict on ISRs (too few executions); Holm over 2 sections",
			"off is better than current: shorter DPCs",
			"off vs current: no verdict for ndis.sys's ISRs: too few executions to test (8 and 2800 in 4 buckets): pooling sparse buckets until every expected count is at least 5 left one range", true, false, true},
		// No ISR at all: one section, whose verdict is the value's.
		{"no ISRs", slow, fast, nil, nil, Better, Better, "",
			"off is better than current: shorter DPCs of ndis.sys, 57.1% vs 0.0% at or below 4 µs (chi-squared p < 0.001, large effect; blocks' p99 lower in 8 of 8 rounds, p = 0.008)",
			"off is better than current: shorter DPCs", "", true, false, false},
	} {
		r := dpcisrRun(c.dpcBase, c.dpcVal, c.isrBase, c.isrVal)
		if err := Analyze(r, DPCBy, 1); err != nil {
			t.Fatal(err)
		}
		v := r.Arms[1].Verdict
		if v.Outcome != c.want || v.Text != c.text {
			t.Errorf("%s: %s:\n%s\nwant %s:\n%s", c.name, v.Outcome, v.Text, c.want, c.text)
		}
		wantN := 1
		if c.isrs {
			wantN = 2
		}
		if len(v.DPCISRSections) != wantN {
			t.Fatalf("%s: %d sections: %+v", c.name, len(v.DPCISRSections), v.DPCISRSections)
		}
		for i, w := range []struct {
			name   string
			out    Outcome
			text   string
			tested bool
		}{{dpcisr.DPC, c.wantDPC, c.dpcText, c.dpcTested}, {dpcisr.ISR, c.wantISR, c.isrText, c.isrTested}}[:wantN] {
			s := v.DPCISRSections[i]
			if s.Section != w.name || s.Outcome != w.out || !strings.HasPrefix(s.Text, w.text) || (s.ChiSquaredPHolm != nil) != w.tested {
				t.Errorf("%s: %s: %s, p %v: %s", c.name, s.Section, s.Outcome, s.ChiSquaredPHolm, s.Text)
			}
		}
		// The adjusted p-values are Holm's over the tests that ran, each
		// the raw p of the section's own test in the comparison; the
		// value's chi_squared_p_holm and block_test are the DPC section's.
		var raw []float64
		for _, sc := range v.DPCISR.Sections {
			if sc.Test != nil {
				raw = append(raw, sc.Test.P)
			}
		}
		want := stats.Holm(raw)
		k := 0
		for _, s := range v.DPCISRSections {
			if s.ChiSquaredPHolm == nil {
				continue
			}
			if *s.ChiSquaredPHolm != want[k] {
				t.Errorf("%s: %s: p_holm %v, want %v (raw %v)", c.name, s.Section, *s.ChiSquaredPHolm, want[k], raw)
			}
			k++
		}
		if v.DPCISR.Tests != len(raw) || v.ChiSquaredPHolm == nil || *v.ChiSquaredPHolm != *v.DPCISRSections[0].ChiSquaredPHolm ||
			*v.Blocks != v.DPCISRSections[0].Blocks {
			t.Errorf("%s: %d tests, chi-squared %v, blocks %+v", c.name, v.DPCISR.Tests, v.ChiSquaredPHolm, v.Blocks)
		}
	}
}

// The plan warns when the blocks cannot give a verdict: a dpcisr try on
// Windows tests DPC and ISR per value, a family twice the values', and
// needs a round more (7 blocks for one value, 6 for one test).
func TestTryDPCISRMinBlocks(t *testing.T) {
	want := map[string][2]int{"windows": {7, 8}, "linux": {6, 7}}[runtime.GOOS]
	for i, values := range []int{1, 3} {
		r := &Result{Probe: ProbeDPCISR, Arms: make([]Arm, values+1)}
		if got := MinBlocksOf(r); got != want[i] {
			t.Errorf("%d values: %d blocks, want %d", values, got, want[i])
		}
	}
}

// A value without a complete block has no comparison, and its sections
// say so rather than that the module ran nothing.
func TestTryDPCISRNoBlocks(t *testing.T) {
	r := dpcisrRun(map[int]int64{3: 200, 6: 10}, map[int]int64{2: 200, 5: 10}, map[int]int64{1: 50}, map[int]int64{1: 50})
	for i := range r.Runs {
		if r.Runs[i].Arm == 1 {
			r.Runs[i].Complete = false
		}
	}
	if err := Analyze(r, DPCBy, 1); err != nil {
		t.Fatal(err)
	}
	v := r.Arms[1].Verdict
	if v.Outcome != TooFew || v.DPCISR != nil || len(v.DPCISRSections) != 2 ||
		!strings.Contains(v.DPCISRSections[1].Text, "no verdict for ndis.sys's ISRs: no complete block of one of them") {
		t.Errorf("%s: %s: %+v", v.Outcome, v.Text, v.DPCISRSections)
	}
}
