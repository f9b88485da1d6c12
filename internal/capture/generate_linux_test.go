package capture

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Every file a //go:generate line of this package writes is what that
// line writes now: each line is run with its -output pointed at a
// temporary file, and the two compared. (On Linux, where the suite has a
// go command; the output does not depend on the host.)
func TestGeneratedFilesAreCurrent(t *testing.T) {
	// In parallel with the package's other parallel tests: it waits on
	// go generate's commands, each writing a file of its own.
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go generate's commands")
	}
	srcs, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	n := 0
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			args, ok := strings.CutPrefix(line, "//go:generate ")
			if !ok {
				continue
			}
			f := strings.Fields(args)
			committed := ""
			for i, a := range f {
				if out, ok := strings.CutPrefix(a, "-output="); ok {
					committed = out
					f[i] = "-output=" + filepath.Join(dir, out)
				}
			}
			if committed == "" {
				t.Fatalf("%s: a //go:generate line without -output=: %s", src, line)
			}
			n++
			cmd := exec.Command(testutil.NeedTool(t, f[0]), f[1:]...)
			cmd.Env = append(os.Environ(), "GOFILE="+src, "GOPACKAGE=capture")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", args, err, out)
			}
			want, err := os.ReadFile(filepath.Join(dir, committed))
			if err != nil {
				t.Fatal(err)
			}
			// the header names the command, -output with it
			want = bytes.ReplaceAll(want, []byte(filepath.Join(dir, committed)), []byte(committed))
			got, err := os.ReadFile(committed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what %s generates: run go generate ./internal/capture", committed, src)
			}
		}
	}
	if n < 2 {
		t.Fatalf("%d //go:generate lines: want the Skip and encapBit stringers", n)
	}
}
