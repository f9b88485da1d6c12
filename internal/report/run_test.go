package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/testutil"
)

func fixture(name string) string { return filepath.Join("..", "compare", "testdata", name) }

func TestRunWritesHTMLAndPNGs(t *testing.T) {
	dir := testutil.TempDir(t)
	out, png := filepath.Join(dir, "r.html"), filepath.Join(dir, "png")
	res, err := Run(context.Background(), Options{Files: []string{fixture("a.json"), fixture("b.json")}, Out: out, PNG: png, Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Two sleep results: a histogram and a CDF each, and the same two
	// overlaid in their comparison.
	if res.Out != out || res.Results != 2 || res.Plots != 6 || res.Bytes != len(page) || !strings.HasPrefix(string(page), "<!DOCTYPE html>") ||
		strings.Count(string(page), "<svg") != res.Plots || !strings.Contains(string(page), "Comparison of 2 sleep results") {
		t.Errorf("result %+v for a page of %d bytes, %d plots", res, len(page), strings.Count(string(page), "<svg"))
	}
	if res.PNGDir != png || len(res.PNGs) != res.Plots {
		t.Errorf("PNGs %q in %q", res.PNGs, res.PNGDir)
	}
	for _, p := range res.PNGs {
		if b, err := os.ReadFile(p); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("%s: not a PNG (%v)", p, err)
		}
	}
}

// With no --png nothing but the page is written.
func TestRunWithoutPNG(t *testing.T) {
	dir := testutil.TempDir(t)
	res, err := Run(context.Background(), Options{Files: []string{fixture("one.json")}, Out: filepath.Join(dir, "r.html")})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || res.PNGDir != "" || res.PNGs != nil || res.Results != 1 {
		t.Errorf("result %+v, %d files written", res, len(ents))
	}
}

func TestRunBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	sf := filepath.Join(dir, "sweep.json")
	if err := result.WriteFile(sf, sweep.Kind.New(host.Facts{}, &sweep.Data{})); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"no files", Options{Out: out}, "report needs at least one result file: e.g. latlab report sleep.json -o report.html"},
		{"missing", Options{Files: []string{filepath.Join(dir, "nope.json")}, Out: out}, "nope.json: no such file"},
		{"empty list member", Options{Files: []string{fixture("a.json") + ",,"}, Out: out}, "an empty file name between commas"},
		{"not reportable", Options{Files: []string{sf}, Out: out}, "sweep.json: sweep result without steps"},
		{"unwritable", Options{Files: []string{fixture("a.json")}, Out: filepath.Join(dir, "no", "r.html")}, "cannot write " + filepath.Join(dir, "no", "r.html")},
	} {
		res, err := Run(context.Background(), c.o)
		if res != nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %+v %v, want bad input saying %q", c.name, res, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input wrote the page")
	}
}

// A --png that names a file is refused before any work, as -o is: the
// page is not written.
func TestRunPNGNotADirectory(t *testing.T) {
	dir := testutil.TempDir(t)
	out, notDir := filepath.Join(dir, "r.html"), filepath.Join(dir, "file")
	os.WriteFile(notDir, nil, 0o644)
	res, err := Run(context.Background(), Options{Files: []string{fixture("a.json")}, Out: out, PNG: notDir})
	if res != nil || !badinput.Is(err) || !strings.Contains(err.Error(), "--png "+notDir+" is not a directory") {
		t.Fatalf("%+v %v, want bad input", res, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input wrote the page")
	}
}

// A run stopped by Ctrl-C says so on the page, as in the text output.
func TestRunSaysARunWasInterrupted(t *testing.T) {
	dir := testutil.TempDir(t)
	data := &probe.SleepData{Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1e6}}
	samples := make([]int64, 30)
	for i := range samples {
		samples[i] = 1_050_000 + int64(i)*1000
	}
	data.Samples = samples
	data.Summary = stats.Summarize(samples)
	data.SetCounts(100000, int64(len(samples)), true)
	in := filepath.Join(dir, "int.json")
	if err := result.WriteFile(in, probe.KindSleep.New(host.Facts{}, data)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	if _, err := Run(context.Background(), Options{Files: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "interrupted: 30 of 100000 planned samples measured before the run was stopped; the statistics cover those") {
		t.Error("the page does not say the run was interrupted")
	}
}
