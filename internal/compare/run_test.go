package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/try"
)

// arms is what the CLI passes: a try result stands for its arms.
var arms = map[string]compare.Arms{try.Kind.Name(): try.CompareInputs}

func td(name string) string { return filepath.Join("testdata", name) }

func run(t *testing.T, o compare.RunOptions) (*compare.Result, error) {
	t.Helper()
	if o.By == "" {
		o.By = "p50"
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Detect == 0 {
		o.Detect = 0.05
	}
	return compare.Run(context.Background(), o)
}

// The payload Run builds is the one `latlab compare --json` wrote before
// the work moved out of the command: the golden files are that output's
// data, byte for byte.
func TestRunPayloadGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
	}{
		{"two", []string{td("a.json"), td("b.json")}},
		// other/a.json shares a.json's name: both are labelled by their folder.
		{"ranking", []string{td("a.json"), td("b.json"), td("c.json"), td("other/a.json")}},
		{"toofew", []string{td("a.json"), td("one.json")}},
		{"perrun", []string{td("tcp/before"), td("tcp/after")}},
		{"try", []string{td("try.json")}},
		// The arms of a noise try, compared as noise results: on one CPU,
		// on two, and beside a noise result of the same CPU.
		{"try-noise", []string{td("try-noise.json")}},
		{"try-noise-cpus", []string{td("try-noise-cpus.json")}},
		// The arms of a dpcisr try, compared as latlab dpcisr compare
		// compares reports.
		{"try-dpcisr", []string{td("try-dpcisr.json")}},
		// A cyclictest histogram (5 overflows) against a wake result,
		// compared from its buckets; the wake run keeps its order.
		{"mixed", []string{td("mixed.hist"), td("mixed-wake.json")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := run(t, compare.RunOptions{Files: c.files, Arms: arms})
			if err != nil {
				t.Fatal(err)
			}
			slashLabels(r)
			var b bytes.Buffer
			if err := result.Write(&b, compare.Kind.New(host.Facts{}, r)); err != nil {
				t.Fatal(err)
			}
			var doc struct{ Data json.RawMessage }
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			goldie.New(t).Assert(t, c.name+"-data", append(doc.Data, '\n'))
		})
	}
}

// slashLabels writes the labels of r, and the verdicts that name them,
// with forward slashes, as the golden files have them on every OS.
func slashLabels(r *compare.Result) {
	for i := range r.Runs {
		r.Runs[i].Label = filepath.ToSlash(r.Runs[i].Label)
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		p.ALabel, p.BLabel, p.Verdict = filepath.ToSlash(p.ALabel), filepath.ToSlash(p.BLabel), filepath.ToSlash(p.Verdict)
	}
	for i := range r.Notes { // "3 comparisons against testdata/a.json"
		r.Notes[i] = filepath.ToSlash(r.Notes[i])
	}
}

func TestRunExpectation(t *testing.T) {
	for _, c := range []struct {
		files  []string
		expect string
		met    bool
		why    string
	}{
		{[]string{td("a.json"), td("b.json")}, "", true, ""},
		{[]string{td("a.json"), td("b.json")}, "b.json", true, ""},
		{[]string{td("a.json"), td("b.json")}, td("b.json"), true, ""},
		{[]string{td("b.json"), td("a.json")}, "a.json", false, "expected a.json to be significantly better than b.json at p50: slower"},
		{[]string{td("a.json"), td("c.json")}, "c.json", false, "at p50: no detectable difference"},
		{[]string{td("a.json"), td("one.json")}, "one.json", false,
			"expected one.json to be significantly better than a.json at p50: too few samples (1 and 300; judging p50 needs 20 per run)"},
		{[]string{td("a.json"), td("b.json"), td("c.json")}, "c.json", false, "c.json to be significantly better than a.json"},
		{[]string{td("try.json")}, "try.json[1us]", true, ""},
		{[]string{td("tcp/before"), td("tcp/after")}, "after", false, "too few samples (3 and 3; judging p50 needs 20 per run)"},
	} {
		r, err := run(t, compare.RunOptions{Files: c.files, ExpectBetter: c.expect, Arms: arms})
		if err != nil {
			t.Errorf("%v --expect-better %q: %v", c.files, c.expect, err)
			continue
		}
		met, why := r.Expectation()
		if met != c.met || !strings.Contains(why, c.why) || (c.why == "") != (why == "") {
			t.Errorf("%v --expect-better %q: %v %q, want %v %q", c.files, c.expect, met, why, c.met, c.why)
		}
	}
}

