package infile

import (
	"errors"
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
