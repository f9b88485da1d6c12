package report

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// bulkWithTail is 2000 samples from 40 to 80 µs and a tail of ten up to
// 37 ms, the shape that drew both CDFs as a vertical line at 0.
func bulkWithTail() []int64 {
	var v []int64
	for i := range 2000 {
		v = append(v, 40_000+int64(i%400)*100)
	}
	for i := range 10 {
		v = append(v, 1_000_000+int64(i)*4_000_000)
	}
	slices.Sort(v)
	return v
}

func TestDistCDFLogAxisSpreadsTheBulk(t *testing.T) {
	s := bulkWithTail()
	p, err := distCDF("t", "overshoot", []Dist{{Name: "a", Sorted: s}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Fatalf("x scale %T, want a log scale", p.X.Scale)
	}
	if p.X.Min > float64(s[0]) || p.X.Max < float64(s[len(s)-1]) {
		t.Errorf("x axis %g..%g leaves out samples %d..%d", p.X.Min, p.X.Max, s[0], s[len(s)-1])
	}
	// Where the median (60 µs) and the smallest sample sit across the
	// axis: on the old linear axis to 37 ms both were within 0.2% of the
	// left edge.
	at := func(v float64) float64 { return p.X.Scale.Normalize(p.X.Min, p.X.Max, v) }
	if lo, med := at(40_000), at(60_000); med-lo < 0.04 || med > 0.5 {
		t.Errorf("smallest sample at %.3f, median at %.3f of the axis", lo, med)
	}
	if !strings.Contains(p.X.Label.Text, "overshoot (log scale)") {
		t.Errorf("x label %q", p.X.Label.Text)
	}
	b, err := renderReportPlot(p, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"20 µs", "100 µs", "1 ms", "10 ms", "50 ms"} {
		if !strings.Contains(string(b), ">"+want+"<") {
			t.Errorf("no tick labelled %q", want)
		}
	}
}

func TestDistCDFNonPositiveSamples(t *testing.T) {
	p, err := distCDF("t", "overshoot", []Dist{{Name: "a", Sorted: []int64{-5, 0, 10_000, 20_000}}, {Name: "empty"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "overshoot (log scale); 2 samples at or below 0 drawn at the left edge"; p.X.Label.Text != want {
		t.Errorf("x label %q, want %q", p.X.Label.Text, want)
	}
	p, err = distCDF("t", "overshoot", []Dist{{Name: "a", Sorted: []int64{-1, 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "overshoot (log scale); 1 sample at or below 0 drawn at the left edge"; p.X.Label.Text != want {
		t.Errorf("x label %q, want %q", p.X.Label.Text, want)
	}
	// Nothing above 0: a linear axis, which a log one cannot be.
	for _, s := range [][]int64{{-3000, -1000}, {0, 0}} {
		b, err := DistCDFPlot("t", "overshoot", []Dist{{Name: "a", Sorted: s}}, "svg")
		if err != nil || !strings.Contains(string(b), "overshoot (") || strings.Contains(string(b), "log scale") {
			t.Errorf("%v: %v", s, err)
		}
	}
	if _, err := DistCDFPlot("t", "overshoot", []Dist{{Name: "empty"}}, "svg"); err == nil {
		t.Error("no error for no samples")
	}
}

func TestLogDurationTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logDurationTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		// over three decades: powers of ten, and the ends
		{20e3, 50e6, []string{"20 µs", "100 µs", "1 ms", "10 ms", "50 ms"}},
		// three decades or less: 1, 2 and 5 times them
		{1e6, 20e6, []string{"1 ms", "2 ms", "5 ms", "10 ms", "20 ms"}},
		{500, 5e3, []string{"500 ns", "1 µs", "2 µs", "5 µs"}},
		// fewer than two labels: every step
		{3e6, 4e6, []string{"3 ms", "4 ms"}},
		{2e9, 5e9, []string{"2 s", "5 s"}},
		{2e9, 4e9, []string{"2 s", "3 s", "4 s"}},
		// an end a label crowds stays unlabelled
		{50e3, 1e9, []string{"100 µs", "1 ms", "10 ms", "100 ms", "1 s"}},
		{0, 10, nil},
		{10, 10, nil},
	} {
		if got := labels(c.lo, c.hi); !slices.Equal(got, c.want) {
			t.Errorf("%g..%g: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestStep125(t *testing.T) {
	for _, c := range []struct{ v, down, up float64 }{
		{1, 1, 1}, {1000, 1000, 1000}, {1500, 1000, 2000}, {2000, 2000, 2000},
		{3100, 2000, 5000}, {7e6, 5e6, 1e7}, {37e6, 2e7, 5e7}, {9.99e3, 5e3, 1e4},
	} {
		if d, u := step125(c.v, false), step125(c.v, true); d != c.down || u != c.up {
			t.Errorf("%g: down %g up %g, want %g %g", c.v, d, u, c.down, c.up)
		}
	}
}

func TestHistogramPlotSingular(t *testing.T) {
	s := make([]int64, 200)
	for i := range s {
		s[i] = 1000
	}
	s[199] = 1e9 // above p99: not shown
	b, err := HistogramPlot("t", "overshoot", []Dist{{Name: "a", Sorted: s}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "; 1 sample above the largest p99 not shown") {
		t.Error("the x label does not say 1 sample")
	}
	s[198] = 1e9
	b, _ = HistogramPlot("t", "overshoot", []Dist{{Name: "a", Sorted: s}}, "svg")
	if !strings.Contains(string(b), "; 2 samples above the largest p99 not shown") {
		t.Error("the x label does not say 2 samples")
	}
}
