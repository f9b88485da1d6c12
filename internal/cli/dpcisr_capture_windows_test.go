package cli

import (
	"os"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Without xperf (as under Wine): exit 2, naming the toolkit to install.
func TestDPCISRCaptureWithoutXperf(t *testing.T) {
	t.Setenv("PATH", os.TempDir())
	t.Setenv("ProgramFiles", os.TempDir())
	t.Setenv("ProgramFiles(x86)", os.TempDir())
	code, _, errs := runCLI(t, "dpcisr", "capture", "--duration", "1s", "-o", os.TempDir()+`\x.txt`)
	testutil.CheckBadExit(t, "dpcisr capture without xperf", code, errs, "Windows Performance Toolkit")
}
