package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

func TestStateDirCreatedPrivate(t *testing.T) {
	dir := filepath.Join(testutil.TempDir(t), "a", "state")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state directory mode %v (%v), want 0700", st.Mode(), err)
	}
	if st, err := os.Stat(filepath.Join(dir, LockFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode %v (%v), want 0600", st.Mode(), err)
	}
}

// As root, a state directory, journal or lock that another user owns or
// may write is refused: that user would decide what root's revert writes.
func TestStateDirStrictModesAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	fresh := func(t *testing.T) string {
		dir := testutil.TempDir(t)
		j, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		j.Add([]Entry{{Knob: "tcp-dsack", Loc: dsackLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("0\n"), State: StateApplied}})
		if err := j.Save(); err != nil {
			t.Fatal(err)
		}
		j.Close()
		return dir
	}
	for _, c := range []struct {
		name, file string
		uid        int
		mode       os.FileMode
		want       string
	}{
		{"directory of another user", "", 1000, 0o700, "refusing state directory %s: owned by uid 1000"},
		{"directory others may write", "", 0, 0o777, "refusing state directory %s: writable by group or others"},
		{"journal of another user", File, 1000, 0o600, "refusing file %s/journal.json: owned by uid 1000"},
		{"journal others may write", File, 0, 0o666, "refusing file %s/journal.json: writable by group or others"},
		{"lock of another user", LockFile, 1000, 0o600, "refusing file %s/journal.lock: owned by uid 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fresh(t)
			p := filepath.Join(dir, c.file)
			if err := os.Chown(p, c.uid, c.uid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, c.mode); err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(c.want, "%s", dir, 1)
			_, err := Open(dir)
			fix := "fix: chmod go-w " + p
			if c.uid != 0 {
				fix = "fix: chown root " + p
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fix) {
				t.Errorf("open: %v, want %q", err, want)
			}
			if c.file != LockFile {
				if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("read: %v, want %q", err, want)
				}
			}
		})
	}
}

// A symbolic link planted as the lock or the journal is refused, and
// its target is never created.
func TestStateDirSymlinksRefused(t *testing.T) {
	elsewhere := testutil.TempDir(t)
	target := filepath.Join(elsewhere, "created")
	dir := testutil.TempDir(t)
	if err := os.Symlink(target, filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "journal.lock is a symbolic link") {
		t.Fatalf("open with a planted lock link: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the link's target was created")
	}

	dir = testutil.TempDir(t)
	os.WriteFile(target, []byte(`{"version":1,"next_id":1,"next_set":1,"entries":[]}`), 0o600)
	if err := os.Symlink(target, filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "journal.json is a symbolic link") {
		t.Fatalf("read through a journal link: %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "journal.json is a symbolic link") {
		t.Fatalf("open through a journal link: %v", err)
	}
}

// A FIFO planted as the journal is refused at once instead of blocking
// the reader forever.
func TestFIFORefused(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := unix.Mkfifo(filepath.Join(dir, File), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "journal.json is not a regular file") {
		t.Fatalf("read of a FIFO journal: %v", err)
	}
}

// As root, what lies above the state directory is checked as sshd's
// StrictModes checks the directories above authorized_keys: root's and
// not writable by group or others, except a sticky directory of root's
// (/tmp); and no link on the path that another user owns.
func TestStateDirParentsAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	mk := func(t *testing.T, mode os.FileMode, uid int) string {
		parent := filepath.Join(testutil.TempDir(t), "parent")
		if err := os.Mkdir(parent, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(parent, mode)
		os.Chown(parent, uid, uid)
		return filepath.Join(parent, "state")
	}
	for _, c := range []struct {
		name string
		mode os.FileMode
		uid  int
		want string
	}{
		{"root's", 0o755, 0, ""},
		{"sticky like /tmp", 0o777 | os.ModeSticky, 0, ""},
		{"another user's", 0o755, 65534, "is owned by uid 65534"},
		{"another user's, sticky", 0o777 | os.ModeSticky, 65534, "is owned by uid 65534"},
		{"writable by others", 0o777, 0, "is writable by group or others"},
		{"writable by the group", 0o775, 0, "is writable by group or others"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := mk(t, c.mode, c.uid)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			j, err := Open(dir)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				j.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), "the directory above it, "+filepath.Dir(dir)+", "+c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
			if _, err := Read(dir); err == nil {
				t.Errorf("read: no error")
			}
		})
	}
	t.Run("link of another user on the path", func(t *testing.T) {
		base := testutil.TempDir(t)
		real := filepath.Join(base, "real")
		if err := os.MkdirAll(filepath.Join(real, "state"), 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(base, "via")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := Open(filepath.Join(link, "state"))
		if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link owned by uid 65534") {
			t.Errorf("%v", err)
		}
		os.Lchown(link, 0, 0)
		j, err := Open(filepath.Join(link, "state"))
		if err != nil {
			t.Fatalf("root's link: %v", err)
		}
		j.Close()
	})
}

// Issue 40: a state directory asked for through nobody's link, or below a
// directory nobody owns, is refused before root creates anything on the
// way: nothing appears in the link's target nor in nobody's directory.
func TestStateDirCheckedBeforeCreatedAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.TempDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(base, "root-owned")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	n := testutil.MkdirOwned(t, filepath.Join(base, "n"), 0o755, testutil.Nobody)
	link := testutil.SymlinkOwned(t, target, filepath.Join(base, "out"), testutil.Nobody)
	nlink := filepath.Join(n, "out")
	if err := os.Symlink(target, nlink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(link, "a", "b"), link + " is a symbolic link owned by uid 65534"},
		{filepath.Join(nlink, "a", "b"), "the directory above it, " + n + ", is owned by uid 65534"},
		{filepath.Join(n, "a", "b"), "the directory above it, " + n + ", is owned by uid 65534"},
	} {
		if _, err := Open(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s): %v, want %q", c.dir, err, c.want)
		}
	}
	for _, d := range []string{target, n} {
		if ents, err := os.ReadDir(d); err != nil || len(ents) > 1 || len(ents) == 1 && ents[0].Name() != "out" {
			t.Errorf("%s holds %v (%v)", d, ents, err)
		}
	}
}
