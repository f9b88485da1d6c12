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

// The readers of a --root tree (timer status, host facts, irq watch)
// follow a link only while it stays inside the tree: a link to a
// root-only file outside is refused, so its content is never shown.
func TestOpenFollowsOnlyInsideLinks(t *testing.T) {
	base := testutil.TempDir(t)
	tree := filepath.Join(base, "tree")
	testutil.WriteTree(t, tree, map[string]string{"sys/devices/cs/current_clocksource": "tsc\n"})
	testutil.WriteTree(t, base, map[string]string{"shadow": "root:$6$secret\n"})
	os.MkdirAll(filepath.Join(tree, "sys/class"), 0o755)
	os.Symlink("../devices/cs", filepath.Join(tree, "sys/class/cs"))
	os.Symlink(filepath.Join(base, "shadow"), filepath.Join(tree, "sys/class/abs"))
	os.Symlink("../../../shadow", filepath.Join(tree, "sys/class/rel"))
	os.MkdirAll(filepath.Join(tree, "proc"), 0o755)
	os.Symlink("/proc/self", filepath.Join(tree, "proc/self"))
	if b, err := ReadFile(tree, "/sys/class/cs/current_clocksource"); err != nil || string(b) != "tsc\n" {
		t.Errorf("inside link: %q %v", b, err)
	}
	for _, p := range []string{"sys/class/abs", "sys/class/rel", "proc/self/status"} {
		b, err := ReadFile(tree, p)
		var le *LinkError
		if err == nil || !errors.As(err, &le) {
			t.Errorf("%s: %q %v, want a LinkError", p, b, err)
		}
	}
	if b, err := ReadFile("/", "/proc/self/status"); err != nil || len(b) == 0 {
		t.Errorf("the host's /proc: %v", err)
	}
}
