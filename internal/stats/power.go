package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// SamplesToDetect estimates how many samples per group a two-group
// comparison needs to detect a difference of delta with a two-sided test
// at significance alpha and the given power, from the standard error se
// of the difference measured with n samples per group. Standard errors
// shrink as 1/sqrt(n), so n' = n * ((z(1-alpha/2) + z(power)) * se/delta)^2.
// It returns 0 when it cannot say (se or delta not positive).
func SamplesToDetect(n int, se, delta, alpha, power float64) int {
	if n <= 0 || !(se > 0) || !(delta > 0) || math.IsInf(se, 0) {
		return 0
	}
	z := distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(power)
	r := z * se / delta
	return int(math.Ceil(float64(n) * r * r))
}

// SEFromCI turns a confidence interval's half-width into a standard error
// under a normal approximation.
func SEFromCI(c CI) float64 {
	z := distuv.UnitNormal.Quantile(1 - (1-c.Level)/2)
	return c.HalfWidth() / z
}

// MinPerSide is the fewest samples per run a comparison judges. Below it
// the tests latlab uses say too little to be worth a verdict: the
// Mann-Whitney test needs about 18 per side to detect even a shift of one
// standard deviation (a large effect) 4 times in 5 at the 5% level (the
// t-test's 16-17, divided by Mann-Whitney's asymptotic relative efficiency
// of 0.955 under normality), and the percentile bootstrap is known to
// undercover below about 20 (its interval of a median from n samples can
// take only a handful of values). With one sample on a side the bootstrap
// of that side has no variability at all, so any difference would look
// certain. 20 rounds that up.
const MinPerSide = 20

// MinSamples is how many samples per run a comparison of st at the given
// confidence level needs: MinPerSide, and for a percentile p enough that a
// distribution-free interval for it ends on an observed sample. The
// largest of n samples lies above the true p-th percentile with
// probability 1 - (p/100)^n; unless that is at least 1 - (1-level)/2, an
// interval for the percentile at that level reaches past the largest
// sample, and a bootstrap (which never draws a value beyond it) reports an
// interval that is too short. So n >= ln((1-level)/2) / ln(p/100), and the
// same with 1 - p/100 for low percentiles: 368 for p99 at 95%, 36 for p90,
// 3688 for p99.9. The minimum and maximum themselves (p0, p100) never
// qualify: math.MaxInt.
func MinSamples(st Statistic, level float64) int {
	if st.kind != statQuantile {
		return MinPerSide
	}
	if st.p <= 0 || st.p >= 100 {
		return math.MaxInt
	}
	if level <= 0 || level >= 1 {
		level = 0.95
	}
	q := math.Max(st.p, 100-st.p) / 100
	n := int(math.Ceil(math.Log((1-level)/2)/math.Log(q) - 1e-9))
	return max(n, MinPerSide)
}

// BelowMax is the fewest samples in which st is not simply their largest
// (or, for a low percentile, their smallest): for a nearest-rank p-th
// percentile ceil(100/(100-p)) (10 for p90, 100 for p99, 1000 for p99.9;
// floor(100/p)+1 below p50),
// 2 for the mean and the stdev. A statistic of fewer samples is an extreme
// under another name.
func BelowMax(st Statistic) int {
	if st.kind != statQuantile {
		return 2
	}
	switch p := st.p; {
	case p <= 0 || p >= 100:
		return math.MaxInt
	case p < 50: // rank ceil(p/100 n) passes 1 once n > 100/p
		return max(int(math.Floor(100/p+1e-9))+1, 2)
	default: // rank ceil(p/100 n) falls below n once n >= 100/(100-p)
		return max(int(math.Ceil(100/(100-p)-1e-9)), 2)
	}
}
