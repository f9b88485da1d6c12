package report

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// TerminalSafe returns a writer that writes to w with the control
// characters escaped (C0 but newline and tab, DEL, C1): text that comes
// from a file someone else wrote (a trace's logger, provider and image
// names) cannot move the cursor, ring the bell, rewrite a line or send an
// escape sequence to the terminal. ESC is written as \x1b, U+009B as
// \u009b. Each Write is escaped on its own; latlab's reports write whole
// lines.
func TerminalSafe(w io.Writer) io.Writer { return &safeWriter{w: w} }

type safeWriter struct {
	w   io.Writer
	buf []byte
}

// Width is w's: the tables written through it still fit the terminal.
func (s *safeWriter) Width() int { return WidthOf(s.w) }

func (s *safeWriter) Write(p []byte) (int, error) {
	b := s.buf[:0]
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == '\n' || r == '\t':
			b = append(b, p[i])
		case r < 0x20 || r == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, p[i:i+n]...)
		}
		i += n
	}
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
