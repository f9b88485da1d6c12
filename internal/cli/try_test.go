package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/try"
)

// Bad input exits 2 with one line that names what was wrong, before
// anything is measured or changed.
func TestTryBadInput(t *testing.T) {
	native := "timer-slack"
	if knob.HostOS == "windows" {
		native = "timer-resolution"
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"try", "no-such-knob", "1"}, `unknown knob "no-such-knob"`},
		{[]string{"try", native}, "at least one value to try"},
		{[]string{"try", native, "1us", "1us"}, "value 1us is given twice"},
		{[]string{"try", native, "1us", "--probe", "ping"}, `unknown --probe "ping": accepted sleep, wake, udp, dpcisr, noise`},
		// An unknown probe is named before flags that would not go with it.
		{[]string{"try", native, "1us", "--probe", "ping", "--sleep-length", "1ms"}, `unknown --probe "ping": accepted sleep, wake, udp, dpcisr, noise`},
		{[]string{"try", native, "1us", "--cpus", "0,1"}, "invalid --cpus 0,1: this command measures with one thread"},
		// The noise probe takes several CPUs, and judges their rates.
		{[]string{"try", native, "1us", "--probe", "noise", "--cpus", "0,8000"}, "invalid --cpus: "},
		{[]string{"try", native, "1us", "--probe", "noise", "--cpus", "0-1", "--by", "p99"}, "--by p99 with --probe noise compares the interruptions' lengths on one CPU"},
		{[]string{"try", native, "1us", "--probe", "noise", "--threshold", "2s"}, "invalid --threshold 2s"},
		{[]string{"try", native, "1us", "--probe", "noise", "--interval", "2ms"}, "--interval do(es) not go with --probe noise"},
		{[]string{"try", native, "1us", "--threshold", "5us"}, "--threshold do(es) not go with --probe sleep"},
		{[]string{"try", native, "1us", "--by", "rate"}, "--by rate is the noise probe's"},
		{[]string{"try", native, "1us", "--probe", "wake", "--sleep-length", "1ms", "--to", "x:7"}, "--sleep-length, --to do(es) not go with --probe wake"},
		{[]string{"try", native, "1us", "--probe", "udp", "--interval", "1ms", "--module", "m"}, "--interval, --module do(es) not go with --probe udp"},
		{[]string{"try", native, "1us", "--module", "ndis.sys"}, "--module do(es) not go with --probe sleep"},
		{[]string{"try", native, "1us", "--keep", "all"}, `invalid --keep "all": accepted best or none`},
		{[]string{"try", native, "1us", "--keep", "best"}, "--keep best: " + native + " is set on latlab's own measuring thread"},
		{[]string{"try", native, "1us", "--blocks", "0"}, "invalid --blocks 0"},
		{[]string{"try", native, "1us", "--by", "stdev"}, `invalid --by "stdev"`},
		{[]string{"try", native, "1us", "--interval", "2ms"}, "--interval do(es) not go with --probe sleep"},
		{[]string{"try", native, "1us", "--probe", "udp"}, "--to HOST:PORT is required"},
		{[]string{"try", native, "1us", "--block-duration", "1ms"}, "invalid --block-duration 1ms: accepted 10ms to 1h"},
		{[]string{"try", native, "1us", "--pid", "1"}, "applies to latlab's own measuring thread"},
		{[]string{"try", native, "soon"}, "invalid " + native + ` "soon"`},
	} {
		code, out, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if out != "" {
			t.Errorf("%v: stdout %q", c.args, out)
		}
	}
}

// synthTry writes a try result of two arms over eight rounds, the value's
// blocks lower by shift.
func synthTry(t *testing.T, path string, shift int64) {
	t.Helper()
	r := &try.Result{Knob: "timer-slack", Probe: try.ProbeSleep, Quantity: try.Quantity(try.ProbeSleep), By: "p50", Blocks: 8,
		BlockDurationNs: 1e8, Seed: 3, Arms: []try.Arm{{Label: "current", Baseline: true, Current: "50µs"}, {Label: "1us", Value: "1us"}}}
	r.Order = try.Order(2, 8, 3)
	for i, a := range r.Order {
		b := try.Block{Index: i, Round: i / 2, Arm: a, Complete: true, StartNs: int64(i) * 1e8, ElapsedNs: 1e8}
		for k := int64(0); k < 60; k++ {
			v := 1_050_000 + (k*7919)%20_000 + int64(i)*100
			if a == 1 {
				v -= shift
			}
			b.Samples = append(b.Samples, v)
		}
		b.Count = len(b.Samples)
		r.Runs = append(r.Runs, b)
	}
	if err := try.Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	doc, err := try.Document(host.Facts{}, r, map[string]string{"knob": "timer-slack"})
	if err != nil {
		t.Fatal(err)
	}
	if err := result.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
}

