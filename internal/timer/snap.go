package timer

// Windows snaps a timer-resolution request to a step of the hardware timer:
// on the machine in testdata/timer-resolution-requested-vs-granted.txt the
// granted value is always the largest multiple of 160/3 (5.333 µs, in 100 ns
// units) strictly below the request, truncated to whole 100 ns units. The
// step depends on the machine, so latlab always reports what
// NtQueryTimerResolution says was granted; SnapModel only predicts it.

// SnapModel predicts the granted resolution (100 ns units) for a request
// on a timer whose step is num/den 100-ns units.
func SnapModel(requested100ns uint32, num, den uint64) uint32 {
	r := uint64(requested100ns)
	if r == 0 || num == 0 || den == 0 {
		return 0
	}
	// largest k with k*num/den < r  <=>  k*num < r*den
	k := (r*den - 1) / num
	return uint32(k * num / den)
}
