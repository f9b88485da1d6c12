package try

import (
	"strings"
	"testing"
)

// The scripts quote what they take from outside with knob.PSQuote, which
// doubles every single quote PowerShell honours (' U+2018 U+2019 U+201A
// U+201B): try's own quoting doubled only the ASCII one, so a U+2019 ended
// the string and the rest ran as code.
func TestRestartScriptsQuoteEveryQuote(t *testing.T) {
	for _, q := range []string{"'", "\u2018", "\u2019", "\u201a", "\u201b"} {
		in := "{x" + q + "; Stop-Computer; " + q + "}"
		want := "'{x" + q + q + "; Stop-Computer; " + q + q + "}'"
		for _, s := range []string{lookupScript(in), restartScript(in), statusScript(in)} {
			if strings.Count(s, want) != 2 {
				t.Errorf("quote %U: %s\nwant %s twice", []rune(q)[0], s, want)
			}
			if !strings.Contains(s, "InterfaceGuid -eq "+want) {
				t.Errorf("quote %U: the GUID is not matched with -eq: %s", []rune(q)[0], s)
			}
			if strings.Contains(s, "-Name") || strings.Contains(s, "-InterfaceDescription") {
				t.Errorf("a parameter that takes wildcards: %s", s)
			}
		}
	}
}
