package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/testutil"
)

// synthSleep writes a sleep document whose samples are base + exponential
// noise of the given mean, seeded.
func synthSleep(t *testing.T, dir, name string, n int, base, noise float64, seed uint64, requested int64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(base + r.ExpFloat64()*noise)
	}
	d := probe.KindSleep.New(host.Facts{}, &probe.SleepData{
		Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: requested, PercentileNote: result.PercentileDefinition},
		Summary:     stats.Summarize(s),
		Samples:     s,
	})
	d.Settings = map[string]string{"duration": "1ms", "resolution": name}
	p := filepath.Join(dir, name)
	if err := result.WriteFile(p, d); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareDetectsShift(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 300, 1.5e6, 2e4, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 300, 1.0e6, 2e4, 2, 1e6)
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "verdict: b.json is faster at p50 by") || !strings.Contains(out, "p < 0.001") {
		t.Fatalf("verdict:\n%s", out)
	}
	if code, _, _ := runCLI(t, "compare", a, b, "--expect-better", b); code != 0 {
		t.Errorf("--expect-better b: exit %d", code)
	}
	code, _, errs = runCLI(t, "compare", b, a, "--expect-better", "a.json")
	if code != 1 || !strings.Contains(errs, "expected a.json to be significantly better") {
		t.Errorf("--expect-better of the slower run: exit %d %q", code, errs)
	}
}

func TestCompareNoDifferenceSaysHowManyMore(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 40, 1e6, 3e5, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 40, 1e6, 3e5, 2, 1e6)
	code, out, errs := runCLI(t, "compare", a, b, "--by", "mean", "--expect-better", "b.json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out = strings.Join(strings.Fields(out), " ") // the verdict wraps at 80 columns
	if !strings.Contains(out, "no detectable difference at this sample size") || !strings.Contains(out, "more samples per run would detect a 5% change") {
		t.Fatalf("verdict:\n%s", out)
	}
}

