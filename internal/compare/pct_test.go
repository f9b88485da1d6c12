package compare

import "testing"

// A share is written short, never in exponent form above 10%, and never
// as 100% unless it is all.
func TestPct(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0.025, "2.5%"},
		{0.00013, "0.013%"},
		{2.5e-7, "2.5e-5%"},
		{0.5, "50%"},
		{0.1234, "12%"},
		{0.9998, "99.98%"},
		{0.99996, "99.996%"},
		{0.994, "99%"},
		{0.996, "99.6%"},
		{1, "100%"},
	} {
		if got := pct(c.f); got != c.want {
			t.Errorf("pct(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
