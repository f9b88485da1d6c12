package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// KS is the two-sample Kolmogorov-Smirnov test: D is the largest distance
// between the two empirical CDFs (gonum's stat.KolmogorovSmirnov), P its
// asymptotic p-value from the Kolmogorov distribution at
// sqrt(n*m/(n+m))*D, as R's ks.test(exact = FALSE), or for serially
// dependent samples from a multiplier bootstrap (KolmogorovSmirnovSerial).
// Ties make P conservative.
type KS struct {
	D float64 `json:"d"`
	P float64 `json:"p"`
	// Test names the test P is from: KSTest, or SerialKSTest when a
	// side's samples are serially dependent. Absent in documents written
	// before it was added, whose P is KSTest's.
	Test string `json:"test,omitempty"`
	// Replicates and Grid are the multiplier bootstrap's replicates and
	// the points of t it compared the CDFs at (SerialKSTest only).
	Replicates int `json:"replicates,omitempty"`
	Grid       int `json:"grid_points,omitempty"`
}

// Dependent reports whether P is the p-value for serially dependent
// samples.
func (k KS) Dependent() bool { return k.Test == SerialKSTest }

// KolmogorovSmirnov compares two samples as independent ones.
func KolmogorovSmirnov(x, y []int64) KS {
	if len(x) == 0 || len(y) == 0 {
		return KS{D: math.NaN(), P: math.NaN(), Test: KSTest}
	}
	fx, fy := toFloat(x), toFloat(y)
	slices.Sort(fx)
	slices.Sort(fy)
	d := stat.KolmogorovSmirnov(fx, nil, fy, nil)
	n, m := float64(len(x)), float64(len(y))
	return KS{D: d, P: KolmogorovSurvival(math.Sqrt(n*m/(n+m)) * d), Test: KSTest}
}

// KolmogorovSurvival is P(K > x) for the Kolmogorov distribution, the
// limit of sqrt(n)*D_n.
func KolmogorovSurvival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if x < 1.18 {
		// CDF = sqrt(2*pi)/x * sum exp(-(2k-1)^2 pi^2 / (8 x^2)): converges fast for small x.
		s := 0.0
		for k := 1; k <= 20; k++ {
			t := float64(2*k - 1)
			s += math.Exp(-t * t * math.Pi * math.Pi / (8 * x * x))
		}
		return 1 - math.Sqrt(2*math.Pi)/x*s
	}
	// survival = 2 * sum (-1)^(k-1) exp(-2 k^2 x^2): converges fast for large x.
	s := 0.0
	for k := 1; k <= 100; k++ {
		t := math.Exp(-2 * float64(k*k) * x * x)
		if k%2 == 1 {
			s += t
		} else {
			s -= t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Max(0, math.Min(1, 2*s))
}
