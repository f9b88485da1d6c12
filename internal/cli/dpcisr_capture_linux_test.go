package cli

import (
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestDPCISRCaptureIsWindowsOnly(t *testing.T) {
	code, _, errs := runCLI(t, "dpcisr", "capture", "--duration", "1s", "-o", "x.txt")
	testutil.CheckBadExit(t, "dpcisr capture", code, errs, "dpcisr capture is Windows-only")
}
