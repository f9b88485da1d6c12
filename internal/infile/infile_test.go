package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// The too-large error never shows the size equal to the cap: rounded as
// units.Size rounds, a 1 100 002 004-byte file under the 1 GiB cap would
// read "1 GiB, more than the 1 GiB cap".
func TestTooLargeErrorText(t *testing.T) {
	const tail = " cap on input files (--max-input-size raises it)"
	for _, c := range []struct {
		size, max int64
		want      string
	}{
		{2048, 1024, "2 KiB, more than the 1 KiB"},
		{3 << 29, 1 << 30, "1.5 GiB, more than the 1 GiB"},
		{1_100_002_004, 1 << 30, "1.02 GiB, more than the 1 GiB"},
		{1<<30 + 1<<20, 1 << 30, "1.001 GiB, more than the 1 GiB"},
		{1<<30 + 1, 1 << 30, "1073741825 B, more than the 1073741824 B"},
		{1530, 1500, "1.49 KiB, more than the 1.46 KiB"},
		// Different units that stand for the same bytes: 1 MiB is 1024 KiB.
		{1 << 20, 1<<20 - 1, "1 MiB, more than the 1023.999 KiB"},
		{1 << 20, 1<<20 - 100, "1 MiB, more than the 1023.9 KiB"},
		{1024, 1023, "1 KiB, more than the 1023 B"},
		{1000, 999, "1000 B, more than the 999 B"},
		{-1, 1 << 30, "more than the 1 GiB"},
	} {
		got := (&TooLargeError{Size: c.size, Max: c.max}).Error()
		if got != c.want+tail {
			t.Errorf("%d over %d: %q, want %q", c.size, c.max, got, c.want+tail)
		}
	}
	// Around caps of every size, the size always reads larger than the cap.
	for _, max := range []int64{1000, 1024, 1500, 1<<20 - 1, 1 << 20, 1 << 30, 3 << 29, 5<<40 + 7} {
		for _, over := range []int64{1, 2, 100, 1023, 1024, max / 1000, max / 100, max / 20, max} {
			if over <= 0 {
				continue
			}
			msg := (&TooLargeError{Size: max + over, Max: max}).Error()
			size, limit, ok := strings.Cut(strings.TrimSuffix(msg, tail), ", more than the ")
			if !ok || bytesOf(t, size) <= bytesOf(t, limit) {
				t.Errorf("%d over %d: %q", max+over, max, msg)
			}
		}
	}
}

// bytesOf reads "1.5 KiB" back as 1536.
func bytesOf(t *testing.T, s string) float64 {
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	shift := map[string]int{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}[unit]
	if err != nil || (shift == 0 && unit != "B") {
		t.Fatalf("not a size: %q", s)
	}
	return v * float64(int64(1)<<shift)
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