// A noise or dpcisr try is read by compare too: its arms compared as
// noise results, or as latlab dpcisr compare compares reports, the
// verdict first and within 80 columns; --expect-better, which names one
// statistic to be better at, does not apply.
func TestNoiseAndDPCISRTryInCompare(t *testing.T) {
	td := filepath.Join("..", "compare", "testdata")
	for _, c := range []struct{ file, verdict, arm, bad string }{
		{"try-noise.json", "- CPU 3: try-noise.json[0] has fewer interruptions", "try-noise.json[0]", "noise results are compared CPU by CPU"},
		{"try-dpcisr.json", "- DPC: try-dpcisr.json[off] is faster than", "try-dpcisr.json[off]", "the arms of a dpcisr try are compared section by section"},
	} {
		f := filepath.Join(td, c.file)
		code, out, errs := runCLI(t, "compare", f)
		lines := strings.Split(out, "\n")
		if code != 0 || len(lines) < 4 || lines[2] != "verdict:" || !strings.HasPrefix(lines[3], c.verdict) {
			t.Errorf("%s: exit %d\n%s%s", c.file, code, out, errs)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s: %d columns: %q", c.file, n, l)
			}
		}
		code, _, errs = runCLI(t, "compare", f, "--expect-better", c.arm)
		testutil.CheckBadExit(t, c.file+" --expect-better "+c.arm, code, errs, c.bad)
	}
}

// A try result is read by compare (its arms are the runs, the baseline
// first) and by report (verdicts, the arms' distributions and the blocks
// in the order run).
func TestTryResultInCompareAndReport(t *testing.T) {
	dir := testutil.TempDir(t)
	f := filepath.Join(dir, "t.json")
	synthTry(t, f, 40_000)
	code, out, errs := runCLI(t, "compare", f)
	if code != 0 || !strings.Contains(out, "verdict: t.json[1us] is faster at p50 by 39.99 µs") || !strings.Contains(out, "t.json[current]") {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "compare", f, "--expect-better", "t.json[1us]"); code != 0 {
		t.Errorf("--expect-better an arm: exit %d %s", code, errs)
	}
	for arg, want := range map[string]string{
		f:                   "is a try result: name one of its arms, e.g. t.json[VALUE]",
		"t.json[current]":   "names the baseline",
		"t.json[10us]":      "is not one of the compared files or arms",
		"t.json[1us]x.json": "is not one of the compared files",
	} {
		code, _, errs := runCLI(t, "compare", f, "--expect-better", arg)
		testutil.CheckBadExit(t, "--expect-better "+arg, code, errs, want)
	}
	html := filepath.Join(dir, "r.html")
	code, _, errs = runCLI(t, "report", f, "-o", html)
	page := readFile(t, html)
	if code != 0 || !strings.Contains(page, "each block&#39;s p50 in the order run") || !strings.Contains(page, "1us is better than current at p50 by 39.99 µs") ||
		strings.Count(page, "<svg") != 3 || !strings.Contains(page, "blocks in the order run") {
		t.Errorf("report: exit %d %s", code, errs)
	}
}

// Completion offers the knobs try can switch live on this OS.
func TestTryCompletesLiveKnobs(t *testing.T) {
	_, out, _ := runCLI(t, "__complete", "try", "")
	want, not := "timer-slack", "global-timer-resolution-requests"
	if knob.HostOS == "windows" {
		want = "timer-resolution\nwin32-priority-separation\n"
	}
	if !strings.Contains(out, want) || strings.Contains(out, not) || strings.Contains(out, "rss\n") {
		t.Errorf("completion %q", out)
	}
}
