// Package textdec turns the bytes of a text file written on Windows into a
// Go string: UTF-8 with or without a byte-order mark, UTF-16 with a BOM
// (what PowerShell's `>` writes, and what many driver INFs are), UTF-16LE
// without a BOM, and ANSI (Windows-1252) when the bytes are not UTF-8.
// Binary input is refused with the offset of the first byte that gave it
// away, so parsers can say where a file stopped being text.
package textdec

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding names the encoding a file was decoded from.
type Encoding string

// Encodings Decode recognises.
const (
	UTF8    Encoding = "utf-8"
	UTF8BOM Encoding = "utf-8-bom"
	UTF16LE Encoding = "utf-16le"
	UTF16BE Encoding = "utf-16be"
	ANSI    Encoding = "windows-1252"
)

// BinaryError says the input is not text.
type BinaryError struct {
	Offset int64 // byte offset in the original input
	Line   int   // 1-based line of that byte
	Byte   byte
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("line %d: not text (byte 0x%02x at offset %d)", e.Line, e.Byte, e.Offset)
}

// Options change what a reader accepts. The zero value is the strict
// default every reader gets from Decode and ReadLines.
type Options struct {
	// Comment, when not 0, is the ASCII character that starts a comment
	// outside double quotes, running to the end of the line, as ';' does
	// in an INF: control characters inside such a comment do not make
	// the file binary. The reader must then drop comments: the controls
	// stay in the text. (A quote opened on a line ends with it.)
	Comment byte
	// CtrlZEnds ends the text at the first Ctrl-Z (0x1A), the DOS
	// end-of-file mark, as Windows' SetupAPI ends an INF: what follows is
	// neither decoded nor checked, and does not decide the encoding.
	// ReadText says where it was and whether text followed.
	CtrlZEnds bool
	// LFOnly ends a line at a line feed alone, as SetupAPI does: a CR
	// before one belongs to the line ending, any other CR is a character
	// of its line. Without it a lone CR ends a line too.
	LFOnly bool
	// Header, when not 0, is the ASCII character that opens a section
	// header when it is the first character of a line other than white
	// space (Space), as '[' is in an INF; HeaderEnd closes it. Control
	// characters up to HeaderEnd do not make the file binary (SetupAPI
	// takes them into the section's name), and the rest of the line after
	// it is a comment, which SetupAPI ignores. The reader must then read
	// headers alike: the controls stay in the text.
	Header, HeaderEnd byte
	// Space is the white space that may stand before Header on its line;
	// nil: unicode.IsSpace.
	Space func(rune) bool
	// NUL lets a NUL character (0x00) stand in the text outside comments
	// and headers too, as SetupAPI lets it stand in an INF's keys and
	// values (and reads it as a space); the reader decides what it means.
	NUL bool
	// Controls lets every control character stand in the text, as
	// SetupAPI reads an INF's keys and values: the text is read, and
	// Text.Binary keeps the error the first control character that makes
	// it binary without this option would have given, for the reader to
	// give when the text turns out to be no text it reads after all.
	Controls bool
	// KeepCR keeps, with LFOnly, the CR of a CRLF at the end of its line:
	// SetupAPI takes it into the text of a quote left open at the line's
	// end. The reader must then take it for white space elsewhere.
	KeepCR bool
}

// ctrlZ is the DOS end-of-file mark.
const ctrlZ = 0x1a

// Decode returns the text of b and the encoding it was read as.
func Decode(b []byte) (string, Encoding, error) {
	return DecodeWith(b, Options{})
}

// DecodeWith is Decode with options.
func DecodeWith(b []byte, o Options) (string, Encoding, error) {
	d, err := decode(b, o)
	return d.text, d.enc, err
}

// decoded is what decode read: the text, and with Options.CtrlZEnds the
// bytes after the Ctrl-Z that ended it (nil when none did).
type decoded struct {
	text string
	enc  Encoding
	tail []byte
	// ctrl is where a control character Options.Controls let stand made
	// the text binary; nil when none did.
	ctrl *BinaryError
}

