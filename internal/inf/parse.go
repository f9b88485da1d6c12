// Package inf reads Windows driver INF files the way SetupAPI does and
// follows a device's install chain to the registry keywords it installs.
//
// The parser handles sections (names are case-insensitive and taken as
// written between '[' and the first ']'; a repeated section continues the
// first), ';' comments outside quotes, '\' line continuations, quoted
// strings with "" escapes, %token% substitution from [Strings] or a
// localized [Strings.LANGID], lines that end at a line feed, a Ctrl-Z
// that ends the file, control characters read as text, NULs read as
// spaces, and files in UTF-16 (with a BOM, as most vendor
// INFs are), UTF-8 or ANSI. The install chain
// (install.go) goes [Manufacturer] -> decorated models section -> the
// device's DDInstall section -> AddReg/Include/Needs -> the HKR entries
// under Ndi\Params that define the adapter's advanced properties.
package inf

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/textdec"
)

// ParseError says which line of an INF could not be read.
type ParseError = textdec.LineError

// MaxInput bounds what Parse reads; the largest inbox INFs are a few MiB,
// the largest vendor INFs measured 2.75 MB (IDT's audio STWRT64.INF,
// UTF-16) and, of network INFs, 1.7 MB (Realtek's Netrtle.inf 5.810).
const MaxInput = 32 << 20

// File is a parsed INF.
type File struct {
	Name     string // for messages: the file's base name
	Encoding string
	Lines    int
	Sections []*Section
	byName   map[string]*Section
	// Notes are things that did not stop parsing: lines before the first
	// section, unterminated quotes.
	Notes []string
	notes noteSet
	// strs indexes each [Strings] section once it is first read: a scan
	// of the section per %strkey% made a file of many strings and many
	// tokens quadratic (0.8 MB took 5 s).
	strs map[string]map[string]string
	// expanded counts the bytes Expand produced (maxExpanded).
	expanded int64
}

// Section is one [name] and its lines.
type Section struct {
	Name  string
	Line  int
	Lines []Line
}

// Line is one logical line (continuations joined): an optional key before
// the first unquoted '=', and comma-separated fields with quotes removed.
// %tokens% are kept; File.Expand substitutes them.
type Line struct {
	Num    int // physical line where the logical line starts
	Key    string
	HasKey bool
	Fields []string
}

// Field returns field i or "".
func (l Line) Field(i int) string {
	if i < len(l.Fields) {
		return l.Fields[i]
	}
	return ""
}

