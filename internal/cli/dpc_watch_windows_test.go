package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Under Wine the kernel session cannot start: one line, exit 3, no panic.
// (On a real Windows the CI job runs the command itself, elevated.)
func TestDPCWatchUnderWine(t *testing.T) {
	if !testutil.UnderWine() {
		t.Skip("not Wine: a real kernel trace is the CI job's, not a unit test's")
	}
	code, out, errs := runCLI(t, "dpc", "watch", "--duration", "1s", "--quiet")
	if code != 3 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "tracing unavailable: Wine does not implement") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
}
