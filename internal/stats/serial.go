package stats

import "math"

// Successive sleeps and wake-ups of one run are not independent: the
// machine's state drifts, and one burst of interference delays several
// samples in a row. Tests that assume independence then take n samples
// for n pieces of information and are too sure of themselves. The
// functions here measure that dependence from the samples in the order
// they were measured, and the block bootstrap and the rank test in
// blockboot.go and mwuserial.go account for it.

// Serial describes the dependence of a run's samples in measurement order.
type Serial struct {
	// Lag1 is the lag-1 autocorrelation (Lag1).
	Lag1 float64 `json:"lag1_autocorrelation"`
	// EffectiveN is the number of independent samples that would carry
	// as much information about the mean (EffectiveSampleSize).
	EffectiveN float64 `json:"effective_samples"`
	// Dependent says Lag1 is measurably positive (Dependent): the
	// comparison then resamples blocks and uses the long-run variance.
	Dependent bool `json:"dependent"`
	// Block is the moving-block length the bootstrap uses when Dependent
	// (BlockLength, at least 2); absent otherwise.
	Block int `json:"block_length,omitempty"`
}

// SerialOf describes the samples of a run in measurement order.
func SerialOf(ordered []int64) Serial {
	x := toFloat(ordered)
	s := Serial{Lag1: lag1(x), EffectiveN: EffectiveSampleSize(x)}
	s.Dependent = Dependent(s.Lag1, len(x))
	if s.Dependent {
		// At least 2: a series just past the threshold can have
		// autocorrelations too small for the rule to see.
		s.Block = max(2, BlockLength(x))
	}
	return s
}

// DependenceThreshold is the lag-1 autocorrelation above which n samples
// count as dependent: 3/sqrt(n). The lag-1 autocorrelation of n
// independent samples is about normal with mean -1/n and standard
// deviation 1/sqrt(n) (Bartlett 1946), so independent samples exceed it
// about once in 740 runs, and a comparison of two independent runs keeps
// its i.i.d. methods 997 times in 1000. Only positive dependence is
// looked for: it is what interference causes, and what makes the i.i.d.
// methods too sure; negative dependence makes them cautious.
func DependenceThreshold(n int) float64 {
	if n < 1 {
		return math.Inf(1)
	}
	return 3 / math.Sqrt(float64(n))
}

// Dependent reports whether a lag-1 autocorrelation r1 of n samples is
// measurable dependence (DependenceThreshold). Fewer than MinPerSide
// samples are never judged dependent: their autocorrelation says little.
func Dependent(r1 float64, n int) bool {
	return n >= MinPerSide && r1 > DependenceThreshold(n)
}

// Lag1 is the lag-1 autocorrelation of a series: the sum of (x_t - m)
// (x_t+1 - m) over the sum of (x_t - m)^2, m the mean (the standard
// estimator, as R's acf). 0 for fewer than 3 values or a constant series.
func Lag1(x []int64) float64 { return lag1(toFloat(x)) }

func lag1(x []float64) float64 {
	if len(x) < 3 {
		return 0
	}
	c := centered(x)
	g0 := autocov(c, 0)
	if g0 == 0 {
		return 0
	}
	return autocov(c, 1) / g0
}

func centered(x []float64) []float64 {
	var m float64
	for i, v := range x {
		m += (v - m) / float64(i+1)
	}
	c := make([]float64, len(x))
	for i, v := range x {
		c[i] = v - m
	}
	return c
}

// autocov is the lag-k autocovariance of a centered series, divided by n
// (the biased estimator, which keeps the sequence positive definite).
func autocov(c []float64, k int) float64 {
	var s float64
	for t := 0; t+k < len(c); t++ {
		s += c[t] * c[t+k]
	}
	return s / float64(len(c))
}

// maxLags bounds the autocovariances computed of n values: each costs n
// multiplications, so a million samples stop at 100 lags (dependence
// longer than that is then underestimated, and a note in the method says
// the bound was reached only through the effective size staying small).
func maxLags(n int) int {
	return max(1, min(n/3, 1000, max(100, 100_000_000/max(n, 1))))
}

