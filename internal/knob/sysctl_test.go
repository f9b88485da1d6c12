package knob

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// sysctlEnv is an Env over a tree holding files (path -> content), as a
// kernel prints them; a "" content leaves the file out. The tree holds
// the directories every kernel has (anchors, absence.go), as a kernel's
// /proc and /sys do: a file left out is one the kernel lacks.
func sysctlEnv(t testing.TB, files map[string]string) (*Env, string) {
	t.Helper()
	root := testutil.TempDir(t)
	fs := map[string]string{}
	for p, c := range files {
		if c != "" {
			fs[p] = c
		}
	}
	testutil.WriteTree(t, root, fs)
	mkAnchors(t, root)
	return &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}, root
}

// mkAnchors makes the anchors' directories under root.
func mkAnchors(t testing.TB, root string) {
	t.Helper()
	for _, a := range anchors {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(a)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// sysctlWith is files with changes over it ("" deletes).
func sysctlWith(files map[string]string, changes map[string]string) map[string]string {
	out := maps.Clone(files)
	maps.Copy(out, changes)
	return out
}

// sysctlChanges is a plan's writes as "path=value" in order.
func sysctlChanges(p *Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Loc.Path+"="+strings.TrimSpace(string(c.New.Data)))
	}
	return out
}

// sysctlBadInput checks err is an input error of one line holding want.
func sysctlBadInput(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: %v, want an input error containing %q", what, err, want)
	}
}

// sysctlFailWrite is a file backend whose write number n fails, as the kernel
// refuses a value (EINVAL) that passed every check before.
type sysctlFailWrite struct {
	backend.Files
	n, count int
}

func (f *sysctlFailWrite) Write(l backend.Loc, v backend.Value) error {
	f.count++
	if f.count == f.n {
		return errors.New("invalid argument")
	}
	return f.Files.Write(l, v)
}
