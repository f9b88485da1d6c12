package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

const isWindows = false

// The attacks of issue 26 against a path root writes: each is refused with
// one line (bad input) and changes nothing outside.
func TestLinkAttacksRefused(t *testing.T) {
	dir := testutil.TempDir(t)
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "x.json")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "d.json")
	created := filepath.Join(dir, "created-by-root")
	if err := os.Symlink(created, dangling); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path      string
		overwrite bool
	}{{link, true}, {link, false}, {dangling, false}, {dangling, true}} {
		if err := Check(c.path, c.overwrite); !badinput.Is(err) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("Check(%s, %v): %v", c.path, c.overwrite, err)
		}
		if err := WriteBytes(c.path, []byte("<html>")); !badinput.Is(err) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("WriteBytes(%s): %v", c.path, err)
		}
	}
	if got := read(t, victim); got != "precious" {
		t.Errorf("victim became %q", got)
	}
	if _, err := os.Lstat(created); err == nil {
		t.Errorf("the dangling link's target was created")
	}
	noTemp(t, dir)
}

// A FIFO planted as the output used to hang root's latlab in open(): it is
// refused at once, and never opened.
func TestFIFORefusedWithoutHanging(t *testing.T) {
	dir := testutil.TempDir(t)
	fifo := filepath.Join(dir, "out.json")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		done <- Check(fifo, true)
		done <- WriteBytes(fifo, []byte("x"))
	}()
	for range 2 {
		select {
		case err := <-done:
			if !badinput.Is(err) || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
				t.Errorf("err %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("writing to a FIFO hangs")
		}
	}
	st, err := os.Lstat(fifo)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st, err)
	}
}

func TestDirectoryRefused(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := WriteBytes(dir, []byte("x")); !badinput.Is(err) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("err %v", err)
	}
	if err := WriteBytes(filepath.Join(dir, "no", "such"), []byte("x")); !badinput.Is(err) {
		t.Errorf("missing directory: %v", err)
	}
}

// As root, latlab writes only in a directory nobody else can change: not
// one another user owns, nor one group or others may write unless it is
// sticky (like /tmp).
func TestRootDirectoryRules(t *testing.T) {
	saved := euid
	t.Cleanup(func() { euid = saved })
	euid = func() int { return 0 }
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown")
	}
	base := testutil.TempDir(t)
	mk := func(name string, mode os.FileMode, uid int) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, -1); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		dir  string
		want string // "" to be written
	}{
		{mk("mine", 0o755, 0), ""},
		{mk("tmp", 0o777|os.ModeSticky, 0), ""},
		{mk("world", 0o777, 0), "writable by group or others and not sticky; fix: chmod go-w"},
		{mk("group", 0o775, 0), "writable by group or others"},
		{mk("nobody", 0o755, 65534), "belongs to uid 65534"},
		{mk("nobody-tmp", 0o777|os.ModeSticky, 65534), "belongs to uid 65534"},
	} {
		p := filepath.Join(c.dir, "report.html")
		err := WriteBytes(p, []byte("x"))
		cerr := Check(p, true)
		if c.want == "" {
			if err != nil || cerr != nil {
				t.Errorf("%s: %v / %v", c.dir, err, cerr)
			}
			continue
		}
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || cerr == nil {
			t.Errorf("%s: %v / %v, want %q", c.dir, err, cerr, c.want)
		}
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s: written", p)
		}
	}
}
