package doctor

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/units"
)

// The evidence a verdict quotes comes from the knobs themselves: their
// explanations carry the research behind each value, so the check-up
// never states a number the knob catalogue does not.

// explainText is a knob's explanation of value ("" = the general one) as
// one line of text.
func explainText(name, value string) string {
	k, err := knob.Lookup(name)
	if err != nil {
		return ""
	}
	ex, err := k.Explain(value, knob.ExplainOptions{})
	if err != nil {
		return ""
	}
	var parts []string
	for _, l := range ex.Text {
		parts = append(parts, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(parts, " ")
}

// quote returns the line of a knob's explanation that contains want, or
// "" when there is none (a test checks every rule's quote resolves).
func quote(name, value, want string) string {
	k, err := knob.Lookup(name)
	if err != nil {
		return ""
	}
	ex, err := k.Explain(value, knob.ExplainOptions{})
	if err != nil {
		return ""
	}
	for _, l := range ex.Text {
		if strings.Contains(l, want) {
			return sentence(strings.Join(strings.Fields(l), " "), want)
		}
	}
	return ""
}

// sentence cuts the sentence holding want out of a line: from after the
// previous ". " before a capital to the next one.
func sentence(line, want string) string {
	i := strings.Index(line, want)
	if i < 0 {
		return line
	}
	start := 0
	for j := i - 1; j >= 1; j-- {
		if line[j] == ' ' && line[j-1] == '.' && isUpper(line, j+1) {
			start = j + 1
			break
		}
	}
	end := len(line)
	for j := i + len(want); j < len(line)-1; j++ {
		if line[j] == '.' && line[j+1] == ' ' && isUpper(line, j+2) {
			end = j + 1
			break
		}
	}
	return line[start:end]
}

func isUpper(s string, i int) bool { return i < len(s) && s[i] >= 'A' && s[i] <= 'Z' }

// noteWith returns the first reading note containing want.
func noteWith(c *Case, want string) string {
	for _, n := range c.Notes {
		if strings.Contains(n, want) {
			return n
		}
	}
	return ""
}

// itrEvidence is the interrupt moderation measurement, from the knob's
// explanation data.
func itrEvidence() string {
	k, err := knob.Lookup("interrupt-moderation")
	if err != nil {
		return ""
	}
	ex, err := k.Explain("", knob.ExplainOptions{})
	if err != nil {
		return ""
	}
	me, ok := ex.Data.(*knob.ModerationExplanation)
	if !ok || len(me.Measured.Interrupts) == 0 {
		return ""
	}
	m := me.Measured
	var counts []string
	for _, c := range m.Interrupts {
		counts = append(counts, fmt.Sprintf("%s %s", c.Level, units.Thousands(c.Interrupts)))
	}
	return fmt.Sprintf("measured (%s): interrupts per level %s; %s",
		m.Source, strings.Join(counts, ", "), strings.Join(m.Findings, "; "))
}
