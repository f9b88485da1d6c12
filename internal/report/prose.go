package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/textwrap"
)

// pageCols is the width a command's text keeps to: pageWidth, or w's
// width when that is narrower. A wider terminal, or none (a pipe, a
// file), gets pageWidth too: the text reads the same wherever it goes,
// and --json has every value whole.
func pageCols(w io.Writer) int {
	cols := WidthOf(w)
	if cols <= 0 || cols > pageWidth {
		cols = pageWidth
	}
	return cols
}

// pageTable writes s fitted to pageCols(w): text columns wrap within
// their cells, a long name breaking after a separator, each as wide as
// its widest line (tableSpec, tight).
func pageTable(w io.Writer, s tableSpec) {
	s.tight = true
	s.write(WithWidth(w, pageCols(w)))
}

// The spaces a line of statistics is not cut at: inside a value with its
// unit ("1.23 µs", "95% CI") and around a comparison
// ("p = 0.100", "p < 0.001", "P(A > B) = 1.00"), and in a pair of counts
// ("1 and 300"), which read as one item.
var (
	unitSpace = lazy.Regexp(`([0-9]%?) (ns|µs|ms|s|CIs?)\b`)
	opSpace   = lazy.Regexp(` ([=<>]) `)
	andSpace  = lazy.Regexp(`([0-9]) and ([0-9])`)
)

// keepTogether glues the items of a line of statistics (unitSpace,
// opSpace, andSpace) and the spaces of quoted, so that a wrapped line
// cuts neither.
func keepTogether(line string, quoted ...string) string {
	for _, q := range quoted {
		line = strings.ReplaceAll(line, q, strings.ReplaceAll(q, " ", glue))
	}
	line = unitSpace().ReplaceAllString(line, "$1"+glue+"$2")
	line = andSpace().ReplaceAllString(line, "$1"+glue+"and"+glue+"$2")
	return opSpace().ReplaceAllString(line, glue+"$1"+glue)
}

// writeProse writes a line of a command's text within pageCols(w)
// columns, its continuation lines indented indent columns, as
// writeHanging does, except that a value with its unit or a comparison
// ("p = 0.100") stays on one line (keepTogether: quoted too), and a word
// wider than a line (a registry path) is broken after a separator rather
// than left whole. On a narrower terminal it wraps to the terminal's
// width itself: what LineWrapper would cut again knows no such items.
func writeProse(w io.Writer, line string, indent int, quoted ...string) {
	width := pageCols(w)
	indent = min(indent, width/2) // as textwrap.Hanging does
	room := width - indent
	words := strings.Split(keepTogether(line, quoted...), " ")
	for i, word := range words {
		if text.StringWidthWithoutEscSequences(word) <= room {
			continue
		}
		var pieces []string
		for text.StringWidthWithoutEscSequences(word) > room {
			head, rest := breakWord(word, room)
			pieces = append(pieces, head)
			word = rest
		}
		words[i] = strings.Join(append(pieces, word), " ")
	}
	for _, l := range textwrap.Hanging(strings.Join(words, " "), indent, width) {
		fmt.Fprintln(w, strings.ReplaceAll(l, glue, " "))
	}
}
