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
	return ReadLinesWith(r, max, want, Options{})
}

// ReadLinesWith is ReadLines with options: the INF reader's, which lets
// control characters stand in its ';' comments.
func ReadLinesWith(r io.Reader, max int64, want string, o Options) ([]string, Encoding, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(b)) > max {
		return nil, "", &LineError{Msg: fmt.Sprintf("larger than %d MiB: expected %s", max>>20, want)}
	}
	text, enc, err := DecodeWith(b, o)
	if err != nil {
		if be, ok := err.(*BinaryError); ok {
			return nil, enc, &LineError{Line: be.Line, Msg: fmt.Sprintf("not text (byte 0x%02x at offset %d): expected %s", be.Byte, be.Offset, want)}
		}
		return nil, enc, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, enc, &LineError{Line: 1, Msg: "empty file: expected " + want}
	}
	return splitLines(text), enc, nil
}

// splitLines splits at "\r\n", "\n" and "\r", as the editors that wrote
// the files do (what follows the last line ending is one more line, as
// with strings.Split).
func splitLines(s string) []string {
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(lines, s)
		}
		lines = append(lines, s[:i])
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
