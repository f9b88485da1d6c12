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
