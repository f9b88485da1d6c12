// Package safefile holds what the knob journal and the Files backend
// share: bounded reads of files others may have planted, and the sync
// that makes a replaced file durable. It is internal to internal/knob.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Durable is false only in the in-process crash tests of the knob
// packages, which simulate thousands of crashes and check logic, not the
// disk: Sync then does nothing. The process tests run with it on.
var Durable = true

// Sync flushes f to the disk (when Durable).
func Sync(f *os.File) error {
	if !Durable {
		return nil
	}
	return f.Sync()
}

// Info is what latlab asks of an open file before it reads or replaces
// it (Stat).
type Info struct {
	Size    int64
	Regular bool        // os.FileMode.IsRegular
	Perm    fs.FileMode // os.FileMode.Perm
}

// TooLargeError is a file over the size latlab reads.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is over %s, the most latlab reads", e.Path, SizeName(e.Limit))
}

// ReadLimited reads f to its end, refusing more than limit bytes (by its
// size first, so a huge file is not read at all) with a *TooLargeError;
// path names f in errors.
func ReadLimited(f *os.File, path string, limit int64) ([]byte, error) {
	if st, err := Stat(f); err == nil && st.Size > limit {
		return nil, &TooLargeError{path, limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{path, limit}
	}
	return b, nil
}

// SizeName writes a size limit exactly: in whole MiB or KiB where it is
// one, else in bytes.
func SizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