// controls keeps be, the error of a control character, in d when the
// options let it stand, and says whether they do; a nil be stands.
func (d *decoded) controls(be *BinaryError, o Options) bool {
	switch {
	case be == nil:
		return true
	case !o.Controls:
		return false
	}
	d.ctrl = be
	return true
}

func decode(b []byte, o Options) (decoded, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		head, tail := cutCtrlZ(b[3:], o)
		return checkText(decoded{enc: UTF8BOM, tail: tail}, head, 3, o)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return decode16(b[2:], false, 2, o)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return decode16(b[2:], true, 2, o)
	case looksUTF16LE(b):
		return decode16(b, false, 0, o)
	}
	// In UTF-8 and in the ANSI code pages, double-byte ones included (a
	// trail byte is 0x40 or more), a byte 0x1A is always Ctrl-Z.
	b, tail := cutCtrlZ(b, o)
	if utf8.Valid(b) {
		return checkText(decoded{enc: UTF8, tail: tail}, b, 0, o)
	}
	d := decoded{enc: ANSI, tail: tail}
	if be := checkControl(b, 0, o); !d.controls(be, o) {
		return decoded{enc: ANSI}, be
	}
	table := ansiTable()
	var sb strings.Builder
	sb.Grow(len(b))
	for _, c := range b {
		sb.WriteString(table[c])
	}
	d.text = sb.String()
	return d, nil
}

