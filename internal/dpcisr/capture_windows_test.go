package dpcisr

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// Options are checked before xperf is looked for; without xperf (as
// under Wine) the error names the toolkit to install.
func TestRunCaptureChecks(t *testing.T) {
	t.Setenv("PATH", os.TempDir())
	t.Setenv("ProgramFiles", os.TempDir())
	t.Setenv("ProgramFiles(x86)", os.TempDir())
	out := os.TempDir() + `\x.txt`
	for _, c := range []struct {
		o    CaptureOptions
		want string
	}{
		{CaptureOptions{Seconds: 0, Out: out}, "invalid --duration 0s: want 1s to 24h"},
		{CaptureOptions{Seconds: 86401, Out: out}, "invalid --duration 86401s"},
		{CaptureOptions{Seconds: 1}, "missing -o FILE"},
		{CaptureOptions{Seconds: 1, Out: out}, "install the Windows Performance Toolkit"},
	} {
		_, err := RunCapture(context.Background(), c.o)
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an input error with %q", c.o, err, c.want)
		}
	}
}
