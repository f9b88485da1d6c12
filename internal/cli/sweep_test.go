package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/testutil"
)

// A short sweep valid on both OSes (Windows Sleep takes whole ms): three
// requested values plus the default reference.
var shortSweep = []string{"sweep", "--from", "0.5ms", "--to", "0.6ms", "--step", "0.05ms", "--samples", "4", "--settle", "0", "--gap", "1ms", "--seed", "5"}

func sweepData(t *testing.T, out string) *sweep.Result {
	t.Helper()
	return &payload(t, readDoc(t, out), sweep.Kind).Result
}

func TestSweepEndToEnd(t *testing.T) {
	dir := testutil.TempDir(t)
	csv, svg := dir+"/s.csv", dir+"/s.svg"
	args := append(append([]string{}, shortSweep...), "--json", "--csv", csv, "--plot", svg, "--load", "1", "--repeat", "2")
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "estimated") {
		t.Errorf("no run-time estimate before starting: %q", errs)
	}
	r := sweepData(t, out)
	if len(r.Steps) < 3 || r.Steps[r.Reference].RequestedNs != sweep.DefaultReference.Nanoseconds() || !r.Steps[r.Reference].Reference {
		t.Fatalf("steps %d, reference %d", len(r.Steps), r.Reference)
	}
	seen := map[int]bool{}
	for _, s := range r.Steps {
		if s.Passes != 2 || len(s.Samples) != 8 || s.Summary.Overshoot.Count != 8 || s.GrantedNs <= 0 {
			t.Errorf("step %d: passes %d samples %d granted %d", s.RequestedNs, s.Passes, len(s.Samples), s.GrantedNs)
		}
		// 8 samples are too few for an interval of the mean (20).
		if s.Summary.CI != nil {
			t.Errorf("step %d: an interval from 8 samples %+v", s.RequestedNs, s.Summary.CI)
		}
	}
	for _, tr := range r.Treatments {
		seen[tr.Rank] = true
	}
	if r.LogSteps || r.ElapsedNs <= 0 {
		t.Errorf("linear steps recorded as logarithmic (%v), or no elapsed time (%d)", r.LogSteps, r.ElapsedNs)
	}
	if len(seen) != len(r.Treatments) || len(r.Treatments) == 0 || r.Steps[r.Best].Rank != 1 || r.Verdict.Text == "" || r.Seed != 5 || r.Load != 1 {
		t.Errorf("ranks %v best %d verdict %q", seen, r.Best, r.Verdict.Text)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, csv)), "\n")
	if !strings.HasPrefix(lines[0], "RequestedResolutionMs,DeltaMs,STDEV,GrantedMs") || len(lines) != len(r.Steps)+1 || !strings.HasPrefix(lines[1], "0.05,") && !strings.HasPrefix(lines[1], "0.5,") {
		t.Errorf("csv:\n%s", strings.Join(lines, "\n"))
	}
	if s := readFile(t, svg); !strings.Contains(s, "<svg") || !strings.Contains(s, "overshoot") {
		t.Errorf("plot is not an svg of the sweep")
	}
	// The same seed gives the same order and intervals in the human table's layout.
	code, human, errs := runCLI(t, shortSweep...)
	if code != 0 || !strings.Contains(human, "verdict: ") || !strings.Contains(human, "default") || !strings.Contains(human, "seed 5") {
		t.Errorf("human output (exit %d, %s):\n%s", code, errs, human)
	}
}

