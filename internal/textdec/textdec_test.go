package textdec

import (
	"bytes"
	"errors"
	"slices"
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
		{"lone cr ends the comment", []byte("[a]\n;\x01\r\x02"), 3, 7},
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
	txt, err := ReadText(bytes.NewReader([]byte("[a]\nk = v\n;\x02\x02\x01\n\x1a")), 1<<20, "x", inf)
	if err != nil || len(txt.Lines) != 4 || txt.Lines[2] != ";\x02\x02\x01" {
		t.Errorf("ReadText: %q %v", txt.Lines, err)
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

// A binary file's error names the line ReadLines would give the byte:
// lines end at CRLF, LF or a lone CR, in every encoding, and a CR-only
// file (classic Mac OS) counts its lines too (it was line 1 throughout,
// while its lines were numbered from 1 up).
func TestBinaryLineIsReadLinesLine(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		line int
	}{
		{"cr only", []byte("a\rb\r\x00"), 3},
		{"cr only, ansi", []byte("caf\xe9\rb\r\x01"), 3},
		{"crlf then cr", []byte("a\r\nb\rc\x00"), 3},
		{"cr, crlf", []byte("a\r\r\n\x00"), 3},
		{"lf cr", []byte("a\n\r\x00"), 3},
		{"utf-16 cr only", le("a\rb\r\x00", true), 3},
		{"utf-16 crlf", le("a\r\nb\r\n\x00", true), 3},
		{"utf-16 odd length after crs", append(le("a\rb\r", true), 'x'), 3},
		{"utf-16 odd length after cr at the end", append(le("a\r", true), 'x'), 2},
	} {
		_, _, err := Decode(c.in)
		var be *BinaryError
		if !errors.As(err, &be) || be.Line != c.line {
			t.Errorf("%s: %v (want line %d)", c.name, err, c.line)
		}
		// the stream's count is the same (FuzzScan compares the two)
		if err := sameAsReadLines(string(c.in), 1<<20); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// With Options.CtrlZEnds the text ends at the first Ctrl-Z, as SetupAPI
// ends an INF: what follows is not read (a control byte there does not
// make the file binary, a byte that is not UTF-8 does not make it ANSI),
// and ReadText says where the Ctrl-Z was and the last line after it that
// held text. Without the option a Ctrl-Z is a character of its line.
func TestCtrlZEnds(t *testing.T) {
	o := Options{Comment: ';', CtrlZEnds: true}
	for _, c := range []struct {
		name           string
		in             []byte
		lines          []string
		enc            Encoding
		ctrlZ, dropped int
	}{
		{"none", []byte("a\nb\n"), []string{"a", "b", ""}, UTF8, 0, 0},
		{"at the end", []byte("a\n\x1a"), []string{"a", ""}, UTF8, 2, 0},
		{"blank after", []byte("a\n\x1a\r\n\x1a \t\n"), []string{"a", ""}, UTF8, 2, 0},
		{"mid-line", []byte("a\nb\x1ac\n"), []string{"a", "b"}, UTF8, 2, 2},
		{"a section after", []byte("[a]\nk=v\n\x1a\n[b]\nk=w\n\n"), []string{"[a]", "k=v", ""}, UTF8, 3, 5},
		{"binary after", []byte("[a]\x1a\x00\x01\x02"), []string{"[a]"}, UTF8, 1, 1},
		{"ansi after utf-8", []byte("caf\xc3\xa9\x1a caf\xe9"), []string{"café"}, UTF8, 1, 1},
		{"ansi", []byte("caf\xe9\r\n\x1a\r\n\r\nx"), []string{"café", ""}, ANSI, 2, 4},
		{"utf-16", le("[a]\r\n\x1a\r\n[b]\r\n", true), []string{"[a]", ""}, UTF16LE, 2, 3},
		{"utf-16 odd length after", append(le("[a]\x1a", true), 'x'), []string{"[a]"}, UTF16LE, 1, 1},
		{"utf-16 U+1A00 is not Ctrl-Z", le("[a]\u1a00b", true), []string{"[a]\u1a00b"}, UTF16LE, 0, 0},
		// a lone CR ends a line (LFOnly is apart)
		{"cr only", []byte("a\rb\r\x1a\rc"), []string{"a", "b", ""}, UTF8, 3, 4},
	} {
		txt, err := ReadText(bytes.NewReader(c.in), 1<<20, "x", o)
		if err != nil || !slices.Equal(txt.Lines, c.lines) || txt.Encoding != c.enc || txt.CtrlZ != c.ctrlZ || txt.Dropped != c.dropped {
			t.Errorf("%s: %q %s Ctrl-Z %d dropped %d %v, want %q %s %d %d", c.name, txt.Lines, txt.Encoding, txt.CtrlZ, txt.Dropped, err, c.lines, c.enc, c.ctrlZ, c.dropped)
		}
	}
	for _, c := range []struct{ name, in, want string }{
		{"binary before", "a\n\x00\x1a", "line 2: not text (byte 0x00 at offset 2): expected x"},
		{"nothing before", " \r\n\x1a[a]\nk=v\n", "line 2: nothing but white space before the Ctrl-Z (0x1A) that ends the file: expected x"},
	} {
		if _, err := ReadText(strings.NewReader(c.in), 1<<20, "x", o); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	// every other reader reads on
	lines, _, err := ReadLines(strings.NewReader("a\x1ab\n\x1a"), 1<<20, "x")
	if err != nil || !slices.Equal(lines, []string{"a\x1ab", "\x1a"}) {
		t.Errorf("ReadLines: %q %v", lines, err)
	}
}

// With Options.LFOnly a line ends at a line feed alone, as SetupAPI ends
// one: a lone CR stays in its line, and a binary byte's line and a
// comment's end follow the same lines.
func TestLFOnly(t *testing.T) {
	o := Options{Comment: ';', LFOnly: true}
	txt, err := ReadText(strings.NewReader("a\rb\r\nc\n\rd"), 1<<20, "x", o)
	if err != nil || !slices.Equal(txt.Lines, []string{"a\rb", "c", "\rd"}) {
		t.Errorf("lines %q %v", txt.Lines, err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		line int // 0: accepted
	}{
		{"cr only", []byte("a\rb\r\x00"), 1},
		{"crlf", []byte("a\r\nb\r\n\x00"), 3},
		{"utf-16 cr only", le("a\rb\r\x00", true), 1},
		{"a lone cr does not end a comment", []byte("[a]\n;\x01\r\x02"), 0},
		{"a line feed does", []byte("[a]\n;\x01\r\n\x02"), 3},
	} {
		_, err := ReadText(bytes.NewReader(c.in), 1<<20, "x", o)
		var le *LineError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.line != 0 && (!errors.As(err, &le) || le.Line != c.line):
			t.Errorf("%s: %v (want line %d)", c.name, err, c.line)
		}
	}
}

// FuzzReadTextINF: with the INF reader's options no line holds a Ctrl-Z
// or a line feed, the text after a Ctrl-Z is placed after it, and input
// without a Ctrl-Z reads as it does without CtrlZEnds.
func FuzzReadTextINF(f *testing.F) {
	f.Add([]byte("[a]\nk=v\n\x1a\n[b]\nk=w\n"))
	f.Add([]byte("[a]\rk=v\r\n;\x01\r\x02\n\x1a\x00"))
	f.Add(le("[a]\r\n\x1a[b]", true))
	f.Add(append(le("[a]\x1a", true), 'x'))
	f.Add([]byte("caf\xc3\xa9\x1a caf\xe9"))
	f.Add([]byte(" \r\n\x1a[a]\n"))
	f.Add([]byte("[a\x01\x00]\x02\n k=v\x00\n\x1a\x03"))
	inf := infOptions
	f.Fuzz(func(t *testing.T, b []byte) {
		txt, err := ReadText(bytes.NewReader(b), 1<<20, "x", inf)
		if err != nil {
			return
		}
		for _, l := range txt.Lines {
			if strings.ContainsAny(l, "\x1a\n") {
				t.Fatalf("line %q", l)
			}
		}
		if txt.Dropped != 0 && (txt.CtrlZ == 0 || txt.Dropped < txt.CtrlZ) || txt.CtrlZ > len(txt.Lines) {
			t.Fatalf("Ctrl-Z on line %d, text to line %d, %d lines", txt.CtrlZ, txt.Dropped, len(txt.Lines))
		}
		if txt.CtrlZ != 0 {
			return
		}
		o := inf
		o.CtrlZEnds = false
		all, err := ReadText(bytes.NewReader(b), 1<<20, "x", o)
		if err != nil || !slices.Equal(all.Lines, txt.Lines) || all.Encoding != txt.Encoding {
			t.Fatalf("without a Ctrl-Z: %q %s, without the option %q %s %v", txt.Lines, txt.Encoding, all.Lines, all.Encoding, err)
		}
	})
}

// infOptions are the INF reader's (internal/inf's Parse) but Controls and
// KeepCR (TestControls), its white space short of Wine's iswspace, which
// the tests here need not match.
var infOptions = Options{Comment: ';', CtrlZEnds: true, LFOnly: true, Header: '[', HeaderEnd: ']',
	Space: func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == 0xa0 }, NUL: true}

// With Options.Header, control characters stand in a section header up
// to its end and on the rest of its line, as SetupAPI reads an INF
// (Wine's dlls/setupapi/tests/parser.c opens " [Test\r\b\tSection] \n"
// on Windows); with Options.NUL a NUL stands anywhere. Where the line
// starts with anything but white space and the header's character, or
// after a header's line, the strict rule holds.
func TestHeaderControls(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		line int   // 0: accepted
		off  int64 // of the refused byte
	}{
		{"wine's test", []byte("[a]\n [Test\r\b\tSection] \nk=v\n"), 0, 0},
		{"after the ']'", []byte("[a] \x01\"\x02;\n"), 0, 0},
		{"header not closed", []byte("[a\x01\x02\n"), 0, 0},
		{"no-break space before '['", []byte("\u00a0[\x01]\n"), 0, 0},
		{"ansi no-break space before '['", []byte("\xa0[\x01]\ncaf\xe9\n"), 0, 0},
		{"utf-16", le("[\x01]\r\n", true), 0, 0},
		{"nul in a value", []byte("[a]\nk=\x00v\n"), 0, 0},
		{"nul in utf-16", le("[a]\r\nk=\x00v\r\n", true), 0, 0},
		{"text before '['", []byte("k[\x01]\n"), 1, 2},
		{"next line", []byte("[\x01]\n\x02\n"), 2, 4},
		{"a lone CR does not end the header's line", []byte("[a]\r\x02\n"), 0, 0},
		{"ansi, text before '['", []byte("\xe9[\x01]\n"), 1, 2},
		{"utf-16, after a value", le("[a]\r\nk=\x01\r\n", true), 2, 16},
	} {
		_, _, err := DecodeWith(c.in, infOptions)
		var be *BinaryError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.line != 0 && (!errors.As(err, &be) || be.Line != c.line || be.Offset != c.off):
			t.Errorf("%s: %v (want line %d offset %d)", c.name, err, c.line, c.off)
		}
		// every other reader's is the strict default
		if _, _, err := Decode(c.in); !errors.As(err, &be) {
			t.Errorf("%s: Decode accepted it: %v", c.name, err)
		}
	}
}

// FuzzDecodeHeader: the INF reader's options accept all Decode accepts,
// alike, and more only where every control character they let through
// is a NUL, or in a comment, a header or the rest of a header's line.
func FuzzDecodeHeader(f *testing.F) {
	f.Add([]byte(" [Test\r\b\tSection] \x02\nk=v\x00\n"))
	f.Add([]byte("[a]\nk = \"v;\x02\" ;\x01\r\x02"))
	f.Add(le("[\x01]\r\nk=\x00\r\n", true))
	f.Add([]byte("\xa0[\x01]\ncaf\xe9 ;\x01\x00\n"))
	o := infOptions
	o.CtrlZEnds = false // Decode reads on past a Ctrl-Z
	f.Fuzz(func(t *testing.T, b []byte) {
		s1, e1, err1 := Decode(b)
		s2, e2, err2 := DecodeWith(b, o)
		if err1 == nil && (err2 != nil || s1 != s2 || e1 != e2) {
			t.Fatalf("Decode %q %s, with the INF's options %q %s %v", s1, e1, s2, e2, err2)
		}
		if err2 != nil {
			if err1 == nil {
				t.Fatal("refused only with the INF's options")
			}
			return
		}
		for _, line := range strings.Split(s2, "\n") {
			if t := strings.TrimLeftFunc(line, o.Space); strings.HasPrefix(t, "[") {
				continue // a header's line
			}
			in := false
			for _, r := range line {
				if r == '"' {
					in = !in
				}
				if r == ';' && !in {
					break
				}
				if isBadControl(r) && r != 0 {
					t.Fatalf("control %#x outside a comment or header in %q", r, line)
				}
			}
		}
	})
}

// With Options.Controls every control character stands in the text, and
// Text.Binary is the error ReadText gives without it; with KeepCR a CRLF's
// CR stays at the end of its line. The INF reader reads both as SetupAPI
// does and refuses a file as binary only when it does not read as an INF.
func TestControls(t *testing.T) {
	o := infOptions
	o.Controls, o.KeepCR = true, true
	for _, c := range []struct {
		name  string
		in    []byte
		lines []string
		bin   string // Text.Binary, "" for none
	}{
		{"utf-8", []byte("[a]\nk=v\x02\r\n\x01\n"), []string{"[a]", "k=v\x02\r", "\x01", ""}, "line 2: not text (byte 0x02 at offset 7): expected x"},
		{"utf-8 with a bom", []byte("\xef\xbb\xbf[a]\r\n\x1b\r\n"), []string{"[a]\r", "\x1b\r", ""}, "line 2: not text (byte 0x1b at offset 8): expected x"},
		{"ansi", []byte("[a]\ncaf\xe9=\x03\n"), []string{"[a]", "caf\u00e9=\x03", ""}, "line 2: not text (byte 0x03 at offset 9): expected x"},
		{"utf-16", le("[a]\r\nk=\x01\r\n", true), []string{"[a]\r", "k=\x01\r", ""}, "line 2: not text (byte 0x01 at offset 16): expected x"},
		{"in a comment and a header", []byte("[\x01]\nk=v ;\x02\r\n"), []string{"[\x01]", "k=v ;\x02\r", ""}, ""},
		{"a lone cr", []byte("[a]\rk=v\r\r\n"), []string{"[a]\rk=v\r\r", ""}, ""},
	} {
		txt, err := ReadText(bytes.NewReader(c.in), 1<<20, "x", o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(txt.Lines, c.lines) {
			t.Errorf("%s: lines %q, want %q", c.name, txt.Lines, c.lines)
		}
		bin := ""
		if txt.Binary != nil {
			bin = txt.Binary.Error()
		}
		if bin != c.bin {
			t.Errorf("%s: Binary %q, want %q", c.name, bin, c.bin)
		}
	}
}

// FuzzReadTextControls: Options.Controls reads what the options without
// it read, alike, and text they refuse as binary only with Text.Binary
// holding their error; KeepCR changes a line only by the CR of its CRLF.
func FuzzReadTextControls(f *testing.F) {
	f.Add([]byte("[a]\nk=v\x02\r\n\x01\n"))
	f.Add([]byte("\xef\xbb\xbf[a]\r\n\x1b\r\n\x1a\x01"))
	f.Add(le("[a]\r\nk=\x01\r\n", true))
	f.Add(append(le("[a]\x01", true), 'x'))
	f.Add([]byte("[\x01]\nk=v ;\x02\r\ncaf\xe9\r\r\n"))
	ctrl := infOptions
	ctrl.Controls = true
	keep := ctrl
	keep.KeepCR = true
	f.Fuzz(func(t *testing.T, b []byte) {
		strict, err1 := ReadText(bytes.NewReader(b), 1<<20, "x", infOptions)
		txt, err2 := ReadText(bytes.NewReader(b), 1<<20, "x", ctrl)
		switch {
		case err2 != nil:
			if err1 == nil || err1.Error() != err2.Error() {
				t.Fatalf("refused with Controls (%v), without it: %v", err2, err1)
			}
			return
		case err1 == nil && (txt.Binary != nil || !slices.Equal(strict.Lines, txt.Lines) || strict.Encoding != txt.Encoding):
			t.Fatalf("Controls changed the text: %q %s %v, without it %q %s", txt.Lines, txt.Encoding, txt.Binary, strict.Lines, strict.Encoding)
		case err1 != nil && (txt.Binary == nil || txt.Binary.Error() != err1.Error()):
			t.Fatalf("refused without Controls (%v), with it Binary is %v", err1, txt.Binary)
		}
		kept, err := ReadText(bytes.NewReader(b), 1<<20, "x", keep)
		if err != nil || len(kept.Lines) != len(txt.Lines) {
			t.Fatalf("KeepCR: %q %v, without it %q", kept.Lines, err, txt.Lines)
		}
		for i, l := range kept.Lines {
			if l != txt.Lines[i] && l != txt.Lines[i]+"\r" {
				t.Fatalf("KeepCR: line %q, without it %q", l, txt.Lines[i])
			}
		}
	})
}
