package knob

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/rootfs"
	"github.com/latlab/latlab/internal/testutil"
)

// The --root attacks of issue 26: a fixture tree another user can shape
// must not lead a read or a write out of itself. Each case builds a tree
// whose proc/sys/net/ipv4/tcp_dsack is reached through a link: set must
// refuse and leave the outside file as it was, get must not show it.
func TestRootLinksAreNotFollowed(t *testing.T) {
	for _, c := range []struct {
		name string
		link func(t *testing.T, tree, outside string) // makes the link
	}{
		// proc/sys/net/ipv4 -> a directory outside (root's /victimdir).
		{"directory link", func(t *testing.T, tree, outside string) {
			mkdir(t, filepath.Join(tree, "proc/sys/net"))
			symlink(t, outside, filepath.Join(tree, "proc/sys/net/ipv4"))
		}},
		// proc/sys -> the real /proc/sys, here a harmless stand-in with
		// its shape.
		{"proc/sys link", func(t *testing.T, tree, outside string) {
			fake := filepath.Dir(filepath.Dir(outside)) // .../sys (net/ipv4 below)
			mkdir(t, filepath.Join(tree, "proc"))
			symlink(t, fake, filepath.Join(tree, "proc/sys"))
		}},
		// The setting file itself a link to a root-only file.
		{"file link", func(t *testing.T, tree, outside string) {
			mkdir(t, filepath.Join(tree, "proc/sys/net/ipv4"))
			symlink(t, filepath.Join(outside, "tcp_dsack"), filepath.Join(tree, "proc/sys/net/ipv4/tcp_dsack"))
		}},
		// A relative link climbing out of the tree.
		{"relative link", func(t *testing.T, tree, outside string) {
			mkdir(t, filepath.Join(tree, "proc/sys/net/ipv4"))
			rel, err := filepath.Rel(filepath.Join(tree, "proc/sys/net/ipv4"), filepath.Join(outside, "tcp_dsack"))
			if err != nil {
				t.Fatal(err)
			}
			symlink(t, rel, filepath.Join(tree, "proc/sys/net/ipv4/tcp_dsack"))
		}},
	} {
		for _, walk := range []bool{false, true} {
			name := c.name
			if walk {
				name += " (no openat2)"
			}
			t.Run(name, func(t *testing.T) {
				if walk {
					forceRootfsWalk(t)
				}
				base := testutil.TempDir(t)
				outside := filepath.Join(base, "victim", "sys", "net", "ipv4")
				mkdir(t, outside)
				// A value tcp-dsack holds, so that only the link stops set.
				const secret = "1\n"
				if err := os.WriteFile(filepath.Join(outside, "tcp_dsack"), []byte(secret), 0o600); err != nil {
					t.Fatal(err)
				}
				tree := filepath.Join(base, "tree")
				mkdir(t, tree)
				c.link(t, tree, outside)
				state := filepath.Join(base, "state")

				r, err := RunGet(context.Background(), GetOptions{Knob: "tcp-dsack", Root: tree})
				if err == nil {
					for _, it := range r.Items {
						if it.Value == "1" {
							t.Errorf("get shows the file outside the tree: %+v", it)
						}
					}
				}
				_, err = RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: tree, StateDir: state})
				if err == nil || !strings.Contains(err.Error(), "symbolic link or out of the tree") {
					t.Errorf("set through the link: %v", err)
				}
				if b, _ := os.ReadFile(filepath.Join(outside, "tcp_dsack")); string(b) != secret {
					t.Fatalf("the file outside the tree became %q", b)
				}
			})
		}
	}
}

// Running as root, a tree another user owns is refused outright: its
// files are what latlab would journal and restore.
func TestRootTreeOfAnotherUserRefused(t *testing.T) {
	testutil.NeedRoot(t)
	tree := testutil.TempDir(t)
	testutil.WriteTree(t, tree, map[string]string{"proc/sys/net/ipv4/tcp_dsack": "1\n"})
	if err := os.Chown(tree, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: tree, StateDir: filepath.Join(testutil.TempDir(t), "st")})
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("set: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(tree, "proc/sys/net/ipv4/tcp_dsack")); string(b) != "1\n" {
		t.Errorf("tcp_dsack became %q", b)
	}
	if err := os.Chown(tree, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := RunSet(context.Background(), SetOptions{Knob: "tcp-dsack", Value: "0", Root: tree, StateDir: filepath.Join(testutil.TempDir(t), "st")}); err != nil {
		t.Errorf("root's own tree: %v", err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func forceRootfsWalk(t *testing.T) { t.Cleanup(rootfs.UseWalk()) }
