package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/report"
)

func badInputOS() []badCase {
	return []badCase{
		{[]string{"sleep", "--method", "sleep", "--sleep-length", "0.5ms"}, "--method sleep takes whole milliseconds (kernel32 Sleep); 500µs is not"},
		{[]string{"sleep", "--method", "sleep", "--sleep-length", "1.5ms"}, "--method sleep takes whole milliseconds (kernel32 Sleep); 1.5ms is not"},
		{[]string{"sleep", "--method", "nanosleep"}, `unknown --method "nanosleep": accepted on windows`},
		{[]string{"wake", "--dma-latency", "0"}, "--dma-latency is Linux-only"},
	}
}

func checkTimerStatusJSON(t *testing.T, m map[string]any) {
	for _, k := range []string{"coarsest_100ns", "finest_100ns", "current_100ns", "coarsest_ms", "build", "per_process_rule", "global_requests_supported"} {
		if _, ok := m[k]; !ok {
			t.Errorf("timer status lacks %s: %v", k, m)
		}
	}
}

// Every Windows method runs end to end (under Wine in CI: this proves the
// code paths, not Windows timing).
func TestSleepMethodsWindows(t *testing.T) {
	for _, m := range []string{"sleep", "waitable", "ntdelay"} {
		code, out, errs := runCLI(t, "sleep", "--samples", "5", "--method", m, "--sleep-length", "2ms", "--resolution", "1ms", "--priority", "high", "--cpus", "0")
		if code != 0 || !strings.Contains(out, "granted") {
			t.Fatalf("%s: exit %d: %s\n%s", m, code, errs, out)
		}
	}
}

func TestTimerSetForWindows(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "set", "1ms", "--for", "10ms", "--json")
	if code != 0 || !strings.Contains(out, `"granted_ns"`) {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
}

// The whole experiment runs with a real child process calling
// timeBeginPeriod (under Wine: proves the code paths, not the behaviour).
func TestCrossprocWindows(t *testing.T) {
	r := crossprocRun(t)
	if r.Rows[1].CurrentNs <= 0 {
		t.Errorf("NtQueryTimerResolution not read: %+v", r.Rows[1])
	}
}

// --mlock cannot be honoured on Windows: the run goes on and the document
// says so.
func TestWakeMlockNotedWindows(t *testing.T) {
	code, out, errs := runCLI(t, "wake", "--loops", "50", "--mlock", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc := readDoc(t, out)
	for _, n := range doc.Notes {
		if strings.HasPrefix(n, "--mlock has no effect on Windows") {
			return
		}
	}
	t.Errorf("no --mlock note: %q", doc.Notes)
}

// --live names the call as MeasureSleep does: Sleep(1), not Sleep(n=1).
func TestLiveCallWindows(t *testing.T) {
	if got := report.LiveCall("sleep", time.Millisecond); got != "Sleep(1)" {
		t.Errorf("liveCall = %q, want Sleep(1)", got)
	}
	o := &SleepOptions{Duration: time.Millisecond, Method: "sleep"}
	line := string(report.AppendLiveLine(liveLabel(o)(nil), report.LiveCall(o.Method, o.Duration), 15_510_000, 1_000_000))
	if !regexp.MustCompile(`^Resolution: \d+\.\d{6}ms, Sleep\(1\) slept 15\.510000ms \(delta: 14\.510000\)\n$`).MatchString(line) {
		t.Errorf("live line %q", line)
	}
}

// tryKnob and tryValue are a process-scope experiment of this OS: it
// changes nothing outside the test's process.
const tryKnob, tryValue = "timer-resolution", "1ms"

// timer status --json names the scope of timer requests on this build.
func TestTimerStatusJSONWindows(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "status", "--json")
	if code != 0 || !strings.Contains(out, `"request_scope"`) {
		t.Errorf("timer status --json: exit %d %s\n%s", code, errs, out)
	}
}