func TestCompareRanksManyAndWritesJSON(t *testing.T) {
	dir := testutil.TempDir(t)
	files := []string{
		synthSleep(t, dir, "base.json", 200, 1.5e6, 1e4, 1, 1e6),
		synthSleep(t, dir, "slow.json", 200, 1.6e6, 1e4, 2, 1e6),
		synthSleep(t, dir, "fast.json", 200, 1.0e6, 1e4, 3, 1e6),
		synthSleep(t, dir, "same.json", 200, 1.5e6, 1e4, 4, 1e6),
	}
	code, out, errs := runCLI(t, append([]string{"compare", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := payload(t, readDoc(t, out), compare.Kind)
	var order []string
	for _, i := range r.Ranking {
		order = append(order, r.Runs[i].Label)
	}
	if order[0] != "fast.json" || order[3] != "slow.json" {
		t.Errorf("ranking %v", order)
	}
	want := map[string]compare.Outcome{"slow.json": compare.Slower, "fast.json": compare.Faster, "same.json": compare.NoDifference}
	for _, p := range r.Pairs {
		if p.Outcome != want[p.BLabel] {
			t.Errorf("%s: %s, want %s", p.BLabel, p.Outcome, want[p.BLabel])
		}
		if p.PAdjusted < p.MWU.P {
			t.Errorf("Holm-adjusted p below raw p")
		}
	}
	if r.Level < 0.98 || r.Level > 0.99 {
		t.Errorf("3 comparisons should use a Bonferroni level of 98.33%%, got %v", r.Level)
	}
	_, human, _ := runCLI(t, append([]string{"compare"}, files...)...)
	if !strings.Contains(human, "baseline") || !strings.Contains(human, "Holm") {
		t.Errorf("ranking table:\n%s", human)
	}
}

func TestCompareSeedReproducible(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 100, 1e6, 5e4, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 100, 1e6, 5e4, 2, 1e6)
	_, o1, _ := runCLI(t, "compare", a, b, "--seed", "9")
	_, o2, _ := runCLI(t, "compare", a, b, "--seed", "9")
	if o1 != o2 {
		t.Fatal("same seed, different output")
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 50, 1e6, 5e4, 1, 1e6)
	b2 := synthSleep(t, dir, "b2ms.json", 50, 2e6, 5e4, 2, 2e6)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("{not json"), 0o644)
	wake := probe.KindWake.New(host.Facts{}, &probe.WakeData{Samples: []int64{1, 2, 3}})
	wf := filepath.Join(dir, "wake.json")
	result.WriteFile(wf, wake)
	sw := sweep.Kind.New(host.Facts{}, &sweep.Data{})
	sf := filepath.Join(dir, "sweep.json")
	result.WriteFile(sf, sw)
	// counts, not samples: the sweep's "one per step" was said of it too
	irqf := filepath.Join(dir, "irq.json")
	result.WriteFile(irqf, irq.KindWatch.New(host.Facts{}, &irq.WatchData{}))
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"schema":"latlab.result/1","kind":"sleeep","data":{}}`), 0o644)
	// A forged document: no sleep lasts less than nothing.
	negative := probe.KindSleep.New(host.Facts{}, &probe.SleepData{Measurement: probe.Measurement{RequestedNs: 1e6}, Samples: []int64{1e6, -5}})
	nf := filepath.Join(dir, "negative.json")
	result.WriteFile(nf, negative)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"schema":"latlab.result/2","kind":"sleep","data":{}}`), 0o644)
	cases := map[string][]string{
		"one file":         {"compare", a},
		"missing":          {"compare", a, filepath.Join(dir, "nope.json")},
		"empty":            {"compare", a, empty},
		"not json":         {"compare", a, junk},
		"kinds":            {"compare", a, wf},
		"no distribution":  {"compare", sf, sf},
		"irq":              {"compare", irqf, irqf},
		"durations":        {"compare", a, b2},
		"unknown kind":     {"compare", a, unknown},
		"newer schema":     {"compare", newer, a},
		"bad --by":         {"compare", a, a, "--by", "p200"},
		"expect unknown":   {"compare", a, a, "--expect-better", "x.json"},
		"expect baseline":  {"compare", a, b2, "--expect-better", a},
		"bad --detect":     {"compare", a, a, "--detect", "0"},
		"stdev is no rank": {"compare", a, a, "--by", "stdev"},
		"negative":         {"compare", a, nf},
	}
	wantIn := map[string]string{"missing": "no such file", "empty": "empty", "kinds": "same kind", "durations": "same --sleep-length",
		"no distribution": "sweep results hold no single distribution (a sweep has one per step)",
		"irq":             "irq results hold no single distribution; compare takes", "unknown kind": `unknown.json: kind "sleeep" is not one latlab ` + result.Version() + ` reads; accepted: compare, crossproc, doctor, `,
		"newer schema": "newer.json: schema latlab.result/2 is from a newer latlab: this one (" + result.Version() + ") reads latlab.result/1; update latlab to read it",
		"one file":     "compare needs at least two result files", "not json": "junk.json: not a latlab result document",
		"bad --by": `invalid --by "p200"`, "expect unknown": "--expect-better x.json is not one of the compared files",
		"expect baseline": "names the first file, the baseline", "bad --detect": "invalid --detect 0",
		"stdev is no rank": `invalid --by "stdev"`, "negative": "negative.json: a sleep result with data.samples_ns[1] is -5: a slept time is never negative"}
	for name, args := range cases {
		code, out, errs := runCLI(t, args...)
		testutil.CheckBadExit(t, name, code, errs, wantIn[name])
		if out != "" {
			t.Errorf("%s: stdout %q", name, out)
		}
	}
}

func TestCompareRulesOutSmallChange(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 2000, 1e6, 2e3, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 2000, 1e6, 2e3, 2, 1e6)
	_, out, _ := runCLI(t, "compare", a, b)
	out = strings.Join(strings.Fields(out), " ") // the verdict wraps at 80 columns
	if !strings.Contains(out, "no detectable difference") || !strings.Contains(out, "rules out a 5% change") {
		t.Fatalf("verdict:\n%s", out)
	}
}

