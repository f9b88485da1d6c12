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

// BelowMax is where nearest rank leaves the largest sample.
func TestBelowMax(t *testing.T) {
	for _, c := range []struct {
		st   Statistic
		want int
	}{{Quantile(50), 2}, {Quantile(90), 10}, {Quantile(99), 100}, {Quantile(99.9), 1000}, {Quantile(1), 101}, {Mean, 2}, {Stdev, 2}} {
		got := BelowMax(c.st)
		if got != c.want {
			t.Errorf("%s: %d, want %d", c.st, got, c.want)
		}
		// One sample fewer and the statistic is the maximum (or minimum).
		if c.st.kind == statQuantile {
			s := make([]int64, got-1)
			for i := range s {
				s[i] = int64(i)
			}
			if v := c.st.Of(s); v != float64(s[len(s)-1]) && v != float64(s[0]) {
				t.Errorf("%s of %d samples: %g is neither extreme", c.st, len(s), v)
			}
			s = append(s, int64(len(s)))
			if v := c.st.Of(s); len(s) > 2 && (v == float64(s[len(s)-1]) || v == float64(s[0])) {
				t.Errorf("%s of %d samples: %g is an extreme", c.st, len(s), v)
			}
		}
	}
}
