package cli

import (
	"strings"
	"testing"
)

// knob explain --current reads what each value of the file is now
// (under Wine, its registry) and counts what an import would change;
// the document carries the same.
func TestKnobExplainCurrent(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "explain", "../regfile/testdata/tweaks.reg", "--current")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "on this machine an import would change") || !strings.Contains(out, "(now: ") {
		t.Errorf("no current values:\n%s", out)
	}
	code, out, errs = runCLI(t, "knob", "explain", "../regfile/testdata/tweaks.reg", "--current", "--json")
	if code != 0 || !strings.Contains(out, `"current": true`) {
		t.Errorf("--json: exit %d: %s%s", code, errs, out[:min(len(out), 400)])
	}
}
