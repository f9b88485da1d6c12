package winapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The generated code does not depend on the host, so the check runs on
// Linux, where the suite has a go command (a Windows test binary under
// Wine has none).

// generateCommand is doc.go's //go:generate line with -output pointed at
// out, so the check runs exactly what go generate runs.
func generateCommand(t *testing.T, out string) []string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		args, ok := strings.CutPrefix(line, "//go:generate ")
		if !ok {
			continue
		}
		f := strings.Fields(args)
		for i := range f {
			if f[i] == "-output" && i+1 < len(f) {
				f[i+1] = out
				return f
			}
		}
		t.Fatalf("doc.go's //go:generate line has no -output: %s", line)
	}
	t.Fatal("doc.go has no //go:generate line")
	return nil
}

func TestGeneratedFileIsCurrent(t *testing.T) {
	out := filepath.Join(testutil.TempDir(t), "zsyscall_windows.go")
	args := generateCommand(t, out)
	cmd := exec.Command(testutil.NeedTool(t, args[0]), args[1:]...)
	// Without the suite's -trimpath: mkwinsyscall built with it finds no
	// GOROOT and takes latlab's package for one of the standard library's
	// (it then imports internal/syscall/windows/sysdll).
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zsyscall_windows.go")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("zsyscall_windows.go is not what syscall_windows.go generates (run go generate ./internal/winapi); line %d:\n have %q\n want %q", i+1, g, w)
		}
	}
}
