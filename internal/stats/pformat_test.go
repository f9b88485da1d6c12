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

func TestFormatLevel(t *testing.T) {
	for _, c := range []struct {
		level float64
		want  string
	}{{0.95, "95%"}, {0.975, "97.5%"}, {1 - 0.05/3, "98.33%"}, {0.99, "99%"}, {0.999, "99.9%"}, {1 - 0.05/6, "99.17%"}} {
		if got := FormatLevel(c.level); got != c.want {
			t.Errorf("%g: %q, want %q", c.level, got, c.want)
		}
	}
}
