package backend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A FIFO planted as a setting file is refused at once instead of
// blocking the reader forever.
func TestFIFORefused(t *testing.T) {
	root := setTree(t)
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")
	os.Remove(p)
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Files{Root: root}).Read(Loc{Backend: BackendFile, Path: "proc/sys/net/ipv4/tcp_dsack"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("read of a FIFO setting file: %v", err)
	}
}
