package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Under Wine the trace cannot start: one line, exit 3, before any
// transfer.
func TestNetTCPETWUnderWine(t *testing.T) {
	if !testutil.UnderWine() {
		t.Skip("not Wine")
	}
	code, out, errs := runCLI(t, "net", "tcp-discard", "--to", "127.0.0.1:9", "--etw")
	if code != 3 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "tracing unavailable: Wine does not implement") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
}
