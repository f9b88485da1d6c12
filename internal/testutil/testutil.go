// Package testutil holds helpers shared by latlab's tests.
package testutil

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TempDir is t.TempDir that also works under Wine, whose NT layer lacks
// what os.RemoveAll uses there: the tree is removed file by file instead.
// Under scripts/wine/exec (WineScratchEnv set) the directory is made in
// the scratch directory exec removes after the binary exits, and left.
func TempDir(t testing.TB) string {
	t.Helper()
	if scratch := os.Getenv(WineScratchEnv); scratch != "" && UnderWine() {
		d, err := os.MkdirTemp(scratch, "latlab-test-")
		if err != nil {
			t.Fatalf("%s: %v", WineScratchEnv, err)
		}
		return d
	}
	d, err := os.MkdirTemp("", "latlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { RemoveTree(d) })
	return d
}

// WineScratchEnv names a directory scripts/wine/exec makes for each
// program it runs under Wine and removes with one rm -r on the Linux
// side once the program has exited. Removing a tree through Wine takes
// a listing per directory and a deletion per entry, each a round trip
// to the wineserver: done after every test, it was a third of the knob
// tests' time under Wine.
const WineScratchEnv = "LATLAB_WINE_SCRATCH"

// RemoveTree removes a directory tree entry by entry (os.Remove, or
// RemoveDirectory on Windows), deepest first.
func RemoveTree(root string) {
	type entry struct {
		path string
		dir  bool
	}
	var ents []entry
	_ = walkTree(root, func(p string, dir bool, err error) error {
		ents = append(ents, entry{p, dir})
		return nil
	})
	slices.Reverse(ents)
	for _, e := range ents {
		remove(e.path, e.dir)
	}
}

// Required reports whether tests must not skip for a missing tool or
// privilege: the project's test script sets LATLAB_REQUIRE_ALL=1 after
// installing everything, so nothing is skipped silently in CI.
func Required() bool { return os.Getenv("LATLAB_REQUIRE_ALL") == "1" }

// NeedTool returns the path of an external program, skipping the test when
// it is missing outside CI and failing it inside.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if Required() {
			t.Fatalf("%s is required (LATLAB_REQUIRE_ALL=1) but not installed", name)
		}
		t.Skipf("%s not installed; scripts/test installs it", name)
	}
	return p
}

// NeedRoot skips (or, in CI, fails) a test that needs root.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		if Required() {
			t.Fatal("this test needs root (LATLAB_REQUIRE_ALL=1)")
		}
		t.Skip("needs root; CI runs as root")
	}
}

// SnapshotTree reads every file of the tree under root: slash-separated
// path below root -> content, the form WriteTree takes, so a test can
// compare a tree with what it was, byte for byte.
func SnapshotTree(t testing.TB, root string) map[string]string {
	t.Helper()
	s := map[string]string{}
	err := walkTree(root, func(p string, dir bool, err error) error {
		if err != nil {
			return err
		}
		if !dir {
			b, err := readFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			s[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readFile is os.ReadFile without its Stat for the size: under Wine that
// Stat (GetFileInformationByHandleEx) costs four times the open and the
// read together, and the knob tests snapshot trees of a hundred files
// hundreds of times.
func readFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteTree writes files (slash-separated path under root -> content)
// with their directories: a fixture tree shaped like /proc and /sys, or
// a registry export's folder.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// SerialEnv is set to 1 by scripts/test's serial tier, which runs the
// tests that judge scheduling alone, after the parallel runs:
//
//	LATLAB_SERIAL_TESTS=1 go test -p 1 -count=1 -run 'Serial$' ./...
const SerialEnv = "LATLAB_SERIAL_TESTS"

// Serial marks a test that judges how the OS scheduled threads (who held
// a CPU while a wake-up waited, how late it came). Beside other packages'
// tests on a 2-CPU machine their threads become part of the answer, so
// such a test runs only in the serial tier; elsewhere (go test ./..., the
// race run) it skips and says where it runs, also under
// LATLAB_REQUIRE_ALL=1: it is not missing a tool, it runs in a later step.
// Its name ends in "Serial", which is how the tier's -run finds it.
func Serial(t testing.TB) {
	t.Helper()
	if name, _, _ := strings.Cut(t.Name(), "/"); !strings.HasSuffix(name, "Serial") {
		t.Fatalf("%s judges scheduling: its name must end in Serial, or scripts/test's serial tier (-run 'Serial$') never runs it", name)
	}
	if os.Getenv(SerialEnv) != "1" {
		t.Skipf("judges scheduling: runs alone in scripts/test's serial tier (%s=1 go test -p 1 -run 'Serial$' ./...), not beside other packages' tests", SerialEnv)
	}
}

// WineIOIncomplete reports whether msg is Wine's WSA_IO_INCOMPLETE (996,
// "Overlapped I/O incomplete") from a socket read, under Wine only.
//
// A test may try again on it, because it is Wine's fault, not the code's:
// Go's internal/poll asks WSAGetOverlappedResult for a read's result only
// after the completion port delivered the read's completion, and Windows
// stores an operation's status before it queues the completion, so the
// status cannot still be pending then. Under Wine, under load, it
// sometimes is: net tcp-discard's wait for the sink's reply (a plain read
// after CloseWrite, with no deadline and no cancellation that could leave
// it incomplete) failed so in one of several full runs, and never in 300
// transfers in a row, nor in 4,000 by a plain Go net client (4 at a
// time), under stress-ng.
func WineIOIncomplete(msg string) bool {
	return UnderWine() && strings.Contains(msg, "Overlapped I/O incomplete")
}
