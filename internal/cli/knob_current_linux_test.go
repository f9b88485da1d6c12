package cli

import (
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// knob explain --current reads the Windows registry: refused on Linux,
// and for a knob's name anywhere.
func TestKnobExplainCurrentRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knob", "explain", "../regfile/testdata/tweaks.reg", "--current"}, "--current reads this machine's registry: on Windows only"},
		{[]string{"knob", "explain", "rss", "--current"}, "--current is for a .reg, batch or PowerShell file"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, c.args[2], code, errs, c.want)
	}
}
