package regfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/textdec"
)

// Reading a .reg file, as regedit imports one (Microsoft, "How to add,
// modify, or delete registry subkeys and values by using a .reg file"):
// a header line ("Windows Registry Editor Version 5.00", or REGEDIT4 for
// the older format), then keys in brackets, [-KEY] deleting one, each
// followed by its values: "name"=data, or @=data for the key's default
// value, where data is "a string", dword:XXXXXXXX, hex:bb,bb,...
// (REG_BINARY), hex(N):bb,... (registry type N: 2 REG_EXPAND_SZ, 7
// REG_MULTI_SZ, b REG_QWORD) or - (the value is deleted). A list of
// bytes ending in a backslash goes on on the next line; a line starting
// with a semicolon or a # is a comment (reg import's tests in Wine, which
// pass on Windows, import every value around a "#comment" line). Tweak files found on the web are
// hand-written as often as exported, so what regedit would not import
// (text after a value, a value outside a key, a key under an unknown
// root) is skipped with a note naming the line, never guessed at.

// MaxInput bounds the .reg file read: regedit's own exports of whole
// hives are larger, but a file of tweaks is kilobytes.
const MaxInput = 32 << 20

// Bounds on what one file may hold, each kept in memory: values (each
// with its data), and the notes on lines skipped (the rest are counted
// in a last note).
const (
	MaxValues = 1 << 18
	MaxNotes  = 100
)

// The bounds as the readers apply them: always the constants above,
// variables only so that a test can lower them and prove each bound
// on an input of a few kilobytes (TestBoundsAsDocumented checks the
// values these start at).
var (
	maxInput     int64 = MaxInput
	maxValues          = MaxValues
	maxStatement       = MaxStatement
)

// File is a .reg file read.
type File struct {
	Header   string           // as written: Windows Registry Editor Version 5.00 or REGEDIT4
	Encoding textdec.Encoding // of the file's bytes
	Sections []Section        // in the file's order; a key named twice is two sections
	Notes    []string         // lines skipped, and why
	Values   int              // values in all keys
	// Batch: read from the reg commands of a batch file (ReadBatch),
	// each command a section; Other counts its lines that hold none.
	Batch bool
	Other int
	// PowerShell: read from the registry commands of a PowerShell script
	// (ReadPowerShell); Commands counts those read (New-Item -Force is
	// two sections: the key deleted, then created), Other its other
	// commands.
	PowerShell bool
	Commands   int
}

// Section is one [KEY] or [-KEY] line and the values below it.
type Section struct {
	Line   int
	Path   string // the root spelled short: HKLM\SOFTWARE\...
	Delete bool   // [-KEY]: the key and everything below it are deleted
	// Asks: reg delete of the key without /f, which asks before deleting
	// a key that exists: whether it is deleted depends on the answer.
	Asks   bool
	Values []Value
	Note   string // how the key is deleted, when not as [-KEY] says (New-Item -Force)
	// PathNote says how Path was read when not as the file spells it (a
	// launcher's SYSTEM account makes HKCU its own hive, HKU\.DEFAULT).
	PathNote string
}

// Value is one value line.
type Value struct {
	Line    int
	Name    string // "" for the default value (@)
	Default bool   // @=
	Delete  bool   // "name"=-: the value is deleted
	Type    uint32 // registry type number (1 REG_SZ, 4 REG_DWORD...)
	// Data is what the registry stores: a string as UTF-16LE with its
	// terminating NUL, a DWORD as 4 little-endian bytes, hex data as
	// written.
	Data []byte
	// TypeNote, when set, says that the script leaves the type to the
	// machine (PowerShell's Set-ItemProperty without -Type): Type and
	// Data are what is written when the value does not exist, and
	// Literal converts the data to an existing value's type.
	TypeNote string
	Literal  *Literal
	// NewOnly: the value is written only if it does not exist yet, an
	// existing one left as it is (PowerShell's New-ItemProperty without
	// -Force; or, with AnsweredNo, a reg add without /f whose question
	// the script answers no: echo n | reg add ...).
	NewOnly    bool
	AnsweredNo bool
	// Asks: reg add without /f, which asks before overwriting a value
	// that exists (a new value is written without asking), or reg delete
	// without /f, which asks before deleting one: whether an existing
	// value changes depends on the answer.
	Asks bool
}

// ShortRoot spells the root of a key path short (HKEY_LOCAL_MACHINE\X ->
// HKLM\X); false when the root is none of the five.
func ShortRoot(path string) (string, bool) {
	return withRoot(path, func(short, _ string) string { return short })
}

