package stats

import (
	"fmt"
	"math"
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
