package safefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Stat answers as os.File.Stat does for what the knob code opens: plain
// files (writable, read-only, empty), a directory, a pipe and, where
// Windows makes one, a link followed to its file.
func TestStatAsOS(t *testing.T) {
	dir := testutil.TempDir(t)
	open := map[string]func() (*os.File, error){}
	file := func(name string, data string, perm os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := file("plain", "hello", 0o644)
	open["plain"] = func() (*os.File, error) { return os.Open(plain) }
	empty := file("empty", "", 0o644)
	open["empty"] = func() (*os.File, error) { return os.Open(empty) }
	ro := file("read-only", "0123456789", 0o444)
	t.Cleanup(func() { os.Chmod(ro, 0o644) })
	open["read-only"] = func() (*os.File, error) { return os.Open(ro) }
	open["directory"] = func() (*os.File, error) { return os.Open(dir) }
	open["pipe"] = func() (*os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			t.Cleanup(func() { w.Close() })
		}
		return r, err
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(plain, link); err != nil {
		t.Logf("no symbolic link (%v): it needs the privilege or developer mode", err)
	} else if f, err := os.Open(link); err != nil && testutil.UnderWine() {
		t.Logf("Wine made a link it cannot open: %v", err) // Wine 8
	} else {
		if err == nil {
			f.Close()
		}
		open["link"] = func() (*os.File, error) { return os.Open(link) }
	}
	for name, o := range open {
		f, err := o()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Stat(f)
		st, oerr := f.Stat()
		f.Close()
		if err != nil || oerr != nil {
			t.Fatalf("%s: Stat %v, os.File.Stat %v", name, err, oerr)
		}
		want := Info{Size: st.Size(), Regular: st.Mode().IsRegular(), Perm: st.Mode().Perm()}
		if st.IsDir() {
			want.Size = got.Size // a directory's size means nothing
		}
		if got != want {
			t.Errorf("%s: %+v, os.File.Stat says %+v", name, got, want)
		}
	}
}
