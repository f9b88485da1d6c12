// Package units formats quantities the way every latlab table and line
// writes them. It imports nothing of latlab, so the analysis packages
// (tcpflow, doctor) and the report package share one spelling.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration formats d compactly with a unit chosen for its size: ns as an
// integer, three decimals in µs and s, four in ms, trailing zeros dropped.
func Duration(d time.Duration) string {
	ns := float64(d)
	switch {
	case d == 0:
		return "0"
	case math.Abs(ns) < 1e3:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case math.Abs(ns) < 1e6:
		return trimZeros(fmt.Sprintf("%.3f", ns/1e3)) + "µs"
	case math.Abs(ns) < 1e9:
		return trimZeros(fmt.Sprintf("%.4f", ns/1e6)) + "ms"
	}
	return trimZeros(fmt.Sprintf("%.3f", ns/1e9)) + "s"
}

// FlagDuration formats d as the duration flags take it, Go's form
// without its zero minutes and seconds: 1h, 1h30m, 2m, 1m30s, 10ms (Go
// writes an hour as 1h0m0s, and Duration as 3600s). Bounds quoted in a
// message about a flag use it, so that what it says is accepted can be
// typed back as written.
func FlagDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func trimZeros(s string) string {
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// Trim writes v with up to decimals decimals (at least 1), trailing zeros
// dropped: Trim(93.75, 3) is "93.75", Trim(125, 3) is "125".
func Trim(v float64, decimals int) string {
	return trimZeros(strconv.FormatFloat(v, 'f', max(decimals, 1), 64))
}

// Ms writes d in milliseconds with up to decimals decimals and no unit,
// the way timer tools write a resolution: Ms(506_800, 4) is "0.5068".
func Ms(d time.Duration, decimals int) string { return Trim(float64(d)/1e6, decimals) }

// Thousands writes n with a comma between groups of three digits:
// "1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	first := 0
	if n < 0 {
		first = 1 // the sign is not a digit
	}
	for i := len(s) - 3; i > first; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// MsPrecise writes d in ms with up to 6 decimals and the unit, as timer
// tools traditionally write requests and grants (0.5ms, 15.625ms, 0.001ms).
func MsPrecise(d time.Duration) string { return Ms(d, 6) + "ms" }

// Request writes a timer request (or a sleep) of ns nanoseconds in ms with
// up to 4 decimals (0.5068ms) from 0.1 ms, the unit timer-resolution tools
// use, else in µs (up to 3 decimals) or whole ns.
func Request(ns int64) string {
	if ns >= 100_000 {
		return Trim(float64(ns)/1e6, 4) + "ms"
	}
	if ns >= 1000 {
		return Trim(float64(ns)/1e3, 3) + "µs"
	}
	return fmt.Sprintf("%dns", ns)
}

// Compact writes n exactly below 10,000,000 and above that with four
// significant digits and an SI prefix of 1000 (k, M, G, T, P, E): a
// column of counts up to 10^18 then stays 7 characters wide.
// Compact(654829) is "654829", Compact(15232000000) is "15.23G".
func Compact(n int64) string {
	if n > -10_000_000 && n < 10_000_000 {
		return strconv.FormatInt(n, 10)
	}
	v := math.Abs(float64(n))
	i := 0
	// 999,950,000 rounds to 1000M: 1.000G instead
	for v >= 999.95 && i < len(SIPrefixes) {
		v /= 1000
		i++
	}
	// 4 significant digits: 3 decimals below 10, 2 below 100, 1 below 1000
	decimals := 3
	for t := 9.9995; v >= t && decimals > 0; t *= 10 {
		decimals--
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if n < 0 {
		s = "-" + s
	}
	if i > 0 {
		s += SIPrefixes[i-1 : i]
	}
	return s
}

// SIPrefixes are the prefixes Compact writes, each 1000 times the one
// before it: k is 10^3, E 10^18.
const SIPrefixes = "kMGTPE"

// MsSignificant writes d in ms with digits significant digits and the
// unit, for columns that must stay narrow: MsSignificant(1_068_400, 4) is
// "1.068ms", MsSignificant(15_626_000, 4) is "15.63ms".
func MsSignificant(d time.Duration, digits int) string {
	return strconv.FormatFloat(float64(d)/1e6, 'g', digits, 64) + "ms"
}

// Seconds writes s seconds with decimals fixed decimals and the unit
// after a space, as the traces' time stamps and lengths are written:
// Seconds(0.45, 3) is "0.450 s".
func Seconds(s float64, decimals int) string {
	return strconv.FormatFloat(s, 'f', decimals, 64) + " s"
}
