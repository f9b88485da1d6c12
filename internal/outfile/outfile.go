// Package outfile is the one way latlab writes an output file (-o, --html,
// --png, --bundle, --histfile, knob export -o...). latlab often runs as
// root in directories other users can write, so an output path is treated
// as hostile: the file is written to a new temporary file beside it,
// created exclusively and never through a link, synced, and renamed over
// the target. The target is never opened, so a link planted there is
// never followed and a FIFO never blocks; a failed or interrupted write
// leaves the old file as it was.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/latlab/latlab/internal/badinput"
)

// File is an output file being written. Nothing is visible at its path
// until Commit; Abort (or a crash) leaves the path as it was.
type File struct {
	path string
	w    io.Writer // the temporary file, or io.Discard for os.DevNull
	sys  sysFile   // nil for os.DevNull
	done bool
}

// isDevNull reports whether path names the null device: writing there is
// the common way to throw a result away, and the device is not replaced.
func isDevNull(path string) bool { return filepath.Clean(path) == os.DevNull }

// Check refuses, before any work, a path Create would refuse, and an
// existing file unless overwrite is set. It is the --force guard.
func Check(path string, overwrite bool) error {
	if path == "" || isDevNull(path) {
		return nil
	}
	exists, err := checkTarget(path)
	if err != nil {
		return err
	}
	if exists && !overwrite {
		return badinput.Errorf("%s exists: add --force to overwrite it", path)
	}
	// The directory may refuse a new file (read-only, /proc, no
	// permission): found by creating the temporary file Create would and
	// removing it, not after the run (try -o under /proc failed only once
	// every block had been measured).
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// Create begins writing path: it checks the directory and the target and
// creates the temporary file. The caller writes, then calls Commit, or
// Abort when the work failed.
func Create(path string) (*File, error) {
	if path == "" {
		return nil, badinput.Errorf("an output file name is empty")
	}
	if isDevNull(path) {
		return &File{path: path, w: io.Discard}, nil
	}
	s, err := create(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, w: s.file(), sys: s}, nil
}

// Name is the path the file is written to.
func (f *File) Name() string { return f.path }

func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("write %s: %w", f.path, os.ErrClosed)
	}
	return f.w.Write(p)
}

// Commit syncs the file and renames it over the target. On an error the
// temporary file is removed and the target is left as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("write %s: %w", f.path, os.ErrClosed)
	}
	f.done = true
	if f.sys == nil {
		return nil
	}
	if err := f.sys.commit(); err != nil {
		f.sys.abort()
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort removes the temporary file; the target is left as it was. It does
// nothing after Commit, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.sys != nil {
		f.sys.abort()
	}
}

// Write writes path with what fill writes, through Create and Commit.
func Write(path string, fill func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// MkdirAll creates the directory path (0755) and what is missing above
// it, for outputs that are a directory of files (--png). On Linux, as
// root, every directory on the way is checked before anything is created
// in it, by the rule Create applies to an output file's directory.
func MkdirAll(path string) error {
	if path == "" {
		return badinput.Errorf("an output directory name is empty")
	}
	return mkdirAll(path)
}

// CheckDir refuses, before any work, a directory MkdirAll would refuse
// to create or write in: the directories of path that exist are checked
// as MkdirAll will check them.
func CheckDir(path string) error {
	if path == "" {
		return badinput.Errorf("an output directory name is empty")
	}
	return checkDir(path)
}

// WriteBytes writes b to path, through Create and Commit.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}

// sysFile is the OS's half: a temporary file in the target's directory.
type sysFile interface {
	file() io.Writer
	commit() error
	abort()
}

// refusal is the one-line error for a target latlab will not replace.
func refusal(path, why string) error {
	return badinput.Errorf("refusing to write %s: %s", path, why)
}

var errNotRegular = errors.New("not a regular file")

func badinputf(format string, a ...any) error { return badinput.Errorf(format, a...) }
