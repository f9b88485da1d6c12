package report

import "strconv"

// AppendLiveLabel appends the first field of a --live line, "Resolution:
// 0.499200ms": a negative ms (the value could not be read) prints as "?".
func AppendLiveLabel(dst []byte, name string, ms float64) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	if ms < 0 {
		return append(dst, '?')
	}
	dst = strconv.AppendFloat(dst, ms, 'f', 6, 64)
	return append(dst, "ms"...)
}

// AppendLiveLine appends the rest of a --live line after the label. The
// format is MeasureSleep's, printf("Resolution: %lfms, Sleep(1) slept
// %lfms (delta: %lf)\n"): six decimals, so that scripts written for
// MeasureSleep read latlab's lines. It runs while the probe measures with
// the garbage collector off, so it only appends.
func AppendLiveLine(dst []byte, call string, sleptNs, requestedNs int64) []byte {
	dst = append(dst, ", "...)
	dst = append(dst, call...)
	dst = append(dst, " slept "...)
	dst = strconv.AppendFloat(dst, float64(sleptNs)/1e6, 'f', 6, 64)
	dst = append(dst, "ms (delta: "...)
	dst = strconv.AppendFloat(dst, float64(sleptNs-requestedNs)/1e6, 'f', 6, 64)
	return append(dst, ")\n"...)
}
