//go:build !windows

package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
)

// walkTree calls fn for root and everything below it, parents before
// their children: filepath.WalkDir, telling whether each is a directory
// it enters (walk_windows.go says why Windows has its own).
func walkTree(root string, fn func(p string, dir bool, err error) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		return fn(p, d != nil && d.IsDir(), err)
	})
}

// remove removes one entry walkTree found.
func remove(p string, _ bool) { _ = os.Remove(p) }
