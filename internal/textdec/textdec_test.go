package textdec

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = []byte{0xFF, 0xFE}
	}
	for _, c := range utf16.Encode([]rune(s)) {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

func TestDecode(t *testing.T) {
	const text = "[Strings]\r\nA = \"Übertragung – 55,16%\"\r\n"
	be := []byte{0xFE, 0xFF}
	for _, c := range utf16.Encode([]rune(text)) {
		be = append(be, byte(c>>8), byte(c))
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
		enc  Encoding
	}{
		{"utf-8", []byte(text), text, UTF8},
		{"utf-8 bom", append([]byte{0xEF, 0xBB, 0xBF}, text...), text, UTF8BOM},
		{"utf-16le bom", le(text, true), text, UTF16LE},
		{"utf-16le", le("[Version]\r\n", false), "[Version]\r\n", UTF16LE},
		{"utf-16be bom", be, text, UTF16BE},
		{"windows-1252", []byte("On = \"Aktiviert (\xdcbertragung) \x96 \x80\"\n"), "On = \"Aktiviert (Übertragung) – €\"\n", ANSI},
		{"ctrl-z at the end", []byte("x\n\x1a"), "x\n\x1a", UTF8},
	} {
		got, enc, err := Decode(c.in)
		if err != nil || got != c.want || enc != c.enc {
			t.Errorf("%s: %q %s %v", c.name, got, enc, err)
		}
	}
}

func TestBinary(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     []byte
		line   int
		offset int64
	}{
		{"nul", []byte("ok\nok\n\x00rest"), 3, 6},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), 1, 4},
		{"ansi with control", []byte("caf\xe9\x01"), 1, 4},
		{"utf-16 odd length", append(le("ab", true), 'c'), 1, 6},
		{"utf-16 with nul", le("a\x00b", true), 1, 4},
		// U+0A0A and U+020A are not line feeds: the line of an odd last
		// byte counted them as such (FuzzScan: the stream said line 1,
		// ReadLines line 2)
		{"utf-16be odd length after U+0A0A", []byte{0xFE, 0xFF, 0x0A, 0x0A, 0x0A}, 1, 4},
		{"utf-16le odd length after U+020A", append(le("\u020a\n\u0a0a", true), 'x'), 2, 8},
	} {
		_, _, err := Decode(c.in)
		var be *BinaryError
		if !errors.As(err, &be) || be.Line != c.line || be.Offset != c.offset {
			t.Errorf("%s: %v (want line %d offset %d)", c.name, err, c.line, c.offset)
		}
	}
}

// Every byte of an ANSI file decodes to its own rune and back, the five
// Windows-1252 leaves undefined included (U+FFFD lost which byte it was:
// GBK text read as ANSI could not be recovered).
func TestANSIRoundTrip(t *testing.T) {
	all := make([]byte, 0, 224)
	for c := 0x20; c < 0x100; c++ {
		all = append(all, byte(c))
	}
	all = append(all, '\t', '\r', '\n')
	s, enc, err := Decode(all)
	if err != nil || enc != ANSI {
		t.Fatalf("%v %s", err, enc)
	}
	for _, c := range []byte{0x81, 0x8d, 0x8f, 0x90, 0x9d} {
		if !strings.ContainsRune(s, rune(c)) {
			t.Errorf("byte %#x is not U+%04X", c, c)
		}
	}
	if strings.ContainsRune(s, utf8.RuneError) {
		t.Error("a byte decoded to U+FFFD")
	}
	if back, ok := ANSIBytes(s); !ok || !bytes.Equal(back, all) {
		t.Errorf("ANSIBytes = %x %v, want the bytes read", back, ok)
	}
	if _, ok := ANSIBytes("€ 中"); ok {
		t.Error("ANSIBytes of a rune Windows-1252 has no byte for: ok")
	}
}
