package knob

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestChoiceFileKernelWrite: a file that is not a regular one is written
// as the kernel's files are, in one write call, and what reaches it for a
// choice file is the bare word, whatever list the journal kept. A FIFO
// stands in for the sysfs file and shows the bytes.
func TestChoiceFileKernelWrite(t *testing.T) {
	root := testutil.TempDir(t)
	dir := filepath.Join(root, "sys/kernel/mm/transparent_hugepage")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "enabled")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := (Files{Root: root}).Write(thpEnabledLoc, backend.FileValue("always [madvise] never\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "madvise\n" {
		t.Fatalf("the kernel file got %q, want the bare word", got)
	}
}
