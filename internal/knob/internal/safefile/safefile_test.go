package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestSizeName(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 1024: "1 KiB", 1536: "1536 bytes", 4 << 10: "4 KiB", 32 << 20: "32 MiB", 64<<10 + 1: "65537 bytes"} {
		if got := SizeName(n); got != want {
			t.Errorf("SizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadLimited(t *testing.T) {
	p := filepath.Join(testutil.TempDir(t), "f")
	for _, c := range []struct {
		size, limit int
		tooLarge    bool
	}{{0, 4, false}, {4, 4, false}, {5, 4, true}} {
		if err := os.WriteFile(p, make([]byte, c.size), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadLimited(f, "f", int64(c.limit))
		f.Close()
		var tl *TooLargeError
		if got := errors.As(err, &tl); got != c.tooLarge || (!c.tooLarge && len(b) != c.size) {
			t.Errorf("%d bytes, limit %d: %d bytes, %v", c.size, c.limit, len(b), err)
		}
		if c.tooLarge && err.Error() != "f is over 4 bytes, the most latlab reads" {
			t.Errorf("error %q", err)
		}
	}
}
