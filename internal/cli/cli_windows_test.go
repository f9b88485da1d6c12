package cli

import (
	"strings"
	"testing"
)

func badInputOS() [][]string {
	return [][]string{
		{"sleep", "--method", "sleep", "--duration", "0.5ms"},
		{"sleep", "--method", "sleep", "--duration", "1.5ms"},
		{"sleep", "--method", "nanosleep"},
		{"wake", "--dma-latency", "0"},
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
		code, out, errs := runCLI(t, "sleep", "--samples", "5", "--method", m, "--duration", "2ms", "--resolution", "1ms", "--priority", "high", "--cpu", "0")
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