// cutCtrlZ splits bytes of a byte encoding at the first Ctrl-Z, when the
// options say it ends the text.
func cutCtrlZ(b []byte, o Options) (head, tail []byte) {
	if o.CtrlZEnds {
		if i := bytes.IndexByte(b, ctrlZ); i >= 0 {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// looksUTF16LE: ASCII text in UTF-16LE has a zero in every odd byte.
func looksUTF16LE(b []byte) bool {
	n := min(len(b), 512) &^ 1
	if n < 4 {
		return false
	}
	for i := 0; i < n; i += 2 {
		if b[i+1] != 0 || b[i] == 0 {
			return false
		}
	}
	return true
}

func decode16(b []byte, bigEndian bool, skip int, o Options) (decoded, error) {
	d := decoded{enc: UTF16LE}
	if bigEndian {
		d.enc = UTF16BE
	}
	// the unit 0x000A exactly (and 0x000D, 0x001A): or-ing its bytes
	// also took U+0A0A, U+020A and the like for line feeds
	unit := func(i int) uint16 {
		if bigEndian {
			return uint16(b[i])<<8 | uint16(b[i+1])
		}
		return uint16(b[i]) | uint16(b[i+1])<<8
	}
	if o.CtrlZEnds {
		for i := 0; i+1 < len(b); i += 2 {
			if unit(i) == ctrlZ {
				b, d.tail = b[:i], b[i+2:]
				break
			}
		}
	}
	if len(b)%2 != 0 {
		lc := lineCounter{lfOnly: o.LFOnly}
		for i := 0; i+1 < len(b); i += 2 {
			lc.see(rune(unit(i)))
		}
		return d, &BinaryError{Offset: int64(skip + len(b) - 1), Line: lc.line(), Byte: b[len(b)-1]}
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = unit(2 * i)
	}
	lc := lineCounter{lfOnly: o.LFOnly}
	sc := controlScan{opt: o}
	for i, c := range u {
		lc.see(rune(c))
		if sc.bad(rune(c)) {
			if be := (&BinaryError{Offset: int64(skip + 2*i), Line: lc.line(), Byte: byte(c)}); !d.controls(be, o) {
				return d, be
			}
			break // the first is the one to report
		}
	}
	d.text = string(utf16.Decode(u))
	return d, nil
}

// lineCounter numbers lines as ReadLines splits them: a line ends at CRLF,
// LF or a lone CR, or with Options.LFOnly at LF alone. A BinaryError
// counted line feeds only, and named line 1 for every byte of a file
// whose lines end in CR alone.
type lineCounter struct {
	n      int // line endings seen
	lfOnly bool
	cr     bool // the last character was a CR that ended a line
}

func (c *lineCounter) see(r rune) {
	switch {
	case r == '\n':
		if !c.cr { // the LF of a CRLF ends no other line
			c.n++
		}
		c.cr = false
	case r == '\r' && !c.lfOnly:
		c.n++
		c.cr = true
	default:
		c.cr = false
	}
}

// line is the 1-based line of the character last seen.
func (c *lineCounter) line() int { return 1 + c.n }

// checkText is d with the text b, unless a control character makes b
// binary (checkControl) and the options do not let it stand.
func checkText(d decoded, b []byte, skip int, o Options) (decoded, error) {
	if be := checkControl(b, skip, o); !d.controls(be, o) {
		return decoded{enc: d.enc}, be
	}
	d.text = string(b)
	return d, nil
}

// checkControl refuses NUL and other C0 controls that never occur in text
// (tab, CR, LF, form feed and Ctrl-Z, the old DOS end-of-file mark, do).
// Bytes below 0x80 are compared as characters: in UTF-8 and in the ANSI
// code pages latlab reads, such a byte is always that ASCII character.
// The others matter only as the white space before a header
// (Options.Header): b is read as UTF-8 when it is valid UTF-8, as
// Windows-1252 when not, as decode reads it.
func checkControl(b []byte, skip int, o Options) *BinaryError {
	lc := lineCounter{lfOnly: o.LFOnly}
	sc := controlScan{opt: o}
	ansi := o.Header != 0 && !utf8.Valid(b)
	for i := 0; i < len(b); {
		r, n := rune(b[i]), 1
		switch {
		case r < utf8.RuneSelf || o.Header == 0:
		case ansi:
			r, _ = utf8.DecodeRuneInString(ansiTable()[b[i]])
		default:
			r, n = utf8.DecodeRune(b[i:])
		}
		lc.see(r)
		if sc.bad(r) {
			return &BinaryError{Offset: int64(skip + i), Line: lc.line(), Byte: b[i]}
		}
		i += n
	}
	return nil
}

// controlScan follows the lines of a text, character by character, and
// says which characters make it binary: isBadControl's, except inside an
// Options.Comment comment or an Options.Header header, and a NUL with
// Options.NUL.
type controlScan struct {
	opt Options
	// started: the line has had a character other than white space
	started               bool
	quoted, comment, head bool
}

func (s *controlScan) bad(r rune) bool {
	if r == '\n' || r == '\r' && !s.opt.LFOnly {
		// where ReadLines ends a line
		s.quoted, s.comment, s.head, s.started = false, false, false, false
		return false
	}
	if s.comment {
		return false
	}
	if s.head {
		// SetupAPI's header ends at the first HeaderEnd, whatever
		// stands before it; the rest of the line is not read
		s.comment = r == rune(s.opt.HeaderEnd)
		return false
	}
	if !s.started && s.opt.Header != 0 {
		switch {
		case r == rune(s.opt.Header):
			s.started, s.head = true, true
			return false
		case s.space(r):
		default:
			s.started = true
		}
	}
	switch {
	case s.opt.Comment == 0:
	case r == '"':
		s.quoted = !s.quoted
	case r == rune(s.opt.Comment) && !s.quoted:
		s.comment = true
	}
	return isBadControl(r) && !(r == 0 && s.opt.NUL)
}

func (s *controlScan) space(r rune) bool {
	if s.opt.Space == nil {
		return unicode.IsSpace(r)
	}
	return s.opt.Space(r)
}

func isBadControl(r rune) bool {
	if r >= 0x20 || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == 0x1a {
		return false
	}
	return true
}

// ansiBytes maps each rune of the Windows-1252 table back to its byte.
var ansiBytes = sync.OnceValue(func() map[rune]byte {
	m := make(map[rune]byte, 256)
	for i, s := range ansiTable() {
		m[[]rune(s)[0]] = byte(i)
	}
	return m
})

// ANSIBytes returns the bytes that ANSI decoding turned into s, so that
// they can be read in another code page; ok is false when s holds a rune
// Windows-1252 decoding does not produce.
func ANSIBytes(s string) (b []byte, ok bool) {
	m := ansiBytes()
	b = make([]byte, 0, len(s))
	for _, r := range s {
		c, ok := m[r]
		if !ok {
			return nil, false
		}
		b = append(b, c)
	}
	return b, true
}
