package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/testutil"
)

func TestIsExplorer(t *testing.T) {
	for _, c := range []struct {
		parent string
		want   bool
	}{
		{"explorer.exe", true},
		{"EXPLORER.EXE", true},
		{`C:\Windows\explorer.exe`, true},
		{"cmd.exe", false},
		{"powershell.exe", false},
		{"WindowsTerminal.exe", false},
		{"explorer.exe.evil", false},
		{"", false},
	} {
		if got := isExplorer(c.parent); got != c.want {
			t.Errorf("isExplorer(%q) = %v, want %v", c.parent, got, c.want)
		}
	}
}

// The double-click path runs the check-up, saves the page where the
// person can find it, opens it, and waits for Enter instead of closing.
func TestDoubleClickSavesOpensAndWaits(t *testing.T) {
	dir := testutil.TempDir(t)
	var opened string
	var out strings.Builder
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	io := &IO{In: strings.NewReader("\n"), Out: &out, Err: &out, Root: "/"}
	err := doubleClick(context.Background(), io, doubleClickEnv{
		Dir:  dir,
		Open: func(p string) error { opened = p; return nil },
		Now:  func() time.Time { return now },
	})
	if err != nil {
		t.Fatalf("doubleClick: %v\n%s", err, out.String())
	}
	want := filepath.Join(dir, "latlab-checkup-20261123-100000.html")
	if opened != want {
		t.Fatalf("opened %q, want %q", opened, want)
	}
	page, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	// the check-up's own page: its settings table, not just text
	if !strings.Contains(string(page), "<html") || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "verdict") {
		t.Errorf("page is not the check-up's HTML page:\n%.500s", page)
	}
	for _, w := range []string{want, "Press Enter"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

// After the check-up, the double-click offers the live view: L and Enter
// runs it (with the records beside the check-up's page), Enter alone
// closes.
func TestDoubleClickOffersLiveView(t *testing.T) {
	for _, c := range []struct {
		input string
		want  bool
	}{{"l\n\n", true}, {"L\n\n", true}, {"\n", false}, {"q\n", false}} {
		dir := testutil.TempDir(t)
		var out strings.Builder
		var liveDir string
		called, handed := false, false
		io := &IO{In: strings.NewReader(c.input), Out: &out, Err: &out, Root: "/"}
		err := doubleClick(context.Background(), io, doubleClickEnv{
			Dir: dir, Open: func(string) error { return nil }, Now: time.Now,
			Live: func(_ context.Context, o *UIOptions) error {
				called, liveDir, handed = true, o.RecordDir, o.checkup != nil
				return nil
			},
		})
		if err != nil {
			t.Fatalf("%q: %v", c.input, err)
		}
		if called != c.want || (called && (liveDir != dir || !handed)) {
			t.Errorf("input %q: live view run %v (dir %q, check-up handed on %v), want %v", c.input, called, liveDir, handed, c.want)
		}
		if !strings.Contains(out.String(), "latlab ui") {
			t.Errorf("the live view is not offered:\n%s", out.String())
		}
	}
}

// The check-up runs once on the double-click path, the live view
// included: latlab ui shows the check-up the double-click has just run
// instead of running its own quick one.
func TestDoubleClickChecksUpOnce(t *testing.T) {
	sizes := doctorSizes
	t.Cleanup(func() { doctorSizes = sizes })
	runs := 0
	doctorSizes = func(o *doctor.Options) { runs++; sizes(o) }

	dir := testutil.TempDir(t)
	var out strings.Builder
	io := &IO{In: strings.NewReader("l\n\n"), Out: &out, Err: &out, Root: "/"}
	err := doubleClick(context.Background(), io, doubleClickEnv{
		Dir: dir, Open: func(string) error { return nil }, Now: time.Now,
		// The real live view, briefly, without a browser or the DPC watch.
		Live: func(ctx context.Context, o *UIOptions) error {
			o.NoBrowser, o.NoDPC, o.Duration = true, true, 200*time.Millisecond
			return runUI(ctx, o)
		},
	})
	if err != nil {
		t.Fatalf("doubleClick: %v\n%s", err, out.String())
	}
	if runs != 1 || strings.Contains(out.String(), "running the quick check-up") {
		t.Errorf("the check-up ran %d times:\n%s", runs, out.String())
	}
	if !strings.Contains(out.String(), "http://127.0.0.1:") || strings.Contains(out.String(), "the live view failed") {
		t.Errorf("the live view did not run:\n%s", out.String())
	}
}
