// Package textwrap cuts human text into lines that fit a terminal's
// columns, by one rule for the whole program. It is a package of its own
// because two packages cut text and neither can hold the rule for the
// other: report, which renders most human output, and knob, which report
// imports and whose explanations must arrive already cut to 80 columns.
package textwrap

import (
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
)

// Hanging wraps l at spaces to width columns, keeping its own spacing
// (the padding of a column); continuation lines start at column indent
// (at most half the width). A word wider than the line stays whole, on a
// line of its own. Columns are display columns: a wide character takes
// two, an escape sequence none.
func Hanging(l string, indent, width int) []string {
	first := len(l) - len(strings.TrimLeft(l, " "))
	return hang(l, indent, width, func(i int) bool { return l[i] == ' ' && i > first })
}

// List writes items after head, separated by ", ", continuing on lines
// indented to head's width (at most half the width), as Hanging does,
// with one difference: an item is never cut, even at a space of its own
// ("Medium 950 on e1r/e1d"), and the first item stays on head's line.
// head ends with whatever separates it from the first item.
func List(head string, items []string, width int) []string {
	cuts := map[int]bool{}
	l := head
	for i, it := range items {
		if i > 0 {
			l += ","
			cuts[len(l)] = true
			l += " "
		}
		l += it
	}
	return hang(l, text.StringWidthWithoutEscSequences(head), width, func(i int) bool { return cuts[i] })
}

// hang is the one cutting rule: l is cut at the last byte offset at which
// cut allows a cut (a space) and the text before it fits width columns,
// or, if none fits, at the first it allows; lines lose their trailing
// spaces, continuation lines their leading ones, which become indent
// spaces instead.
func hang(l string, indent, width int, cut func(i int) bool) []string {
	l = strings.TrimRight(l, " ")
	indent = min(indent, width/2)
	var out []string
	pad, start := "", 0 // the line being cut is pad+l[start:]
	for len(pad)+text.StringWidthWithoutEscSequences(l[start:]) > width {
		at, col := -1, len(pad)
		for i, r := range l[start:] {
			if col > width {
				break
			}
			if cut(start + i) {
				at = start + i
			}
			col += text.RuneWidth(r)
		}
		if at < 0 { // a word wider than the line: whole, on its own
			for i := start; i < len(l); i++ {
				if cut(i) {
					at = i
					break
				}
			}
			if at < 0 {
				break
			}
		}
		out = append(out, pad+strings.TrimRight(l[start:at], " "))
		start = at + len(l[at:]) - len(strings.TrimLeft(l[at:], " "))
		pad = strings.Repeat(" ", indent)
	}
	return append(out, pad+l[start:])
}
