package refdoc

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// checkedIn is MarkdownDir seen from this package's directory.
var checkedIn = filepath.Join("..", "..", MarkdownDir)

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

// The checked-in reference is what the command tree makes now: a command,
// flag or help text changed without regenerating fails here.
func TestReferenceIsCurrent(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := Markdown(dir); err != nil {
		t.Fatal(err)
	}
	want, got := readDir(t, dir), readDir(t, checkedIn)
	var stale []string
	for name, b := range want {
		if g, ok := got[name]; !ok {
			stale = append(stale, name+" is missing")
		} else if !bytes.Equal(bytes.ReplaceAll(g, []byte("\r\n"), []byte("\n")), b) {
			stale = append(stale, name+" differs")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" is of no command")
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Fatalf("%s is stale (%s); regenerate it with: %s", MarkdownDir, strings.Join(stale, ", "), Regenerate)
	}
}

// Every command has a page, and hidden ones none.
func TestReferenceCoversEveryCommand(t *testing.T) {
	got := readDir(t, checkedIn)
	for _, name := range []string{"latlab.md", "latlab_timer_set.md", "latlab_knob_revert.md", "latlab_completion_bash.md", "README.md"} {
		if _, ok := got[name]; !ok {
			t.Errorf("%s has no %s", MarkdownDir, name)
		}
	}
	for name, b := range got {
		if strings.Contains(name, "__complete") {
			t.Errorf("%s: a page for a hidden command", name)
		}
		if bytes.Contains(b, []byte("Auto generated")) {
			t.Errorf("%s carries cobra's dated generation line: the page would change on every run", name)
		}
	}
}

// The man pages are the same bytes on every run for the same date and
// version, compressed with no name or time in the gzip header.
func TestManReproducible(t *testing.T) {
	date := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	a, b := testutil.TempDir(t), testutil.TempDir(t)
	if err := Man(a, date, "1.2.3", true); err != nil {
		t.Fatal(err)
	}
	if err := Man(b, date, "1.2.3", true); err != nil {
		t.Fatal(err)
	}
	pa, pb := readDir(t, a), readDir(t, b)
	if len(pa) != len(readDir(t, checkedIn))-1 { // less the index
		t.Errorf("%d man pages for %d reference pages", len(pa), len(readDir(t, checkedIn))-1)
	}
	for name, x := range pa {
		if !bytes.Equal(x, pb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
		zr, err := gzip.NewReader(bytes.NewReader(x))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if zr.Name != "" || !zr.ModTime.IsZero() {
			t.Errorf("%s: gzip header has name %q, time %v: want neither (gzip -n)", name, zr.Name, zr.ModTime)
		}
		page, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		title := strings.ToUpper(strings.TrimSuffix(name, ".1.gz"))
		if !bytes.Contains(page, []byte(`.TH "`+title+`" "1" "Jan 2026" "latlab 1.2.3"`)) {
			t.Errorf("%s: no fixed date and source in the header:\n%.300s", name, page)
		}
	}
	var names []string
	for name := range pa {
		names = append(names, name)
	}
	sort.Strings(names)
	if want := ManPages(); !slices.Equal(names, want) {
		t.Errorf("Man wrote %v\nManPages says %v", names, want)
	}
	for _, name := range []string{"latlab.1.gz", "latlab-timer-set.1.gz"} {
		if _, ok := pa[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
}

func TestCompletions(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := Completions(dir); err != nil {
		t.Fatal(err)
	}
	got := readDir(t, dir)
	for file, marker := range map[string]string{
		"latlab.bash": "__start_latlab",
		"_latlab":     "#compdef latlab",
		"latlab.fish": "complete -c latlab",
		"latlab.ps1":  "Register-ArgumentCompleter",
	} {
		if !strings.Contains(string(got[file]), marker) {
			t.Errorf("%s lacks %q", file, marker)
		}
	}
}
