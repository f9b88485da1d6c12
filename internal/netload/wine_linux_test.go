package netload

// underWine is false on Linux: no Wine gap is tolerated here.
func underWine() bool { return false }
