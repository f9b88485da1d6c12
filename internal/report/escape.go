package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TerminalSafe returns a writer that writes to w with the control
// characters escaped (C0 but newline and tab, DEL, C1): text that comes
// from a file someone else wrote (a trace's logger, provider and image
// names) cannot move the cursor, ring the bell, rewrite a line or send an
// escape sequence to the terminal. ESC is written as \x1b, U+009B as
// \u009b. Each Write is escaped on its own; latlab's reports write whole
// lines.
//
// It escapes what has already been laid out: a name in a table or a
// wrapped line is escaped with safeText before, so that its width is
// counted as printed.
func TerminalSafe(w io.Writer) io.Writer { return &safeWriter{w: w} }

type safeWriter struct {
	w   io.Writer
	buf []byte
}

// Width is w's: the tables written through it still fit the terminal.
func (s *safeWriter) Width() int { return WidthOf(s.w) }

func (s *safeWriter) Write(p []byte) (int, error) {
	s.buf = appendSafe(s.buf[:0], p, false)
	if _, err := s.w.Write(s.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// safeText is s as TerminalSafe writes it, with tab and newline escaped
// too (\x09, \x0a) and each byte of invalid UTF-8 (\xff): a name read
// from a file someone else wrote (a trace's driver image or process), to
// be put in a table cell or a line before they are laid out. Escaped
// first, the name is measured as it will be printed; escaped after, each
// control character would widen its row by the escape's columns, and a
// tab by up to eight.
func safeText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	return string(appendSafe(nil, []byte(s), true))
}

// appendSafe appends p to b with its control characters escaped: for a
// name (safeText) every one and each byte of invalid UTF-8; for a
// report's lines all but newline and tab, which lay the lines out.
func appendSafe(b, p []byte, name bool) []byte {
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case !name && (r == '\n' || r == '\t'):
			b = append(b, p[i])
		case r < 0x20 || r == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			b = fmt.Appendf(b, `\u%04x`, r)
		case name && r == utf8.RuneError && n == 1:
			b = fmt.Appendf(b, `\x%02x`, p[i])
		default:
			b = append(b, p[i:i+n]...)
		}
		i += n
	}
	return b
}
