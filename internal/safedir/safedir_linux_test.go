package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

func sameDir(t *testing.T, fd int, path string) bool {
	t.Helper()
	var a unix.Stat_t
	if err := unix.Fstat(fd, &a); err != nil {
		t.Fatal(err)
	}
	var b unix.Stat_t
	if err := unix.Stat(path, &b); err != nil {
		t.Fatal(err)
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// A relative path is walked from the working directory's real path;
// missing directories are created with the modes asked; ".." is taken by
// name; links are followed when not strict, and a loop of links ends.
func TestOpenWalks(t *testing.T) {
	base, err := filepath.EvalSymlinks(testutil.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	fd, err := Open(filepath.Join("a", "b", "..", "c"), Options{Create: true, Perm: 0o750, LastPerm: 0o700})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if !sameDir(t, fd, filepath.Join(base, "a", "c")) {
		t.Error("opened another directory than a/c")
	}
	if _, err := os.Stat(filepath.Join(base, "a", "b")); err == nil {
		t.Error(`"a/b/.." created b`)
	}
	for p, want := range map[string]os.FileMode{"a": 0o750, "a/c": 0o700} {
		if st, err := os.Stat(filepath.Join(base, p)); err != nil || st.Mode().Perm() != want&^umask() {
			t.Errorf("%s: %v %v, want %v", p, st.Mode(), err, want&^umask())
		}
	}
	if err := os.Symlink(filepath.Join(base, "a"), filepath.Join(base, "l")); err != nil {
		t.Fatal(err)
	}
	fd2, err := Open(filepath.Join(base, "l", "c"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd2)
	if !sameDir(t, fd2, filepath.Join(base, "a", "c")) {
		t.Error("the link was not followed")
	}
	os.Symlink("loop2", filepath.Join(base, "loop1"))
	os.Symlink("loop1", filepath.Join(base, "loop2"))
	if _, err := Open(filepath.Join(base, "loop1", "x"), Options{Create: true}); !errors.Is(err, unix.ELOOP) {
		t.Errorf("a loop of links: %v", err)
	}
	os.WriteFile(filepath.Join(base, "file"), nil, 0o600)
	if _, err := Open(filepath.Join(base, "file", "x"), Options{Create: true}); !errors.Is(err, unix.ENOTDIR) {
		t.Errorf("a file on the way: %v", err)
	}
}

func umask() os.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return os.FileMode(m)
}

// Strict: a directory above the last one that another user owns or that
// group or others may write (not sticky) is refused, and so is a link of
// another user's, whatever it points to; nothing is created meanwhile.
func TestOpenStrictAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.TempDir(t)
	os.Chmod(base, 0o755)
	mk := func(name string, mode os.FileMode, uid int) string {
		return testutil.MkdirOwned(t, filepath.Join(base, name), mode, uid)
	}
	nobody := mk("nobody", 0o755, testutil.Nobody)
	group := mk("group", 0o775, 0)
	sticky := mk("sticky", 0o777|os.ModeSticky, 0)
	link := testutil.SymlinkOwned(t, sticky, filepath.Join(base, "link"), testutil.Nobody)
	for _, c := range []struct {
		path string
		want Refusal
	}{
		{filepath.Join(nobody, "x"), Refusal{Dir: nobody, Uid: 65534}},
		{filepath.Join(group, "x"), Refusal{Dir: group, Writable: true}},
		{filepath.Join(link, "x"), Refusal{Dir: link, Link: true, Uid: 65534}},
	} {
		_, err := Open(c.path, Options{Create: true, Strict: true})
		var r *Refusal
		if !errors.As(err, &r) || *r != c.want {
			t.Errorf("%s: %v, want %+v", c.path, err, c.want)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(c.path), "x")); err == nil {
			t.Errorf("%s created", c.path)
		}
	}
	fd, err := Open(filepath.Join(sticky, "x"), Options{Create: true, Perm: 0o755, LastPerm: 0o755, Strict: true})
	if err != nil {
		t.Fatalf("below root's sticky directory: %v", err)
	}
	unix.Close(fd)
}
