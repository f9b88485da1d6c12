package units

import (
	"fmt"
	"math"
	"time"
)

// The nanosecond values of a statistic (a percentile, a mean, a
// difference) are floats, and NaN (no value) is written "-". Each
// spelling below is the one a group of outputs has always used; golden
// files hold them, so they stay distinct.

// NsFixed writes v with a space before the unit and fixed decimals:
// "1.234 ms", "1.23 µs", "12 ns" (compare's tables and verdicts).
func NsFixed(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return "-"
	case a >= 1e6:
		return fmt.Sprintf("%.3f ms", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.2f µs", v/1e3)
	}
	return fmt.Sprintf("%.0f ns", v)
}

// NsTrimmed writes v as Duration does, but with two decimals in µs and
// no seconds: "1.2346ms", "1.23µs", "12ns" (sweep's verdicts).
func NsTrimmed(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return "-"
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.4f", v/1e6)) + "ms"
	case a >= 1e3:
		return trimZeros(fmt.Sprintf("%.2f", v/1e3)) + "µs"
	}
	return fmt.Sprintf("%.0fns", v)
}

// NsShort writes v with three significant digits (18.3µs, 1.92ms,
// 497µs), so that a ranked table fits a terminal.
func NsShort(v float64) string {
	a := math.Abs(v)
	unit, div := "ns", 1.0
	switch {
	case math.IsNaN(v):
		return "-"
	// A value that rounds up to 1000 of a unit is written in the next
	// (999.9996ms is 1.00s, not 1000ms).
	case a >= 999.5e6:
		unit, div = "s", 1e9
	case a >= 999.5e3:
		unit, div = "ms", 1e6
	case a >= 999.5:
		unit, div = "µs", 1e3
	}
	x := v / div
	switch ax := math.Abs(x); {
	case ax >= 99.95 || div == 1:
		return fmt.Sprintf("%.0f%s", x, unit)
	case ax >= 9.995:
		return fmt.Sprintf("%.1f%s", x, unit)
	}
	return fmt.Sprintf("%.2f%s", x, unit)
}

// Ns is Duration of a count of nanoseconds.
func Ns(ns int64) string { return Duration(time.Duration(ns)) }

// Us writes microseconds as the DPC and ISR tables do: one decimal below
// 100 µs, none up to 10 ms, then ms with one decimal ("12.5 µs", "250 µs",
// "12.3 ms").
func Us(us float64) string {
	if us >= 10000 {
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	if us >= 100 {
		return fmt.Sprintf("%.0f µs", us)
	}
	return fmt.Sprintf("%.1f µs", us)
}

// SignedNsFixed is NsFixed with a + on positive values, for differences
// (+2.99 µs, -5.91 µs, 0 ns).
func SignedNsFixed(v float64) string {
	if v > 0 {
		return "+" + NsFixed(v)
	}
	return NsFixed(v)
}

// SignedNs is Duration of v rounded to whole nanoseconds, with a + on
// positive values, for differences (+1.5µs, -2.13ms, 0).
func SignedNs(v float64) string {
	s := Duration(time.Duration(math.Round(v)))
	if v > 0 {
		s = "+" + s
	}
	return s
}

// MsFixed writes ns nanoseconds in ms with three decimals whatever the
// size (0.500 ms, 15.625 ms), so lines that compare sleeps line up.
func MsFixed(ns float64) string { return fmt.Sprintf("%.3f ms", ns/1e6) }

// UsFixed writes ns nanoseconds in µs with one decimal whatever the size
// (12.3 µs, 1500.0 µs), as rtla timerlat's auto-analysis writes the parts
// of a latency.
func UsFixed(ns float64) string { return fmt.Sprintf("%.1f µs", ns/1e3) }
