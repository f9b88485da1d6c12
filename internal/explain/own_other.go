//go:build !linux

package explain

// ownThreads is empty off Linux, where nothing is traced.
func ownThreads() map[int32]bool { return map[int32]bool{} }
