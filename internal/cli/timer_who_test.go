package cli

import (
	"strings"
	"testing"
)

func TestTimerWhoBadSeconds(t *testing.T) {
	code, _, errs := runCLI(t, "timer", "who", "--duration", "99999s")
	if code != 2 || !strings.Contains(errs, "invalid --duration 99999s: want 0 to 3600s") {
		t.Errorf("exit %d %s", code, errs)
	}
}

// A saved report is read on any OS; a file that is not one is bad input.
func TestTimerWhoReport(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.txt")
	if code != 0 || !strings.Contains(out, "2 outstanding timer requests") || strings.Contains(out, "timer resolution now") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.PROVENANCE")
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no 'Platform Timer Resolution' entry") {
		t.Errorf("exit %d %q", code, errs)
	}
}
