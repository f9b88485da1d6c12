package cli

import (
	"strings"
	"testing"
)

func TestDPCISRCaptureIsWindowsOnly(t *testing.T) {
	code, _, errs := runCLI(t, "dpcisr", "capture", "--duration", "1s", "-o", "x.txt")
	if code != 2 || !strings.Contains(errs, "dpcisr capture is Windows-only") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
