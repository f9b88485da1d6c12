package knob

import (
	"os"
	"path/filepath"
	"strings"
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
	if err := (backend.Files{Root: root}).Write(thpEnabledLoc, backend.FileValue("always [madvise] never\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "madvise\n" {
		t.Fatalf("the kernel file got %q, want the bare word", got)
	}
}

// TestRealMMReads reads the memory knobs on this machine (harmless): each
// reads, says what it found, and its Vet accepts what the kernel shows,
// so a set here would never be refused for an original it could not
// restore.
func TestRealMMReads(t *testing.T) {
	env := NewEnv("/")
	for _, name := range []string{"transparent-hugepages", "numa-balancing", "swappiness", "stat-interval", "ksm"} {
		k, _ := Lookup(name)
		r, err := k.Get(env, Selector{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, it := range r.Items {
			if it.Meaning == "" || strings.Contains(it.Meaning, "unreadable") || strings.Contains(it.Meaning, "does not know") {
				t.Errorf("%s %s: %q", name, it.Target, it.Meaning)
			}
			if it.Raw.IsAbsent() {
				continue
			}
			if err := k.Vet("", *it.Loc, *it.Raw); err != nil {
				t.Errorf("%s %s: Vet refuses what the kernel shows (%q): %v", name, it.Target, it.Raw.Data, err)
			}
		}
	}
}