// One sample against a hundred is never "faster": compare says there is no
// verdict and why, and --expect-better fails.
func TestCompareTooFewSamples(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "many.json", 100, 1.5e6, 2e4, 1, 1e6)
	b := synthSleep(t, dir, "one.json", 1, 1.0e6, 2e4, 2, 1e6)
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "faster") || !strings.Contains(out, "no verdict, too few samples (1 and 100)") ||
		!strings.Contains(out, "needs at least 20 per run") {
		t.Fatalf("verdict:\n%s", out)
	}
	code, _, errs = runCLI(t, "compare", a, b, "--expect-better", "one.json")
	if code != 1 || !strings.Contains(errs, "too few samples") {
		t.Errorf("--expect-better with one sample: exit %d %q", code, errs)
	}
	// p99 of 300 samples: a 95% interval of p99 needs 368 per run.
	a = synthSleep(t, dir, "a300.json", 300, 1.5e6, 2e4, 1, 1e6)
	b = synthSleep(t, dir, "b300.json", 300, 1.0e6, 2e4, 2, 1e6)
	_, out, _ = runCLI(t, "compare", a, b, "--by", "p99")
	if !strings.Contains(out, "no verdict") || !strings.Contains(out, "368 per run") || !strings.Contains(out, "reaches past the most extreme sample") {
		t.Errorf("--by p99 with 300 samples:\n%s", out)
	}
	_, out, _ = runCLI(t, "compare", a, b, "--by", "p50")
	if !strings.Contains(out, "verdict: b300.json is faster") || !strings.Contains(out, "p99 (needs 368)") {
		t.Errorf("--by p50 with 300 samples:\n%s", out)
	}
}

