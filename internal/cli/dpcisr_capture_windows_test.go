package cli

import (
	"os"
	"strings"
	"testing"
)

// Without xperf (as under Wine): exit 2, naming the toolkit to install.
func TestDPCISRCaptureWithoutXperf(t *testing.T) {
	t.Setenv("PATH", os.TempDir())
	t.Setenv("ProgramFiles", os.TempDir())
	t.Setenv("ProgramFiles(x86)", os.TempDir())
	code, _, errs := runCLI(t, "dpcisr", "capture", "--duration", "1s", "-o", os.TempDir()+`\x.txt`)
	if code != 2 || !strings.Contains(errs, "Windows Performance Toolkit") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
