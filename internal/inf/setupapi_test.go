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
	} {
		f, err := Parse(strings.NewReader(c.in), "x.inf")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := sectionsOf(f); !slices.Equal(got, c.want) {
			t.Errorf("%s: sections %q, want %q", c.name, got, c.want)
		}
		if !slices.Equal(f.Notes, c.notes) {
			t.Errorf("%s: notes %q, want %q", c.name, f.Notes, c.notes)
		}
	}
	for _, c := range []struct{ name, in, want string }{
		// Wine's test: "\n\n[ab\x1a]\n" after two lines is
		// ERROR_BAD_SECTION_NAME_LINE on line 5
		{"ctrl-z in a header", "[Version]\nSignature=x\n\n\n[ab\x1a]\n", `line 5: section header "[ab" has no closing ']'`},
		{"open header", "[a]\n[b ; c\n", `line 2: section header "[b ; c" has no closing ']'`},
		{"nothing before ctrl-z", "\r\n\x1a[a]\nk=v\n", "line 2: nothing but white space before the Ctrl-Z (0x1A)"},
		// lines end at line feeds only: the control byte is on line 1
		{"binary in a cr-only file", "[a]\rk=v\r\x01\r", "line 1: not text (byte 0x01 at offset 8)"},
		{"binary in a crlf file", "[a]\r\nk=v\r\n\x01\r\n", "line 3: not text (byte 0x01 at offset 10)"},
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
