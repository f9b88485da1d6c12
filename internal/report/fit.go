package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/textwrap"
)

// widthWriter is an output that knows how many columns it has.
type widthWriter struct {
	io.Writer
	cols int
}

func (w widthWriter) Width() int { return w.cols }

// WithWidth returns w with a width: the tables written to it wrap their
// text columns, then leave out columns from the right, to fit cols
// columns. cols <= 0 returns w unchanged (no limit).
func WithWidth(w io.Writer, cols int) io.Writer {
	if cols <= 0 {
		return w
	}
	return widthWriter{w, cols}
}

// WidthOf is the width WithWidth gave w, or 0 (no limit).
func WidthOf(w io.Writer) int {
	if x, ok := w.(interface{ Width() int }); ok {
		return x.Width()
	}
	return 0
}

// A text column is wrapped no narrower than its longest word, within
// these bounds: narrower columns read as a vertical word list, and a word
// longer than maxWordWidth (a path, a flow) may be broken.
const (
	minWrapWidth = 12
	maxWordWidth = 24
)

// glue joins the words of an item that a table cell keeps whole on a
// line where it fits (an INF keyword's value "1=Tx Enabled"): the table
// library wraps at any space, and strings.Fields, which it wraps by, takes
// a no-break space for one. U+FFFC is one column wide whatever the
// locale's East Asian width, and no space; the rendered table shows a
// space in its place.
const glue = "\uFFFC"

// wholeItem is item with its words glued, to be kept whole in a cell.
func wholeItem(item string) string {
	return strings.Join(strings.Fields(item), glue)
}

// wrapGlued is wrapWords with glued items as words: an item wider than
// the column is unglued first, to break at its own spaces. A cell's
// leading spaces are the indent of its row (dpcisr's modules under their
// section), which the wrapping would drop: every line of the cell keeps
// them, and the text is wrapped to what is left of the width.
func wrapGlued(s string, width int) string {
	if body := strings.TrimLeft(s, " "); body != s && body != "" {
		pad := s[:len(s)-len(body)]
		if len(pad) >= width { // no room left: the indent is given up
			return wrapGlued(body, width)
		}
		lines := strings.Split(wrapGlued(body, width-len(pad)), "\n")
		for i, l := range lines {
			lines[i] = pad + l
		}
		return strings.Join(lines, "\n")
	}
	if !strings.Contains(s, glue) {
		return wrapWords(s, width)
	}
	words := strings.Fields(s)
	for i, w := range words {
		if text.StringWidthWithoutEscSequences(w) > width {
			words[i] = strings.ReplaceAll(w, glue, " ")
		}
	}
	return wrapWords(strings.Join(words, " "), width)
}

// wrapWords is text.WrapSoft (words joined by one space, paragraphs kept
// apart by a blank line, a word wider than the line on lines of its own)
// except where a word is wider than the line: WrapSoft cuts it at the
// line's edge, mid-name (Microsoft.Bluetooth.Legacy.L / EEnumerator.sys);
// this breaks it after the last '.', '_', '-', '\' or '/' that leaves
// a piece within the width, and cuts at the edge only where there is none.
// Text with escape sequences is left to WrapSoft, which keeps them whole.
func wrapWords(s string, width int) string {
	if width <= 0 || strings.ContainsRune(s, text.EscapeStartRune) {
		return text.WrapSoft(s, width)
	}
	s = strings.ReplaceAll(s, "\t", "    ")
	if text.StringWidthWithoutEscSequences(s) <= width {
		return s
	}
	var out []string
	for i, para := range strings.Split(s, "\n\n") {
		if i > 0 {
			out = append(out, "")
		}
		line, n := "", 0 // the line being filled and its width
		flush := func() {
			if n > 0 {
				out = append(out, line)
			}
			line, n = "", 0
		}
		for _, w := range strings.Fields(para) {
			ww := text.StringWidthWithoutEscSequences(w)
			switch {
			case n > 0 && n+1+ww <= width:
				line, n = line+" "+w, n+1+ww
				continue
			case ww <= width:
				flush()
				line, n = w, ww
				continue
			}
			flush()
			for ww > width {
				head, rest := breakWord(w, width)
				out = append(out, head)
				w, ww = rest, text.StringWidthWithoutEscSequences(rest)
			}
			line, n = w, ww
		}
		flush()
	}
	return strings.Join(out, "\n")
}

// breakPoints are the characters a long word is broken after: the
// separators of file names, paths, dotted and hyphenated names.
const breakPoints = `._-\/`

// breakWord splits w, wider than width, into a head of at most width
// columns, ending at the last break point it can, and the rest.
func breakWord(w string, width int) (head, rest string) {
	cut, lastBreak, cols := 0, 0, 0
	for i, r := range w {
		rw := text.StringWidthWithoutEscSequences(string(r))
		if cols+rw > width {
			break
		}
		cols += rw
		cut = i + len(string(r))
		if strings.ContainsRune(breakPoints, r) && cut < len(w) {
			lastBreak = cut
		}
	}
	if cut == 0 { // a rune wider than the line: it goes alone
		_, size := utf8.DecodeRuneInString(w)
		cut = size
	}
	if lastBreak > 0 {
		cut = lastBreak
	}
	return w[:cut], w[cut:]
}