// writeTCPRuns writes n tcp-discard documents into dir, as `net
// tcp-discard -o` does, with wall times around wall and RTTs around rtt.
func writeTCPRuns(t *testing.T, dir string, n int, wall, rtt int64, seed uint64) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	var files []string
	for i := 0; i < n; i++ {
		w := wall + int64(r.NormFloat64()*float64(wall)/20)
		res := &netload.TCPResult{Size: 10_000_000, Written: 10_000_000, WallNs: w, SinkBytes: 10_000_000, GoodputBps: 8e7 / (float64(w) / 1e9)}
		for k := int64(0); k < 50; k++ {
			var st netload.TCPSample
			st.TNs = k * 1e6
			st.V[netload.FRTT] = rtt/1000 + k%5
			st.Has |= 1 << netload.FRTT
			res.Samples = append(res.Samples, st)
		}
		data, _ := netload.NewTCPData(res)
		doc := netload.KindTCPDiscard.New(host.Facts{}, data)
		doc.Settings = map[string]string{"size": "10MB"}
		f := filepath.Join(dir, fmt.Sprintf("run%02d.json", i))
		if err := result.WriteFile(f, doc); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// tcp-discard results are compared run by run, the way the research
// compares transfers: B's transfers are twice as fast though its RTT
// samples are five times A's.
func TestCompareTCPDiscardPerRun(t *testing.T) {
	dir := testutil.TempDir(t)
	before := writeTCPRuns(t, filepath.Join(dir, "before"), 20, 10e6, 100e3, 1)
	after := writeTCPRuns(t, filepath.Join(dir, "after"), 20, 5e6, 500e3, 2)
	code, out, errs := runCLI(t, "compare", filepath.Join(dir, "before"), filepath.Join(dir, "after"), "--expect-better", filepath.Join(dir, "after"))
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"transfer time per run", "A = before/ (20 runs)", "goodput (Gbit/s)", "verdict: after/ is faster at p50", "not pooled"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The same runs as comma-separated lists.
	_, out2, _ := runCLI(t, "compare", strings.Join(before, ","), strings.Join(after, ","))
	if !strings.Contains(out2, "verdict: "+filepath.Join("after", "run00.json+19")+" is faster") {
		t.Errorf("lists:\n%s", out2)
	}
	// One transfer per side: no verdict, and --expect-better fails.
	code, out, errs = runCLI(t, "compare", before[0], after[0], "--expect-better", after[0])
	if code != 1 || !strings.Contains(strings.Join(strings.Fields(out), " "), "no verdict, too few runs (1 and 1)") || !strings.Contains(errs, "too few samples") {
		t.Errorf("one run per side: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestCompareSidesBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	sleeps := filepath.Join(dir, "sleeps")
	os.Mkdir(sleeps, 0o755)
	a := synthSleep(t, sleeps, "a.json", 30, 1e6, 1e4, 1, 1e6)
	synthSleep(t, sleeps, "b.json", 30, 1e6, 1e4, 2, 1e6)
	tcp := writeTCPRuns(t, filepath.Join(dir, "tcp"), 2, 1e6, 1e5, 1)
	cases := map[string][]string{
		"empty directory":   {"compare", empty, a},
		"sleep group":       {"compare", sleeps, a},
		"empty list member": {"compare", a + ",," + a, a},
		"missing in list":   {"compare", tcp[0] + "," + filepath.Join(dir, "nope.json"), tcp[1]},
		"mixed kinds":       {"compare", tcp[0] + "," + a, tcp[1]},
	}
	want := map[string]string{"empty directory": "no .json result files", "sleep group": "one file per side",
		"empty list member": "empty file name", "missing in list": "no such file", "mixed kinds": "same kind"}
	for name, args := range cases {
		code, out, errs := runCLI(t, args...)
		testutil.CheckBadExit(t, name, code, errs, want[name])
		if out != "" {
			t.Errorf("%s: stdout %q", name, out)
		}
	}
}

// The settings that differ between runs are lines under the ranking, not
// a column that made the table 300 columns wide (or, fitted to a terminal,
// left out): at 80 columns every line fits and every setting is there.
func TestCompareSettingsFit80(t *testing.T) {
	dir := testutil.TempDir(t)
	var files []string
	for i, extra := range [][]string{nil, {"--method", probe.SleepMethods()[len(probe.SleepMethods())-1], "--priority", "high"}, {"--resolution", "1us"}} {
		f := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		args := append([]string{"sleep", "--samples", "25", "--gap", "0", "-o", f}, extra...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		files = append(files, f)
	}
	code, out, errs := runCLIWidth(t, 80, append([]string{"compare"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if !strings.Contains(out, "settings that differ:") || !strings.Contains(out, "--priority high") {
		t.Errorf("the settings are not shown:\n%s", out)
	}
}

// writeNoise writes a noise document of one CPU whose n interruptions,
// all kept, are lengths from 1.5 µs in steps of step.
func writeNoise(t *testing.T, dir, name string, thresholdNs int64, cpu, n int, step int64) string {
	t.Helper()
	l := make([]int64, n)
	var total int64
	for i := range l {
		l[i] = 1500 + int64(i)*step
		total += l[i]
	}
	d := probe.KindNoise.New(host.Facts{}, &probe.NoiseData{
		Measurement: probe.NoiseMeasurement{Method: probe.NoiseMethod, ThresholdNs: thresholdNs, DurationNs: 10e9, PercentileNote: result.PercentileDefinition},
		CPUs: []probe.NoiseCPU{{ThreadSetup: probe.ThreadSetup{CPU: cpu}, RuntimeNs: 10e9, NoiseNs: total, AvailablePct: 100 * float64(10e9-total) / 10e9,
			Count: int64(n), PerSecond: float64(n) / 10, MaxNs: l[n-1], Summary: stats.Summarize(l), Kept: int64(n), LengthsNs: l}},
	})
	p := filepath.Join(dir, name)
	if err := result.WriteFile(p, d); err != nil {
		t.Fatal(err)
	}
	return p
}

// compare of noise results answers per CPU, by rate and by length, and
// refuses runs measured differently with exit 2 and one line.
func TestCompareNoise(t *testing.T) {
	dir := testutil.TempDir(t)
	a := writeNoise(t, dir, "before.json", 1000, 1, 1180, 10)
	b := writeNoise(t, dir, "after.json", 1000, 1, 120, 100)
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"latlab compare: noise, 2 runs, CPU 1, threshold 1µs", "- CPU 1: after.json has fewer interruptions (12.0/s vs 118/s",
		"rate ratio B/A = 0.102"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	code, out, _ = runCLI(t, "compare", a, b, "--json")
	if code != 0 || !strings.Contains(out, `"compared_kind": "noise"`) || !strings.Contains(out, `"rate_outcome": "fewer"`) {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
	for name, c := range map[string]struct {
		file, want string
	}{
		"threshold": {writeNoise(t, dir, "t5us.json", 5000, 1, 120, 100), "compare runs with the same --threshold"},
		"cpus":      {writeNoise(t, dir, "cpu2.json", 1000, 2, 120, 100), "measured CPUs 1 and cpu2.json CPUs 2: compare runs of the same --cpus"},
	} {
		code, _, errs := runCLI(t, "compare", a, c.file)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: exit %d: %q", name, code, errs)
		}
	}
}
