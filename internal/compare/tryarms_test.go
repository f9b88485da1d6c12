package compare_test

import (
	"math"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/try"
)

// The arms of a noise try are compared as noise results are: each CPU's
// counts pooled over the arm's complete blocks, by rate and by length;
// those of a dpcisr try as latlab dpcisr compare compares reports. The
// fixtures' blocks count per[arm][cpu] interruptions in a second plus
// the round (0..7): 8 blocks pool 8*per + 28 in 8 s.
func TestCompareTryArms(t *testing.T) {
	type cpuWant struct {
		cpu          int
		countA       int64
		countB       int64
		rate         string
		verdictStart string
	}
	for _, c := range []struct {
		file string
		cpus []cpuWant
	}{
		{"try-noise.json", []cpuWant{{3, 8*60 + 28, 8*35 + 28, compare.Fewer, "CPU 3: try-noise.json[0] has fewer interruptions (38.5/s vs 63.5/s, rate ratio 0.606 ["}}},
		{"try-noise-cpus.json", []cpuWant{
			{2, 8*60 + 28, 8*35 + 28, compare.Fewer, "CPU 2: try-noise-cpus.json[0] has fewer interruptions (38.5/s vs 63.5/s, rate ratio 0.606 ["},
			{3, 8*40 + 28, 8*40 + 28, string(compare.NoDifference), "CPU 3: try-noise-cpus.json[0] vs try-noise-cpus.json[current]: no detectable difference in the rate of interruptions (43.5/s vs 43.5/s, rate ratio 1.00 ["},
		}},
	} {
		r, err := run(t, compare.RunOptions{Files: []string{td(c.file)}, Arms: arms})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(r.Noise) != len(c.cpus) || r.NoiseThresholdNs != 1000 || len(r.Pairs) != 0 {
			t.Fatalf("%s: %d CPUs, threshold %d, %d pairs", c.file, len(r.Noise), r.NoiseThresholdNs, len(r.Pairs))
		}
		for i, w := range c.cpus {
			n := r.Noise[i]
			a, b, p := n.Runs[0], n.Runs[1], n.Pairs[0]
			if n.CPU != w.cpu || a.Count != w.countA || b.Count != w.countB || a.RuntimeNs != 8e9 || b.RuntimeNs != 8e9 {
				t.Errorf("%s: CPU %d: %d and %d interruptions in %d and %d ns", c.file, n.CPU, a.Count, b.Count, a.RuntimeNs, b.RuntimeNs)
			}
			// Every interruption was kept: the lengths compared are all of them.
			if a.Kept != a.Count || a.Lengths == nil || a.Lengths.Count != a.Count || a.Reconstructed || p.Lengths == nil {
				t.Errorf("%s: CPU %d: %d kept, lengths %+v", c.file, n.CPU, a.Kept, a.Lengths)
			}
			if p.RateOutcome != w.rate || !strings.HasPrefix(p.Verdict, w.verdictStart) {
				t.Errorf("%s: CPU %d: %s: %q", c.file, n.CPU, p.RateOutcome, p.Verdict)
			}
		}
		// The note says what the arms are and what the try's own verdicts,
		// which ask the rounds to agree too, said.
		if !strings.Contains(strings.Join(r.Notes, "\n"), "each arm of "+c.file+" is its complete blocks pooled") ||
			!strings.Contains(strings.Join(r.Notes, "\n"), c.file+"[0]: better") {
			t.Errorf("%s: notes %q", c.file, r.Notes)
		}
	}

	r, err := run(t, compare.RunOptions{Files: []string{td("try-dpcisr.json")}, Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	c := r.DPCISR
	if c == nil || c.Module != "ndis.sys" || len(c.Sections) != 2 || c.Tests != 2 || len(r.Runs) != 2 || len(r.Pairs) != 0 {
		t.Fatalf("%+v", r)
	}
	s := c.Sections[0]
	// Each arm's 8 blocks of 35 DPCs, the value's a bucket shorter.
	if s.Name != dpcisr.DPC || s.Runs[0].Summary.Count != 280 || s.Runs[1].Summary.Count != 280 || s.Test == nil || s.Direction[0] != "faster" {
		t.Errorf("section %+v", s)
	}
	if s.Test.P >= 0.05 || !strings.HasPrefix(s.Verdict, "DPC: try-dpcisr.json[off] is faster than try-dpcisr.json[current]: 57.1% vs 0.0% at or below 4 µs") ||
		!strings.Contains(s.Verdict, "chi-squared 228.6, df 3, Holm-adjusted p < 0.001") {
		t.Errorf("verdict %q (p %v)", s.Verdict, s.Test.P)
	}
	// The ISR section is the family's second test: 8 blocks of 32
	// interrupts an arm, 96/112/48 against 120/104/32 in three buckets,
	// chi-squared 6.163, df 2, p = exp(-6.163/2) = 0.0459; Holm leaves
	// it (the DPC test's p is far smaller), and the notes say so.
	isr := c.Sections[1]
	if isr.Name != dpcisr.ISR || isr.Test == nil || isr.PHolm == nil || math.Abs(*isr.PHolm-0.04589) > 1e-4 ||
		!strings.Contains(isr.Verdict, "Holm-adjusted p = 0.046") {
		t.Errorf("ISR %q (p %v, Holm %v)", isr.Verdict, isr.Test, isr.PHolm)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "p-values are Holm-adjusted across the 2 tests") {
		t.Errorf("notes %q", r.Notes)
	}
	if r.By != "" || r.Level != 0.95 {
		t.Errorf("by %q, level %v", r.By, r.Level)
	}
}

// --expect-better names one arm that should be better at one statistic;
// a noise or dpcisr try has none: bad input, not an expectation that
// passes unread.
func TestCompareTryArmsExpectBetter(t *testing.T) {
	for _, c := range []struct{ file, arm, want string }{
		{"try-noise.json", "try-noise.json[0]", "noise results are compared CPU by CPU"},
		{"try-dpcisr.json", "try-dpcisr.json[off]", "the arms of a dpcisr try are compared section by section"},
	} {
		_, err := run(t, compare.RunOptions{Files: []string{td(c.file)}, ExpectBetter: c.arm, Arms: arms})
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input saying %q", c.arm, err, c.want)
		}
	}
}

// compare takes DPC/ISR reports as the arms of a try only, and arms that
// follow the same module.
func TestCompareDPCISRRefuses(t *testing.T) {
	doc, err := result.ReadFile(td("try-dpcisr.json"))
	if err != nil {
		t.Fatal(err)
	}
	arms := func() []compare.Input {
		in, err := try.CompareInputs("t.json", doc, nil)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	alone := arms()
	for i := range alone {
		alone[i].Arm = false
	}
	other := arms()
	v, _ := dpcisr.Kind.Of(other[1].Doc)
	v.Module = "storport.sys"
	for _, c := range []struct {
		name string
		in   []compare.Input
		want string
	}{
		{"reports", alone, "t.json[current] is a dpcisr result: compare DPC/ISR reports with latlab dpcisr compare"},
		{"modules", other, "t.json[current] follows the DPCs of ndis.sys and t.json[off] those of storport.sys"},
	} {
		_, err := compare.Compare(c.in, compare.Options{})
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A dpcisr try's own verdict and compare of its arms test the same
// sections with the same code and adjust them as one family (a try of
// one value: its sections): the p-values agree to the last bit.
func TestCompareTryDPCISRSameP(t *testing.T) {
	doc, err := result.ReadFile(td("try-dpcisr.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := try.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := run(t, compare.RunOptions{Files: []string{td("try-dpcisr.json")}, Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	own := tr.Arms[1].Verdict.DPCISRSections
	if len(own) != 2 || len(r.DPCISR.Sections) != 2 {
		t.Fatalf("try's sections %+v, compare's %+v", own, r.DPCISR.Sections)
	}
	for i, s := range own {
		c := r.DPCISR.Sections[i]
		if s.Section != c.Name || s.ChiSquaredPHolm == nil || c.PHolm == nil || *s.ChiSquaredPHolm != *c.PHolm {
			t.Errorf("%s: try's p_holm %v, compare's %s %v", s.Section, s.ChiSquaredPHolm, c.Name, c.PHolm)
		}
	}
	// Holm over two did something: the DPC test's p doubled.
	if c := r.DPCISR.Sections[0]; *c.PHolm != 2*c.Test.P {
		t.Errorf("DPC: p %v, adjusted %v", c.Test.P, *c.PHolm)
	}
}
