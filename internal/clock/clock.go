// Package clock is latlab's timestamp source: a monotonic nanosecond clock
// read the way the OS's own latency tools read it. On Linux that is
// CLOCK_MONOTONIC; on Windows it is QueryPerformanceCounter, called directly,
// because Go's time.Now there reads the interrupt time, which only advances
// at each timer tick.
//
// Now is cheap, does not allocate and may be called from measurement loops.
package clock

import (
	"context"
	"math"
	"slices"
	"time"
)

// Source describes where timestamps come from, for result documents.
func Source() string { return source() }

// Now returns the current monotonic time in nanoseconds. Only differences
// between two readings are meaningful.
func Now() int64 { return now() }

// ReadCost measures the cost of one Now call: n back-to-back pairs, returning
// the smallest and the median difference. Probes report it as the floor the
// tool itself adds to every sample.
func ReadCost(n int) (minNs, medianNs int64) {
	if n <= 0 {
		n = 1
	}
	d := make([]int64, n)
	for i := range d {
		a := Now()
		b := Now()
		d[i] = b - a
	}
	return MinMedian(d)
}

// MinMedian sorts d in place and returns its smallest value and its median
// (the upper one for an even count): how ReadCost and the probes' overhead
// calibration summarise their timings. d must not be empty.
func MinMedian(d []int64) (minNs, medianNs int64) {
	slices.Sort(d)
	return d[0], d[len(d)/2]
}

// ticksToNanos converts counter ticks at freq Hz to nanoseconds without
// overflowing for any uptime a machine can reach. A count beyond
// math.MaxInt64 ns (292 years) saturates instead of wrapping: FromTicks
// also converts values read elsewhere (a network adapter's hardware stamp
// is on its own clock), and a wrapped one could land near now.
func ticksToNanos(ticks, freq int64) int64 {
	if freq == 1e9 {
		return ticks
	}
	const maxSec = math.MaxInt64 / 1_000_000_000
	sec := ticks / freq
	frac := ticks % freq * 1e9 / freq // |ticks % freq| < freq: no overflow below 9.2 GHz
	switch {
	case sec > maxSec || sec == maxSec && frac > math.MaxInt64-maxSec*1e9:
		return math.MaxInt64
	case sec < -maxSec || sec == -maxSec && frac < math.MinInt64+maxSec*1e9:
		return math.MinInt64
	}
	return sec*1e9 + frac
}

// Pause waits d, or less when ctx ends first, and then returns ctx's
// error: the settle time between a change and a measurement, never a
// measurement itself (the runtime's timer, not the clock above).
func Pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
