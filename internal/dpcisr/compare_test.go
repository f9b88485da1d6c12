package dpcisr

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	ext := mustParse(t, readFixture(t, "xperf-dpcisr-im-extreme.txt"))
	off := mustParse(t, readFixture(t, "xperf-dpcisr-im-off.txt"))
	kb := mustParse(t, readFixture(t, "xperf-dpcisr-keyboard-ps2-vs-usb.txt"))

	c, err := Compare([]Labeled{{"Extreme", ext}, {"Off", off}, {"Extreme again", ext}}, "NDIS.SYS")
	if err != nil {
		t.Fatal(err)
	}
	if c.Module != "ndis.sys" || len(c.Sections) != 2 {
		t.Fatalf("%+v", c)
	}
	d := c.Sections[0]
	if d.Name != DPC || len(d.Runs) != 3 || len(d.Buckets) != 8 || d.Counts[1][1] != 31000 {
		t.Fatalf("DPC %+v", d)
	}
	if d.Direction[0] != "faster" || d.Direction[1] != "same" {
		t.Errorf("directions %v", d.Direction)
	}
	// Share at or below 4 µs: Extreme (120+2100+9800)/31973, Off (2900+31000+24100)/63865.
	s4 := d.Shares[2]
	if s4.Us != 4 || fmtPct(s4.Pct[0]) != "37.59" || fmtPct(s4.Pct[1]) != "90.82" || fmtPct(s4.Delta[1]) != "53.22" || s4.Delta[2] != 0 {
		t.Errorf("share <= 4: %+v", s4)
	}
	if d.Test == nil || d.Test.P > 1e-6 || d.Test.DF != 2*(len(d.PooledBuckets)-1) || d.Test.MinExpected < 5 {
		t.Errorf("test %+v pooled %v", d.Test, d.PooledBuckets)
	}
	if !strings.Contains(d.Verdict, "Off is faster than Extreme") || !strings.Contains(d.Verdict, "Extreme again matches Extreme") {
		t.Errorf("verdict %q", d.Verdict)
	}
	// three reports: df* = 2
	if d.Effect == "" || d.Effect != EffectSize(d.Test.CramersV, 2) || !strings.HasSuffix(d.Verdict, d.Effect+" effect)") {
		t.Errorf("effect %q for V %.3f (df* 2), verdict %q", d.Effect, d.Test.CramersV, d.Verdict)
	}

	// Keyboard file vs itself, whole sections (no overall histogram: the
	// module blocks are added).
	c, err = Compare([]Labeled{{"a", kb}, {"b", kb}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Sections[0].Runs[0].Summary.Count != 921+920+938+937 || c.Sections[0].Test.P != 1 || !strings.Contains(c.Sections[0].Verdict, "no significant difference") {
		t.Errorf("self: %+v", c.Sections[0])
	}
	// Everything in one bucket range: nothing to test.
	one := mustParse(t, "DPC Info\nTotal = 5 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 5\n")
	two := mustParse(t, "DPC Info\nTotal = 3 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 3\n")
	c, _ = Compare([]Labeled{{"one", one}, {"two", two}}, "a.sys")
	if c.Sections[0].Test != nil || !strings.Contains(c.Sections[0].Verdict, "no test possible") {
		t.Errorf("one column: %+v", c.Sections[0])
	}
	// Buckets that differ, too few executions to keep two ranges of
	// expected counts of 5: no verdict, and the counts say why (not "one
	// bucket range", which they are not).
	few := mustParse(t, "DPC Info\nTotal = 4 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 3\nElapsed Time, > 2 usecs AND <= 4 usecs, 1\n")
	c, _ = Compare([]Labeled{{"one", one}, {"few", few}}, "a.sys")
	if v := c.Sections[0].Verdict; c.Sections[0].Test != nil || v != "DPC: no verdict, too few executions to test (5 and 4 in 2 buckets): pooling sparse buckets until every expected count is at least 5 left one range" {
		t.Errorf("too few: %q", v)
	}

	// A module only one report has.
	c, err = Compare([]Labeled{{"kb", kb}, {"nic", ext}}, "kbdhid.sys")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sections) != 1 || c.Sections[0].Missing[0] != "nic" || !strings.Contains(c.Sections[0].Verdict, "only kb has this") {
		t.Errorf("%+v", c.Sections)
	}
	if _, err := Compare([]Labeled{{"a", kb}, {"b", ext}}, "absent.sys"); err == nil || err.Error() != "no report has module absent.sys" {
		t.Errorf("absent module: %v", err)
	}
	if _, err := Compare([]Labeled{{"a", kb}}, ""); err == nil {
		t.Error("one report compared")
	}
}

// Cohen's cut-offs for Cramér's V: 0.1, 0.3, 0.5 over sqrt(df*).
func TestEffectSize(t *testing.T) {
	for _, c := range []struct {
		v    float64
		df   int
		want string
	}{
		{0.09, 1, "negligible"}, {0.1, 1, "small"}, {0.29, 1, "small"}, {0.3, 1, "medium"}, {0.49, 1, "medium"}, {0.5, 1, "large"},
		{0.07, 2, "negligible"}, {0.08, 2, "small"}, {0.2, 2, "small"}, {0.22, 2, "medium"}, {0.34, 2, "medium"}, {0.36, 2, "large"},
		{0.05, 3, "negligible"}, {0.06, 3, "small"}, {0.18, 3, "medium"}, {0.3, 3, "large"},
	} {
		if got := EffectSize(c.v, c.df); got != c.want {
			t.Errorf("V %.2f, df* %d: %s, want %s", c.v, c.df, got, c.want)
		}
	}
	if got := EffectSize(0.05, 0); got != "negligible" {
		t.Errorf("df* 0 taken as 1: %s", got)
	}
}

