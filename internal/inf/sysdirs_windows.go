package inf

import (
	"os"
	"path/filepath"
)

// SystemINFDirs is where Windows keeps its own INFs, which Include= names
// ("system-supplied INF files"): %SystemRoot%\INF.
func SystemINFDirs() []string {
	root := os.Getenv("SystemRoot")
	if root == "" {
		root = os.Getenv("windir")
	}
	if root == "" {
		return nil
	}
	return []string{filepath.Join(root, "INF")}
}
