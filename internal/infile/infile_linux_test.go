package infile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

// A FIFO is refused before it is opened: opening it would wait for a
// writer that never comes.
func TestOpenFIFO(t *testing.T) {
	p := filepath.Join(testutil.TempDir(t), "fifo")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	_, err := Open(p)
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Kind != "a named pipe" {
		t.Fatalf("FIFO: %v", err)
	}
}

// A regular file is read with raw read calls (read_linux.go), in pieces
// of any size, to the same bytes, the cap still applying, and a read of a
// closed file fails.
func TestRegularFileReadRaw(t *testing.T) {
	want := make([]byte, 300<<10+7)
	for i := range want {
		want[i] = byte(i * 7)
	}
	p := filepath.Join(testutil.TempDir(t), "f")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.l.r.(*rawReader); !ok {
		t.Fatalf("reader %T, want *rawReader", f.l.r)
	}
	var got []byte
	buf := make([]byte, 100<<10+3)
	for {
		n, err := f.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the file's %d", len(got), len(want))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	f.l.max = 1000
	if b, err := io.ReadAll(f); len(b) != 1000 || !errors.As(err, new(*TooLargeError)) {
		t.Fatalf("capped read: %d bytes, %v", len(b), err)
	}
	f.Close()
	if _, err := f.Read(buf); err == nil {
		t.Fatal("read of a closed file: no error")
	}
}