// Bad input is a badinput.Error (or ErrIncompatible) whose message says what
// was wrong and what is accepted.
func TestRunBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("{not json"), 0o644)
	a, b := td("a.json"), td("b.json")
	for _, c := range []struct {
		name string
		o    compare.RunOptions
		want string
	}{
		{"no files", compare.RunOptions{}, "compare needs at least two result files (or one try result), got 0"},
		{"one file", compare.RunOptions{Files: []string{a}}, "got 1: e.g. latlab compare before.json after.json"},
		{"try without arms", compare.RunOptions{Files: []string{td("try.json")}}, "compare needs at least two result files"},
		{"bad --by", compare.RunOptions{Files: []string{a, b}, By: "p200"}, `invalid --by "p200": accepted p50, p90, p99, p99.9 (any pN) or mean`},
		{"stdev", compare.RunOptions{Files: []string{a, b}, By: "stdev"}, `invalid --by "stdev"`},
		{"bad --detect", compare.RunOptions{Files: []string{a, b}, Detect: -1}, "invalid --detect -1: want a relative change above 0 and below 10, such as 0.05 (5%)"},
		{"expect unknown", compare.RunOptions{Files: []string{a, b}, ExpectBetter: "x.json"}, "--expect-better x.json is not one of the compared files"},
		{"expect baseline", compare.RunOptions{Files: []string{a, b}, ExpectBetter: "a.json"}, "--expect-better a.json names the first file, the baseline"},
		{"expect a try", compare.RunOptions{Files: []string{td("try.json")}, ExpectBetter: "try.json", Arms: arms},
			"--expect-better try.json is a try result: name one of its arms, e.g. try.json[VALUE]"},
		{"expect the baseline arm", compare.RunOptions{Files: []string{td("try.json")}, ExpectBetter: "try.json[current]", Arms: arms},
			"--expect-better try.json[current] names the baseline the others are compared with"},
		{"expect no such arm", compare.RunOptions{Files: []string{td("try.json")}, ExpectBetter: "try.json[9us]", Arms: arms},
			"--expect-better try.json[9us] is not one of the compared files or arms"},
		{"missing", compare.RunOptions{Files: []string{a, filepath.Join(dir, "nope.json")}}, "cannot read " + filepath.Join(dir, "nope.json") + ": no such file"},
		{"not json", compare.RunOptions{Files: []string{a, junk}}, "not a latlab result document"},
		{"empty directory", compare.RunOptions{Files: []string{empty, a}}, "the directory " + empty + " holds no .json result files"},
		{"empty list member", compare.RunOptions{Files: []string{a + ",," + b, a}}, "an empty file name between commas (want A1.json,A2.json,...)"},
		{"kinds", compare.RunOptions{Files: []string{a, td("tcp/before")}}, "compare results of the same kind"},
		{"sleep group", compare.RunOptions{Files: []string{a + "," + b, a}}, "one file per side"},
	} {
		_, err := run(t, c.o)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want bad input saying %q", c.name, err, c.want)
		}
	}
}

// An error that is not about the input is not reported as bad input.
func TestIsInput(t *testing.T) {
	if badinput.Is(errors.New("disk on fire")) || badinput.Is(nil) {
		t.Error("IsInput of an unrelated error")
	}
	if !badinput.Is(badinput.Wrap(errors.New("x"))) || !badinput.Is(compare.ErrIncompatible) {
		t.Error("IsInput of bad input")
	}
}

