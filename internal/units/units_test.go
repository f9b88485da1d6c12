package units

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{999, "999ns"},
		{-5, "-5ns"},
		{1000, "1µs"},
		{1500, "1.5µs"},
		{81_000, "81µs"},
		{2_130_000, "2.13ms"},
		{1_234_567, "1.2346ms"},
		{2_130_000_000, "2.13s"},
		{-1_500_000, "-1.5ms"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}