func TestDirection(t *testing.T) {
	for _, c := range []struct {
		a, b []int64
		want string
	}{
		{[]int64{10, 10}, []int64{20, 0}, "faster"},
		{[]int64{10, 10}, []int64{0, 20}, "slower"},
		{[]int64{10, 10}, []int64{1, 1}, "same"},
		{[]int64{10, 0, 10}, []int64{0, 20, 0}, "mixed"},
		{[]int64{0, 0}, []int64{1, 1}, "same"},
	} {
		if got := direction(c.a, c.b); got != c.want {
			t.Errorf("%v vs %v: %s", c.a, c.b, got)
		}
	}
}

func fmtPct(v float64) string {
	if v < 0 {
		v = -v
	}
	return fmt.Sprintf("%.2f", v)
}

// xperfTwoBuckets is an xperf report of module a.sys with a DPC and an
// ISR section, each of two buckets: (1, 2] and (2, 4] µs.
func xperfTwoBuckets(dpc1, dpc2, isr1, isr2 int) string {
	sec := func(name string, n1, n2 int) string {
		return fmt.Sprintf("%s Info\nTotal = %d for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, %d\nElapsed Time, > 2 usecs AND <= 4 usecs, %d\n", name, n1+n2, n1, n2)
	}
	return sec("DPC", dpc1, dpc2) + sec("ISR", isr1, isr2)
}

// The sections' tests are one family: each verdict is at 5% on its p
// Holm-adjusted over the sections tested, and says so. The p-values
// were computed apart (Pearson's chi-squared, 1 df, no continuity
// correction; Holm by hand): 60/40 vs 45/55 p = 0.033672, 56/44 vs
// 41/59 p = 0.033815, 70/30 vs 40/60 p = 2.0079e-5.
func TestCompareHolmAcrossSections(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b       string
		tests      int
		raw, holm  []float64 // per section: DPC, ISR
		verdicts   []string
		noVerdicts []string
	}{
		{name: "both near 3%: neither after Holm",
			a: xperfTwoBuckets(60, 40, 56, 44), b: xperfTwoBuckets(45, 55, 41, 59), tests: 2,
			raw: []float64{0.033672, 0.033815}, holm: []float64{0.067344, 0.067344},
			verdicts:   []string{"DPC: no significant difference", "ISR: no significant difference"},
			noVerdicts: []string{"slower"}},
		// Holm steps down: the larger p is compared at 5%, not 2.5%
		{name: "one small p: the other keeps its own",
			a: xperfTwoBuckets(70, 30, 56, 44), b: xperfTwoBuckets(40, 60, 41, 59), tests: 2,
			raw: []float64{2.0079e-5, 0.033815}, holm: []float64{4.0157e-5, 0.033815},
			verdicts: []string{"DPC: b is slower than a", "ISR: b is slower than a"}},
		// one section has a test: a family of one, nothing adjusted
		{name: "one test",
			a: xperfTwoBuckets(60, 40, 5, 0), b: xperfTwoBuckets(45, 55, 5, 0), tests: 1,
			raw: []float64{0.033672}, holm: []float64{0.033672},
			verdicts: []string{"DPC: b is slower than a", "ISR: no verdict, too few executions"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp, err := Compare([]Labeled{{"a", mustParse(t, c.a)}, {"b", mustParse(t, c.b)}}, "a.sys")
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Tests != c.tests || len(cmp.Sections) != 2 {
				t.Fatalf("%d tests in %d sections, want %d in 2", cmp.Tests, len(cmp.Sections), c.tests)
			}
			for i, want := range c.holm {
				s := cmp.Sections[i]
				if s.Test == nil || s.PHolm == nil {
					t.Fatalf("%s: test %+v, Holm p %v", s.Name, s.Test, s.PHolm)
				}
				if math.Abs(s.Test.P-c.raw[i]) > 1e-4*c.raw[i] || math.Abs(*s.PHolm-want) > 1e-4*want {
					t.Errorf("%s: p %g, Holm p %g; want %g, %g", s.Name, s.Test.P, *s.PHolm, c.raw[i], want)
				}
				if hasHolm := strings.Contains(s.Verdict, "Holm"); hasHolm != (c.tests > 1) {
					t.Errorf("%s: verdict %q says Holm %v; want %v with %d tests", s.Name, s.Verdict, hasHolm, c.tests > 1, c.tests)
				}
			}
			for i, want := range c.verdicts {
				if v := cmp.Sections[i].Verdict; !strings.HasPrefix(v, want) {
					t.Errorf("verdict %q, want it to begin %q", v, want)
				}
			}
			for _, s := range cmp.Sections {
				for _, no := range c.noVerdicts {
					if strings.Contains(s.Verdict, no) {
						t.Errorf("verdict %q says %q", s.Verdict, no)
					}
				}
			}
			note := cmp.HolmNote()
			if want := "Holm-adjusted across the 2 tests"; (c.tests > 1) != strings.Contains(note, want) || (c.tests == 1 && note != "") {
				t.Errorf("note %q with %d tests", note, c.tests)
			}
		})
	}
}
