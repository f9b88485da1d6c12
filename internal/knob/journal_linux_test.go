package knob

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
	j, err := OpenJournal(dir)
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
		j, err := OpenJournal(dir)
		if err != nil {
			t.Fatal(err)
		}
		j.add([]Entry{{Knob: "tcp-dsack", Loc: dsackLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("0\n"), State: StateApplied}})
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
		{"journal of another user", JournalFile, 1000, 0o600, "refusing file %s/journal.json: owned by uid 1000"},
		{"journal others may write", JournalFile, 0, 0o666, "refusing file %s/journal.json: writable by group or others"},
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
			_, err := OpenJournal(dir)
			fix := "fix: chmod go-w " + p
			if c.uid != 0 {
				fix = "fix: chown root " + p
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fix) {
				t.Errorf("open: %v, want %q", err, want)
			}
			if c.file != LockFile {
				if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), want) {
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
	if _, err := OpenJournal(dir); err == nil || !strings.Contains(err.Error(), "journal.lock is a symbolic link") {
		t.Fatalf("open with a planted lock link: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the link's target was created")
	}

	dir = testutil.TempDir(t)
	os.WriteFile(target, []byte(`{"version":1,"next_id":1,"next_set":1,"entries":[]}`), 0o600)
	if err := os.Symlink(target, filepath.Join(dir, JournalFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), "journal.json is a symbolic link") {
		t.Fatalf("read through a journal link: %v", err)
	}
	if _, err := OpenJournal(dir); err == nil || !strings.Contains(err.Error(), "journal.json is a symbolic link") {
		t.Fatalf("open through a journal link: %v", err)
	}
}

// A FIFO planted as the journal or as a setting file is refused at once
// instead of blocking the reader forever.
func TestFIFORefused(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := unix.Mkfifo(filepath.Join(dir, JournalFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), "journal.json is not a regular file") {
		t.Fatalf("read of a FIFO journal: %v", err)
	}
	root := linuxTree(t)
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")
	os.Remove(p)
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Files{Root: root}).Read(dsackLoc); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("read of a FIFO setting file: %v", err)
	}
}
