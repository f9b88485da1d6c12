package inf

// SystemINFDirs is where Windows keeps its own INFs; Linux has none (a
// copy of %SystemRoot%\INF can be given with --include-dir).
func SystemINFDirs() []string { return nil }