// LongRunVariance is the variance of sqrt(n) times the mean of a
// stationary series: the sum of its autocovariances over all lags,
// estimated by Geyer's initial positive sequence (Geyer 1992, "Practical
// Markov chain Monte Carlo", Statistical Science 7(4), section 3.3): the
// sums of adjacent pairs of autocovariances, gamma(2m) + gamma(2m+1), are
// added while they stay positive, which for a reversible process they are
// in theory, and the first that is not ends the sum. It is the estimator
// Stan and the MCMC literature use for effective sample sizes.
func LongRunVariance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	return longRunVariance(centered(x))
}

func longRunVariance(c []float64) float64 {
	g0 := autocov(c, 0)
	if g0 == 0 {
		return 0
	}
	lim := maxLags(len(c))
	sum := -g0
	for m := 0; 2*m+1 <= lim; m++ {
		pair := autocov(c, 2*m) + autocov(c, 2*m+1)
		if m == 0 {
			pair = g0 + autocov(c, 1)
		}
		if pair <= 0 {
			break
		}
		sum += 2 * pair
	}
	// The first pair can be negative (negatively correlated samples):
	// the variance is then never taken below a tenth of the i.i.d. one.
	return max(sum, g0/10)
}

// EffectiveSampleSize is n times the variance of the samples over their
// long-run variance (LongRunVariance): the count of independent samples
// whose mean would be as precise. It is n for independent samples (it is
// capped there) and n(1-phi)/(1+phi) for an AR(1) series with
// autocorrelation phi.
func EffectiveSampleSize(x []float64) float64 {
	n := len(x)
	if n < 3 {
		return float64(n)
	}
	c := centered(x)
	g0 := autocov(c, 0)
	lrv := longRunVariance(c)
	if g0 == 0 || lrv <= 0 {
		return float64(n)
	}
	return math.Min(float64(n), float64(n)*g0/lrv)
}

// BlockLength is the block length of a moving-block bootstrap of the
// mean of x chosen by Politis and White's automatic rule (Politis & White
// 2004, "Automatic block-length selection for the dependent bootstrap",
// Econometric Reviews 23(1), with the correction of Patton, Politis &
// White 2009): b = (2 G^2 / D)^(1/3) n^(1/3), where G = sum |k| R(k) and
// D = (4/3) (sum R(k))^2 are estimated from the autocovariances R(k) with
// a flat-top lag window of width 2m, m the first lag after which K_n
// autocorrelations in a row are insignificant. It is at least 1 and at
// most min(3 sqrt(n), n/3). When the estimates are degenerate, the simple
// rule n^(1/3) is used.
func BlockLength(x []float64) int {
	n := len(x)
	if n < 6 {
		return 1
	}
	c := centered(x)
	g0 := autocov(c, 0)
	bmax := int(math.Ceil(math.Min(3*math.Sqrt(float64(n)), float64(n)/3)))
	simple := min(max(1, int(math.Round(math.Cbrt(float64(n))))), bmax)
	if g0 == 0 {
		return 1
	}
	lim := maxLags(n)
	kn := max(5, int(math.Ceil(math.Sqrt(math.Log10(float64(n))))))
	crit := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	rho := []float64{1}
	r := func(k int) float64 {
		for len(rho) <= k {
			rho = append(rho, autocov(c, len(rho))/g0)
		}
		return rho[k]
	}
	m := -1
	for cand := 0; cand+kn <= lim; cand++ {
		ok := true
		for k := 1; k <= kn; k++ {
			if math.Abs(r(cand+k)) >= crit {
				ok = false
				break
			}
		}
		if ok {
			m = cand
			break
		}
	}
	if m < 0 { // dependence beyond the lags computed
		return simple
	}
	M := 2 * m
	if M == 0 {
		return 1
	}
	var g, G float64
	for k := -M; k <= M; k++ {
		ak := abs(k)
		w := flatTop(float64(ak) / float64(M))
		if w == 0 || ak > lim {
			continue
		}
		gk := r(ak) * g0
		g += w * gk
		G += w * float64(ak) * gk
	}
	D := 4.0 / 3 * g * g
	if !(D > 0) || G == 0 {
		return simple
	}
	b := math.Cbrt(2*G*G/D) * math.Cbrt(float64(n))
	return min(max(1, int(math.Round(b))), bmax)
}

// flatTop is Politis and Romano's trapezoidal lag window.
func flatTop(t float64) float64 {
	switch {
	case t <= 0.5:
		return 1
	case t <= 1:
		return 2 * (1 - t)
	}
	return 0
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}