func TestSweepProgressBar(t *testing.T) {
	var out, errb bytes.Buffer
	o := &SweepOptions{IO: &IO{Out: &out, Err: &errb}, From: 500 * time.Microsecond, To: 600 * time.Microsecond, Step: 100 * time.Microsecond,
		stepSet: true, Reference: sweep.DefaultReference, Samples: 2, Duration: time.Millisecond, Method: defaultMethodFlag(),
		Gap: time.Millisecond, Order: "ascending", Repeat: 1, Seed: 1, Mode: "inprocess", RankBy: "mean", Priority: "normal",
		RTPrio: 80, settings: map[string]string{}, progressForce: true}
	pl, err := planSweep(o)
	if err != nil {
		t.Fatal(err)
	}
	o.plan = pl
	if err := runSweep(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if e := errb.String(); !strings.Contains(e, "sweep") || !regexp.MustCompile(`\(\d+/\d+\)`).MatchString(e) {
		t.Errorf("no progress bar on stderr: %q", e)
	}
}

func TestSweepSeparateMode(t *testing.T) {
	args := []string{"sweep", "--from", "0.5ms", "--to", "0.5ms", "--step", "0.1ms", "--samples", "3", "--settle", "0", "--gap", "1ms", "--mode", "separate", "--json", "--seed", "1"}
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := sweepData(t, out)
	if r.Mode != sweep.Separate {
		t.Fatalf("mode %s", r.Mode)
	}
	for _, s := range r.Steps {
		// The holder child reported its grant before measuring: the granted value came from it.
		if s.GrantedNs <= 0 || len(s.Samples) != 3 {
			t.Errorf("step %d: granted %d samples %d", s.RequestedNs, s.GrantedNs, len(s.Samples))
		}
	}
}

func TestHoldInChildReportsGrant(t *testing.T) {
	g, release, err := holdInChild(context.Background(), 500_000)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if g <= 0 {
		t.Fatalf("granted %v", g)
	}
}

func TestSweepBadInput(t *testing.T) {
	cases := map[string][]string{
		"reversed":        {"sweep", "--from", "0.8ms", "--to", "0.5ms"},
		"zero step":       {"sweep", "--from", "0.5ms", "--to", "0.8ms", "--step", "0"},
		"zero per decade": {"sweep", "--from", "1us", "--to", "100us", "--steps-per-decade", "0"},
		"both":            {"sweep", "--step", "1us", "--steps-per-decade", "3"},
		"order":           {"sweep", "--order", "sideways"},
		"mode":            {"sweep", "--mode", "both"},
		"rank-by":         {"sweep", "--rank-by", "fastest"},
		"samples":         {"sweep", "--samples", "0"},
		"repeat":          {"sweep", "--repeat", "0"},
		"load":            {"sweep", "--load", "-1"},
		"plot":            {"sweep", "--plot", "x.gif"},
		"too many":        {"sweep", "--from", "0.5ms", "--to", "0.8ms", "--step", "1ns"},
		"out of range":    {"sweep", "--from", "0.5ms", "--to", "2s", "--step", "1s"},
		"dry-run json":    {"sweep", "--dry-run", "--json"},
	}
	want := map[string]string{"reversed": "reversed", "zero step": "zero steps", "zero per decade": "zero steps",
		"both": "give either --step or --steps-per-decade, not both", "order": `invalid --order "sideways"`,
		"mode": `invalid --mode "both"`, "rank-by": `unknown statistic "fastest"`, "samples": "invalid --samples 0",
		"repeat": "invalid --repeat 0", "load": "invalid --load -1", "plot": `plot file "x.gif": accepted names end in .svg or .png`,
		"too many": "makes 300001 steps: at most 5000 are accepted", "out of range": "1.0005s is out of range: accepted",
		"dry-run json": "--dry-run prints the plan as text, not a result document: drop --json"}
	for name, args := range cases {
		code, out, errs := runCLI(t, args...)
		testutil.CheckBadExit(t, name, code, errs, want[name])
		if out != "" {
			t.Errorf("%s: stdout %q", name, out)
		}
	}
}

func TestSweepDryRun(t *testing.T) {
	code, out, errs := runCLI(t, "sweep", "--from", "0.5ms", "--to", "0.51ms", "--step", "0.002ms", "--dry-run")
	if code != 0 || !strings.Contains(out, "0.506ms") || !strings.Contains(errs, "estimated") {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
	// The files the run would write are named, and none is written.
	dir := testutil.TempDir(t)
	doc, csv := filepath.Join(dir, "s.json"), filepath.Join(dir, "s.csv")
	code, out, errs = runCLI(t, "sweep", "--from", "0.5ms", "--to", "0.51ms", "--step", "0.002ms", "--dry-run", "-o", doc, "--csv", csv)
	if code != 0 || !strings.Contains(out, "would write "+doc+": the result document (-o)\n") || !strings.Contains(out, "would write "+csv+": one row per step (--csv)\n") {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
	if _, err := os.Stat(doc); err == nil {
		t.Error("a dry run wrote the document")
	}
}

// planSweep decides once whether the steps are logarithmic; the result
// records that decision.
func TestPlanSweepLogSteps(t *testing.T) {
	opts := func(perDecade int, step time.Duration, stepSet, perDecadeSet bool) *SweepOptions {
		return &SweepOptions{From: time.Microsecond, To: 100 * time.Microsecond, Step: step, PerDecade: perDecade,
			stepSet: stepSet, perDecadeSet: perDecadeSet, Reference: 50 * time.Microsecond, Samples: 2,
			Duration: time.Millisecond, Method: defaultMethodFlag(), Order: "ascending", Repeat: 1, Seed: 1,
			Mode: "inprocess", RankBy: "mean", Priority: "normal", RTPrio: 80}
	}
	cases := []struct {
		name string
		o    *SweepOptions
		log  bool
	}{
		{"per-decade default", opts(2, 0, false, false), true},
		{"per-decade given", opts(2, 0, false, true), true},
		{"--step over a per-decade default", opts(2, 10*time.Microsecond, true, false), false},
		{"linear default", opts(0, 10*time.Microsecond, false, false), false},
	}
	for _, c := range cases {
		pl, err := planSweep(c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if pl.logSteps != c.log {
			t.Errorf("%s: logarithmic %v, want %v", c.name, pl.logSteps, c.log)
		}
	}
}