// A side is one file, a directory of runs or a comma-separated list of
// runs; each is labelled so that a reader knows which it was.
func TestReadInputsSides(t *testing.T) {
	before := td("tcp/before")
	in, err := compare.ReadInputs([]string{td("a.json"), before,
		filepath.Join(before, "run00.json") + ", " + filepath.Join(before, "run02.json")})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		label string
		more  int
	}{{"a.json", 0}, {"before/", 2}, {"run00.json+1", 1}} {
		if in[i].Label != want.label || len(in[i].More) != want.more || in[i].Doc == nil {
			t.Errorf("side %d: %q with %d more, want %q with %d", i, in[i].Label, len(in[i].More), want.label, want.more)
		}
	}
}

// Inputs of the same name are labelled by their folder, counted after a
// try result has become its arms (this once indexed past the files given
// and panicked).
func TestRunLabelsSameNamesAfterArms(t *testing.T) {
	dir := testutil.TempDir(t)
	// The fixture's try does not say how long it slept: make it 1 ms, as
	// the sleep fixtures are.
	var doc map[string]any
	if b, err := os.ReadFile(td("try.json")); err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatal("cannot read the try fixture")
	}
	doc["data"].(map[string]any)["measurement"].(map[string]any)["requested_ns"] = 1e6
	tryData, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var tries []string
	for _, d := range []string{"x", "y", "y/z"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		f := filepath.Join(dir, d, "try.json")
		if err := os.WriteFile(f, tryData, 0o644); err != nil {
			t.Fatal(err)
		}
		tries = append(tries, f)
	}
	arm := func(dir, value string) string { return filepath.Join(dir, "try.json["+value+"]") }
	for _, c := range []struct {
		files []string
		want  []string
	}{
		// Every file of a shared name is named with its folder, the first too.
		{[]string{tries[0], td("a.json"), td("other/a.json")},
			[]string{"try.json[current]", "try.json[1us]", filepath.Join("testdata", "a.json"), filepath.Join("other", "a.json")}},
		{[]string{td("a.json"), tries[0], td("other/a.json")},
			[]string{filepath.Join("testdata", "a.json"), "try.json[current]", "try.json[1us]", filepath.Join("other", "a.json")}},
		// Arms of y/z/try.json take z; the same file named again, y/./try.json,
		// takes its whole path.
		{[]string{tries[0], tries[1], tries[2], filepath.Join(dir, "y", ".", "try.json")},
			[]string{arm("x", "current"), arm("x", "1us"), arm("y", "current"), arm("y", "1us"),
				arm("z", "current"), arm("z", "1us"), arm(filepath.Join(dir, "y"), "current"), arm(filepath.Join(dir, "y"), "1us")}},
	} {
		r, err := run(t, compare.RunOptions{Files: c.files, Arms: arms})
		if err != nil {
			t.Errorf("%v: %v", c.files, err)
			continue
		}
		var got []string
		for _, x := range r.Runs {
			got = append(got, x.Label)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v: labels %q, want %q", c.files, got, c.want)
		}
	}
}

// A run stopped by Ctrl-C is compared on what it measured, and a note
// says it was cut short, as the sleep and wake outputs say it.
func TestRunNotesAnInterruptedRun(t *testing.T) {
	doc, err := result.ReadFile(td("a.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Data.(*probe.SleepData)
	d.SetCounts(100000, int64(len(d.Samples)), true)
	f := filepath.Join(testutil.TempDir(t), "int.json")
	if err := result.WriteFile(f, doc); err != nil {
		t.Fatal(err)
	}
	r, err := run(t, compare.RunOptions{Files: []string{f, td("b.json")}, Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	want := "int.json was interrupted: 300 of 100000 planned measured; its statistics cover those"
	if !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
	r, err = run(t, compare.RunOptions{Files: []string{td("a.json"), td("b.json")}, Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "interrupted") {
			t.Errorf("a complete run noted: %q", n)
		}
	}
}
