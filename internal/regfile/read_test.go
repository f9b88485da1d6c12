package regfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/textdec"
)

func readFile(t *testing.T, name string) *File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// A file regedit exported: every type, the default value, and hex data
// wrapped over lines.
func TestReadRegeditExport(t *testing.T) {
	f := readFile(t, "wine-export-types.reg")
	if f.Encoding != textdec.UTF16LE || f.Header != Header || len(f.Notes) != 0 {
		t.Fatalf("encoding %s header %q notes %q", f.Encoding, f.Header, f.Notes)
	}
	got := map[string]Value{}
	for _, s := range f.Sections {
		if !strings.HasPrefix(s.Path, `HKCU\Software\latlab-fixture`) || s.Delete {
			t.Errorf("section %+v", s)
		}
		for _, v := range s.Values {
			got[s.Path[len(`HKCU\Software\latlab-fixture`):]+`\`+v.Name] = v
		}
	}
	const sp = `\Multimedia\SystemProfile`
	blob := make([]byte, 48)
	for i := range blob {
		blob[i] = byte(i)
	}
	for _, c := range []struct {
		name string
		typ  uint32
		data []byte
	}{
		{sp + `\NetworkThrottlingIndex`, 4, []byte{0xff, 0xff, 0xff, 0xff}},
		{sp + `\SystemResponsiveness`, 4, []byte{0, 0, 0, 0}},
		{sp + `\Paths\Blob`, 3, blob},
		{sp + `\Paths\Exp`, 2, backend.UTF16Bytes(`%SystemRoot%\System32\drivers\etc`)},
		{sp + `\Paths\Multi`, 7, append(backend.UTF16Bytes("one\x00two\x00C:\\Quoted \"x\""), 0, 0)},
		{sp + `\Paths\Q`, 11, binary.LittleEndian.AppendUint64(nil, 0x123456789abcdef0)},
		{sp + `\Tasks\Games\Scheduling Category`, 1, backend.UTF16Bytes("High")},
		{sp + `\Tasks\Games\GPU Priority`, 4, []byte{8, 0, 0, 0}},
		{sp + `\Tasks\Games\`, 1, backend.UTF16Bytes("the default value")},
	} {
		v, ok := got[c.name]
		if !ok {
			t.Errorf("%s missing", c.name)
			continue
		}
		if v.Type != c.typ || !bytes.Equal(v.Data, c.data) {
			t.Errorf("%s: type %d data % x, want %d % x", c.name, v.Type, v.Data, c.typ, c.data)
		}
		if (c.name == sp+`\Tasks\Games\`) != v.Default {
			t.Errorf("%s: default %v", c.name, v.Default)
		}
	}
	if f.Values != 9 || len(got) != 9 {
		t.Errorf("%d values (%d named)", f.Values, len(got))
	}
}

// A hand-written file: what regedit would not import is skipped, each
// with a note naming its line.
func TestReadHandWritten(t *testing.T) {
	f := readFile(t, "tweaks.reg")
	wantNotes := []string{
		"line 5: a value outside a key: skipped",
		`line 10: text after the dword data`,
		`line 35: key "HKEY_LOCAL_MACHNE\\SOFTWARE\\Typo" is under no registry root`,
		"line 36: a value below a key skipped above: skipped",
		`line 38: neither a key, a value nor a comment ("reg add HKLM\\SOFTWARE\\x /v y /d 1"): skipped`,
	}
	if len(f.Notes) != len(wantNotes) {
		t.Fatalf("notes %q", f.Notes)
	}
	for i, w := range wantNotes {
		if !strings.HasPrefix(f.Notes[i], w) && !strings.Contains(f.Notes[i], w) {
			t.Errorf("note %d = %q, want %q", i, f.Notes[i], w)
		}
	}
	var paths []string
	for _, s := range f.Sections {
		paths = append(paths, s.Path)
	}
	if len(paths) != 7 || paths[1] != `HKLM\SYSTEM\ControlSet001\Control\PriorityControl` {
		t.Errorf("sections %q", paths)
	}
	del := f.Sections[5]
	if !del.Delete || del.Path != `HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched` {
		t.Errorf("deleted key %+v", del)
	}
	tcp := f.Sections[4].Values
	if len(tcp) != 2 || tcp[1].Name != "TcpAckFrequency" || !tcp[1].Delete || tcp[1].Line != 26 {
		t.Errorf("interface values %+v", tcp)
	}
	prio := f.Sections[1].Values[0]
	if prio.Type != 4 || !bytes.Equal(prio.Data, []byte{0x26, 0, 0, 0}) {
		t.Errorf("dword:26 read as %+v", prio)
	}
	curve := f.Sections[6].Values[1]
	if curve.Type != 3 || len(curve.Data) != 40 || curve.Data[8] != 0xc0 {
		t.Errorf("wrapped hex %+v", curve)
	}
}

func TestReadValueLines(t *testing.T) {
	for _, c := range []struct {
		line string
		want Value
		err  string
	}{
		{`"A"="x\"y\\z"`, Value{Name: "A", Type: 1, Data: backend.UTF16Bytes(`x"y\z`)}, ""},
		{`@="v"`, Value{Default: true, Type: 1, Data: backend.UTF16Bytes("v")}, ""},
		{`"A" = dword:0000000A`, Value{Name: "A", Type: 4, Data: []byte{10, 0, 0, 0}}, ""},
		{`"A"=DWORD:1`, Value{Name: "A", Type: 4, Data: []byte{1, 0, 0, 0}}, ""},
		{`"A"=hex(b):01,02`, Value{Name: "A", Type: 11, Data: []byte{1, 2}}, ""},
		{`"A"=hex:`, Value{Name: "A", Type: 3, Data: []byte{}}, ""},
		{`"A"=hex(7):00,00,`, Value{Name: "A", Type: 7, Data: []byte{0, 0}}, ""},
		{`"A"=-`, Value{Name: "A", Delete: true}, ""},
		{`"A"=dword:123456789`, Value{}, "dword data is 1 to 8 hex digits"},
		{`"A"=dword:xyz`, Value{}, "dword data is 1 to 8 hex digits"},
		{`"A"=dword:1 (Default:0)`, Value{}, "text after the dword data"},
		{`"A"=dword:1x`, Value{}, "text after the dword data"},
		{`"A"=dword:`, Value{}, "dword data is 1 to 8 hex digits"},
		{`"A"=hex:1,2g`, Value{}, `hex byte 2 ("2g") is not two hex digits`},
		{`"A"=hex:100`, Value{}, `hex byte 1 ("100") is not two hex digits`},
		{`"A"=hex(zz):00`, Value{}, `hex type "(zz)" is not a hex number`},
		{`"A"=hex2:00`, Value{}, `hex type "2" is not (N)`},
		{`"A"=qword:1`, Value{}, `data is none of`},
		{`"A"="x" junk`, Value{}, "text after the string data"},
		// a ; comment after the data is imported, a # one is not
		// (Wine's regedit tests, run on Windows too: "Wine25a",
		// "Wine25c", "Wine26a", "Wine26c", "Wine27a", "Wine9a")
		{`"A"="x"  ;comment`, Value{Name: "A", Type: 1, Data: backend.UTF16Bytes("x")}, ""},
		{"\"A\"=\"x;y\"\t\t; it is", Value{Name: "A", Type: 1, Data: backend.UTF16Bytes("x;y")}, ""},
		{`"A"=dword:1234;5678`, Value{Name: "A", Type: 4, Data: []byte{0x34, 0x12, 0, 0}}, ""},
		{`"A"=dword:1234 ; 5678`, Value{Name: "A", Type: 4, Data: []byte{0x34, 0x12, 0, 0}}, ""},
		{`"A"=dword:  00000008`, Value{Name: "A", Type: 4, Data: []byte{8, 0, 0, 0}}, ""},
		{`"A"=hex(2):25,00,00,00  ;comment`, Value{Name: "A", Type: 2, Data: []byte{0x25, 0, 0, 0}}, ""},
		{`"A"=hex:01,02,;comment`, Value{Name: "A", Type: 3, Data: []byte{1, 2}}, ""},
		{`"A"=dword:1234 #5678`, Value{}, "text after the dword data"},
		{`"A"="x"  #comment`, Value{}, "text after the string data"},
		{`"A"="x`, Value{}, "string data: no closing quote"},
		{`"A`, Value{}, "value name: no closing quote"},
		{`"A" dword:1`, Value{}, "no = after the value name"},
	} {
		got, err := parseValue(c.line)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.line, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.line, err)
		case got.Name != c.want.Name || got.Default != c.want.Default || got.Delete != c.want.Delete ||
			got.Type != c.want.Type || !bytes.Equal(got.Data, c.want.Data) || (got.Data == nil) != (c.want.Data == nil):
			t.Errorf("%s = %+v, want %+v", c.line, got, c.want)
		}
	}
}

