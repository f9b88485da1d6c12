package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemp fails on a temporary file left behind in dir.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Name(), ".latlab-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteReplaces(t *testing.T) {
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, "out.json")
	if err := WriteBytes(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Check(p, false); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Check without overwrite: %v", err)
	}
	if err := Check(p, true); err != nil {
		t.Errorf("Check with overwrite: %v", err)
	}
	if err := WriteBytes(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("got %q", got)
	}
	noTemp(t, dir)
}

// A write that fails halfway (a full disk, an error in the renderer)
// leaves the old file as it was: it used to be truncated first.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, "report.html")
	if err := os.WriteFile(p, []byte("earlier report"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("no space left on device")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "<!DOCTYPE html> half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if got := read(t, p); got != "earlier report" {
		t.Errorf("old file became %q", got)
	}
	noTemp(t, dir)
	// Abandoned without Commit (the work stopped): the same.
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "partial")
	f.Abort()
	if got := read(t, p); got != "earlier report" {
		t.Errorf("old file became %q", got)
	}
	noTemp(t, dir)
}

// The mode of a replaced file is kept: a private result stays private.
func TestReplaceKeepsMode(t *testing.T) {
	if isWindows {
		t.Skip("no Unix modes")
	}
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, "private.json")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(p, []byte("y")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
}

// A path naming a directory with a trailing separator is the directory,
// not a file inside it.
func TestTrailingSeparatorIsTheDirectory(t *testing.T) {
	dir := testutil.TempDir(t)
	sub := filepath.Join(dir, "out")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(sub+string(filepath.Separator), []byte("x")); err == nil || !badinput.Is(err) {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, "out")); err == nil {
		t.Errorf("wrote out/out")
	}
}

func TestDevNull(t *testing.T) {
	if err := Check(os.DevNull, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(os.DevNull, []byte("gone")); err != nil {
		t.Fatal(err)
	}
}

// The --force guard runs before a measurement: a file in a folder that
// does not exist (or a "folder" that is a file) is bad input then, not
// after minutes of measuring. Windows accepted both until Create.
func TestCheckRefusesMissingFolder(t *testing.T) {
	dir := testutil.TempDir(t)
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "no-such-dir", "out.json"), filepath.Join(file, "out.json")} {
		err := Check(p, true)
		if !badinput.Is(err) || !strings.Contains(err.Error(), "cannot write "+p) {
			t.Errorf("Check(%s): %v, want bad input naming the file", p, err)
		}
	}
}
