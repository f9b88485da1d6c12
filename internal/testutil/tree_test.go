package testutil

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// SnapshotTree reads back every file WriteTree wrote, at every depth and
// nothing else (an empty directory holds no file); RemoveTree leaves
// nothing of the tree, its root included.
func TestTreeRoundTrip(t *testing.T) {
	root, err := os.MkdirTemp("", "latlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root) // only if RemoveTree failed
	files := map[string]string{
		"top":     "1\n",
		"a/b":     "",
		"a/c/d/e": "deep",
		"sys/devices/system/cpu/cpu0/cpuidle/state0/name": "POLL\n",
		"sys/devices/system/cpu/cpu1/cpuidle/state0/name": "C1\n",
	}
	WriteTree(t, root, files)
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := SnapshotTree(t, root); !maps.Equal(got, files) {
		t.Errorf("snapshot %q, want %q", got, files)
	}
	RemoveTree(root)
	if _, err := os.Lstat(root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after RemoveTree: %v", err)
	}
}