// Parse reads an INF. name is used in notes only.
func Parse(r io.Reader, name string) (*File, error) {
	// Control bytes in a ';' comment do not make an INF binary: Realtek's
	// netrtp5.inf and USBs' net150.inf (DriverPackSolution/DP_LAN) end
	// with the line ";\x02\x02\x01" before a Ctrl-Z, and Windows installs
	// them. SetupAPI never looks inside a comment; Wine's
	// (dlls/setupapi/parser.c) skips it whole:
	//
	//	/* handler for parser COMMENT state */
	//	static const WCHAR *comment_state( struct parser *parser, const WCHAR *pos )
	//	{
	//	    const WCHAR *p = pos;
	//
	//	    while (!is_eol( parser, p )) p++;
	//
	// The file ends at the first Ctrl-Z, and a line at a line feed: the
	// parser's end tests
	//
	//	static inline BOOL is_eof( const struct parser *parser, const WCHAR *ptr )
	//	{
	//	    return (ptr >= parser->end || *ptr == CONTROL_Z);
	//	}
	//
	//	static inline BOOL is_eol( const struct parser *parser, const WCHAR *ptr )
	//	{
	//	    return (ptr >= parser->end || *ptr == CONTROL_Z || *ptr == '\n');
	//	}
	//
	// and a CR is white space to it (iswspace). Microsoft's "General
	// Syntax Rules for INF Files": "Each section ends at the beginning of
	// a new [section-name] or at the end-of-file mark." Wine's tests of
	// the parser, which pass on Windows, read "[TestSection] \032\ndummy"
	// as [TestSection] alone and " [Test\r\b\tSection] \n" as a section
	// whose name holds the CR.
	//
	// That test is also why control characters stand in a header (its
	// "various control chars" case, "Test\r\b\tSection"), and the rest
	// of a header's line is a comment to the parser (section_name_state
	// sets COMMENT after the ']'). A NUL stands in a header, a key or a
	// value: Wine's push_token copies each character of a token as
	//
	//	for ( ; len > 0; len--, dst++, src++) *dst = *src ? *src : ' ';
	//
	// (see nulToSpace for where a NUL is trimmed), and its tests, which
	// pass on Windows, open " [Test\x00Section]\n" and read
	// "abcd=ef\x0gh" as the value "ef gh".
	//
	// Every other control character is text to the parser, in a key or a
	// value as in a header: no state but the end tests above looks at
	// one, and each state tells text from white space with iswspace
	// alone, as key_name_state does:
	//
	//	default:
	//	    if (!iswspace(*p)) token_end = p + 1;
	//	    else
	//	    {
	//	        push_token( parser, p );
	//	        push_state( parser, KEY_NAME );
	//	        set_state( parser, TRAILING_SPACES );
	//	        return p;
	//	    }
	//
	// So tab, VT (0x0B), FF (0x0C) and a CR are white space (isSpace):
	// trimmed at the ends of a key or a value, kept between its words;
	// 0x01-0x08, 0x0E-0x19, 0x1B-0x1F and DEL (0x7F) are characters of
	// the key or value, kept as written (latlab's terminal output shows
	// them escaped, its JSON as they are). Under Wine,
	// TestINFControlsSetupAPI reads each through SetupGetStringFieldW.
	// latlab refused the file at any of them but DEL (and at a VT): they
	// mark a binary file more often than a vendor's text, so a file that
	// has one and does not read as an INF (parseLines' errors) is still
	// refused as not text, at the first one.
	txt, err := textdec.ReadText(r, MaxInput, "a driver INF with [Version] and [Manufacturer] sections",
		textdec.Options{Comment: ';', CtrlZEnds: true, LFOnly: true, KeepCR: true, Header: '[', HeaderEnd: ']', Space: isSpace, NUL: true, Controls: true})
	if err != nil {
		return nil, err
	}
	f, err := parseLines(txt, name)
	if err != nil && txt.Binary != nil {
		return nil, txt.Binary
	}
	return f, err
}

