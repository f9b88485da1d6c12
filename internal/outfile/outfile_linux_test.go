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
		return testutil.MkdirOwned(t, filepath.Join(base, name), mode, uid)
	}
	for _, c := range []struct {
		dir  string
		want string // "" to be written
	}{
		{mk("mine", 0o755, 0), ""},
		{mk("tmp", 0o777|os.ModeSticky, 0), ""},
		{mk("world", 0o777, 0), "writable by group or others and not sticky; fix: chmod go-w"},
		{mk("group", 0o775, 0), "writable by group or others"},
		{mk("nobody", 0o755, testutil.Nobody), "belongs to uid 65534"},
		{mk("nobody-tmp", 0o777|os.ModeSticky, testutil.Nobody), "belongs to uid 65534"},
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

// Issue 40: a link planted in a directory further up the path. nobody owns
// /tmp/n and plants /tmp/n/out -> a directory of root's; root's output
// to /tmp/n/out/report.html (with or without --force) and --png
// /tmp/n/out/pngs must write nothing there. A link root owns, in a
// directory of root's, is still followed.
func TestParentLinkRefusedAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.TempDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "root-owned")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "report.html"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := testutil.MkdirOwned(t, filepath.Join(base, "n"), 0o755, testutil.Nobody)
	out := testutil.SymlinkOwned(t, victim, filepath.Join(n, "out"), testutil.Nobody)
	// The same link, owned by nobody, in a directory of root's.
	rootDirLink := testutil.SymlinkOwned(t, victim, filepath.Join(base, "via-nobody-link"), testutil.Nobody)
	for _, p := range []string{
		filepath.Join(out, "report.html"),
		filepath.Join(out, "new.html"),
		filepath.Join(rootDirLink, "report.html"),
		filepath.Join(out, "sub", "..", "report.html"),
	} {
		for _, force := range []bool{true, false} {
			if err := Check(p, force); !badinput.Is(err) {
				t.Errorf("Check(%s, %v): %v", p, force, err)
			}
		}
		if err := WriteBytes(p, []byte("owned")); !badinput.Is(err) || !strings.Contains(err.Error(), "refusing to write") {
			t.Errorf("WriteBytes(%s): %v", p, err)
		}
	}
	for _, d := range []string{filepath.Join(out, "pngs"), filepath.Join(out, "a", "b"), filepath.Join(rootDirLink, "pngs")} {
		if err := CheckDir(d); !badinput.Is(err) {
			t.Errorf("CheckDir(%s): %v", d, err)
		}
		if err := MkdirAll(d); !badinput.Is(err) {
			t.Errorf("MkdirAll(%s): %v", d, err)
		}
	}
	if got := read(t, filepath.Join(victim, "report.html")); got != "precious" {
		t.Errorf("victim became %q", got)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 1 {
		t.Errorf("written in the victim directory: %v", ents)
	}

	// root's own link in root's own directory is followed.
	mine := filepath.Join(base, "mine")
	if err := os.Symlink(victim, mine); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(filepath.Join(mine, "pngs")); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(mine, "pngs")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(filepath.Join(mine, "pngs", "a.png"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(victim, "pngs", "a.png")); got != "x" {
		t.Errorf("through root's link: %q", got)
	}
}

// MkdirAll as root refuses a directory on the way another user owns
// before it creates anything in it.
func TestMkdirAllChecksFirstAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.TempDir(t)
	n := testutil.MkdirOwned(t, filepath.Join(base, "n"), 0o755, testutil.Nobody)
	err := MkdirAll(filepath.Join(n, "a", "b"))
	if !badinput.Is(err) || !strings.Contains(err.Error(), n+" is owned by uid 65534") {
		t.Errorf("%v", err)
	}
	if _, err := os.Lstat(filepath.Join(n, "a")); err == nil {
		t.Errorf("created inside nobody's directory")
	}
	if err := MkdirAll(filepath.Join(base, "x", "y")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(base, "x", "y")); err != nil || !st.IsDir() {
		t.Fatalf("%v %v", st, err)
	}
}

// A directory that takes no new file is refused by Check, before the work
// whose result would go there: /proc exists and is root's, and no file
// can be created in it, even by root. Check leaves nothing behind.
func TestCheckFindsADirectoryThatTakesNoFile(t *testing.T) {
	err := Check("/proc/latlab-no-such-result.json", true)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "cannot write /proc/latlab-no-such-result.json") {
		t.Errorf("got %v, want bad input: cannot write", err)
	}
	dir := testutil.TempDir(t)
	if err := Check(filepath.Join(dir, "r.json"), false); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Check left %v", left)
	}
}
