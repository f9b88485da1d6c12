package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/timer"
)

func readDoc(t *testing.T, out string) *result.Document {
	t.Helper()
	d, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatalf("result document: %v\n%s", err, out)
	}
	return d
}

// payload is the payload of a document of kind k; the test fails on
// another kind.
func payload[T any](t *testing.T, d *result.Document, k result.Kind[T]) *T {
	t.Helper()
	p, ok := k.Of(d)
	if !ok {
		t.Fatalf("a %s document holding %T, want %s", d.Kind, d.Data, k)
	}
	return p
}

// jsonData is the payload of the document out, as JSON: for tests that
// read it without latlab's types.
func jsonData(t *testing.T, out string) []byte {
	t.Helper()
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Data) == 0 {
		t.Fatalf("no document data (%v) in\n%s", err, out)
	}
	return doc.Data
}

func defaultMethodFlag() string { return probe.SleepMethods()[0] }

// A valid duration for the default method on both OSes (Windows Sleep
// takes whole milliseconds).
func TestSleepJSON(t *testing.T) {
	for _, d := range []string{"1ms", "2ms"} {
		code, out, errs := runCLI(t, "sleep", "--samples", "50", "--gap", "1ms", "--sleep-length", d, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		doc := readDoc(t, out)
		s := payload(t, doc, probe.KindSleep)
		req, _ := time.ParseDuration(d)
		if doc.Kind != "sleep" || s.Summary.Count != 50 || len(s.Samples) != 50 {
			t.Fatalf("kind %s count %d samples %d", doc.Kind, s.Summary.Count, len(s.Samples))
		}
		if s.Summary.P50 < req.Nanoseconds() {
			t.Errorf("p50 %d below the requested %v", s.Summary.P50, req)
		}
		if s.Overshoot.Min != s.Summary.Min-req.Nanoseconds() || s.Overshoot.Max != s.Summary.Max-req.Nanoseconds() ||
			s.Overshoot.P50 != s.Summary.P50-req.Nanoseconds() {
			t.Errorf("overshoot is not slept - requested: %+v vs %+v", s.Overshoot, s.Summary)
		}
		if s.Measurement.WarmupNs <= 0 || s.Overhead.ZeroWaitMethod == "" || s.Histogram.Data == "" || s.Timer == nil {
			t.Errorf("document incomplete: %+v", s)
		}
		if doc.Settings["sleep-length"] == "" || doc.Settings["samples"] != "50" {
			t.Errorf("settings %v", doc.Settings)
		}
		if doc.Host.OS == "" || doc.Host.LogicalCPUs == 0 {
			t.Errorf("host %+v", doc.Host)
		}
	}
}

func TestSleepHumanAndRaw(t *testing.T) {
	raw := testutil.TempDir(t) + "/raw.csv"
	code, out, errs := runCLI(t, "sleep", "--samples", "5", "--gap", "0", "--raw", raw, "--live")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"overshoot (slept - requested): p50 ", "verdict: ", " slept  overshoot", "p99.9", "warm-up", "tool overhead", "delta:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b := readFile(t, raw)
	lines := strings.Split(strings.TrimSpace(b), "\n")
	if lines[0] != "index,slept_ns,overshoot_ns" || len(lines) != 6 {
		t.Fatalf("raw csv:\n%s", b)
	}
}

// 200 wake-ups of 1 ms check what 2000 did (the count, the percentiles'
// order, the corrected summary) in a tenth of the time.
func TestWakeJSON(t *testing.T) {
	code, out, errs := runCLI(t, "wake", "--loops", "200", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc := readDoc(t, out)
	w := payload(t, doc, probe.KindWake)
	s := w.Summary
	if doc.Kind != "wake" || s.Count != 200 || len(w.Threads) != 1 {
		t.Fatalf("kind %s count %d threads %d", doc.Kind, s.Count, len(w.Threads))
	}
	if !(s.Min <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.P999 && s.P999 <= s.Max) {
		t.Fatalf("percentiles out of order: %+v", s)
	}
	if s.Min < 0 || s.P50 > int64(50*time.Millisecond) {
		t.Fatalf("insane latencies: %+v", s)
	}
	if w.CorrectedSummary.Count != s.Count+w.Overruns || w.Measurement.IntervalNs != 1e6 {
		t.Fatalf("corrected summary %+v", w.CorrectedSummary)
	}
}

func TestTimerStatusJSON(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "status", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	payload(t, readDoc(t, out), timer.KindStatus)
	var m struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	checkTimerStatusJSON(t, m.Data)
}

func TestBadInput(t *testing.T) {
	cases := []badCase{
		{[]string{"sleep", "--sleep-length", "-1ms"}, `invalid value "-1ms" for --sleep-length`},
		{[]string{"sleep", "--sleep-length", "1parsec"}, `invalid value "1parsec" for --sleep-length`},
		{[]string{"sleep", "--sleep-length", "5"}, `invalid value "5" for --sleep-length: needs a unit`},
		{[]string{"sleep", "--samples", "x"}, `invalid value "x" for --samples: want a whole number`},
		{[]string{"sleep", "--samples", "-3"}, "invalid --samples -3"},
		{[]string{"sleep", "--resolution", "5s"}, "invalid --resolution: timer "}, // slack or resolution
		{[]string{"sleep", "--cpus", "999"}, "invalid --cpus: cpu 999 does not exist"},
		{[]string{"sleep", "--method", "busyloop"}, `unknown --method "busyloop"`},
		{[]string{"sleep", "--priority", "urgent"}, `unknown priority "urgent"`},
		{[]string{"sleep", "--priority", "realtime", "--rtprio", "0"}, "invalid --rtprio 0"},
		{[]string{"wake", "--interval", "0"}, `invalid value "0" for --interval`},
		{[]string{"wake", "--cpus", "0-999"}, "invalid --cpus: cpu "},
		{[]string{"wake", "--threads", "0"}, "invalid --threads 0"},
		{[]string{"wake", "--rtprio", "100"}, "invalid --rtprio 100"},
		{[]string{"wake", "--duration", "1ms", "--interval", "2ms"}, "--duration 1ms is shorter than --interval 2ms"},
		{[]string{"wake", "--hist-max", "100"}, "--hist-max sizes the histogram of --histfile: give --histfile FILE too"},
		// counts whose buffers cannot fit in memory (they crashed the
		// process out of memory before the first sample)
		{[]string{"wake", "--loops", "99999999999"}, "invalid --loops 99999999999: accepted up to"},
		{[]string{"wake", "--duration", "1000h"}, "invalid --duration 3600000s: accepted up to"},
		{[]string{"sleep", "--samples", "99999999999"}, "invalid --samples 99999999999: accepted up to"},
		{[]string{"timer", "set", "1parsec"}, `invalid resolution "1parsec"`},
		{[]string{"timer", "set", "5s"}, "5s is out of range"},
		{[]string{"timer", "set", "1ms", "extra"}, `unexpected argument "extra"`},
		{[]string{"timer", "set", "1ms", "--", "no-such-command-latlab"}, `command "no-such-command-latlab" not found`},
		{[]string{"timer"}, "timer needs a subcommand"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
		{[]string{"sleep", "--nosuchflag"}, "unknown flag --nosuchflag"},
		{[]string{"sleep", "extra-arg"}, `sleep takes no arguments, got "extra-arg"`},
		{[]string{"knob", "get", "swappiness", "--root", "/no/such/root"}, "--root /no/such/root: "},
		{[]string{"knob", "list", "--root", "cli_test.go"}, "--root cli_test.go: not a directory"},
		{[]string{"sleep", "-o", "-"}, `--output -: give a file name ("-" is not standard output here); --json writes the document to standard output`},
		{[]string{"wake", "--histfile", "-"}, `--histfile -: give a file name ("-" is not standard output here)`},
	}
	cases = append(cases, badInputOS()...)
	for _, c := range cases {
		code, out, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
		if !strings.HasPrefix(errs, "latlab: ") {
			t.Errorf("%v: %q does not start with latlab: ", c.args, errs)
		}
	}
}

// badCase is a command line latlab refuses as bad input, and what the
// one line must say.
type badCase struct {
	args []string
	want string
}

func TestExitCodes(t *testing.T) {
	if ExitCode(&ExpectationError{"x"}) != 1 || ExitCode(Usagef("x")) != 2 || ExitCode(bytes.ErrTooLarge) != 3 || ExitCode(nil) != 0 {
		t.Fatal("exit code mapping")
	}
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, c := range []string{"sleep", "wake", "timer", "doctor"} {
		if !strings.Contains(out, c) {
			t.Errorf("help lacks %s", c)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{"1ms": time.Millisecond, "500us": 500 * time.Microsecond, "500µs": 500 * time.Microsecond,
		"0.5ms": 500 * time.Microsecond, "2ms": 2 * time.Millisecond, "0": 0, "100ns": 100}
	for s, want := range good {
		if d, err := ParseDuration(s); err != nil || d != want {
			t.Errorf("ParseDuration(%q) = %v, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "-1ms", "1parsec", "5", "ms"} {
		if _, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) accepted", s)
		}
	}
	// The longest duration is accepted; past it, the error says the value
	// is out of range, not that it lacks a unit.
	if d, err := ParseDuration("2562047h47m16.854775807s"); err != nil || d != math.MaxInt64 {
		t.Errorf("ParseDuration of the longest duration = %v, %v", d, err)
	}
	for _, s := range []string{"2562047h47m16.854775808s", "2562048h", "99999999999999999999ns"} {
		if _, err := ParseDuration(s); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseDuration(%q): %v, want out of range", s, err)
		}
	}
	if _, err := ParseDuration("1e3h"); err == nil || strings.Contains(err.Error(), "out of range") {
		t.Errorf("ParseDuration(1e3h): %v, want a malformed duration", err)
	}
}

// printLive writes one MeasureSleep-style line per sample, each led by the
// OS's resolution (Windows) or slack (Linux) label.
func TestPrintLive(t *testing.T) {
	o := &SleepOptions{Duration: time.Millisecond, Method: defaultMethodFlag(), Priority: "normal"}
	ch := make(chan int64, 3)
	ch <- 1_250_000
	ch <- 1_000_000
	ch <- 2_000_500
	close(ch)
	var b bytes.Buffer
	printLive(&b, ch, o)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"slept 1.250000ms (delta: 0.250000)", "slept 1.000000ms (delta: 0.000000)", "slept 2.000500ms (delta: 1.000500)"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	label := regexp.MustCompile(`^(Slack|Resolution): (\d+\.\d{6}ms|\?), `)
	for i, l := range lines {
		if !label.MatchString(l) || !strings.HasSuffix(l, " "+want[i]) || !strings.Contains(l, report.LiveCall(o.Method, o.Duration)) {
			t.Errorf("line %d: %q", i, l)
		}
	}
}

// A priority the OS lowered (Windows without the privilege for
// REALTIME_PRIORITY_CLASS) is what the documents record, with a note.
func TestDocumentsNoteLoweredPriority(t *testing.T) {
	setup := probe.ThreadSetup{CPU: -1, Priority: "high", PriorityNote: "priority realtime was requested, the OS gave high"}
	sr := &probe.SleepResult{Method: "m", Requested: time.Millisecond, Slept: []int64{1_100_000, 1_200_000}, Setup: setup}
	doc, err := probe.SleepDocument(host.Facts{}, sr, 0, timer.Status{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if th := payload(t, doc, probe.KindSleep).Measurement.Thread; th.Priority != "high" || !slices.Contains(doc.Notes, setup.PriorityNote) {
		t.Errorf("sleep document: thread %+v, notes %q", th, doc.Notes)
	}
	var b bytes.Buffer
	report.Sleep(&b, doc, sr)
	if !strings.Contains(b.String(), "priority high,") || !strings.Contains(b.String(), "note: "+setup.PriorityNote) {
		t.Errorf("sleep output:\n%s", b.String())
	}
	wt := probe.WakeThread{Setup: setup, Latencies: []int64{50_000, 60_000}}
	wr := &probe.WakeResult{Interval: time.Millisecond, Threads: []probe.WakeThread{wt, wt}}
	doc, err = probe.WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, note := range doc.Notes {
		if note == setup.PriorityNote {
			n++
		}
	}
	if th := payload(t, doc, probe.KindWake).Threads; n != 1 || th[1].Priority != "high" {
		t.Errorf("wake document: the note %d times, threads %+v", n, th)
	}
	b.Reset()
	report.Wake(&b, doc)
	if !strings.Contains(b.String(), ", high priority, ") || !strings.Contains(b.String(), "note: "+setup.PriorityNote) || strings.Contains(b.String(), probe.WakeWarmupNote) {
		t.Errorf("wake output:\n%s", b.String())
	}
}

// Every output file of a measuring command is checked before the
// measurement starts: each run below would measure for an hour (or until
// Ctrl-C) if it started.
func TestUnwritableOutputsFailBeforeMeasuring(t *testing.T) {
	bad := testutil.TempDir(t) + "/no-such-dir/out"
	cases := [][]string{
		{"sleep", "--samples", "0", "-o", bad + ".json"},
		{"sleep", "--samples", "0", "--raw", bad + ".csv"},
		{"wake", "--duration", "1h", "-o", bad + ".json"},
		{"wake", "--duration", "1h", "--histfile", bad + ".txt"},
		{"sweep", "--samples", "1000000", "-o", bad + ".json"},
		{"sweep", "--samples", "1000000", "--csv", bad + ".csv"},
		{"sweep", "--samples", "1000000", "--plot", bad + ".svg"},
		{"crossproc", "--hold", "1h", "-o", bad + ".json"},
		{"crossproc", "--hold", "1h", "--plot", bad + ".svg"},
	}
	for _, args := range cases {
		type res struct {
			code     int
			out, err string
		}
		ch := make(chan res, 1)
		go func() {
			code, out, errs := runCLI(t, args...)
			ch <- res{code, out, errs}
		}()
		select {
		case r := <-ch:
			testutil.CheckBadExit(t, fmt.Sprint(args), r.code, r.err, "cannot write "+args[len(args)-1])
			if r.out != "" {
				t.Errorf("%v: stdout %q", args, r.out)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%v: still running after a minute: it measures before checking its output file", args)
		}
	}
}

func TestVersionCommandAndFlag(t *testing.T) {
	code, out, errs := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "latlab ") || !strings.Contains(out, "platform:") {
		t.Fatalf("version: exit %d\n%s%s", code, out, errs)
	}
	code, flagOut, _ := runCLI(t, "--version")
	if code != 0 || flagOut != out {
		t.Fatalf("--version (exit %d) differs from version:\n%s\nvs\n%s", code, flagOut, out)
	}
	code, js, _ := runCLI(t, "version", "--json")
	doc := readDoc(t, js)
	if in := payload(t, doc, result.KindVersion); code != 0 || in.Version == "" || in.Platform == "" || doc.Tool.Version != in.Version {
		t.Fatalf("version --json: exit %d: %s", code, js)
	}
}

// The sleep and wake documents carry the verdict their text prints (and
// the wake band), so a reader of --json gets the same answer.
func TestSleepWakeDocumentsCarryTheVerdict(t *testing.T) {
	dir := testutil.TempDir(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"sleep", []string{"sleep", "--samples", "3", "--gap", "0"}},
		{"wake", []string{"wake", "--loops", "3"}},
	} {
		file := filepath.Join(dir, c.name+".json")
		code, out, errs := runCLI(t, append(c.args, "-o", file)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		_, text, _ := strings.Cut(out, "\nverdict: ")
		text, _, _ = strings.Cut(text, "\n")
		doc := readDoc(t, readFile(t, file))
		var verdict, band string
		switch c.name {
		case "sleep":
			verdict = payload(t, doc, probe.KindSleep).Verdict
		default:
			d := payload(t, doc, probe.KindWake)
			verdict, band = d.Verdict, d.Band
			if band == "" {
				t.Errorf("wake: no band in the document")
			}
		}
		if text == "" || verdict != text {
			t.Errorf("%s: the text says %q, the document %q:\n%s", c.name, text, verdict, out)
		}
	}
}
