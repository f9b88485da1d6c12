package textdec

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// LineError says which line of a text file could not be read and what was
// expected there. Line 0 means the file as a whole.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ReadLines is the front end of latlab's text-file parsers: it reads at
// most max bytes of r, decodes them (Decode), refuses a file that is too
// large, binary or empty (nothing but white space) with a *LineError that
// ends "expected <want>", and splits the text into lines at CRLF, LF or a
// lone CR. The lines share the decoded text; they are not copied.
func ReadLines(r io.Reader, max int64, want string) ([]string, Encoding, error) {
	t, err := ReadText(r, max, want, Options{})
	if err != nil {
		return nil, t.Encoding, err
	}
	return t.Lines, t.Encoding, nil
}

// Text is what ReadText read.
type Text struct {
	Lines    []string
	Encoding Encoding
	// CtrlZ is the line of the Ctrl-Z that ended the text
	// (Options.CtrlZEnds), the last of Lines; 0 when none did.
	CtrlZ int
	// Dropped is the last line after that Ctrl-Z holding anything but
	// white space and more Ctrl-Zs: the text that was not read runs
	// from line CtrlZ to Dropped. 0 when there is none.
	Dropped int
	// Binary is the error ReadText gives a binary file, kept when
	// Options.Controls let the control characters that make it binary
	// stand; nil when there are none.
	Binary *LineError
}

// ReadText is ReadLines with options: the INF reader's, which lets
// control characters stand in its ';' comments, ends the text at a
// Ctrl-Z and lines at line feeds alone.
func ReadText(r io.Reader, max int64, want string, o Options) (Text, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return Text{}, err
	}
	if int64(len(b)) > max {
		return Text{}, &LineError{Msg: fmt.Sprintf("larger than %d MiB: expected %s", max>>20, want)}
	}
	d, err := decode(b, o)
	t := Text{Encoding: d.enc}
	binary := func(be *BinaryError) *LineError {
		return &LineError{Line: be.Line, Msg: fmt.Sprintf("not text (byte 0x%02x at offset %d): expected %s", be.Byte, be.Offset, want)}
	}
	if err != nil {
		if be, ok := err.(*BinaryError); ok {
			return t, binary(be)
		}
		return t, err
	}
	if d.ctrl != nil {
		t.Binary = binary(d.ctrl)
	}
	t.Lines = splitLines(d.text, o.LFOnly, o.KeepCR)
	if d.tail != nil {
		t.CtrlZ = len(t.Lines)
		if n := lastTextLine(d.tail, d.enc, o.LFOnly); n > 0 {
			t.Dropped = t.CtrlZ + n - 1
		}
	}
	if strings.TrimSpace(d.text) == "" {
		if t.Binary != nil {
			// white space that is binary (a VT) without Controls
			return t, t.Binary
		}
		if t.CtrlZ > 0 {
			return t, &LineError{Line: t.CtrlZ, Msg: "nothing but white space before the Ctrl-Z (0x1A) that ends the file: expected " + want}
		}
		return t, &LineError{Line: 1, Msg: "empty file: expected " + want}
	}
	return t, nil
}

// lastTextLine is the line of tail, counted from 1, that holds its last
// character other than white space and Ctrl-Z; 0 when it has none. tail
// is in enc, and undecoded: in UTF-16 it is read by units, otherwise by
// bytes (a byte of 0x80 or more counts as text).
func lastTextLine(tail []byte, enc Encoding, lfOnly bool) int {
	lc := lineCounter{lfOnly: lfOnly}
	last := 0
	see := func(r rune) {
		lc.see(r)
		switch r {
		case ' ', '\t', '\r', '\n', '\f', ctrlZ:
		default:
			last = lc.line()
		}
	}
	switch enc {
	case UTF16LE, UTF16BE:
		for i := 0; i+1 < len(tail); i += 2 {
			if enc == UTF16BE {
				see(rune(tail[i])<<8 | rune(tail[i+1]))
			} else {
				see(rune(tail[i]) | rune(tail[i+1])<<8)
			}
		}
		if len(tail)%2 != 0 {
			see(rune(tail[len(tail)-1]) | 0x100) // a byte of half a unit: not white space
		}
	default:
		for _, c := range tail {
			see(rune(c))
		}
	}
	return last
}

// splitLines splits at "\r\n", "\n" and "\r", as the editors that wrote
// the files do (what follows the last line ending is one more line, as
// with strings.Split); with lfOnly at "\r\n" and "\n" only, and with
// keepCR too a CRLF's CR stays on its line.
func splitLines(s string, lfOnly, keepCR bool) []string {
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	ends := "\r\n"
	if lfOnly {
		ends = "\n"
	}
	for {
		i := strings.IndexAny(s, ends)
		if i < 0 {
			return append(lines, s)
		}
		line := s[:i]
		if lfOnly && !keepCR {
			line = strings.TrimSuffix(line, "\r") // a CRLF's CR
		}
		lines = append(lines, line)
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// Clip shortens a line quoted in an error message to at most 60 bytes,
// cutting at a character boundary.
func Clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	n := 57
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
