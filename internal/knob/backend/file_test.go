package backend

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// setTree is a --root tree with the two files of the tests.
func setTree(t *testing.T) string {
	t.Helper()
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/net/ipv4/tcp_recovery": "1\n",
		"proc/sys/net/ipv4/tcp_dsack":    "1\n",
	})
	return root
}

var recoveryLoc = Loc{Backend: BackendFile, Path: "proc/sys/net/ipv4/tcp_recovery"}

// crash is what a test's write step panics with.
type crash struct{}

// A crash at any step of a write leaves the old or the new content,
// never an empty file (which the next set would record as the original).
func TestFileWriteNeverLosesTheValue(t *testing.T) {
	for _, step := range []string{"opened", "written", "closed", "renamed"} {
		t.Run(step, func(t *testing.T) {
			root := setTree(t)
			f := Files{Root: root}
			fileWriteStep = func(s string) {
				if s == step {
					panic(crash{})
				}
			}
			defer func() { fileWriteStep = nil }()
			func() {
				defer func() {
					if r := recover(); r != nil && r != (crash{}) {
						panic(r)
					}
				}()
				f.Write(recoveryLoc, FileValue("3\n"))
				t.Fatalf("no crash at %s", step)
			}()
			b, err := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery"))
			if err != nil || (string(b) != "1\n" && string(b) != "3\n") {
				t.Fatalf("crash at %s left %q (%v), want the old or the new value", step, b, err)
			}
		})
	}
	root := setTree(t)
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	os.Chmod(p, 0o640)
	if err := (Files{Root: root}).Write(recoveryLoc, FileValue("3\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); runtime.GOOS == "linux" && st.Mode().Perm() != 0o640 { // Windows has no such modes
		t.Errorf("mode after a write %v, want 0640 kept", st.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 2 {
		t.Errorf("files left beside it: %v", ents)
	}
}

// A setting file is read only up to maxFileRead.
func TestFileReadCapped(t *testing.T) {
	root := setTree(t)
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	if err := os.Truncate(p, 1<<30); err != nil { // sparse: nothing is stored
		t.Fatal(err)
	}
	_, err := Files{Root: root}.Read(recoveryLoc)
	if err == nil || !strings.Contains(err.Error(), "over 64 KiB, more than a setting file holds") {
		t.Fatalf("read of a 1 GiB setting file: %v", err)
	}
}
