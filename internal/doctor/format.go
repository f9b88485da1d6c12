package doctor

import (
	"fmt"
	"math"
)

// fmtDur formats nanoseconds compactly with a unit chosen for the size,
// as latlab's tables do (report.Duration, which a test keeps in step).
func fmtDur(ns int64) string {
	v := float64(ns)
	switch {
	case ns == 0:
		return "0"
	case math.Abs(v) < 1e3:
		return fmt.Sprintf("%dns", ns)
	case math.Abs(v) < 1e6:
		return trimZeros(fmt.Sprintf("%.3f", v/1e3)) + "µs"
	case math.Abs(v) < 1e9:
		return trimZeros(fmt.Sprintf("%.4f", v/1e6)) + "ms"
	}
	return trimZeros(fmt.Sprintf("%.3f", v/1e9)) + "s"
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