const want = `a .reg file ("Windows Registry Editor Version 5.00" or "REGEDIT4" on its first line)`

// Read reads a .reg file of at most MaxInput bytes. A file that is not
// one (no header line, binary, too large) is a badinput error; lines
// regedit would not import are skipped with a note.
func Read(r io.Reader) (*File, error) {
	lines, enc, err := textdec.ReadLines(r, maxInput, want)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	f := &File{Encoding: enc}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	h := strings.TrimSpace(lines[i]) // ReadLines refuses a blank file
	// regedit takes the header in its own case only: Wine's regedit
	// tests, which pass on Windows, import nothing after "regedit4",
	// "Regedit4", "WINDOWS REGISTRY EDITOR VERSION 5.00" or "Windows
	// Registry Editor version 5.00" (white space around it is allowed)
	if h != Header && h != "REGEDIT4" {
		return nil, badinput.Errorf("line %d: %q is not a .reg header: expected %s", i+1, textdec.Clip(h), want)
	}
	f.Header = h
	skipped := 0
	note := func(line int, format string, a ...any) {
		if len(f.Notes) < MaxNotes {
			f.Notes = append(f.Notes, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, a...))
		} else {
			skipped++
		}
	}
	var key *Section    // nil before the first key, and below one skipped
	keySkipped := false // the last key line was skipped
	for i++; i < len(lines); i++ {
		n := i + 1
		s := strings.TrimSpace(lines[i])
		// a value's list of bytes goes on after a trailing backslash
		// (joined once: a file of continued lines must not cost their
		// square)
		if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "@") {
			s = cutHexComment(s)
		}
		if strings.HasSuffix(s, `\`) && (strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "@")) && i+1 < len(lines) {
			var b strings.Builder
			b.WriteString(s[:len(s)-1])
			for i+1 < len(lines) {
				i++
				// regedit reads on over blank lines and ;
				// comments, and drops a comment after the
				// bytes of a line (Wine's regedit tests, which
				// pass on Windows: "Wine29a", "Wine10a",
				// "Multi-Line3")
				next := strings.TrimSpace(lines[i])
				if next == "" || strings.HasPrefix(next, ";") {
					continue
				}
				if c := strings.IndexByte(next, ';'); c >= 0 {
					next = strings.TrimSpace(next[:c])
				}
				more := strings.HasSuffix(next, `\`)
				b.WriteString(strings.TrimSuffix(next, `\`))
				if !more {
					break
				}
			}
			s = b.String()
		}
		switch {
		case s == "" || strings.HasPrefix(s, ";") || strings.HasPrefix(s, "#"):
		case strings.HasPrefix(s, "["):
			key, keySkipped = nil, true
			end := strings.LastIndexByte(s, ']')
			if end < 0 || strings.TrimSpace(s[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(s[end+1:]), ";") {
				note(n, "not a key line (%q): its values are skipped", textdec.Clip(s))
				continue
			}
			p, del := s[1:end], false
			if strings.HasPrefix(p, "-") {
				p, del = p[1:], true
			}
			p = strings.TrimRight(p, `\`)
			short, ok := ShortRoot(p)
			if !ok || p == "" {
				note(n, "key %q is under no registry root (HKEY_LOCAL_MACHINE, HKEY_CURRENT_USER, HKEY_USERS, HKEY_CLASSES_ROOT, HKEY_CURRENT_CONFIG): its values are skipped", textdec.Clip(p))
				continue
			}
			f.Sections = append(f.Sections, Section{Line: n, Path: short, Delete: del})
			key, keySkipped = &f.Sections[len(f.Sections)-1], false
		case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "@"):
			v, err := parseValue(s)
			if err != nil {
				note(n, "%v (%q): skipped", err, textdec.Clip(s))
				continue
			}
			if key == nil {
				if keySkipped {
					note(n, "a value below a key skipped above: skipped")
				} else {
					note(n, "a value outside a key: skipped")
				}
				continue
			}
			if key.Delete {
				note(n, "a value below a deleted key: skipped")
				continue
			}
			if f.Values == maxValues {
				return nil, badinput.Errorf("line %d: more than %d values: expected %s of tweaks", n, maxValues, want)
			}
			v.Line = n
			key.Values = append(key.Values, v)
			f.Values++
		default:
			note(n, "neither a key, a value nor a comment (%q): skipped", textdec.Clip(s))
		}
	}
	if skipped > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d more lines skipped", skipped))
	}
	return f, nil
}

// parseValue reads a value line: "name"=data or @=data.
func parseValue(s string) (Value, error) {
	var v Value
	s = cutHexComment(s) // Read cut it already, before a continuation
	rest := s
	if strings.HasPrefix(s, "@") {
		v.Default, rest = true, s[1:]
	} else {
		name, after, err := quoted(s)
		if err != nil {
			return v, fmt.Errorf("value name: %w", err)
		}
		v.Name, rest = name, after
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "=") {
		return v, fmt.Errorf("no = after the value name")
	}
	data := strings.TrimSpace(rest[1:])
	lower := strings.ToLower(data)
	switch {
	case data == "-":
		v.Delete = true
	case strings.HasPrefix(data, `"`):
		str, after, err := quoted(data)
		if err != nil {
			return v, fmt.Errorf("string data: %w", err)
		}
		if !blankOrComment(after) {
			return v, fmt.Errorf("text after the string data")
		}
		v.Type, v.Data = 1, backend.UTF16Bytes(str)
	case strings.HasPrefix(lower, "dword:"):
		d := strings.TrimLeft(data[len("dword:"):], " \t") // dword:  00000008 imports ("Wine9a")
		end := strings.IndexFunc(d, func(r rune) bool { return !isHex(r) })
		if end < 0 {
			end = len(d)
		}
		if end >= 1 && end <= 8 && !blankOrComment(d[end:]) {
			return v, fmt.Errorf("text after the dword data")
		}
		if end < 1 || end > 8 {
			return v, fmt.Errorf("dword data is 1 to 8 hex digits")
		}
		n, err := strconv.ParseUint(d[:end], 16, 32)
		if err != nil {
			return v, fmt.Errorf("dword data is 1 to 8 hex digits")
		}
		v.Type, v.Data = 4, binary.LittleEndian.AppendUint32(nil, uint32(n))
	case strings.HasPrefix(lower, "hex"):
		t, list, ok := strings.Cut(data[len("hex"):], ":")
		if !ok {
			return v, fmt.Errorf("hex data without a colon")
		}
		v.Type = 3 // hex: is REG_BINARY
		if t != "" {
			if len(t) < 3 || t[0] != '(' || t[len(t)-1] != ')' {
				return v, fmt.Errorf("hex type %q is not (N)", t)
			}
			n, err := strconv.ParseUint(t[1:len(t)-1], 16, 32)
			if err != nil {
				return v, fmt.Errorf("hex type %q is not a hex number", t)
			}
			v.Type = uint32(n)
		}
		b, err := hexBytes(list)
		if err != nil {
			return v, err
		}
		v.Data = b
	default:
		return v, fmt.Errorf(`data is none of "string", dword:, hex:, hex(N): or -`)
	}
	return v, nil
}

