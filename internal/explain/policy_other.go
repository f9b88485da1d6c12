//go:build !linux

package explain

// Policy is "" off Linux.
func Policy(int) string { return "" }