// parseLines is Parse after the text is read.
func parseLines(txt textdec.Text, name string) (*File, error) {
	phys := txt.Lines
	f := &File{Name: name, Encoding: string(txt.Encoding), byName: map[string]*Section{}}
	// Lines as an editor counts them: the newline that ends the last
	// line does not start another (a Ctrl-Z's line counts: the file goes on
	// after it).
	f.Lines = len(phys)
	if f.Lines > 1 && phys[f.Lines-1] == "" && txt.CtrlZ == 0 {
		f.Lines--
	}
	if txt.Dropped > 0 {
		// sections after it would be lost without a word
		f.notef(txt.CtrlZ, "a Ctrl-Z (0x1A, the DOS end-of-file mark) ends the file here, as it ends it for SetupAPI: the text after it, to line %d, is not read", txt.Dropped)
	}
	loneCR, nul, ctrl := false, false, false
	broken := 0 // the first line with text before the first section
	var cur *Section
	entries, fields := 0, 0
	for i := 0; i < len(phys); i++ {
		start := i + 1
		// the CR of a CRLF stays at the end of its line (textdec's
		// KeepCR): white space but in a quote left open
		if !loneCR && strings.ContainsRune(strings.TrimSuffix(phys[i], "\r"), '\r') {
			loneCR = true
			f.notef(start, "a carriage return without a line feed does not end a line for SetupAPI: read as a space")
		}
		line := phys[i]
		if cur == nil {
			// before the first section (preSection)
			j, text := preSection(line)
			if text && broken == 0 {
				broken = start
			}
			if j < 0 {
				continue
			}
			line = line[j:]
		}
		if t := strings.TrimLeftFunc(line, isSpace); strings.HasPrefix(t, "[") {
			// A section header, as Wine's section_name_state reads one:
			// the name is every character up to the first ']', as
			// written (';', quotes, '\' and spaces included), and the
			// rest of the line is ignored, a '\' at its end too.
			// Microsoft's page: "[;; Std Mfg ]" declares the section
			// named ";; Std Mfg ".
			end := strings.IndexByte(t, ']')
			if end < 0 {
				return nil, &ParseError{Line: start, Msg: fmt.Sprintf("section header %q has no closing ']': expected [SectionName]", textdec.Clip(strings.TrimRightFunc(t, isSpace)))}
			}
			name := t[1:end]
			if n := utf16Len(name); n > MaxSectionName {
				return nil, &ParseError{Line: start, Msg: fmt.Sprintf("section name %q is %d characters long, which SetupAPI refuses (ERROR_SECTION_NAME_TOO_LONG): expected at most %d", textdec.Clip(name), n, MaxSectionName)}
			}
			if strings.IndexByte(name, 0) >= 0 {
				if !nul {
					nul = true
					f.notef(start, nulNote)
				}
				name = strings.ReplaceAll(name, "\x00", " ")
			}
			key := strings.ToLower(name)
			if s, ok := f.byName[key]; ok {
				cur = s // a repeated section continues the first, as SetupAPI merges them
				continue
			}
			cur = &Section{Name: name, Line: start}
			f.Sections = append(f.Sections, cur)
			f.byName[key] = cur
			continue
		}
		body, openQuote := stripComment(phys[i])
		body = trimRight(body, openQuote)
		// Any text before a comment starts an entry for SetupAPI, even a
		// lone '\' that continues into nothing (below).
		started := strings.TrimLeftFunc(body, isSpace) != ""
		// A '\' ending the line (outside quotes) joins the next line, as
		// Wine's parser does. A key's or a value's '\' enters its
		// EOL_BACKSLASH state, having taken the text before it up to its
		// last character that is not white space (token_end):
		//
		//	case '\\':
		//	    push_token( parser, token_end );
		//	    parser->start = p;
		//	    push_state( parser, VALUE_NAME );
		//	    set_state( parser, EOL_BACKSLASH );
		//
		// (TRAILING_SPACES goes there too when a '\' follows a key's or a
		// value's white space). That state skips more backslashes and
		// white space, and a ';' comment, to the line feed, and goes on
		// with the next line's first character that is not white space
		// (LEADING_SPACES), in the same key or value:
		//
		//	case '\n':
		//	    parser->line_pos++;
		//	    parser->start = p + 1;
		//	    set_state( parser, LEADING_SPACES );
		//	    return p + 1;
		//	case '\\':
		//	    continue;
		//	case ';':
		//	    push_state( parser, EOL_BACKSLASH );
		//	    set_state( parser, COMMENT );
		//	    return p + 1;
		//	default:
		//	    if (iswspace(*p)) continue;
		//	    push_token( parser, p );
		//	    pop_state( parser );
		//	    return p;
		//
		// so the two lines join with no space between them, and a '\'
		// followed by other text on its line is that text, kept as
		// written with the white space around it (push_token from the
		// '\'). At the end of the file the state drops the '\'
		// ("parser->start = p"). Inside quotes a '\' is text and the
		// open quote ends at the line's end (quotes_state); a line that
		// is blank or a comment ends the entry (LEADING_SPACES stops
		// there), and a section header's line is read as text.
		for from := 0; !openQuote; {
			j := continuation(body, from)
			if j < 0 {
				break
			}
			body = trimEnd(body[:j], !separated(body[:j]))
			if i+1 == len(phys) {
				break
			}
			i++
			next, oq := stripComment(phys[i])
			from = len(body)
			body += trimRight(strings.TrimLeftFunc(next, isSpace), oq)
			openQuote = oq
		}
		if openQuote {
			f.notef(start, "unterminated quoted string: taken to end at the end of the line")
		}
		t := trimRight(strings.TrimLeftFunc(body, isSpace), openQuote)
		if t == "" && !started {
			continue
		}
		if !nul && strings.IndexByte(t, 0) >= 0 {
			nul = true
			f.notef(start, nulNote)
		}
		if !ctrl {
			if j := strings.IndexFunc(t, textControl); j >= 0 {
				ctrl = true
				f.notef(start, "a control character (0x%02X) is read as a character of its key or value, as SetupAPI reads it", t[j])
			}
		}
		l, ok := splitLine(t, start, maxFields-fields)
		entries++
		fields += len(l.Fields)
		if !ok || entries > maxEntries {
			return nil, &ParseError{Line: start, Msg: fmt.Sprintf("more than %d entries or %d fields in its sections: expected a driver INF", maxEntries, maxFields)}
		}
		cur.Lines = append(cur.Lines, l)
	}
	if len(f.Sections) == 0 {
		lines := fmt.Sprintf("%d lines", f.Lines)
		if f.Lines == 1 {
			lines = "1 line"
		}
		return nil, &ParseError{Line: f.Lines, Msg: "no [section] in " + lines + ": expected an INF file"}
	}
	if broken > 0 {
		if f.Section("Strings") == nil {
			return nil, &ParseError{Line: broken, Msg: "text before the first section, which SetupAPI refuses in a file without [Strings]: expected a [section] header, a ';' comment or a blank line"}
		}
		f.notef(broken, "text before the first section ignored, as SetupAPI ignores it in a file with a [Strings] section")
	}
	f.notes.finish(&f.Notes)
	return f, nil
}

