//go:build !windows

package testutil

// UnderWine is false off Windows: no Wine gap is tolerated there.
func UnderWine() bool { return false }
