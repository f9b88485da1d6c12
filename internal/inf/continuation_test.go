package inf

import (
	"fmt"
	"testing"
)

// A '\' that ends a line (outside quotes) joins the next line to the key
// or value it is in, as Wine's parser (dlls/setupapi/parser.c, the
// EOL_BACKSLASH state: see Parse) reads it: with no space between them,
// the white space before the '\' and at the start of the next line
// dropped. latlab joined them with a space ("c a" for Wine's "ca").
//
// The "wine:" cases are the lines of Wine's tests
// (dlls/setupapi/tests/parser.c, which pass on Windows) in key_names[],
// under its "/* backslashes */" comment and, the last, under
// "/* quotes */"; Wine's test puts each after "[Test]\n" and checks the
// key and the fields of the first line of [Test]. A NULL key there is a
// line without '=' that has more than one field. The other cases follow
// the parser's states (Parse quotes them). Each is read after "[Test]\n";
// on Windows TestINFContinuationSetupAPI reads them with SetupAPI too.
var continuationCases = []struct {
	name, in string
	want     []string // sectionsOf
	notes    []string
}{
	// { C("ba\\\ncd=ef"),          "bacd",          { "ef" } },
	{"wine: in a key", "ba\\\ncd=ef", []string{"[Test] bacd=ef"}, nil},
	// { C("ab  \\  \ncd=ef"),      "abcd",          { "ef" } },
	{"wine: spaces around the backslash", "ab  \\  \ncd=ef", []string{"[Test] abcd=ef"}, nil},
	// { C("ab\\\ncd,ef"),          NULL,            { "abcd", "ef" } },
	{"wine: in a first field", "ab\\\ncd,ef", []string{"[Test] =abcd|ef"}, nil},
	// { C("ab  \\ ;cc\ncd=ef"),    "abcd",          { "ef" } },
	{"wine: comment after the backslash", "ab  \\ ;cc\ncd=ef", []string{"[Test] abcd=ef"}, nil},
	// { C("ab \\ \\ \ncd=ef"),     "abcd",          { "ef" } },
	{"wine: backslashes and spaces", "ab \\ \\ \ncd=ef", []string{"[Test] abcd=ef"}, nil},
	// { C("ba \\ dc=xx"),          "ba \\ dc",      { "xx" } },
	{"wine: text after the backslash", "ba \\ dc=xx", []string{"[Test] ba \\ dc=xx"}, nil},
	// { C("ba \\\\ \nc=d"),        "bac",           { "d" } },
	{"wine: two backslashes", "ba \\\\ \nc=d", []string{"[Test] bac=d"}, nil},
	// { C("a=b\\\\c"),             "a",             { "b\\\\c" } },
	{"wine: two backslashes before text", "a=b\\\\c", []string{"[Test] a=b\\\\c"}, nil},
	// { C("ab=cd \\ "),            "ab",            { "cd" } },
	{"wine: at the end of the file", "ab=cd \\ ", []string{"[Test] ab=cd"}, nil},
	// { C("ba=c \\ \n \\ \n a"),   "ba",            { "ca" } },
	{"wine: over a line of a backslash", "ba=c \\ \n \\ \n a", []string{"[Test] ba=ca"}, nil},
	// { C("ba=c \\ \n \\ a"),      "ba",            { "c\\ a" } },
	{"wine: a next line's backslash before text", "ba=c \\ \n \\ a", []string{"[Test] ba=c\\ a"}, nil},
	// { C("  \\ a= \\ b"),         "\\ a",          { "\\ b" } },
	{"wine: a key and a value starting with a backslash", "  \\ a= \\ b", []string{"[Test] \\ a=\\ b"}, nil},
	// { C("ab=cd\",ef\\\nab"),     "ab",            { "cd,ef\\" } },
	{"wine: in an open quote", "ab=cd\",ef\\\nab", []string{"[Test] ab=cd,ef\\ =ab"},
		[]string{"x.inf line 2: unterminated quoted string: taken to end at the end of the line"}},

	{"in a value", "ab=cd\\\nef", []string{"[Test] ab=cdef"}, nil},
	{"crlf and indented", "ab=cd \\\r\n    ef\r\n", []string{"[Test] ab=cdef"}, nil},
	{"fields on three lines", "a = 1, \\\n  2, \\ ; two\n  3\n", []string{"[Test] a=1|2|3"}, nil},
	{"a key before its '='", "a \\\n = b\n", []string{"[Test] a=b"}, nil},
	{"after a closed quote", "a=\"b \"\\\n c\n", []string{"[Test] a=b c"}, nil},
	{"into a quote", "a=b\\\n \"c d\"\n", []string{"[Test] a=bc d"}, nil},
	{"inside closed quotes", "a=\"b\\\"\nc\n", []string{"[Test] a=b\\ =c"}, nil},
	{"text after the backslash in a value", "a=b \\ c\\d\n", []string{"[Test] a=b \\ c\\d"}, nil},
	{"into a blank line", "a=b\\\n\nc=d\n", []string{"[Test] a=b c=d"}, nil},
	{"into a comment line", "a=b\\\n ; c\nd=e\n", []string{"[Test] a=b d=e"}, nil},
	{"into a header's line", "a=b\\\n[S]\nc=d\n", []string{"[Test] a=b[S] c=d"}, nil},
	{"at a ctrl-z", "a=b\\\x1a\nc=d\n", []string{"[Test] a=b"}, []string{
		"x.inf line 2: a Ctrl-Z (0x1A, the DOS end-of-file mark) ends the file here, as it ends it for SetupAPI: the text after it, to line 3, is not read"}},
	{"at the end after a line feed", "a=b\\\n", []string{"[Test] a=b"}, nil},
	// a line that is a '\' alone is an entry with an empty field
	// (LINE_START goes to KEY_NAME at the '\'), as "\"\"" is
	{"a lone backslash", "\\\n\na=b\n", []string{"[Test] = a=b"}, nil},
	{"a lone backslash at the end", "a=b\n \\ ", []string{"[Test] a=b ="}, nil},
	{"a lone backslash into an entry", "\\\na=b\n", []string{"[Test] a=b"}, nil},
	// a value's text ends before NULs (trimEnd), a key's only
	// before white space
	{"a NUL before it in a value", "a=b\x00\\\nc\n", []string{"[Test] a=bc"}, nil},
	{"a NUL before it in a key", "ab\x00\\\n=c\n", []string{"[Test] ab =c"}, []string{fmt.Sprintf(nulNoteAt, 2)}},
	{"a NUL after a key's space", "ab \x00\\\n=c\n", []string{"[Test] ab=c"}, nil},
	{"a NUL at the next line's start", "a=b\\\n\x00c\n", []string{"[Test] a=b c"}, []string{fmt.Sprintf(nulNoteAt, 2)}},
	// the first '\' is text (a NUL follows it), the second ends the
	// line: the entry ends at the blank line, its value "b\"
	{"a backslash kept before a NUL", "a=b\\\x00\\\n\nc=d\n", []string{"[Test] a=b\\ c=d"}, nil},
}

const nulNoteAt = "x.inf line %d: " + nulNote

func TestINFContinuation(t *testing.T) {
	for _, c := range continuationCases {
		checkRead(t, c.name, "[Test]\n"+c.in, c.want, c.notes)
	}
}
