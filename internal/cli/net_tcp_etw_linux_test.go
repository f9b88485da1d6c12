package cli

import (
	"strings"
	"testing"
)

func TestNetTCPETWIsWindowsOnly(t *testing.T) {
	code, out, errs := runCLI(t, "net", "tcp-discard", "--to", "127.0.0.1:9", "--etw")
	if code != 2 || out != "" || !strings.Contains(errs, "--etw is Windows-only") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
}
