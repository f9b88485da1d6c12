package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// zeros is an endless reader, as /dev/zero is.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestLimitStopsAtTheCap(t *testing.T) {
	z := &zeros{}
	n, err := io.Copy(io.Discard, Limit(z, 1<<20))
	var tl *TooLargeError
	if !errors.As(err, &tl) || n != 1<<20 || tl.Max != 1<<20 {
		t.Fatalf("copied %d, %v", n, err)
	}
	if z.n > 1<<20+64<<10 {
		t.Errorf("read %d bytes from the source for a 1 MiB cap", z.n)
	}
	// Exactly the cap is not too much.
	if b, err := io.ReadAll(Limit(strings.NewReader("abcd"), 4)); err != nil || string(b) != "abcd" {
		t.Errorf("at the cap: %q %v", b, err)
	}
}

func TestOpen(t *testing.T) {
	defer Reset()
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(p, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	SetMax(1024)
	_, err := Open(p)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 2048 || !strings.Contains(err.Error(), "2 KiB, more than the 1 KiB cap") || !strings.Contains(err.Error(), MaxFlag) {
		t.Errorf("2 KiB file under a 1 KiB cap: %v", err)
	}
	SetMax(2048)
	f, err := Open(p)
	if err != nil {
		t.Fatalf("file at the cap: %v", err)
	}
	f.Close()

	_, err = Open(dir)
	if !errors.Is(err, ErrLimit) || err.Error() != "a directory, not a file" {
		t.Errorf("directory: %v", err)
	}
	_, err = Open(os.DevNull)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), SpecialFlag) {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	SetAllowSpecial(true)
	f, err = Open(os.DevNull)
	if err != nil {
		t.Fatalf("%s allowed: %v", os.DevNull, err)
	}
	f.Close()
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A parser may read a file twice (dpcisr, when a report turns out not to
// be UTF-8): File seeks, and the cap counts from the start of the file.
func TestFileSeeks(t *testing.T) {
	defer Reset()
	p := filepath.Join(testutil.TempDir(t), "r.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var _ io.ReadSeeker = f
	if b, err := io.ReadAll(f); err != nil || string(b) != "0123456789" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := f.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "456789" {
		t.Fatalf("after seeking: %q %v", b, err)
	}
	SetMax(8)
	g, err := Open(p)
	if err == nil {
		g.Close()
		t.Fatal("10 bytes under a cap of 8 opened")
	}
}
