package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestReportEndToEnd(t *testing.T) {
	dir := testutil.TempDir(t)
	var files []string
	for i, args := range [][]string{
		{"sleep", "--samples", "30", "--gap", "1ms"},
		{"sleep", "--samples", "30", "--gap", "1ms", "--resolution", "1ms"},
		append(append([]string{}, shortSweep...), "--samples", "2"),
	} {
		f := filepath.Join(dir, []string{"a.json", "b.json", "sweep.json"}[i])
		if code, _, errs := runCLI(t, append(args, "-o", f)...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
		files = append(files, f)
	}
	html, pngs := filepath.Join(dir, "r.html"), filepath.Join(dir, "png")
	code, out, errs := runCLI(t, append([]string{"report", "-o", html, "--png", pngs}, files...)...)
	if code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	h := readFile(t, html)
	if strings.Count(h, "<svg") != 7 || !strings.Contains(h, "Comparison of 2 sleep results") {
		t.Errorf("report has %d plots", strings.Count(h, "<svg"))
	}
	ents, _ := os.ReadDir(pngs)
	if len(ents) != 7 {
		t.Errorf("%d PNG files", len(ents))
	}
}

// One result, one plot: the summary line counts them in the singular.
func TestReportCountsInTheSingular(t *testing.T) {
	dir := testutil.TempDir(t)
	sw := filepath.Join(dir, "sweep.json")
	if code, _, errs := runCLI(t, append(append([]string{}, shortSweep...), "--samples", "2", "-o", sw)...); code != 0 {
		t.Fatalf("sweep: %s", errs)
	}
	html, pngs := filepath.Join(dir, "r.html"), filepath.Join(dir, "png")
	code, out, errs := runCLI(t, "report", "-o", html, "--png", pngs, sw)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{" (1 result, 1 plot, ", "wrote 1 PNG plot to "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "report needs at least one result file"},
		{[]string{"report", filepath.Join(dir, "missing.json")}, "cannot read " + filepath.Join(dir, "missing.json") + ": no such file"},
		{[]string{"report", empty}, "empty.json"},
	} {
		code, out, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if out != "" {
			t.Errorf("%v: stdout %q", c.args, out)
		}
	}
}

// A missing input is named before the report.html of an earlier run, which
// --force would only have let the run fail later.
func TestReportMissingInputBeforeExistingOutput(t *testing.T) {
	dir := testutil.TempDir(t)
	out := filepath.Join(dir, "report.html")
	os.WriteFile(out, []byte("old"), 0o644)
	missing := filepath.Join(dir, "nosuch.json")
	code, _, errs := runCLI(t, "report", missing, "-o", out)
	testutil.CheckBadExit(t, "missing input and existing output", code, errs, "nosuch.json")
	if strings.Contains(errs, "report.html") {
		t.Errorf("%q, want the missing input named first", errs)
	}
}
