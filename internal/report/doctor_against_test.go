package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/doctor"
)

// TestDoctorAgainstRefused: why tuned would refuse the profile comes
// right under the heading, within 80 columns, not among the notes.
func TestDoctorAgainstRefused(t *testing.T) {
	var b bytes.Buffer
	DoctorAgainstText(&b, &doctor.Against{
		Profile: "realtime", File: "/usr/lib/tuned/realtime/tuned.conf", Items: []doctor.AgainstItem{},
		Refused: []string{`tuned refuses this profile: its assertion_non_equal "isolated_cores are set" fails ('${isolated_cores}' == '${isolated_cores}')`},
		Notes:   []string{"the variables file /etc/tuned/realtime-variables.conf (realtime's [variables] include=) is not found: tuned skips it, so what it would set is unset"},
	})
	out := b.String()
	lines := strings.Split(out, "\n")
	at := strings.Index(out, "\n  ! tuned refuses this profile")
	if at < 0 || at != strings.Index(out, "differ\n")+len("differ") || strings.Index(out, "note: ") < at {
		t.Errorf("the refusal is not under the heading:\n%s", out)
	}
	if strings.Count(b.String(), "tuned refuses") != 1 {
		t.Errorf("the refusal said more than once:\n%s", b.String())
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("over 80 columns: %q", l)
		}
	}
}
