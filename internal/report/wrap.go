package report

import (
	"bytes"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/textwrap"
)

// LineWrapper is a human output whose lines are wrapped to the width of
// the writer it wraps (WidthOf; none: lines pass as they are). Tables
// written to it still fit that width by themselves (it keeps the width);
// what it wraps is prose: a verdict, a note, a summary line. A line is cut
// at spaces, continuation lines indented two columns past the line's own
// indentation; a word wider than the line stays whole, and a line with a
// carriage return or an escape sequence (a live display) passes as it is.
// Flush writes a last line that has no line break.
type LineWrapper struct {
	w    io.Writer
	cols int
	line []byte // the line so far, up to its line break
	err  error
}

// WrapLines returns w's human output wrapped to WidthOf(w).
func WrapLines(w io.Writer) *LineWrapper {
	return &LineWrapper{w: w, cols: WidthOf(w)}
}

// Width is the width lines are wrapped to, which tables fit too.
func (l *LineWrapper) Width() int { return l.cols }

func (l *LineWrapper) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.cols <= 0 {
		_, l.err = l.w.Write(p)
		return len(p), l.err
	}
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.line = append(l.line, rest...)
			return len(p), nil
		}
		l.line = append(l.line, rest[:i]...)
		l.emit(true)
		if l.err != nil {
			return len(p) - len(rest), l.err
		}
		rest = rest[i+1:]
	}
}

// Flush writes what is left of the last line.
func (l *LineWrapper) Flush() error {
	if l.err == nil && len(l.line) > 0 {
		l.emit(false)
	}
	return l.err
}

func (l *LineWrapper) emit(newline bool) {
	s := string(l.line)
	l.line = l.line[:0]
	var b strings.Builder
	if strings.ContainsAny(s, "\r\x1b") || text.StringWidthWithoutEscSequences(s) <= l.cols {
		b.WriteString(s)
	} else {
		indent := len(s) - len(strings.TrimLeft(s, " ")) + 2
		b.WriteString(strings.Join(textwrap.Hanging(s, indent, l.cols), "\n"))
	}
	if newline {
		b.WriteByte('\n')
	}
	_, l.err = io.WriteString(l.w, b.String())
}

// Verbatim writes line to w whole, never wrapped: a command or a line of
// a script, to be copied as it is.
func Verbatim(w io.Writer, line string) {
	if l, ok := w.(*LineWrapper); ok {
		if l.err == nil && len(l.line) > 0 {
			l.emit(false) // what was begun on this line, as it is
		}
		if l.err == nil {
			_, l.err = io.WriteString(l.w, line+"\n")
		}
		return
	}
	io.WriteString(w, line+"\n")
}
