package stats

import (
	"math"
	"testing"
)

func TestFormatP(t *testing.T) {
	for p, want := range map[float64]string{0.0004: "p < 0.001", 0.001: "p = 0.001", 0.0496: "p = 0.050", 0.435: "p = 0.435", 1: "p = 1.000", math.NaN(): "p n/a"} {
		if got := FormatP(p); got != want {
			t.Errorf("FormatP(%v) = %q, want %q", p, got, want)
		}
	}
}
