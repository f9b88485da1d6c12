package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestTimerWhoBadSeconds(t *testing.T) {
	code, _, errs := runCLI(t, "timer", "who", "--duration", "99999s")
	testutil.CheckBadExit(t, "--duration 99999s", code, errs, "invalid --duration 99999s: want 0 to 3600s")
}

// A saved report is read on any OS; a file that is not one is bad input.
func TestTimerWhoReport(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.txt")
	if code != 0 || !strings.Contains(out, "2 outstanding timer requests") || strings.Contains(out, "timer resolution now") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.PROVENANCE")
	testutil.CheckBadExit(t, "a file that is no report", code, errs, "no 'Platform Timer Resolution' entry")
}
