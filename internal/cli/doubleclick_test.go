package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
