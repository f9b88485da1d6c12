package knob

import (
	"reflect"
	"strings"
	"testing"
)

// The measured adapter's own ITR codes (the Gigabit CT's e1i INF as
// Windows ships it, net1ic64.inf 12.19.1.32) are quoted with their source,
// and they are the e1r/e1d codes the explanation says they are, so the
// e1i driver takes that table when an adapter declares no levels.
func TestITRMeasuredAdapterLevels(t *testing.T) {
	want := []EnumOpt{{"65535", "Adaptive"}, {"3600", "Extreme"}, {"2000", "High"}, {"950", "Medium"}, {"400", "Low"}, {"200", "Minimal"}, {"0", "Off"}}
	if !reflect.DeepEqual(itrMeasured.Levels, want) {
		t.Errorf("measured adapter's levels %v", itrMeasured.Levels)
	}
	f := itrFamilyOf("E1I68X64")
	if f == nil || f.Family != "e1r/e1d" || !reflect.DeepEqual(f.Levels, itrMeasured.Levels) {
		t.Errorf("e1i68x64 -> %+v", f)
	}
	if !strings.Contains(itrMeasured.LevelsSource, "net1ic64.inf 12.19.1.32") || !strings.Contains(itrMeasured.LevelsSource, "b82036c119fb70730fa59912da9b6867dd355fdd") {
		t.Errorf("source %q", itrMeasured.LevelsSource)
	}
	text := strings.Join(itrEvidence(), "\n")
	for _, w := range []string{"(net1ic64.inf 12.19.1.32, lines\n  2175-2184) codes the levels as e1r/e1d do: Adaptive 65535, Extreme 3600, High\n  2000, Medium 950,", "does not say which\n  driver version it ran."} {
		if !strings.Contains(text, w) {
			t.Errorf("evidence lacks %q:\n%s", w, text)
		}
	}
	for _, l := range itrEvidence() {
		if len([]rune(l)) > 80 {
			t.Errorf("wider than 80 columns: %q", l)
		}
	}
}
