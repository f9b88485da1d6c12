package inf

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sectionsOf renders a parsed file as "[name] key=field|field ..." per
// section, for comparing with what SetupAPI reads.
func sectionsOf(f *File) []string {
	var out []string
	for _, s := range f.Sections {
		e := fmt.Sprintf("[%s]", s.Name)
		for _, l := range s.Lines {
			e += " " + l.Key + "=" + strings.Join(l.Fields, "|")
		}
		out = append(out, e)
	}
	return out
}

// checkRead parses in and compares its sections (sectionsOf) and notes
// with want and notes; it returns the file, nil when in is refused.
func checkRead(t *testing.T, name, in string, want, notes []string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(in), "x.inf")
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil
	}
	if got := sectionsOf(f); !slices.Equal(got, want) {
		t.Errorf("%s: sections %q, want %q", name, got, want)
	}
	if !slices.Equal(f.Notes, notes) {
		t.Errorf("%s: notes %q, want %q", name, f.Notes, notes)
	}
	return f
}

// The text SetupAPI reads, as Wine's parser (dlls/setupapi/parser.c)
// reads it and its tests (dlls/setupapi/tests/parser.c, which pass on
// Windows) expect:
//
//   - a section header's name is everything between '[' and the first
//     ']', as written ("[Test;Section]" is "Test;Section", " [  Test
//     Section  ] dummy" is "  Test Section  ", "[]" is ""); the rest of
//     the line is ignored, a ';' or a '\' there too;
//   - the file ends at the first Ctrl-Z (0x1A), wherever it is, and a
//     note says so when text after it is not read;
//   - a line ends at a line feed: a lone CR is white space, and a note
//     says so once.
//
// latlab refused "[a;b]", cut "[a] \" short by joining the next line to
// the header, trimmed names, read on past a Ctrl-Z (and refused control
// bytes after it), and ended lines at a lone CR.
func TestINFReadAsSetupAPI(t *testing.T) {
	const ctrlZNote = "x.inf line %d: a Ctrl-Z (0x1A, the DOS end-of-file mark) ends the file here, as it ends it for SetupAPI: the text after it, to line %d, is not read"
	const crNote = "x.inf line %d: a carriage return without a line feed does not end a line for SetupAPI: read as a space"
	for _, c := range []struct {
		name, in string
		want     []string // sectionsOf
		notes    []string
	}{
		{"';' in a header", "[a;b]\nk=v\n", []string{"[a;b] k=v"}, nil},
		{"comment after a header", "[a] ; the first\nk=v\n", []string{"[a] k=v"}, nil},
		{"text after a header", "[a] junk [b]\nk=v\n", []string{"[a] k=v"}, nil},
		{"'\\' after a header", "[a] \\\nk=v\n", []string{"[a] k=v"}, nil},
		{"spaces kept", " [  Test Section  ] dummy\nk=v\n", []string{"[  Test Section  ] k=v"}, nil},
		{"quote and backslash", "[a\"b]\nk=v\n[c\\]\nk=w\n", []string{"[a\"b] k=v", "[c\\] k=w"}, nil},
		{"first ']'", "[Test[S]ection]\nk=v\n", []string{"[Test[S] k=v"}, nil},
		{"empty name", "[]\nk=v\n[ ]\nk=w\n", []string{"[] k=v", "[ ] k=w"}, nil},
		{"merged by name as written", "[a]\nk=v\n[A]\nk=w\n[a ]\nk=x\n", []string{"[a] k=v k=w", "[a ] k=x"}, nil},
		{"ctrl-z before a section", "[a]\nk=v\n\x1a\n[b]\nk=w\n\n", []string{"[a] k=v"}, []string{fmt.Sprintf(ctrlZNote, 3, 5)}},
		{"ctrl-z in a value", "[a]\nk=v\x1a,w\n", []string{"[a] k=v"}, []string{fmt.Sprintf(ctrlZNote, 2, 2)}},
		{"ctrl-z in quotes", "[a]\nk=\"v\x1a\"\n", []string{"[a] k=v"}, []string{fmt.Sprintf(ctrlZNote, 2, 2),
			"x.inf line 2: unterminated quoted string: taken to end at the end of the line"}},
		{"ctrl-z in a comment", "[a]\nk=v ;\x1a\n[b]\n", []string{"[a] k=v"}, []string{fmt.Sprintf(ctrlZNote, 2, 3)}},
		{"binary after ctrl-z", "[a]\nk=v\n\x1a\x00\x01\x02", []string{"[a] k=v"}, []string{fmt.Sprintf(ctrlZNote, 3, 3)}},
		{"ctrl-z at the end", "[a]\nk=v\n\n;\x02\x02\x01\n\x1a", []string{"[a] k=v"}, nil},
		{"ctrl-z and blank lines", "[a]\nk=v\n\x1a\r\n\x1a\r\n \r\n", []string{"[a] k=v"}, nil},
		{"crlf", "[a]\r\nk=v\r\n", []string{"[a] k=v"}, nil},
		{"cr only", "[Version]\rSignature=x\r[Manufacturer]\rM=A\r", []string{"[Version]"}, []string{fmt.Sprintf(crNote, 1)}},
		{"cr in a value", "[a]\nk=v\rw\nl=x \r\n", []string{"[a] k=v\rw l=x"}, []string{fmt.Sprintf(crNote, 2)}},
		{"cr in a header", "[a\rb]\nk=v\n", []string{"[a\rb] k=v"}, []string{fmt.Sprintf(crNote, 1)}},
		{"control in a cr-only line", "[a]\nk=v\rw\r\x01\r", []string{"[a] k=v\rw\r\x01"}, []string{fmt.Sprintf(crNote, 2),
			"x.inf line 2: a control character (0x01) is read as a character of its key or value, as SetupAPI reads it"}},
	} {
		checkRead(t, c.name, c.in, c.want, c.notes)
	}
	for _, c := range []struct{ name, in, want string }{
		// Wine's test: "\n\n[ab\x1a]\n" after two lines is
		// ERROR_BAD_SECTION_NAME_LINE on line 5
		{"ctrl-z in a header", "[Version]\nSignature=x\n\n\n[ab\x1a]\n", `line 5: section header "[ab" has no closing ']'`},
		{"open header", "[a]\n[b ; c\n", `line 2: section header "[b ; c" has no closing ']'`},
		{"nothing before ctrl-z", "\r\n\x1a[a]\nk=v\n", "line 2: nothing but white space before the Ctrl-Z (0x1A)"},
		// a file with a control character that does not read as an INF
		// is refused as binary at that character (Parse); lines end at
		// line feeds only: the control byte is on line 2 (on line 1,
		// after "[a]", it would be in the header's line, which SetupAPI
		// does not read past the ']')
		{"binary in a cr-only line", "[a]\nk=v\rw\r\x01\r\n[b\n", "line 2: not text (byte 0x01 at offset 10)"},
		{"binary in a crlf file", "[a]\r\nk=v\r\n\x01\r\n[b\r\n", "line 3: not text (byte 0x01 at offset 10)"},
	} {
		if _, err := Parse(strings.NewReader(c.in), "x.inf"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// setupapi-syntax.inf (written for the tests, CRLF) names its install
// section [Nic;v2], quoted in its models line, puts a comment and a '\'
// after that header, and has an older copy of its models section after a
// Ctrl-Z. SetupAPI installs [Nic;v2] and never reads the copy; latlab
// refused the header, and past the Ctrl-Z would have merged the copy's
// line into the models section. The same in UTF-16.
func TestINFSetupAPISyntaxFile(t *testing.T) {
	b := loadRaw(t, "setupapi-syntax.inf")
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range string(b) {
		utf16 = append(utf16, byte(r), 0)
	}
	const note = "setupapi-syntax.inf line 44: a Ctrl-Z (0x1A, the DOS end-of-file mark) ends the file here, as it ends it for SetupAPI: the text after it, to line 51, is not read"
	for name, in := range map[string][]byte{"ascii": b, "utf-16le": utf16} {
		f, err := Parse(bytes.NewReader(in), "setupapi-syntax.inf")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(f.Notes, []string{note}) || f.Lines != 44 {
			t.Errorf("%s: %d lines, notes %q", name, f.Lines, f.Notes)
		}
		if s := f.Section("Lab.NTamd64"); s == nil || len(s.Lines) != 1 || f.Section("Nic.Old") != nil {
			t.Errorf("%s: text after the Ctrl-Z read: %q", name, sectionsOf(f))
		}
		rep, err := Analyze(f, `PCI\VEN_1AF4&DEV_1041`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if rep.InstallSection != "Nic;v2" || rep.Service != "LabNic" || !hasKeyword(rep.Keywords, "*RSS") {
			t.Errorf("%s: [%s] service %q keywords %+v", name, rep.InstallSection, rep.Service, rep.Keywords)
		}
	}
}

// Control characters in a section header, as SetupAPI reads them. Wine's
// dlls/setupapi/tests/parser.c, section_names[] ("various control
// chars"), which pass on Windows:
//
//	{ STD_HEADER " [Test\r\b\tSection] \n",       "Test\r\b\tSection", 0 },
//
// section_name_state takes every character up to the first ']' into the
// name and sets COMMENT for the rest of the line; find_section compares
// names with strcmpiW. latlab refused the file at the \b. In a key or a
// value a control character is text too (TestINFControls).
func TestINFHeaderControls(t *testing.T) {
	const crNote = "x.inf line %d: a carriage return without a line feed does not end a line for SetupAPI: read as a space"
	for _, c := range []struct {
		name, in string
		find     string // a name Section finds
		want     []string
		notes    []string
	}{
		{"wine's test", " [Test\r\b\tSection] \nk=v\n", "TEST\r\b\tSECTION", []string{"[Test\r\b\tSection] k=v"}, []string{fmt.Sprintf(crNote, 1)}},
		{"escape and bell", "[a\x1b[2J\x07]\nk=v\n", "A\x1b[2j\x07", []string{"[a\x1b[2J\x07] k=v"}, nil},
		{"controls after the ']'", "[a] \x01\x1b\"\x02\nk=v\n", "a", []string{"[a] k=v"}, nil},
		{"no-break space before '['", "\u00a0[a\x02]\nk=v\n", "a\x02", []string{"[a\x02] k=v"}, nil},
		{"utf-16", string(le16("[a\x01b]\r\nk=v\r\n")), "A\x01B", []string{"[a\x01b] k=v"}, nil},
	} {
		if f := checkRead(t, c.name, c.in, c.want, c.notes); f != nil && f.Section(c.find) == nil {
			t.Errorf("%s: [%q] not found", c.name, c.find)
		}
	}
	const note = "x.inf line 2: a control character (0x%02X) is read as a character of its key or value, as SetupAPI reads it"
	for _, c := range []struct {
		name, in string
		want     []string
		notes    []string
	}{
		{"in a value", "[a]\nk=v\x02\n", []string{"[a] k=v\x02"}, []string{fmt.Sprintf(note, 2)}},
		{"in a key", "[a]\n\x1bk=v\n", []string{"[a] \x1bk=v"}, []string{fmt.Sprintf(note, 0x1b)}},
		{"after a header's line", "[a\x02]\n\x02\n", []string{"[a\x02] =\x02"}, []string{fmt.Sprintf(note, 2)}},
		{"header opened after text", "[a]\nk [\x02]\n", []string{"[a] =k [\x02]"}, []string{fmt.Sprintf(note, 2)}},
		{"noted once", "[a]\nk=\x01\nl=\x02\n", []string{"[a] k=\x01 l=\x02"}, []string{fmt.Sprintf(note, 1)}},
		{"not in a comment", "[a]\nk=v ;\x02\n", []string{"[a] k=v"}, nil},
		{"white space", "[a]\nk=\vv\f\n", []string{"[a] k=v"}, nil},
	} {
		checkRead(t, c.name, c.in, c.want, c.notes)
	}
}

// le16 is s in UTF-16LE with a BOM.
func le16(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

// A NUL in a header, a key or a value is read as a space, and a note
// says so once. Wine's dlls/setupapi/parser.c, push_token:
//
//	for ( ; len > 0; len--, dst++, src++) *dst = *src ? *src : ' ';
//
// but value_name_state ends a value's text before NULs as before spaces
// ("if (*p && !iswspace(*p)) token_end = p + 1"), and
// trailing_spaces_state skips both, while key_name_state and the states
// that skip leading white space test iswspace alone. Its tests
// (dlls/setupapi/tests/parser.c, which pass on Windows): key_names[]
//
//	{ C("abcd=ef\x0gh"),         "abcd",          { "ef gh" } },
//	{ C("foo=%bar%\n[Strings]\nbar=bbb\0\n"), "foo", { "bbb" } },
//	{ C("foo=%bar%\n[Strings]\nbar=bbb \0\n"), "foo", { "bbb" } },
//	{ C("foo=%bar%\n[Strings]\nbar=aaa\0bbb \0\n"), "foo", { "aaa bbb" } },
//
// and invalid_files[], which Windows opens: " [Test\x00Section]\n".
// latlab refused every one.
func TestINFNUL(t *testing.T) {
	const note = "x.inf line %d: " + nulNote
	for _, c := range []struct {
		name, in string
		want     []string // sectionsOf
		line     int      // of the note
	}{
		{"wine: in a value", "[Test]\nabcd=ef\x00gh\n", []string{"[Test] abcd=ef gh"}, 2},
		{"wine: at a value's end", "[Strings]\nbar=bbb\x00\n", []string{"[Strings] bar=bbb"}, 2},
		{"wine: after a space", "[Strings]\nbar=bbb \x00\n", []string{"[Strings] bar=bbb"}, 2},
		{"wine: both", "[Strings]\nbar=aaa\x00bbb \x00\n", []string{"[Strings] bar=aaa bbb"}, 2},
		{"wine: in a header", "[Version]\n [Test\x00Section]\nk=v\n", []string{"[Version]", "[Test Section] k=v"}, 2},
		// key_name_state: a NUL is part of a key's text, to the first
		// white space
		{"at a key's end", "[a]\nab\x00=cd\n", []string{"[a] ab =cd"}, 2},
		{"after a key's space", "[a]\nab \x00=cd\n", []string{"[a] ab=cd"}, 2},
		{"first field of a line without '='", "[a]\nab\x00,cd\x00\n", []string{"[a] =ab |cd"}, 2},
		// leading_spaces_state and line_start_state skip iswspace only
		{"at a value's start", "[a]\nk= \x00b\n", []string{"[a] k= b"}, 2},
		{"at a key's start", "[a]\n\x00k=v\n", []string{"[a]  k=v"}, 2},
		{"quoted", "[a]\nk=\"b\x00\" \x00,c\n", []string{"[a] k=b |c"}, 2},
		{"in a comment: no note", "[a]\nk=v ;\x00\n", []string{"[a] k=v"}, 0},
		{"once", "[a]\nk=\x00v\nl=\x00w\n", []string{"[a] k= v l= w"}, 2},
	} {
		var notes []string
		if c.line > 0 {
			notes = []string{fmt.Sprintf(note, c.line)}
		}
		checkRead(t, c.name, c.in, c.want, notes)
	}
	// the first of Wine's [Strings] cases whole: the value substituted
	f, err := Parse(strings.NewReader("[Test]\nfoo=%bar%\n[Strings]\nbar=bbb\x00\n"), "x.inf")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Expand(f.Section("Test").Lines[0].Field(0), ""); got != "bbb" {
		t.Errorf("%%bar%% = %q, want %q", got, "bbb")
	}
}

// A section name longer than 255 UTF-16 units refuses the file, on the
// header's line. Wine's dlls/setupapi/parser.c:
//
//	#define MAX_SECTION_NAME_LEN  255
//	...
//	if (parser->token_len > MAX_SECTION_NAME_LEN)
//	{
//	    parser->error = ERROR_SECTION_NAME_TOO_LONG;
//
// and its tests (dlls/setupapi/tests/parser.c, invalid_files[], which
// pass on Windows):
//
//	{ C(STD_HEADER "[" A255 "]\r\n"),  0,                           0,    FALSE },
//	{ C(STD_HEADER "[" A256 "]\r\n"),  ERROR_SECTION_NAME_TOO_LONG, 3,    FALSE },
//
// The name is counted as written (its spaces too) in UTF-16 units, as
// the parser's token is: a character outside the BMP counts two.
func TestINFSectionNameTooLong(t *testing.T) {
	const std = "[Version]\r\nSignature=\"$CHICAGO$\"\r\n"
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct {
		name, in string
		want     string // error prefix; "" reads
	}{
		{"wine: A255", std + "[" + a(255) + "]\r\n", ""},
		{"wine: A256", std + "[" + a(256) + "]\r\n", "line 3: section name \"" + a(57) + "...\" is 256 characters long, which SetupAPI refuses (ERROR_SECTION_NAME_TOO_LONG): expected at most 255"},
		{"spaces count", std + "[ " + a(254) + " ]\r\n", "line 3: section name"},
		{"repeated section too", std + "[" + a(256) + "]\r\n[" + a(256) + "]\r\n", "line 3: section name"},
		{"255 two-byte characters", std + "[" + strings.Repeat("é", 255) + "]\r\n", ""},
		{"128 characters outside the BMP", std + "[" + strings.Repeat("\U0001F600", 128) + "]\r\n", "line 3: section name"},
		{"127 of them and one", std + "[" + strings.Repeat("\U0001F600", 127) + "a]\r\n", ""},
		{"utf-16", string(le16(std + "[" + a(256) + "]\r\n")), "line 3: section name"},
		{"after a Ctrl-Z: not read", std + "\x1a[" + a(256) + "]\r\n", ""},
	} {
		_, err := Parse(strings.NewReader(c.in), "x.inf")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A section reference is trimmed where SetupAPI trims it, when the line
// is parsed, before %strkey% substitution, and with SetupAPI's white
// space. Wine's dlls/setupapi/parser.c trims in its states (each tests
// iswspace); PARSER_string_substW, which SetupGetStringField uses,
// copies the substituted text without trimming. iswspace is the C
// runtime's: msvcrt's table (Wine's dlls/msvcrt/ctype.c, MSVCRT__wctype)
// gives U+00A0 _SPACE ("/* a0 */ 0x0008 | B110"), and for characters
// above U+00FF GetStringTypeW's C1_SPACE, which Wine's tools/make_unicode
// gives to Unicode's Zs, Zl and Zp. names() trimmed with
// strings.TrimSpace after substitution: a %strkey% whose quoted value is
// " a " named no section [ a ].
func TestINFReferenceSpaces(t *testing.T) {
	const in = "[I]\n" +
		"AddReg = %quoted%\n" + // 1
		"AddReg = \" a \"\n" + // 2
		"AddReg = a\u00a0\n" + // 3: trimmed when parsed
		"AddReg = \"a\u00a0\"\n" + // 4
		"AddReg = %nbsp%\n" + // 5: the string's value was trimmed when parsed
		"AddReg = %qnbsp%\n" + // 6
		"AddReg = \u3000b\u2003\n" + // 7: ideographic and em spaces
		"AddReg = \ufeffb\n" + // 8: U+FEFF is no white space
		"[ a ]\n[a]\n[a\u00a0]\n[b]\n[\ufeffb]\n" +
		"[Strings]\nquoted = \" a \"\nnbsp = \u00a0a\u00a0\nqnbsp = \"a\u00a0\"\n"
	f, err := Parse(strings.NewReader(in), "x.inf")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{" a ", " a ", "a", "a\u00a0", "a", "a\u00a0", "b", "\ufeffb"} {
		l := f.Section("I").Lines[i]
		got := names(f, l, "")
		if len(got) != 1 || got[0] != want {
			t.Errorf("line %d: names %q, want %q", i+1, got, want)
			continue
		}
		if s := f.Section(got[0]); s == nil || s.Name != want {
			t.Errorf("line %d: %q names section %v", i+1, want, s)
		}
	}
	// the iswspace set at its edges: U+0085 is _SPACE only from msvcr140
	for r, want := range map[rune]bool{' ': true, '\t': true, '\v': true, '\f': true, '\r': true, 0xa0: true, 0x85: false,
		0x1680: true, 0x2000: true, 0x200a: true, 0x200b: false, 0x2028: true, 0x2029: true, 0x202f: true, 0x205f: true,
		0x3000: true, 0xfeff: false, 0: false, 'a': false} {
		if isSpace(r) != want {
			t.Errorf("isSpace(%U) = %v", r, !want)
		}
	}
}