// preSection reads a line before the file's first section as Wine's
// parser (dlls/setupapi/parser.c) reads one, a character at a time in its
// line_start_state:
//
//	case ';':
//	    push_state( parser, LINE_START );
//	    set_state( parser, COMMENT );
//	    return p + 1;
//	case '[':
//	    parser->start = p + 1;
//	    set_state( parser, SECTION_NAME );
//	    return p + 1;
//	default:
//	    if (iswspace(*p)) break;
//	    if (parser->cur_section != -1)
//	    {
//	        parser->start = p;
//	        set_state( parser, KEY_NAME );
//	        return p;
//	    }
//	    if (!parser->broken_line)
//	        parser->broken_line = parser->line_pos;
//	    break;
//
// so a ';' anywhere on it starts a comment, a '[' anywhere a section
// header ("abc [Version]" is [Version]), and other text, quotes and '\'
// included, is skipped a character at a time, joining no line to the
// next. parse_buffer then refuses the file at the first line with such
// text unless it has a [Strings] section:
//
//	if (file->strings_section == -1 && parser.broken_line)
//	{
//	    if (error_line) *error_line = parser.broken_line;
//	    return ERROR_EXPECTED_SECTION_NAME;
//	}
//
// Wine's tests of the parser, which pass on Windows, expect this:
// "garbage1\ngarbage2\n[abc]\n" and a [Version] is refused at line 1, the
// same with a [Strings] section is read. latlab noted the text and read
// on, and read a header only at the start of a line. preSection gives
// the index of the line's header ('['), -1 for none, and whether text
// came before it.
func preSection(line string) (int, bool) {
	text := false
	for j, c := range line {
		switch {
		case c == ';':
			return -1, text
		case c == '[':
			return j, text
		case !isSpace(c):
			text = true
		}
	}
	return -1, text
}

// textControl reports whether r is a control character that SetupAPI
// reads as a key's or a value's text and latlab once refused (Parse), the
// ones a note names: not white space, not a NUL (nulNote), and not DEL,
// which latlab always read without a word.
func textControl(r rune) bool {
	return r != 0 && r < 0x20 && !isSpace(r)
}

// trimRight is s without the white space at its end, unless a quote is
// open there. Wine's quotes_state takes everything to the line's end into
// a quote left open, white space and a CRLF's CR too:
//
//	for (p = pos; !is_eol( parser, p ); p++)
//	{
//	    if (*p == '"')
//	    ...
//	}
//	push_token( parser, p );
//	pop_state( parser );
//	return p;
//
// and the key or value it is in (key_name_state, value_name_state) ends
// there with it, at its token_end (parser->start, past the quote's text).
func trimRight(s string, open bool) string {
	if open {
		return s
	}
	return strings.TrimRightFunc(s, isSpace)
}

func (f *File) notef(line int, format string, a ...any) {
	f.notes.add(&f.Notes, fmt.Sprintf("%s line %d: ", f.Name, line)+fmt.Sprintf(format, a...))
}

// MaxSectionName is the longest section name SetupAPI reads, in UTF-16
// units: Wine's parser.c
//
//	#define MAX_SECTION_NAME_LEN  255
//	...
//	if (parser->token_len > MAX_SECTION_NAME_LEN)
//	{
//	    parser->error = ERROR_SECTION_NAME_TOO_LONG;
//
// and its tests, which pass on Windows, open "[" A255 "]" and refuse
// "[" A256 "]" with ERROR_SECTION_NAME_TOO_LONG on the header's line.
const MaxSectionName = 255

