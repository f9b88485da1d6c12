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
}

// Decode returns the text of b and the encoding it was read as.
func Decode(b []byte) (string, Encoding, error) {
	return DecodeWith(b, Options{})
}

// DecodeWith is Decode with options.
func DecodeWith(b []byte, o Options) (string, Encoding, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		s, err := checkText(b[3:], 3, o)
		return s, UTF8BOM, err
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return decode16(b[2:], false, 2, o)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return decode16(b[2:], true, 2, o)
	case looksUTF16LE(b):
		return decode16(b, false, 0, o)
	}
	if utf8.Valid(b) {
		s, err := checkText(b, 0, o)
		return s, UTF8, err
	}
	if err := checkControl(b, 0, o); err != nil {
		return "", ANSI, err
	}
	table := ansiTable()
	var sb strings.Builder
	sb.Grow(len(b))
	for _, c := range b {
		sb.WriteString(table[c])
	}
	return sb.String(), ANSI, nil
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

func decode16(b []byte, bigEndian bool, skip int, o Options) (string, Encoding, error) {
	enc := UTF16LE
	if bigEndian {
		enc = UTF16BE
	}
	if len(b)%2 != 0 {
		return "", enc, &BinaryError{Offset: int64(skip + len(b) - 1), Line: 1 + countNewlines16(b, bigEndian), Byte: b[len(b)-1]}
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	line := 1
	sc := controlScan{opt: o}
	for i, c := range u {
		if c == '\n' {
			line++
		}
		if sc.bad(rune(c)) {
			return "", enc, &BinaryError{Offset: int64(skip + 2*i), Line: line, Byte: byte(c)}
		}
	}
	return string(utf16.Decode(u)), enc, nil
}

func countNewlines16(b []byte, bigEndian bool) int {
	n := 0
	for i := 0; i+1 < len(b); i += 2 {
		// the unit 0x000A exactly: or-ing its bytes also took U+0A0A,
		// U+020A and the like for line feeds
		u := uint16(b[i]) | uint16(b[i+1])<<8
		if bigEndian {
			u = uint16(b[i])<<8 | uint16(b[i+1])
		}
		if u == '\n' {
			n++
		}
	}
	return n
}

func checkText(b []byte, skip int, o Options) (string, error) {
	if err := checkControl(b, skip, o); err != nil {
		return "", err
	}
	return string(b), nil
}

// checkControl refuses NUL and other C0 controls that never occur in text
// (tab, CR, LF, form feed and Ctrl-Z, the old DOS end-of-file mark, do).
// Bytes are compared as characters: in UTF-8 and in the ANSI code pages
// latlab reads, a byte below 0x80 is always that ASCII character.
func checkControl(b []byte, skip int, o Options) error {
	line := 1
	sc := controlScan{opt: o}
	for i, c := range b {
		if c == '\n' {
			line++
		}
		if sc.bad(rune(c)) {
			return &BinaryError{Offset: int64(skip + i), Line: line, Byte: c}
		}
	}
	return nil
}

// controlScan follows the lines of a text, character by character, and
// says which characters make it binary: isBadControl's, except inside an
// Options.Comment comment.
type controlScan struct {
	opt             Options
	quoted, comment bool
}

func (s *controlScan) bad(r rune) bool {
	switch {
	case r == '\n' || r == '\r':
		// ReadLines ends a line at either
		s.quoted, s.comment = false, false
	case s.comment:
		return false
	case s.opt.Comment == 0:
	case r == '"':
		s.quoted = !s.quoted
	case r == rune(s.opt.Comment) && !s.quoted:
		s.comment = true
	}
	return isBadControl(r)
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
