package rootfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestOpenBeneath(t *testing.T) {
	for _, walk := range []bool{false, true} {
		if walk {
			t.Cleanup(UseWalk())
		}
		base := testutil.TempDir(t)
		tree := filepath.Join(base, "tree")
		testutil.WriteTree(t, tree, map[string]string{"proc/sys/a": "in\n"})
		testutil.WriteTree(t, base, map[string]string{"out/a": "out\n"})
		os.Symlink(filepath.Join(base, "out"), filepath.Join(tree, "proc/linked"))
		os.Symlink("../../../out/a", filepath.Join(tree, "proc/sys/up"))
		os.Symlink("a", filepath.Join(tree, "proc/sys/inside"))
		tr, err := OpenTree(tree)
		if err != nil {
			t.Fatal(err)
		}
		f, err := tr.Open("/proc/sys/a", os.O_RDONLY)
		if err != nil {
			t.Fatalf("walk %v: %v", walk, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "in\n" {
			t.Errorf("walk %v: read %q", walk, b)
		}
		for _, p := range []string{"/proc/linked/a", "proc/sys/up", "proc/sys/inside", "proc/../../out/a"} {
			f, err := tr.Open(p, os.O_RDONLY)
			if err == nil {
				f.Close()
				t.Errorf("walk %v: %s opened", walk, p)
			}
			var le *LinkError
			if p != "proc/../../out/a" && !errors.As(err, &le) {
				t.Errorf("walk %v: %s: %v, want a LinkError", walk, p, err)
			}
		}
		if _, err := tr.Open("proc/none", os.O_RDONLY); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("walk %v: missing file: %v", walk, err)
		}
		tr.Close()
	}
}