// blankOrComment says whether what follows a value's data is nothing
// but white space and a ; comment, which regedit ignores: Wine's regedit
// tests, which pass on Windows, import "Wine26a"="Value1"  ;comment,
// "Wine25a"=dword:1234;5678 and hex(2):...,00  ;comment, and not the
// same values followed by # or other text.
func blankOrComment(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || strings.HasPrefix(s, ";")
}

// cutHexComment drops the ; comment after the bytes of a hex value line
// (what is left may end in the backslash that continues it); any other
// line is returned as it is, a ; in a name or a string being text.
func cutHexComment(s string) string {
	rest := s
	if strings.HasPrefix(s, "@") {
		rest = s[1:]
	} else if _, after, err := quoted(s); err == nil {
		rest = after
	} else {
		return s
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "=") {
		return s
	}
	data := strings.TrimLeft(rest[1:], " \t")
	if !strings.HasPrefix(strings.ToLower(data), "hex") {
		return s
	}
	if c := strings.IndexByte(data, ';'); c >= 0 {
		return strings.TrimSpace(s[:len(s)-len(data)+c])
	}
	return s
}

// quoted reads the string that s opens with a quote, with regedit's two
// escapes (\\ and \"), and returns what follows its closing quote.
func quoted(s string) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"') {
				i++
				b.WriteByte(s[i])
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("no closing quote")
}

func isHex(r rune) bool { return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' }

// hexBytes reads "01,ab, ff": bytes of two hex digits (one is taken too)
// separated by commas; "" is no bytes.
func hexBytes(list string) ([]byte, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return []byte{}, nil
	}
	parts := strings.Split(list, ",")
	b := make([]byte, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" && i == len(parts)-1 {
			break // a trailing comma
		}
		n, err := strconv.ParseUint(p, 16, 8)
		if err != nil || len(p) > 2 {
			return nil, fmt.Errorf("hex byte %d (%q) is not two hex digits", i+1, textdec.Clip(p))
		}
		b = append(b, byte(n))
	}
	return b, nil
}
