package knobdoc

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
)

const root = "../.."

// The pages hold what the catalogue gives now.
func TestPagesAreCurrent(t *testing.T) {
	for _, b := range Blocks() {
		page, err := os.ReadFile(filepath.Join(root, b.Page))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Update(page, b.Name, b.Text)
		if err != nil {
			t.Fatalf("%s: %v", b.Page, err)
		}
		if !bytes.Equal(page, want) {
			t.Errorf("%s: the %s table is not what the knob catalogue gives: run go run ./scripts/knobdoc", b.Page, b.Name)
		}
	}
}

// The generated Go files hold what the catalogue gives now.
func TestFilesAreCurrent(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != f.Text {
			t.Errorf("%s is not what the knob catalogue gives: run go run ./scripts/knobdoc", f.Path)
		}
	}
}

// Every knob has its row, every rule its row, in the catalogue's order.
func TestTablesCoverTheCatalogue(t *testing.T) {
	knobs := knobTable()
	for _, k := range knob.All() {
		if !strings.Contains(knobs, "| `"+k.Name()+"` |") {
			t.Errorf("knobs: no row for %s", k.Name())
		}
	}
	rules := ruleTable()
	last := -1
	for _, r := range knob.CheckupRules() {
		i := strings.Index(rules, "| `"+r.Knob+"` | `"+r.ID+"` | "+cell(r.When)+" | `"+string(r.Verdict)+"` |")
		if i < 0 {
			t.Errorf("rules: no row for %s %s", r.Knob, r.ID)
		}
		if i < last {
			t.Errorf("rules: %s %s out of order", r.Knob, r.ID)
		}
		last = i
	}
}

// The hand-written tables of each knob's place and values name exactly
// the catalogue's knobs of their OS, and doctor.md's table of evidence
// only knobs of the catalogue.
func TestHandTablesNameTheCatalogue(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(root, "docs/commands/knob.md"))
	if err != nil {
		t.Fatal(err)
	}
	for os, intro := range map[string]string{"windows": "Windows knobs:", "linux": "Linux knobs"} {
		var want []string
		for _, k := range knob.All() {
			if k.OS() == os {
				want = append(want, k.Name())
			}
		}
		got := firstColumn(t, string(page), intro)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("knob.md, %q: the table names %v, the catalogue %v", intro, got, want)
		}
	}
	page, err = os.ReadFile(filepath.Join(root, "docs/commands/doctor.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range firstColumn(t, string(page), "The evidence a verdict quotes") {
		if _, err := knob.Lookup(name); err != nil {
			t.Errorf("doctor.md, the table of evidence: %s is no knob of the catalogue", name)
		}
	}
}

var knobCell = regexp.MustCompile("^\\| `?([a-z0-9-]+)`? \\|")

// firstColumn returns the knob names of the first column of the table
// that follows the line starting with intro.
func firstColumn(t *testing.T, page, intro string) []string {
	t.Helper()
	i := strings.Index(page, "\n"+intro)
	if i < 0 {
		t.Fatalf("no line %q", intro)
	}
	var names []string
	inTable := false
	for _, line := range strings.Split(page[i+1:], "\n")[1:] {
		switch {
		case strings.HasPrefix(line, "|"):
			inTable = true
			if m := knobCell.FindStringSubmatch(line); m != nil && m[1] != "knob" {
				names = append(names, m[1])
			}
		case inTable:
			if len(names) == 0 {
				t.Fatalf("no knob in the table after %q", intro)
			}
			return names
		}
	}
	return names
}

func TestUpdateRefusesMissingMarkers(t *testing.T) {
	begin, end := Markers("x")
	for _, page := range []string{"", begin, end, end + "\n" + begin, begin + begin + end} {
		if _, err := Update([]byte(page), "x", "t\n"); err == nil {
			t.Errorf("%q: no error", page)
		}
	}
	got, err := Update([]byte("a\n"+begin+"\nold\n"+end+"\nb\n"), "x", "new\n")
	if err != nil || string(got) != "a\n"+begin+"\nnew\n"+end+"\nb\n" {
		t.Errorf("got %q, %v", got, err)
	}
}
