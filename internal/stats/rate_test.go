package stats

import (
	"encoding/json"
	"math"
	"testing"
)

// The exact test of two Poisson rates against values computed elsewhere
// for the same counts and exposures: R's documented poisson.test example
// (?poisson.test: c(11, 6+8+7) events over c(800, 1083+1050+878)
// person-years, printed p-value 0.07967, rate ratio 1.971488, 95% CI
// 0.8584264 4.2772659), and SciPy 1.17.1's
// binomtest(nb, na+nb, tb/(ta+tb)).pvalue with
// proportion_ci(0.95, method="exact") transformed as p/(1-p)·ta/tb.
func TestPoissonRatesReference(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name       string
		na         int64
		ta         float64
		nb         int64
		tb         float64
		p, lo, hi  float64
		wantRatio  float64
		relTolerCI float64
	}{
		{"R poisson.test example", 21, 3011, 11, 800, 0.0796686330333295, 0.858426403391619, 4.277265943654079, 1.9714880952380953, 1e-6},
		{"ten times fewer, equal runtimes", 1180, 10, 120, 10, 2.4797326681506645e-219, 0.083568909582968, 0.12279180725102679, 0.10169491525423729, 1e-6},
		{"A saw none", 0, 10, 5, 10, 0.0625, 0.91635585731546, inf, inf, 1e-6},
		{"B saw none", 7, 10, 0, 10, 0.015625, 0, 0.6938139800965825, 0, 1e-6},
		{"very different runtimes", 10, 1, 10, 100, 1.5280265270572748e-15, 0.0037354684669936526, 0.026770404002494794, 0.01, 1e-6},
		{"half a second against an hour", 3, 0.5, 300, 3600, 1.191598590465302e-05, 0.004707087282337779, 0.0677278274078724, 300.0 / 3600 / 6, 1e-6},
		{"equal counts, equal runtimes", 5, 10, 5, 10, 1, 0.23014246893811693, 4.345134579523825, 1, 1e-6},
		{"large counts, a 1% change", 100000, 60, 99000, 60, 0.025127217688360817, 0.9813287390402672, 0.9987477863487583, 0.99, 1e-6},
		{"the fixed noise documents' busy CPU", 401, 9.999, 5, 10, 5.4566471346327535e-112, 0.004026244534072443, 0.029337755697280594, (5 / 10.0) / (401 / 9.999), 1e-6},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := PoissonRates(c.na, c.ta, c.nb, c.tb, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if !close(r.P, c.p, 1e-6) {
				t.Errorf("p = %.10g, want %.10g", r.P, c.p)
			}
			if !close(r.Lo, c.lo, c.relTolerCI) || !close(float64(r.Hi), c.hi, c.relTolerCI) {
				t.Errorf("CI [%.10g, %.10g], want [%.10g, %.10g]", r.Lo, r.Hi, c.lo, c.hi)
			}
			if !close(float64(r.Ratio), c.wantRatio, 1e-12) {
				t.Errorf("ratio %.10g, want %.10g", r.Ratio, c.wantRatio)
			}
		})
	}
}

// close compares relatively, with infinities and zeros equal to
// themselves.
func close(got, want, rel float64) bool {
	if got == want {
		return true
	}
	if want == 0 || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// No events on either side is no evidence: p = 1, the ratio unknown, the
// interval everything; bad exposures and negative counts are refused.
func TestPoissonRatesEdges(t *testing.T) {
	r, err := PoissonRates(0, 10, 0, 10, 0.95)
	if err != nil || r.P != 1 || !math.IsNaN(float64(r.Ratio)) || r.Lo != 0 || !math.IsInf(float64(r.Hi), 1) {
		t.Errorf("no events: %+v, %v", r, err)
	}
	for _, c := range []struct {
		na, nb int64
		ta, tb float64
	}{{-1, 0, 1, 1}, {0, -1, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}, {1, 1, math.NaN(), 1}, {1, 1, 1, math.Inf(1)}, {1, 1, -1, 1}} {
		if _, err := PoissonRates(c.na, c.ta, c.nb, c.tb, 0.95); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	// Swapping the sides inverts the ratio and its interval and keeps p.
	a, _ := PoissonRates(30, 7, 12, 9, 0.99)
	b, _ := PoissonRates(12, 9, 30, 7, 0.99)
	if !close(a.P, b.P, 1e-9) || !close(float64(a.Ratio), 1/float64(b.Ratio), 1e-12) || !close(a.Lo, 1/float64(b.Hi), 1e-6) || !close(float64(a.Hi), 1/b.Lo, 1e-6) {
		t.Errorf("not symmetric: %+v and %+v", a, b)
	}
	// A count of a hundred million is answered (by bisection and the
	// incomplete beta function, not a sum over every split).
	big, err := PoissonRates(100_000_000, 86400, 100_010_000, 86400, 0.95)
	if err != nil || !(big.P > 0 && big.P < 1) || !(big.Lo < 1.0001 && big.Hi > 1.0001) {
		t.Errorf("large counts: %+v, %v", big, err)
	}
}

// Infinite and undefined ratios survive a JSON round trip, which has no
// such numbers.
func TestExtendedJSON(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, 0.125, 1e300} {
		b, err := json.Marshal(Extended(v))
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		var got Extended
		if err := json.Unmarshal(b, &got); err != nil || !(float64(got) == v || math.IsNaN(v) && math.IsNaN(float64(got))) {
			t.Errorf("%v wrote %s, read back %v (%v)", v, b, got, err)
		}
	}
	var x Extended
	if err := json.Unmarshal([]byte(`"infinity"`), &x); err == nil {
		t.Errorf(`"infinity" accepted`)
	}
}
