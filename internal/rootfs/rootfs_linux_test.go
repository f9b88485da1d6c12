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

// OpenFollow reads through a link that stays inside the tree (a real
// sysfs's cpu0/cpufreq -> ../cpufreq/policy0) and refuses one that leaves
// it, an absolute one, and any write.
func TestOpenFollow(t *testing.T) {
	base := testutil.TempDir(t)
	tree := filepath.Join(base, "tree")
	testutil.WriteTree(t, tree, map[string]string{"sys/cpu/cpufreq/policy0/scaling_governor": "powersave\n"})
	testutil.WriteTree(t, base, map[string]string{"out/scaling_governor": "out\n"})
	os.MkdirAll(filepath.Join(tree, "sys/cpu/cpu0"), 0o755)
	os.MkdirAll(filepath.Join(tree, "sys/cpu/cpu1"), 0o755)
	os.Symlink("../cpufreq/policy0", filepath.Join(tree, "sys/cpu/cpu0/cpufreq"))
	os.Symlink("../../../out", filepath.Join(tree, "sys/cpu/cpu1/cpufreq"))
	os.Symlink(filepath.Join(tree, "sys/cpu/cpufreq/policy0"), filepath.Join(tree, "sys/cpu/abs"))
	tr, err := OpenTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, c := range []struct {
		path  string
		flags int
		want  string // "" when refused
	}{
		{"sys/cpu/cpu0/cpufreq/scaling_governor", os.O_RDONLY, "powersave\n"},
		{"sys/cpu/cpu1/cpufreq/scaling_governor", os.O_RDONLY, ""},
		{"sys/cpu/abs/scaling_governor", os.O_RDONLY, ""},
		{"sys/cpu/cpu0/cpufreq/scaling_governor", os.O_WRONLY, ""},
	} {
		f, err := tr.OpenFollow(c.path, c.flags)
		if c.want == "" {
			if err == nil {
				f.Close()
				t.Errorf("%s (flags %#x) opened", c.path, c.flags)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != c.want {
			t.Errorf("%s: %q, want %q", c.path, b, c.want)
		}
	}
}