// utf16Len is s's length in UTF-16 units, as SetupAPI counts a name.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

const nulNote = "a NUL character (0x00) is read as a space, as SetupAPI reads it (one at the end of a value is dropped with the white space there)"

// isSpace is the white space SetupAPI trims around keys and values and
// skips before a header: Wine's parser tests each character with
// iswspace, which below U+0100 is the C runtime's table (msvcrt's
// _wctype in Wine's dlls/msvcrt/ctype.c: tab, LF, VT, FF, CR, space and
// the no-break space U+00A0) and above it GetStringTypeW's C1_SPACE
// (Wine's tools/make_unicode gives it to Unicode's Zs, Zl and Zp: U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). U+0085 is
// space only from msvcr140 on, not in msvcrt; U+FEFF (a byte-order mark
// where no file starts) is not space. A CR is too, as it does not end a
// line (Parse).
func isSpace(r rune) bool {
	return r != 0x85 && unicode.IsSpace(r)
}

// nulToSpace is a key's or a value's text with its NULs made spaces, as
// Wine's push_token copies them, after the trimming Wine's states do:
// a NUL is no white space at the start of a key or a value
// (line_start_state and leading_spaces_state test iswspace alone), and
// none after a key's text either (key_name_state: "if
// (!iswspace(*p)) token_end = p + 1"), but a value ends before NULs as
// before spaces (value_name_state: "if (*p && !iswspace(*p)) token_end =
// p + 1"), and white space after a key's text ends it before any NUL
// that follows (trailing_spaces_state skips both). Its tests, which pass
// on Windows, read the [Strings] values "bbb\0" and "bbb \0" as "bbb",
// and "aaa\0bbb \0" as "aaa bbb".
func nulToSpace(s string, key bool) string {
	return strings.ReplaceAll(trimEnd(s, key), "\x00", " ")
}

// trimEnd is s without the white space (and NULs) at its end that
// SetupAPI does not take into a key or a value (nulToSpace).
func trimEnd(s string, key bool) string {
	if strings.IndexByte(s, 0) < 0 {
		return strings.TrimRightFunc(s, isSpace)
	}
	t := strings.TrimRightFunc(s, func(r rune) bool { return r == 0 || isSpace(r) })
	if key {
		tail := s[len(t):]
		t += tail[:len(tail)-len(strings.TrimLeft(tail, "\x00"))]
	}
	return t
}

// continuation is where the '\' that continues s on the next line
// starts, with the backslashes and white space after it that Wine's
// EOL_BACKSLASH state skips, or -1 when s (its comment cut, its white
// space trimmed, no quote open) does not end in one. The run starts at
// from or later: a '\' kept as text before a joined line (one followed
// by a NUL) is not part of it.
func continuation(s string, from int) int {
	if !strings.HasSuffix(s, `\`) {
		return -1
	}
	j := len(s)
	for j > from {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if r != '\\' && !isSpace(r) {
			break
		}
		j -= n
	}
	if j == len(s) {
		return -1
	}
	return j
}

// separated reports whether the entry s has passed its key: Wine's
// parser reads text as a key (key_name_state) until an unquoted '=' or
// ',' and as a value after one, and trims their ends differently
// (trimEnd).
func separated(s string) bool {
	return indexUnquoted(s, '=') >= 0 || indexUnquoted(s, ',') >= 0
}

// stripComment cuts the line at the first ';' outside double quotes and
// says whether a quote was left open.
func stripComment(s string) (string, bool) {
	in := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			in = !in // "" inside quotes toggles twice: still inside
		case ';':
			if !in {
				return s[:i], false
			}
		}
	}
	return s, in
}

// splitLine splits "key = a, "b,c", d" into its key and fields; false
// when it has more than max fields.
func splitLine(t string, num, max int) (Line, bool) {
	l := Line{Num: num}
	if k := indexUnquoted(t, '='); k >= 0 {
		l.Key, l.HasKey = field(t[:k], true), true
		t = t[k+1:]
	}
	for {
		if len(l.Fields) >= max {
			return l, false
		}
		// a line without '=' starts with its first field where a key
		// stands, and Wine's key_name_state reads it
		key := !l.HasKey && len(l.Fields) == 0
		k := indexUnquoted(t, ',')
		if k < 0 {
			l.Fields = append(l.Fields, field(t, key))
			break
		}
		l.Fields = append(l.Fields, field(t[:k], key))
		t = t[k+1:]
	}
	if !l.HasKey && len(l.Fields) == 1 && l.Fields[0] == "" {
		l.Fields = nil
	}
	return l, true
}

// field is a key or a value as written between its separators: trimmed,
// its NULs made spaces (nulToSpace) and its quotes removed. One that ends
// in a quote left open keeps all it has after its leading white space
// (trimRight).
func field(s string, key bool) string {
	s = strings.TrimLeftFunc(s, isSpace)
	if strings.Count(s, `"`)%2 != 0 {
		return unquote(strings.ReplaceAll(s, "\x00", " "))
	}
	return unquote(nulToSpace(s, key))
}

