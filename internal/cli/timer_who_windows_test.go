package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Under Wine there is no powercfg: the current resolution, and one line
// saying why the requesters are unknown.
func TestTimerWhoUnderWine(t *testing.T) {
	if !testutil.UnderWine() {
		t.Skip("not Wine: powercfg /energy on a real Windows is the CI job's")
	}
	code, out, errs := runCLI(t, "timer", "who", "--duration", "1s")
	if code != 0 || !strings.Contains(out, "timer resolution now:") || !strings.Contains(out, "requesters: unknown: powercfg.exe not found") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
}
