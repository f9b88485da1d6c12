package backend

import "os"

// kernelFile is false on Windows: the file backend there only ever holds
// a fixture tree (--root), plain files.
func kernelFile(*os.File) bool { return false }

// openNonblock is 0: Windows has no FIFOs in the file system.
const openNonblock = 0

// On Windows the file backend holds only a fixture tree and opens it by
// path.
func (f Files) host() bool { return false }

func (f Files) open(p string, flags int) (*os.File, error) {
	return os.OpenFile(f.path(p), flags, 0)
}

func (f Files) readDir(p string) ([]os.DirEntry, error) { return os.ReadDir(f.path(p)) }

func (f Files) replace(p string, perm os.FileMode, data []byte) error {
	return replaceFile(f.path(p), perm, data)
}
