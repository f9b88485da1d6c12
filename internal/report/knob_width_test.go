package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/knob"
)

// TestKnobExplainFitsThePage: every knob's general explanation, as
// `latlab knob explain NAME` prints it, fits 80 columns (a single word
// longer than a line, such as a path, may not).
func TestKnobExplainFitsThePage(t *testing.T) {
	for _, k := range knob.All() {
		ex, err := k.Explain("", knob.ExplainOptions{})
		if err != nil {
			t.Errorf("%s: %v", k.Name(), err)
			continue
		}
		var b bytes.Buffer
		KnobExplain(&b, &knob.ExplainResult{Knob: k.Name(), Text: ex.Text})
		if b.Len() == 0 {
			t.Errorf("%s: nothing printed", k.Name())
		}
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if utf8.RuneCountInString(l) > pageWidth && strings.Contains(strings.TrimSpace(l), " ") {
				t.Errorf("%s: line of %d columns: %q", k.Name(), utf8.RuneCountInString(l), l)
			}
		}
	}
}
