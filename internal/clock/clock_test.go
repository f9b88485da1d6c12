package clock

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestNowIsMonotonic(t *testing.T) {
	prev := Now()
	for i := 0; i < 100000; i++ {
		n := Now()
		if n < prev {
			t.Fatalf("clock went backwards: %d after %d", n, prev)
		}
		prev = n
	}
}

func TestNowDoesNotAllocate(t *testing.T) {
	if a := testing.AllocsPerRun(1000, func() { _ = Now() }); a != 0 {
		t.Fatalf("Now allocates %.1f times per call", a)
	}
}

func TestTicksToNanos(t *testing.T) {
	const maxSec = 9_223_372_036 // whole seconds in math.MaxInt64 ns
	cases := []struct {
		ticks, freq, want int64
	}{
		{0, 10_000_000, 0},
		{10_000_000, 10_000_000, 1e9},
		{15, 10_000_000, 1500},
		{3_579_545, 3_579_545, 1e9},
		{1e9, 1e9, 1e9},
		// ~100 years of uptime at 10 MHz must not overflow.
		{10_000_000 * 86400 * 365 * 100, 10_000_000, 1e9 * 86400 * 365 * 100},
		// The last whole second that fits, and past it: a count read
		// elsewhere (FromTicks) saturates rather than wrapping.
		{maxSec * 10_000_000, 10_000_000, maxSec * 1e9},
		{maxSec*10_000_000 + 8_547_758, 10_000_000, math.MaxInt64 - 7},
		{maxSec*10_000_000 + 8_547_759, 10_000_000, math.MaxInt64},
		{maxSec*10_000_000 + 9_999_999, 10_000_000, math.MaxInt64},
		{math.MaxInt64, 10_000_000, math.MaxInt64},
		{math.MaxInt64, 3_579_545, math.MaxInt64},
		{-15, 10_000_000, -1500},
		{math.MinInt64, 10_000_000, math.MinInt64},
	}
	for _, c := range cases {
		if got := ticksToNanos(c.ticks, c.freq); got != c.want {
			t.Errorf("ticksToNanos(%d, %d) = %d, want %d", c.ticks, c.freq, got, c.want)
		}
	}
}

func TestReadCost(t *testing.T) {
	min, med := ReadCost(1001)
	if min < 0 || med < min {
		t.Fatalf("ReadCost = %d, %d", min, med)
	}
	if Source() == "" {
		t.Fatal("no source")
	}
}

func TestMinMedian(t *testing.T) {
	cases := []struct {
		in       []int64
		min, med int64
	}{
		{[]int64{7}, 7, 7},
		{[]int64{5, 1, 4, 2, 3}, 1, 3},
		{[]int64{40, 10, 30, 20}, 10, 30}, // even count: the upper median
		{[]int64{-2, 9, 9, -2, 0}, -2, 0},
	}
	for _, c := range cases {
		d := append([]int64(nil), c.in...)
		if mn, md := MinMedian(d); mn != c.min || md != c.med {
			t.Errorf("MinMedian(%v) = %d, %d; want %d, %d", c.in, mn, md, c.min, c.med)
		}
		for i := 1; i < len(d); i++ {
			if d[i] < d[i-1] {
				t.Errorf("MinMedian(%v) left %v unsorted", c.in, d)
			}
		}
	}
}

func BenchmarkNow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Now()
	}
}

// Pause ends early with the context's error, and without one after d.
func TestPause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := Pause(ctx, time.Millisecond); err != nil {
		t.Errorf("a 1ms pause: %v", err)
	}
	if err := Pause(ctx, 0); err != nil {
		t.Errorf("no pause: %v", err)
	}
	cancel()
	if err := Pause(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled hour's pause: %v", err)
	}
	if err := Pause(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("no pause, cancelled: %v", err)
	}
}
