package cli

import (
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestNetTCPETWIsWindowsOnly(t *testing.T) {
	code, out, errs := runCLI(t, "net", "tcp-discard", "--to", "127.0.0.1:9", "--etw")
	testutil.CheckBadExit(t, "--etw", code, errs, "--etw is Windows-only")
	if out != "" {
		t.Errorf("--etw: stdout %q", out)
	}
}
