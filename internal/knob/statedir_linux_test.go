package knob

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/testutil"
)

// The state directory attacks of issue 26: a state directory that is a
// link is refused (set wrote the journal wherever the link pointed), and a
// revert that finds no journal (a link repointed since the set, a
// mistyped --state-dir) says so and fails instead of reporting every
// change undone.
func TestStateDirLinkRefused(t *testing.T) {
	root := linuxTree(t)
	base := testutil.TempDir(t)
	real := filepath.Join(base, "etc-like")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "st")
	symlink(t, real, link)
	_, err := RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: root, StateDir: link})
	if err == nil || !strings.Contains(err.Error(), "refusing state directory "+link+": it is a symbolic link") {
		t.Fatalf("set through a state directory link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(real, journal.File)); err == nil {
		t.Errorf("a journal was written where the link points")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")); string(b) != "1\n" {
		t.Errorf("tcp_dsack became %q with the state directory refused", b)
	}
	// A dangling link is not a directory to create.
	dangling := filepath.Join(base, "dangling")
	symlink(t, filepath.Join(base, "made"), dangling)
	if _, err := RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: root, StateDir: dangling}); err == nil {
		t.Errorf("set through a dangling state directory link succeeded")
	}
	if _, err := os.Lstat(filepath.Join(base, "made")); err == nil {
		t.Errorf("the dangling link's target was created")
	}
}

func TestRevertWithoutJournalFails(t *testing.T) {
	root := linuxTree(t)
	base := testutil.TempDir(t)
	state := filepath.Join(base, "state")
	if _, err := RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: root, StateDir: state}); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	symlink(t, empty, link) // the link repointed after the set
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(base, "sate"), "no journal in " + filepath.Join(base, "sate") + ": latlab recorded no change there"},
		{empty, "no journal in " + empty},
		{link, "it is a symbolic link"},
	} {
		res, err := RunRevert(context.Background(), RevertOptions{All: true, Root: root, StateDir: c.dir})
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil && len(res.Steps) > 0 {
			t.Errorf("revert --all --state-dir %s: %v, want %q", c.dir, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "sate")); err == nil {
		t.Errorf("revert created the mistyped state directory")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")); string(b) != "0\n" {
		t.Errorf("tcp_dsack %q", b)
	}
	// The right one still reverts.
	if _, err := RunRevert(context.Background(), RevertOptions{All: true, Root: root, StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")); string(b) != "1\n" {
		t.Errorf("tcp_dsack %q after revert", b)
	}
}
