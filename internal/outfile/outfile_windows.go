package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// On Windows there is no openat: the target is checked by path, without
// following a link (Lstat reports a symbolic link or junction as a link or
// an irregular file), and the temporary file is created exclusively in its
// folder and renamed over it (MoveFileEx with MOVEFILE_REPLACE_EXISTING,
// which replaces a link rather than following it).
type windowsFile struct {
	path string
	f    *os.File
}

func targetState(path string) (bool, fs.FileMode, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0o644, nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("cannot write %s: %w", path, err)
	}
	m := st.Mode()
	switch {
	case m.IsRegular():
		return true, m.Perm(), nil
	case m&fs.ModeSymlink != 0 || m&fs.ModeIrregular != 0:
		return true, 0, refusal(path, "it is a link (latlab never writes through one; give the real path)")
	case m.IsDir():
		return true, 0, refusal(path, "it is a directory")
	}
	return true, 0, refusal(path, "it is a device or a pipe, "+errNotRegular.Error())
}

func checkTarget(path string) (bool, error) {
	// The folder must exist before any work: Create makes the temporary
	// file there, and a run that measures for minutes must not learn
	// only at its end that it cannot write its result.
	dir := filepath.Dir(filepath.Clean(path))
	if st, err := os.Stat(dir); err != nil {
		return false, badinputf("cannot write %s: %v", path, err)
	} else if !st.IsDir() {
		return false, badinputf("cannot write %s: %s is not a folder", path, dir)
	}
	exists, _, err := targetState(path)
	return exists, err
}

func create(path string) (sysFile, error) {
	if _, _, err := targetState(path); err != nil {
		return nil, err
	}
	clean := filepath.Clean(path)
	f, err := os.CreateTemp(filepath.Dir(clean), "."+filepath.Base(clean)+".latlab-*")
	if err != nil {
		return nil, badinputf("cannot write %s: %v", path, err)
	}
	return &windowsFile{path: path, f: f}, nil
}

func (w *windowsFile) file() io.Writer { return w.f }

func (w *windowsFile) commit() error {
	if err := w.f.Sync(); err != nil {
		return err
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	name := w.f.Name()
	w.f = nil
	if err := os.Rename(name, w.path); err != nil {
		os.Remove(name)
		return fmt.Errorf("rename into place: %w", err)
	}
	return nil
}

func (w *windowsFile) abort() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
		w.f = nil
	}
}

// checkDir has nothing to check before the folder is made: see mkdirAll.
func checkDir(string) error { return nil }

// mkdirAll creates a folder and what is missing above it. Windows has no
// openat to walk a path by descriptors; the files written in it are
// checked one by one by targetState.
func mkdirAll(path string) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	return nil
}
