package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// RateTest compares the rates of two Poisson processes from their counts
// over their exposures: A saw NA events in TA, B saw NB in TB. Given the
// total NA+NB, NB is binomial with p = TB/(TA+TB) when the rates are
// equal, so the test and the interval are exact (no normal
// approximation): the conditional test of R's poisson.test for two
// samples, whose two-sided p is binom.test's (SciPy's binomtest).
type RateTest struct {
	NA int64   `json:"count_a"`
	NB int64   `json:"count_b"`
	TA float64 `json:"exposure_a"` // in any one unit, the same as TB
	TB float64 `json:"exposure_b"`
	// Ratio is B's rate over A's, (NB/TB)/(NA/TA): +Inf when A saw none
	// and B some, NaN when neither saw any.
	Ratio Extended `json:"ratio"`
	// Lo and Hi bound Ratio at Level: the Clopper-Pearson interval of the
	// binomial proportion, transformed to a ratio (Hi is +Inf when B saw
	// every event, Lo 0 when it saw none).
	Lo    float64  `json:"lo"`
	Hi    Extended `json:"hi"`
	Level float64  `json:"level"`
	// P is the exact two-sided p-value of equal rates: the probability of
	// every split of the total no more likely than the one seen.
	P float64 `json:"p"`
}

// ErrExposure is an exposure that is not a positive, finite number, or a
// negative count.
var ErrExposure = errors.New("a rate needs a count of at least 0 over an exposure above 0")

// relErr is the tolerance with which binom.test (R) and binomtest (SciPy)
// count a split as likely as the one seen, so that ties of probability
// are not lost to rounding.
const relErr = 1 + 1e-7

// PoissonRates is the exact conditional test of equal rates and the
// exact interval of their ratio, at level (e.g. 0.95).
func PoissonRates(na int64, ta float64, nb int64, tb float64, level float64) (RateTest, error) {
	if na < 0 || nb < 0 || !(ta > 0) || !(tb > 0) || math.IsInf(ta, 0) || math.IsInf(tb, 0) {
		return RateTest{}, ErrExposure
	}
	r := RateTest{NA: na, NB: nb, TA: ta, TB: tb, Level: level}
	n := na + nb
	p0 := tb / (ta + tb)
	r.Ratio = Extended((float64(nb) / tb) / (float64(na) / ta))
	if n == 0 {
		r.Ratio, r.Lo, r.Hi, r.P = Extended(math.NaN()), 0, Extended(math.Inf(1)), 1
		return r, nil
	}
	lo, hi := clopperPearson(nb, n, level)
	// p = R·tb/(ta + R·tb), so R = p/(1-p) · ta/tb.
	toRatio := func(p float64) float64 {
		if p >= 1 {
			return math.Inf(1)
		}
		return p / (1 - p) * ta / tb
	}
	r.Lo, r.Hi = toRatio(lo), Extended(toRatio(hi))
	r.P = binomTwoSided(nb, n, p0)
	return r, nil
}

// clopperPearson is the exact interval of a binomial proportion with x
// successes of n: the quantiles of Beta(x, n-x+1) and Beta(x+1, n-x).
func clopperPearson(x, n int64, level float64) (lo, hi float64) {
	a := (1 - level) / 2
	lo, hi = 0, 1
	if x > 0 {
		lo = mathext.InvRegIncBeta(float64(x), float64(n-x+1), a)
	}
	if x < n {
		hi = mathext.InvRegIncBeta(float64(x+1), float64(n-x), 1-a)
	}
	return lo, hi
}

// binomLogPMF is log P(X = k) for X ~ Binomial(n, p), 0 < p < 1.
func binomLogPMF(k, n int64, p float64) float64 {
	lgn, _ := math.Lgamma(float64(n + 1))
	lgk, _ := math.Lgamma(float64(k + 1))
	lgr, _ := math.Lgamma(float64(n - k + 1))
	return lgn - lgk - lgr + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
}

// binomCDF is P(X <= k).
func binomCDF(k, n int64, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	return mathext.RegIncBeta(float64(n-k), float64(k+1), 1-p)
}

// binomSF is P(X >= k), from the incomplete beta function itself: 1 -
// binomCDF loses every p below 1e-16.
func binomSF(k, n int64, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// binomTwoSided is the two-sided p of x successes of n at p: the sum of
// the probabilities of every outcome no more likely than x (R's
// binom.test, SciPy's binomtest). The outcomes beyond the mode on the
// other side are found by bisection, the tails summed with the
// incomplete beta function, so a count of a hundred million costs no
// more than one of ten.
func binomTwoSided(x, n int64, p float64) float64 {
	mean := float64(n) * p
	if float64(x) == mean {
		return 1
	}
	d := binomLogPMF(x, n, p) + math.Log(relErr)
	var pv float64
	if float64(x) < mean {
		// The smallest j at or above the mean no more likely than x:
		// the pmf decreases from the mode to n.
		lo, hi := int64(math.Ceil(mean)), n+1 // hi: none found
		for lo < hi {
			m := lo + (hi-lo)/2
			if binomLogPMF(m, n, p) <= d {
				hi = m
			} else {
				lo = m + 1
			}
		}
		pv = binomCDF(x, n, p)
		if lo <= n {
			pv += binomSF(lo, n, p)
		}
	} else {
		// The largest j at or below the mean no more likely than x.
		lo, hi := int64(-1), int64(math.Floor(mean)) // lo: none found
		for lo < hi {
			m := hi - (hi-lo)/2
			if binomLogPMF(m, n, p) <= d {
				lo = m
			} else {
				hi = m - 1
			}
		}
		pv = binomSF(x, n, p)
		if lo >= 0 {
			pv += binomCDF(lo, n, p)
		}
	}
	return min(pv, 1)
}

// Extended is a number that may be infinite or not a number, as a rate
// ratio is when a side saw no events. JSON has no such numbers: they are
// written as the strings "inf", "-inf" and "nan", every other value as a
// number.
type Extended float64

// MarshalJSON writes infinities and NaN as strings.
func (x Extended) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte(`"nan"`), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (x *Extended) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"nan"`:
		*x = Extended(math.NaN())
		return nil
	case `"inf"`:
		*x = Extended(math.Inf(1))
		return nil
	case `"-inf"`:
		*x = Extended(math.Inf(-1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("want a number, \"inf\", \"-inf\" or \"nan\": %w", err)
	}
	*x = Extended(f)
	return nil
}

// JSONSchemaText is the JSON Schema of what MarshalJSON writes, for the
// result document's schema.
func (Extended) JSONSchemaText() string {
	return `{"anyOf":[{"type":"number"},{"type":"string","enum":["inf","-inf","nan"]}]}`
}
