package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatP renders a p-value without false precision: three decimals, and
// "p < 0.001" below that (the tail of an approximation is not more exact
// than that); "p n/a" when there is none.
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p n/a"
	case p < 0.001:
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// FormatLevel renders a confidence level as a percentage with no trailing
// zeros: 0.95 as "95%", a Bonferroni-adjusted 0.975 as "97.5%", 0.98333
// as "98.33%". The heads of compare and sweep said 97.5% and their
// verdicts 97.50% for the same interval.
func FormatLevel(level float64) string {
	s := strconv.FormatFloat(level*100, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}
