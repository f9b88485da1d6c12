// Package report renders results for people: text tables here, plots and
// HTML elsewhere in the package. It reads summaries, never measures.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/latlab/latlab/internal/stats"
)

// Unit is a display unit for nanosecond values.
type Unit struct {
	Name     string
	Ns       float64
	Decimals int
}

// Display units.
var (
	Ms = Unit{"ms", 1e6, 4}
	Us = Unit{"µs", 1e3, 1}
	// WithUnit writes each value with its own unit (1.077ms, 76.8µs), as
	// the check-up does, instead of bare numbers under a unit heading.
	WithUnit = Unit{}
)

// Format renders ns in the unit.
func (u Unit) Format(ns float64) string {
	if math.IsNaN(ns) {
		return "-"
	}
	if u.Ns == 0 {
		return units.Ns(int64(math.Round(ns)))
	}
	return strconv.FormatFloat(ns/u.Ns, 'f', u.Decimals, 64)
}

// Column is one distribution in a summary table.
type Column struct {
	Title   string
	Summary stats.Summary
	Unit    Unit
}

// SummaryRows are the statistics shown, in order.
var SummaryRows = []string{"count", "min", "p50", "mean", "p90", "p99", "p99.9", "max", "stdev"}

func value(s stats.Summary, row string) float64 {
	switch row {
	case "count":
		return float64(s.Count)
	case "min":
		return float64(s.Min)
	case "p50":
		return float64(s.P50)
	case "mean":
		return s.Mean
	case "p90":
		return float64(s.P90)
	case "p99":
		return float64(s.P99)
	case "p99.9":
		return float64(s.P999)
	case "max":
		return float64(s.Max)
	case "stdev":
		return s.Stdev
	}
	return math.NaN()
}

// SummaryTable writes statistics as rows and the columns side by side.
func SummaryTable(w io.Writer, cols ...Column) {
	spec := tableSpec{header: []string{""}, right: []bool{false}}
	for _, c := range cols {
		if c.Unit.Name == "" {
			spec.header = append(spec.header, c.Title)
		} else {
			spec.header = append(spec.header, fmt.Sprintf("%s (%s)", c.Title, c.Unit.Name))
		}
		spec.right = append(spec.right, true)
	}
	for _, r := range SummaryRows {
		row := []string{r}
		for _, c := range cols {
			if r == "count" {
				row = append(row, strconv.FormatInt(c.Summary.Count, 10))
				continue
			}
			row = append(row, c.Unit.Format(value(c.Summary, r)))
		}
		spec.rows = append(spec.rows, row)
	}
	spec.write(w)
}

// Table writes a simple table with right-aligned cells after the first.
func Table(w io.Writer, header []string, rows [][]string) {
	right := make([]bool, len(header))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	tableSpec{header: header, rows: rows, right: right}.write(w)
}

func newTable() table.Writer {
	t := table.NewWriter()
	style := table.StyleLight
	style.Options.DrawBorder = false
	style.Options.SeparateColumns = false
	style.Options.SeparateHeader = true
	style.Format.Header = text.FormatDefault
	t.SetStyle(style)
	return t
}

// writeHanging writes line within pageCols(w) columns
// (textwrap.Hanging), its continuation lines indented indent columns; an
// item glued by wholeItem ("handshake RTT 25.735ms") is not cut. On a
// terminal narrower than 80 columns it wraps at the terminal's width,
// rather than at 80 and again there, which reads ragged.
func writeHanging(w io.Writer, line string, indent int) {
	for _, l := range textwrap.Hanging(line, indent, pageCols(w)) {
		fmt.Fprintln(w, strings.ReplaceAll(l, glue, " "))
	}
}

// writeNote writes a note of a result, its control characters escaped
// (a note can quote a file's or a device's name), within pageCols(w)
// columns, the lines after the first indented two.
func writeNote(w io.Writer, n string) {
	writeHanging(w, "note: "+safeText(n), 2)
}

// Clip cuts s to n terminal columns, the last an ellipsis: a wide
// character (CJK) counts two, a combining mark none, as the tables count
// them.
func Clip(s string, n int) string {
	if text.StringWidthWithoutEscSequences(s) <= n {
		return s
	}
	const more = "…"
	return text.Trim(s, n-text.StringWidthWithoutEscSequences(more)) + more
}

// nameCell is a name from outside latlab (a trace's provider or image, a
// process, an interrupt's device) as a column of n terminal columns:
// escaped (safeText), cut (Clip) and padded with spaces. fmt's %-*s pads
// by runes, too little for a CJK character and too much for a combining
// mark, and a name escaped after its padding outgrows it.
func nameCell(s string, n int) string {
	return padCols(Clip(safeText(s), n), n)
}

// padCols pads s with spaces to n terminal columns.
func padCols(s string, n int) string {
	if w := text.StringWidthWithoutEscSequences(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Paren puts s in parentheses after a space, nothing when s is empty.
func Paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// plural is the "s" of a count other than one.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
