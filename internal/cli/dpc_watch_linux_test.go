package cli

import (
	"strings"
	"testing"
)

func TestDPCWatchIsWindowsOnly(t *testing.T) {
	code, out, errs := runCLI(t, "dpc", "watch", "--seconds", "1")
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "dpc watch is Windows-only") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
}