// What is not a .reg file at all is bad input, in one line.
func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"\n\n  \n", "empty file"},
		{"[HKEY_LOCAL_MACHINE\\X]\r\n\"A\"=dword:1\r\n", `line 1: "[HKEY_LOCAL_MACHINE\\X]" is not a .reg header`},
		{"\x00\x01\x02binary", "not text"},
	} {
		_, err := Read(strings.NewReader(c.in))
		var bad *badinput.Error
		if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want a one-line bad input error with %q", c.in, err, c.want)
		}
	}
	// too large, too many values: TestReadBounds
	// regedit imports nothing below a header in another case (Wine's
	// regedit tests, which pass on Windows: "Test2", "Test10", "Test11")
	for _, h := range []string{"regedit4", "Regedit4", "WINDOWS REGISTRY EDITOR VERSION 5.00", "Windows Registry Editor version 5.00"} {
		if _, err := Read(strings.NewReader(h + "\n[HKEY_USERS\\.DEFAULT\\X]\n")); err == nil || !strings.Contains(err.Error(), "is not a .reg header") {
			t.Errorf("%q: %v, want not a .reg header", h, err)
		}
	}
	if f, err := Read(strings.NewReader("  REGEDIT4\n[HKEY_USERS\\.DEFAULT\\X]\n")); err != nil || f.Sections[0].Path != `HKU\.DEFAULT\X` {
		t.Errorf("REGEDIT4: %+v, %v", f, err)
	}
}

