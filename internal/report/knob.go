package report

import (
	"fmt"
	"io"

	"github.com/latlab/latlab/internal/knob"
)

// KnobList prints `knob list`: one row per knob with its value and what
// it means; a knob with several instances points to knob get.
func KnobList(w io.Writer, l *knob.List) {
	var rows [][]string
	for _, e := range l.Knobs {
		val, meaning := "", e.Summary
		switch {
		case e.OS != l.OS:
			val = "(" + e.OS + ")"
		case e.Error != "":
			val, meaning = "?", e.Error
		case e.Reading != nil && len(e.Reading.Items) == 1:
			val, meaning = e.Reading.Items[0].Value, e.Reading.Items[0].Meaning
		case e.Reading != nil && len(e.Reading.Items) == 0:
			val = "none found"
		case e.Reading != nil:
			val = fmt.Sprintf("%d instances", len(e.Reading.Items))
			meaning = e.Summary + "; latlab knob get " + e.Name
		}
		rows = append(rows, []string{e.Name, clip(val, 30), clip(meaning, 90)})
	}
	TableLeft(w, []string{"knob", "value", "meaning"}, rows)
	fmt.Fprintln(w, "\nlatlab knob get NAME shows details, latlab knob explain NAME [VALUE] decodes a value")
}

// clip cuts s to n characters, the last an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