// tableSpec is a table before rendering: header, rows, and which columns
// are right-aligned (numbers, never wrapped).
type tableSpec struct {
	header []string
	rows   [][]string
	right  []bool
	// floor, when set for a column (> 0), is the narrowest that column is
	// wrapped to, in place of its longest word's width: a table whose
	// rows are read by their first column (inf's keywords) lets prose
	// columns break a long word rather than lose a column.
	floor []int
	// tight, when set, narrows each wrapped column to its widest line:
	// go-pretty pads a column to the width it was wrapped to, which,
	// when a cell just misses it ("no detectable difference" at 23
	// columns), leaves a gap as wide as the word moved down.
	tight bool
	// fold, when set for a right-aligned column, lets it wrap as text
	// columns do: a value of several parts ("14.412ms / 29.306ms (10)"),
	// which would rather take two lines than leave its column out.
	fold []bool
}

// write renders the table to w, fitted to WidthOf(w), with no trailing
// spaces.
func (s tableSpec) write(w io.Writer) {
	cols := WidthOf(w)
	keep := len(s.header)
	for {
		out, ok := s.fit(keep, cols)
		if ok || keep <= 1 {
			io.WriteString(w, out)
			if keep < len(s.header) {
				var gone []string
				for i := keep; i < len(s.header); i++ {
					h := strings.TrimSpace(s.header[i])
					if h == "" {
						h = fmt.Sprintf("column %d", i+1)
					}
					gone = append(gone, h)
				}
				note := fmt.Sprintf("(not shown, for lack of width: %s)", strings.Join(gone, ", "))
				lines := []string{note}
				if cols > 0 {
					lines = textwrap.Hanging(note, 0, cols)
				}
				for _, l := range lines {
					fmt.Fprintln(w, l)
				}
			}
			return
		}
		keep--
	}
}

// fit renders the first keep columns, wrapping text columns as needed to
// fit cols (0: no limit); ok is false when they cannot fit.
func (s tableSpec) fit(keep, cols int) (string, bool) {
	nat := make([]int, keep)
	for i := range keep {
		nat[i] = text.StringWidthWithoutEscSequences(cell(s.header, i))
		for _, r := range s.rows {
			nat[i] = max(nat[i], text.StringWidthWithoutEscSequences(cell(r, i)))
		}
	}
	floor := make([]int, keep)
	for i := range keep {
		floor[i] = minWrapWidth
		if i < len(s.floor) && s.floor[i] > 0 {
			floor[i] = s.floor[i]
			continue
		}
		for _, r := range s.rows {
			c := cell(r, i)
			pad := len(c) - len(strings.TrimLeft(c, " ")) // kept on every line (wrapGlued)
			for _, w := range strings.Fields(c) {
				floor[i] = max(floor[i], pad+min(text.StringWidthWithoutEscSequences(w), maxWordWidth))
			}
		}
	}
	limit := append([]int(nil), nat...)
	out := s.render(keep, limit)
	if cols <= 0 {
		return out, true
	}
	excess := widest(out) - cols
	// Narrow the widest wrappable column one column at a time.
	for excess > 0 {
		best := -1
		for i := range keep {
			if s.wrappable(i) && limit[i] > floor[i] && (best < 0 || limit[i]-floor[i] > limit[best]-floor[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		limit[best]--
		excess--
	}
	if s.tight {
		s.tighten(keep, limit)
	}
	out = s.render(keep, limit)
	return out, widest(out) <= cols
}

// tighten lowers each wrapped column's limit to the widest line its cells
// wrap to: the same lines (a word that did not fit a line does not fit a
// narrower one), without the padding.
func (s tableSpec) tighten(keep int, limit []int) {
	for i := range keep {
		if !s.wrappable(i) || limit[i] <= 0 {
			continue
		}
		n := text.StringWidthWithoutEscSequences(cell(s.header, i))
		for _, r := range s.rows {
			n = max(n, widest(strings.ReplaceAll(wrapGlued(cell(r, i), limit[i]), glue, " ")))
		}
		limit[i] = min(limit[i], n)
	}
}

// wrappable reports whether column i may wrap: text (left-aligned), or a
// right-aligned column that folds.
func (s tableSpec) wrappable(i int) bool {
	return !(i < len(s.right) && s.right[i]) || i < len(s.fold) && s.fold[i]
}

func (s tableSpec) render(keep int, limit []int) string {
	t := newTable()
	t.AppendHeader(rowOf(s.header, keep))
	for _, r := range s.rows {
		t.AppendRow(rowOf(r, keep))
	}
	var cfg []table.ColumnConfig
	for i := range keep {
		c := table.ColumnConfig{Number: i + 1}
		if i < len(s.right) && s.right[i] {
			c.Align, c.AlignHeader = text.AlignRight, text.AlignRight
		}
		if s.wrappable(i) && limit[i] > 0 {
			c.WidthMax, c.WidthMaxEnforcer = limit[i], wrapGlued
		}
		cfg = append(cfg, c)
	}
	t.SetColumnConfigs(cfg)
	out := trimLines(strings.ReplaceAll(t.Render(), glue, " "))
	if s.tight {
		out = trimRule(out)
	}
	return out
}

// trimRule cuts the header's rule to the widest other line: it spans the
// last column's padding too, which made a table that fits one column
// wider than its text.
func trimRule(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	n, rule := 0, -1
	for i, l := range lines {
		if l != "" && strings.Trim(l, "─") == "" {
			rule = i
			continue
		}
		n = max(n, text.StringWidthWithoutEscSequences(l))
	}
	if rule >= 0 && n > 0 && n < utf8.RuneCountInString(lines[rule]) {
		lines[rule] = strings.Repeat("─", n)
	}
	return strings.Join(lines, "\n") + "\n"
}

func rowOf(cells []string, keep int) table.Row {
	r := make(table.Row, keep)
	for i := range keep {
		r[i] = cell(cells, i)
	}
	return r
}

func cell(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return ""
}

func widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, text.StringWidthWithoutEscSequences(l))
	}
	return n
}

// trimLines removes the padding go-pretty leaves at the end of each line.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