// A file of junk lines keeps at most MaxNotes notes and counts the rest.
func TestReadNotesBounded(t *testing.T) {
	f, err := Read(strings.NewReader(Header + "\n" + strings.Repeat("junk\n", MaxNotes+50)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Notes) != MaxNotes+1 || f.Notes[MaxNotes] != "50 more lines skipped" {
		t.Errorf("%d notes, last %q", len(f.Notes), f.Notes[len(f.Notes)-1])
	}
}

// Bytes continued over several lines join into one value; the join is
// linear in the lines (BenchmarkReadContinued: 2 million lines).
func TestReadContinuedLines(t *testing.T) {
	f, err := Read(strings.NewReader("REGEDIT4\n[HKEY_CURRENT_USER\\X]\n\"a\"=hex:00,\\\n  01,\\\n\t02,\\\n  03\n\"b\"=dword:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := f.Sections[0].Values
	if len(v) != 2 || !bytes.Equal(v[0].Data, []byte{0, 1, 2, 3}) || v[1].Line != 7 {
		t.Errorf("%+v", v)
	}
}

// A ; comment ends the bytes of a line, and the bytes go on over blank
// lines and comment lines, as regedit reads them (Wine's regedit tests,
// which pass on Windows: "Wine10c", "Wine12d", "Multi-Line6",
// "Wine29a"); a ; within a name or a string is text.
func TestReadContinuedComments(t *testing.T) {
	text := "Windows Registry Editor Version 5.00\n[HKEY_CURRENT_USER\\X]\n" +
		"\"a\"=hex(0):56,00,61,00,\\;comment\n  6c,00,75,00,\\\n  65,00,00,00\n" + // line 3
		"\"b\"=hex:11,22,33,44,\\;comment\n  55,66,;comment\n" + // line 6
		"\"c\"=hex(7):4c,00,\\\n\n;comment\n  69,00,\\  ;comment\n\n  00,00\n" + // line 8
		"\"d;e\"=\"f;g\\\\\"\n" // line 14
	f, err := Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Notes) != 0 {
		t.Errorf("notes %q", f.Notes)
	}
	want := []Value{
		{Line: 3, Name: "a", Type: 0, Data: []byte{0x56, 0, 0x61, 0, 0x6c, 0, 0x75, 0, 0x65, 0, 0, 0}},
		{Line: 6, Name: "b", Type: 3, Data: []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66}},
		{Line: 8, Name: "c", Type: 7, Data: []byte{0x4c, 0, 0x69, 0, 0, 0}},
		{Line: 14, Name: "d;e", Type: 1, Data: backend.UTF16Bytes(`f;g\`)},
	}
	got := f.Sections[0].Values
	if len(got) != len(want) {
		t.Fatalf("values %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.Line || g.Name != w.Name || g.Type != w.Type || !bytes.Equal(g.Data, w.Data) {
			t.Errorf("value %d = %+v, want %+v", i, g, w)
		}
	}
}

func BenchmarkReadContinued(b *testing.B) {
	text := "REGEDIT4\n[HKEY_CURRENT_USER\\X]\n\"a\"=hex:00,\\\n" + strings.Repeat("  01,\\\n", 2_000_000) + "  02\n"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Read(strings.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}

// A line starting with # is a comment, as one starting with ; is: reg
// import's tests in Wine, which pass on Windows, import every value around
// a "#comment" line. After a value's data a # is text, and the value is
// skipped (TestReadValueLines).
func TestReadHashCommentLine(t *testing.T) {
	f, err := Read(strings.NewReader("Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\X]\r\n\"a\"=dword:00000001\r\n#comment\r\n  # indented\r\n\"b\"=\"v\"\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || len(f.Sections[0].Values) != 2 || len(f.Notes) != 0 {
		t.Errorf("sections %+v, notes %q", f.Sections, f.Notes)
	}
}
