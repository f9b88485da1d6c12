// Package infile opens the files latlab reads as input (result documents,
// xperf reports, INFs) so that no path can make a reader run without bound:
// a regular file larger than the cap is refused before a byte is read, a
// reader stops at the cap should the file grow meanwhile, and FIFOs,
// devices and sockets (/dev/zero, /dev/stdin) are refused unless the user
// allows special files. The cap and the permission are process-wide: the
// command line sets them once from --max-input-size and
// --allow-special-files, and every reader below the command line obeys
// them without being told.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/latlab/latlab/internal/units"
)

// DefaultMax is the default cap on one input file. The largest document
// latlab writes (a million raw samples) is a few tens of MB.
const DefaultMax int64 = 1 << 30

// The flags that raise the limits; errors name them.
const (
	MaxFlag     = "--max-input-size"
	SpecialFlag = "--allow-special-files"
)

var (
	maxSize      atomic.Int64
	allowSpecial atomic.Bool
)

func init() { maxSize.Store(DefaultMax) }

// Max is the cap on one input file, in bytes.
func Max() int64 { return maxSize.Load() }

// SetMax sets the cap; n <= 0 restores the default.
func SetMax(n int64) {
	if n <= 0 {
		n = DefaultMax
	}
	maxSize.Store(n)
}

// AllowSpecial reports whether FIFOs, devices and sockets may be read.
func AllowSpecial() bool { return allowSpecial.Load() }

// SetAllowSpecial allows or refuses reading non-regular files.
func SetAllowSpecial(b bool) { allowSpecial.Store(b) }

// Reset restores the defaults: the cap DefaultMax, special files refused.
func Reset() {
	SetMax(DefaultMax)
	SetAllowSpecial(false)
}

// TooLargeError is an input above the cap.
type TooLargeError struct {
	Size int64 // the file's size; -1 when reading stopped at the cap
	Max  int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("more than the %s cap on input files (%s raises it)", units.Size(e.Max), MaxFlag)
	}
	size, limit := aboveCap(e.Size, e.Max)
	return fmt.Sprintf("%s, more than the %s cap on input files (%s raises it)", size, limit, MaxFlag)
}

// aboveCap writes size and max (size > max) so that the size reads larger
// than the cap. Rounded to one decimal, as units.Size writes them, both
// can read "1 GiB" (a 1 100 002 004-byte file under the 1 GiB cap), and
// "1 MiB" reads no larger than "1024 KiB"; so the decimals grow, to three,
// until the size reads larger, and when even three hide the difference
// both are written in bytes.
func aboveCap(size, max int64) (string, string) {
	for d := 1; d <= 3; d++ {
		s, sv := units.SizeDecimals(size, d)
		m, mv := units.SizeDecimals(max, d)
		if sv > mv {
			return s, m
		}
	}
	return strconv.FormatInt(size, 10) + " B", strconv.FormatInt(max, 10) + " B"
}

// NotRegularError is a path that names something other than a regular file.
type NotRegularError struct {
	Kind string // "a directory", "a character device", ...
}

func (e *NotRegularError) Error() string {
	if e.Kind == "a directory" {
		return "a directory, not a file"
	}
	return fmt.Sprintf("%s, not a regular file (%s reads it)", e.Kind, SpecialFlag)
}

// ErrLimit matches both errors with errors.Is, for callers that only need
// to know that a limit, not the file's content, stopped the read.
var ErrLimit = errors.New("input limit")

func (e *TooLargeError) Is(target error) bool   { return target == ErrLimit }
func (e *NotRegularError) Is(target error) bool { return target == ErrLimit }

// Check says whether path may be read: it must be a regular file no larger
// than the cap, or (when allowed) a special file; a directory never.
// Symbolic links are followed, as they are when the file is opened.
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(st)
}

func check(st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsDir():
		return &NotRegularError{Kind: "a directory"}
	case m.IsRegular():
		if st.Size() > Max() {
			return &TooLargeError{Size: st.Size(), Max: Max()}
		}
		return nil
	case AllowSpecial():
		return nil
	}
	return &NotRegularError{Kind: kind(m)}
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// File is an input file open for reading, bounded by the cap.
type File struct {
	f *os.File
	l *limited
}

// Open opens path for reading after Check. The type is checked before the
// open (opening a FIFO blocks until a writer comes) and again after it, on
// the file actually opened.
func Open(path string) (*File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = check(st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, l: &limited{r: f, max: Max()}}, nil
}

// Read reads up to the cap; beyond it, it returns a *TooLargeError.
func (f *File) Read(p []byte) (int, error) { return f.l.Read(p) }

// Seek moves in the file (a parser that must read it twice); the cap
// counts from the start of the file.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	pos, err := f.f.Seek(offset, whence)
	if err == nil {
		f.l.pos = pos
	}
	return pos, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Limit returns a reader of r that fails with a *TooLargeError once r
// holds more than max bytes (io.LimitReader would end quietly instead, and
// a truncated document could be taken for a whole one).
func Limit(r io.Reader, max int64) io.Reader { return &limited{r: r, max: max} }

type limited struct {
	r   io.Reader
	pos int64 // bytes before the next one read
	max int64
}

func (l *limited) Read(p []byte) (int, error) {
	left := l.max - l.pos // bytes that may still be returned
	if left < 0 {
		return 0, &TooLargeError{Size: -1, Max: l.max}
	}
	// Ask for one byte more than may be returned, to see whether there is more.
	if int64(len(p)) > left+1 {
		p = p[:left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > left {
		l.pos = l.max + 1
		return int(left), &TooLargeError{Size: -1, Max: l.max}
	}
	l.pos += int64(n)
	return n, err
}
