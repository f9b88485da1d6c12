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

// With Options.Comment, control characters after an unquoted comment
// character are text (Realtek's netrtp5.inf ends with ";\x02\x02\x01");
// before it, after one inside quotes and on the next line they are not,
// and without the option (every reader but the INF's) nothing changes.
func TestCommentControls(t *testing.T) {
	inf := Options{Comment: ';'}
	for _, c := range []struct {
		name string
		in   []byte
		line int   // 0: accepted with the option
		off  int64 // of the refused byte
	}{
		{"trailing comment", []byte("[a]\nk = v\n\n;\x02\x02\x01\n\x1a"), 0, 0},
		{"comment after a value", []byte("[a]\nk = v ; \x00\x7f\x1b\n"), 0, 0},
		{"ansi comment", []byte("[a]\nk = caf\xe9 ;\x01\r\n"), 0, 0},
		{"utf-16 comment", le("[a]\r\nk = v ;\x02\x01\r\n", true), 0, 0},
		// (a BinaryError counts lines at line feeds only)
		{"lone cr ends the comment", []byte("[a]\n;\x01\r\x02"), 2, 7},
		{"before the comment", []byte("[a]\nk = \x02v ;\x01\n"), 2, 8},
		{"quoted ';'", []byte("[a]\nk = \"v;\x02\"\n"), 2, 11},
		{"quote closed, then a comment", []byte("[a]\nk = \"v;\" ;\x02\n"), 0, 0},
		{"next line", []byte("[a]\n;\x02\nk = \x03\n"), 3, 11},
		{"quote open at the line's end", []byte("[a]\nk = \"v\n;\x02\n"), 0, 0},
	} {
		_, _, err := DecodeWith(c.in, inf)
		var be *BinaryError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.line != 0 && (!errors.As(err, &be) || be.Line != c.line || be.Offset != c.off):
			t.Errorf("%s: %v (want line %d offset %d)", c.name, err, c.line, c.off)
		}
		// the strict default is every other reader's
		if _, _, err := Decode(c.in); !errors.As(err, &be) {
			t.Errorf("%s: Decode accepted it: %v", c.name, err)
		}
	}
	lines, _, err := ReadLinesWith(bytes.NewReader([]byte("[a]\nk = v\n;\x02\x02\x01\n\x1a")), 1<<20, "x", inf)
	if err != nil || len(lines) != 4 || lines[2] != ";\x02\x02\x01" {
		t.Errorf("ReadLinesWith: %q %v", lines, err)
	}
	if _, _, err := ReadLines(bytes.NewReader([]byte("[a]\n;\x02\n")), 1<<20, "x"); err == nil || err.Error() != "line 2: not text (byte 0x02 at offset 5): expected x" {
		t.Errorf("ReadLines: %v", err)
	}
}

// FuzzDecodeComment: Options.Comment accepts all Decode accepts, alike, and
// more only where every control character it let through is in a comment
// of the decoded text's lines.
func FuzzDecodeComment(f *testing.F) {
	f.Add([]byte("[a]\nk = v\n\n;\x02\x02\x01\n\x1a"))
	f.Add([]byte("[a]\nk = \"v;\x02\" ;\x01\r\x02"))
	f.Add(le("[a]\r\nk = v ;\x02\x01\r\n", true))
	f.Add([]byte("k = caf\xe9 ;\x01\x00\n"))
	inf := Options{Comment: ';'}
	f.Fuzz(func(t *testing.T, b []byte) {
		s1, e1, err1 := Decode(b)
		s2, e2, err2 := DecodeWith(b, inf)
		if err1 == nil && (err2 != nil || s1 != s2 || e1 != e2) {
			t.Fatalf("Decode %q %s, with a comment %q %s %v", s1, e1, s2, e2, err2)
		}
		if err2 != nil {
			if err1 == nil {
				t.Fatal("refused only with the comment option")
			}
			return
		}
		for _, line := range strings.FieldsFunc(s2, func(r rune) bool { return r == '\n' || r == '\r' }) {
			in := false
			for _, r := range line {
				if r == '"' {
					in = !in
				}
				if r == ';' && !in {
					break
				}
				if isBadControl(r) {
					t.Fatalf("control %#x outside a comment in %q", r, line)
				}
			}
		}
	})
}