func indexUnquoted(s string, c byte) int {
	in := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			in = !in
		case c:
			if !in {
				return i
			}
		}
	}
	return -1
}

// unquote removes double quotes, turning "" inside quotes into one ".
func unquote(s string) string {
	if !strings.ContainsRune(s, '"') {
		return s
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '"' {
			b.WriteByte(c)
			continue
		}
		if in && i+1 < len(s) && s[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		in = !in
	}
	return b.String()
}

// Section returns the section named name, ignoring case.
func (f *File) Section(name string) *Section {
	// as written: a header's name keeps its spaces (Parse), and a quoted
	// reference names it with them. (strings.TrimSpace also trimmed a
	// no-break space, and a section named with one at its end was not
	// found by its own name.)
	return f.byName[strings.ToLower(name)]
}

// Strings returns the value of %key% for the language (a LANGID such as
// 0407 for [Strings.0407]), falling back to [Strings].
func (f *File) String(key, lang string) (string, bool) {
	key = strings.ToLower(key)
	if lang != "" {
		if v, ok := f.lookupString("strings."+strings.ToLower(lang), key); ok {
			return v, true
		}
	}
	return f.lookupString("strings", key)
}

func (f *File) lookupString(section, key string) (string, bool) {
	m, ok := f.strs[section]
	if !ok {
		if s := f.byName[section]; s != nil {
			m = map[string]string{}
			cp := f.stringsCodePage(section)
			for _, l := range s.Lines {
				k := strings.ToLower(l.Key)
				if _, dup := m[k]; l.HasKey && !dup { // the first entry of a key counts
					// %% in a string value is a literal percent sign.
					m[k] = recode(strings.ReplaceAll(strings.Join(l.Fields, ", "), "%%", "%"), cp)
				}
			}
		}
		if f.strs == nil {
			f.strs = map[string]map[string]string{}
		}
		f.strs[section] = m
	}
	v, ok := m[key]
	return v, ok
}

// Languages lists the LANGIDs of the localized [Strings.xxxx] sections.
func (f *File) Languages() []string {
	var out []string
	for _, s := range f.Sections {
		if low := strings.ToLower(s.Name); strings.HasPrefix(low, "strings.") {
			out = append(out, s.Name[len("strings."):])
		}
	}
	return out
}

// Expand substitutes %token% from the string sections; %% is a literal %.
// An undefined token is left as written, as SetupAPI does. All the
// substitutions of one File produce at most maxExpanded bytes (a token
// can name a long string, and a short line can name it many times): past
// that, s comes back as it is and Overexpanded says so.
func (f *File) Expand(s, lang string) string {
	if !strings.ContainsRune(s, '%') || f.Overexpanded() {
		return s
	}
	in := s
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		tok := s[i+1 : i+1+j]
		switch v, ok := f.String(tok, lang); {
		case tok == "":
			b.WriteByte('%')
		case ok:
			if f.expanded+int64(b.Len()+len(v)) > maxExpanded {
				f.expanded = maxExpanded + 1
				return in
			}
			b.WriteString(v)
		default:
			b.WriteString(s[i : i+2+j])
		}
		s = s[i+2+j:]
	}
	f.expanded += int64(b.Len())
	return b.String()
}

// Overexpanded reports whether substitution reached maxExpanded, after
// which strings were left unexpanded: what was read from them is not the
// INF's.
func (f *File) Overexpanded() bool { return f.expanded > maxExpanded }
