package backend

import "os"

// kernelFile is false on Windows: the file backend there only ever holds
// a fixture tree (--root), plain files.
func kernelFile(*os.File) bool { return false }

// openNonblock is 0: Windows has no FIFOs in the file system.
const openNonblock = 0

// On Windows the file backend holds only a fixture tree and opens it by
// path.
func (f Files) open(p string, flags int) (*os.File, error) {
	return os.OpenFile(f.path(p), flags, 0)
}

// openRead is open: a fixture tree on Windows has no links to follow.
func (f Files) openRead(p string, flags int) (*os.File, error) { return f.open(p, flags) }

// linkIsDir is false: links in a fixture tree on Windows list as files,
// as they always did.
func (f Files) linkIsDir(string) bool { return false }

func (f Files) readDir(p string) ([]os.DirEntry, error) { return os.ReadDir(f.path(p)) }

func (f Files) replace(p string, perm os.FileMode, data []byte) error {
	return replaceFile(f.path(p), perm, data)
}
