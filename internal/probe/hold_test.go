package probe

import (
	"math"
	"testing"
	"time"
)

func TestYielderDue(t *testing.T) {
	const ms = int64(time.Millisecond)
	cases := []struct {
		name            string
		last, now, next int64
		want            bool
	}{
		{"period not over", 0, 999 * ms, 1200 * ms, false},
		{"period just at its end", 0, 1000 * ms, 1200 * ms, false},
		{"period over, deadline far", 0, 1001 * ms, 1200 * ms, true},
		{"period over, deadline at the margin", 0, 1001 * ms, 1001*ms + 200_000, false},
		{"period over, deadline just past the margin", 0, 1001 * ms, 1001*ms + 200_001, true},
		{"period over, deadline passed", 0, 1001 * ms, 1000 * ms, false},
		{"no deadline", 0, 1001 * ms, math.MaxInt64, true},
	}
	for _, c := range cases {
		y := Yielder{Every: 1000 * ms, Margin: 200_000, last: c.last}
		if got := y.Due(c.now, c.next); got != c.want {
			t.Errorf("%s: Due(%d, %d) = %v, want %v", c.name, c.now, c.next, got, c.want)
		}
	}
}
