package knob

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/regfile"
)

// Names and values latlab copies into scripts come from the system and
// from the journal; a line break or a quote in them must never become a
// live line, a new key or the end of a string.
func TestScriptsAreInert(t *testing.T) {
	cases := []struct {
		format string
		c      Change
		never  []string // lines that must not appear
	}{
		{FormatSh, Change{Loc: fileLoc("proc/sys/x\nrm -rf /"), New: backend.FileValue("1\n")}, []string{"rm -rf /"}},
		{FormatSh, Change{Loc: recoveryLoc, New: backend.FileValue("1\nreboot\n")}, []string{"reboot"}},
		{FormatSh, Change{Loc: recoveryLoc, New: backend.FileValue("1\n"), Skip: "gone\nreboot"}, []string{"reboot"}},
		{FormatSh, Change{Loc: backend.Loc{Backend: backend.BackendEthtool, Path: "eth0\nreboot", Name: "coalesce"}, New: backend.Coalesce{}.Value()}, []string{"reboot", "reboot'"}},
		{FormatReg, Change{Loc: regLoc(`HKLM\SOFTWARE\x`, "a\"\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Evil]"), New: backend.DWORD(1)}, []string{`[HKEY_LOCAL_MACHINE\SOFTWARE\Evil]`}},
		{FormatReg, Change{Loc: regLoc("HKLM\\SOFTWARE\\x\r\n[-HKEY_LOCAL_MACHINE\\SOFTWARE]", "v"), New: backend.DWORD(1)}, []string{`[-HKEY_LOCAL_MACHINE\SOFTWARE]`}},
		{FormatReg, Change{Loc: regLoc(`-HKLM\SOFTWARE`, ""), New: backend.Absent}, []string{`[--HKLM\SOFTWARE]`, `[-HKLM\SOFTWARE]`}},
		{FormatReg, Change{Loc: regLoc(`HKLM\SOFTWARE\x`, "v"), New: backend.SZ("a\n[HKEY_LOCAL_MACHINE\\Evil]")}, []string{`[HKEY_LOCAL_MACHINE\Evil]`}},
		{FormatReg, Change{Loc: tscLoc, New: backend.Value{Type: backend.TypeBCD, Data: []byte("x\n[HKEY_LOCAL_MACHINE\\Evil]")}}, []string{`[HKEY_LOCAL_MACHINE\Evil]`}},
		{FormatPS1, Change{Loc: regLoc(`HKLM\SOFTWARE\x`, "v"), New: backend.SZ("a\u2019; Remove-Item C:\\ -Recurse; \u2019")}, nil},
		{FormatPS1, Change{Loc: regLoc(`HKLM\SOFTWARE\x`, "v'; Remove-Item C:\\ #"), New: backend.DWORD(1)}, nil},
		{FormatPS1, Change{Loc: regLoc(`HKLM\SOFTWARE\x`, "v"), New: backend.SZ("a\nRemove-Item C:\\")}, []string{`Remove-Item C:\`}},
		{FormatPS1, Change{Loc: tscLoc, New: backend.Value{Type: backend.TypeBCD, Data: []byte("enhanced; Remove-Item C:\\")}}, nil},
		{FormatPS1, Change{Loc: regLoc("HKLM\\SOFTWARE\\x\nRemove-Item C:\\", "v"), New: backend.DWORD(1)}, []string{`Remove-Item C:\`}},
	}
	for _, c := range cases {
		lines, err := Script([]Change{c.c}, c.format)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkScript(c.format, lines, c.c); err != nil {
			t.Errorf("%s of %q: %v\n%s", c.format, c.c.Loc, err, strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			for _, n := range c.never {
				if l == n {
					t.Errorf("%s of %q has the line %q", c.format, c.c.Loc, l)
				}
			}
		}
	}
	// The strings come back exactly.
	lines, _ := Script([]Change{{Loc: regLoc(`HKLM\SOFTWARE\x`, "v"), New: backend.SZ("a\u2019b\nc")}}, FormatPS1)
	if want := `-Value ('a’’b'+[char]10+'c')`; !strings.Contains(lines[2], want) {
		t.Errorf("ps1 string %q, want %q", lines[2], want)
	}
}

// checkScript parses a script of one change the way its interpreter
// would and checks it does that change and nothing else: one command or
// comment per line, every quoted field back as it was, no key but the
// change's own.
func checkScript(format string, lines []string, c Change) error {
	for i, l := range lines {
		if hasControl(l) {
			return fmt.Errorf("line %d %q holds a control character", i+1, l)
		}
	}
	switch format {
	case FormatSh:
		return checkSh(lines, c)
	case FormatReg:
		return checkReg(lines, c)
	case FormatPS1:
		return checkPS1(lines, c)
	}
	return fmt.Errorf("format %s", format)
}

// shWords splits a line of the shell scripts latlab writes into words:
// single quotes, a backslash before a quote outside them, and otherwise
// only characters no shell gives a meaning to (and > for the redirect).
func shWords(l string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(l); i++ {
		ch := l[i]
		switch {
		case quoted:
			if ch == '\'' {
				quoted = false
			} else {
				w.WriteByte(ch)
			}
		case ch == '\'':
			quoted, inWord = true, true
		case ch == '\\' && i+1 < len(l) && l[i+1] == '\'':
			w.WriteByte('\'')
			i++
			inWord = true
		case ch == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("_%/.=,:+->", ch) >= 0:
			w.WriteByte(ch)
			inWord = true
		default:
			return nil, fmt.Errorf("unquoted %q at %d", ch, i)
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func checkSh(lines []string, c Change) error {
	if len(lines) != 4 || strings.Join(lines[:3], "|") != "#!/bin/sh|# run as root|set -e" {
		return fmt.Errorf("want the header and one line, got %d lines", len(lines))
	}
	l := lines[3]
	if strings.HasPrefix(l, "#") {
		return nil
	}
	words, err := shWords(l)
	if err != nil {
		return err
	}
	switch {
	case c.Skip != "":
		return fmt.Errorf("a skipped change is a command: %q", l)
	case c.Loc.Backend == backend.BackendFile:
		want := []string{"printf", `%s\n`, strings.TrimRight(string(c.New.Data), "\n"), ">", c.Loc.String()}
		if strings.Join(words, "\x00") != strings.Join(want, "\x00") {
			return fmt.Errorf("words %q, want %q", words, want)
		}
	case c.Loc.Backend == backend.BackendEthtool:
		if len(words) < 3 || words[0] != "ethtool" || words[1] != "-C" || words[2] != c.Loc.Path {
			return fmt.Errorf("words %q, want ethtool -C %q ...", words, c.Loc.Path)
		}
	default:
		return fmt.Errorf("a command for a %s change: %q", c.Loc.Backend, l)
	}
	return nil
}

var regDataRE = regexp.MustCompile(`^(-|dword:[0-9a-f]{8}|"(?:[^"\\]|\\.)*"|hex(?:\([0-9a-f]+\))?:(?:[0-9a-f]{2}(?:,[0-9a-f]{2})*)?)$`)

// regUnquote reads a quoted .reg string at the start of s: backslash
// escapes the next character. It returns the string and the rest.
func regUnquote(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", errors.New("no opening quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 == len(s) {
				return "", "", errors.New("backslash at the end")
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", errors.New("no closing quote")
}

func checkReg(lines []string, c Change) error {
	if lines[0] != regfile.Header {
		return fmt.Errorf("header %q", lines[0])
	}
	keys, values := 0, 0
	for _, l := range lines[1:] {
		switch {
		case l == "" || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "["):
			keys++
			key := regfile.LongRoot(c.Loc.Path)
			if c.Loc.Backend != backend.BackendRegistry || c.Skip != "" || (l != regfile.Key(key) && l != regfile.DeleteKey(key)) {
				return fmt.Errorf("a key line %q that is not the change's key %q", l, key)
			}
			if strings.HasPrefix(l, "[-") != (c.Loc.Name == "" && c.New.IsAbsent()) {
				return fmt.Errorf("key line %q for a change to %s", l, c.New)
			}
		case strings.HasPrefix(l, `"`):
			values++
			name, rest, err := regUnquote(l)
			if err != nil {
				return fmt.Errorf("value line %q: %v", l, err)
			}
			if name != c.Loc.Name || c.Loc.Name == "" {
				return fmt.Errorf("value line %q names %q, the change %q", l, name, c.Loc.Name)
			}
			data, ok := strings.CutPrefix(rest, "=")
			if !ok || !regDataRE.MatchString(data) {
				return fmt.Errorf("value line %q: data %q", l, rest)
			}
			if strings.HasPrefix(data, `"`) {
				if s, _, _ := regUnquote(data); s != c.New.String() {
					return fmt.Errorf("string %q, the change %q", s, c.New.String())
				}
			}
		default:
			return fmt.Errorf("a line that is none of comment, key, value: %q", l)
		}
	}
	if keys > 1 || values > 1 || (values == 1 && keys != 1) {
		return fmt.Errorf("%d key lines and %d value lines for one change", keys, values)
	}
	return nil
}

// psTokens reads a line of the PowerShell scripts latlab writes: quoted
// strings in any of PowerShell's single quotes (a pair of them inside is
// one quote), and outside them only characters of the commands latlab
// writes; it returns the strings.
func psTokens(l string) ([]string, error) {
	var strs []string
	rs := []rune(l)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if strings.ContainsRune(psQuotes, r) {
			var b strings.Builder
			closed := false
			for i++; i < len(rs); i++ {
				if strings.ContainsRune(psQuotes, rs[i]) {
					if i+1 < len(rs) && strings.ContainsRune(psQuotes, rs[i+1]) {
						b.WriteRune(rs[i])
						i++
						continue
					}
					closed = true
					break
				}
				b.WriteRune(rs[i])
			}
			if !closed {
				return nil, errors.New("unterminated string")
			}
			strs = append(strs, b.String())
			continue
		}
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" -|@()[],+/", r)) {
			return nil, fmt.Errorf("unquoted %q", r)
		}
	}
	return strs, nil
}

func checkPS1(lines []string, c Change) error {
	if len(lines) != 3 {
		return fmt.Errorf("want the header and one line, got %d lines", len(lines))
	}
	l := lines[2]
	if strings.HasPrefix(l, "#") {
		return nil
	}
	if c.Skip != "" {
		return fmt.Errorf("a skipped change is a command: %q", l)
	}
	strs, err := psTokens(l)
	if err != nil {
		return fmt.Errorf("%q: %v", l, err)
	}
	switch c.Loc.Backend {
	case backend.BackendBCD:
		if len(strs) < 2 || strs[0] != c.Loc.Path || strs[1] != c.Loc.Name {
			return fmt.Errorf("bcdedit strings %q", strs)
		}
	case backend.BackendRegistry:
		long := regfile.LongRoot(c.Loc.Path)
		want := "Registry::" + long
		if r, ok := strings.CutPrefix(long, `HKEY_LOCAL_MACHINE\`); ok {
			want = `HKLM:\` + r
		} else if r, ok := strings.CutPrefix(long, `HKEY_CURRENT_USER\`); ok {
			want = `HKCU:\` + r
		}
		if len(strs) == 0 || strs[0] != want {
			return fmt.Errorf("path string %q, want %q", strs, want)
		}
		if c.Loc.Name != "" && (len(strs) < 2 || strs[1] != c.Loc.Name) {
			return fmt.Errorf("name string %q, the change's %q", strs, c.Loc.Name)
		}
	default:
		return fmt.Errorf("a command for a %s change: %q", c.Loc.Backend, l)
	}
	return nil
}

var hostileSeeds = []string{"", "x", "a\nb", "a\r\n[HKEY_LOCAL_MACHINE\\Evil]", "'; rm -rf / #", "a\u2019b\u2018c\u201ad\u201be", "\"quoted\\\"", "[-HKEY_LOCAL_MACHINE\\SOFTWARE]", "\x00\x1b[2J\u0085\u2028", "\xff\xfe", "$(reboot)`x`"}

// FuzzScriptSh: a file or ethtool change with any path and value gives
// the header and one line, which a shell reads as that one write.
func FuzzScriptSh(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add("proc/sys/"+s, []byte(s+"\n"), uint8(0), "")
		f.Add(s, []byte("1\n"), uint8(1), s)
	}
	f.Fuzz(func(t *testing.T, path string, data []byte, kind uint8, skip string) {
		c := Change{Loc: backend.Loc{Backend: backend.BackendFile, Path: path}, New: backend.Value{Type: backend.TypeFile, Data: data}}
		if kind&1 != 0 {
			c.Loc = coalesceLoc(path)
			c.New = backend.Coalesce{uint32(len(data))}.Value()
		}
		if kind&2 != 0 {
			c.Skip = skip
		}
		lines, err := Script([]Change{c}, FormatSh)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkScript(FormatSh, lines, c); err != nil {
			t.Fatalf("%v\n%s", err, strings.Join(lines, "\n"))
		}
	})
}

// fuzzRegChange builds a registry (or BCD) change of any names and bytes.
func fuzzRegChange(path, name string, data []byte, kind uint8, skip string) Change {
	c := Change{Loc: regLoc(path, name)}
	switch kind % 7 {
	case 0:
		c.New = backend.Absent
	case 1:
		c.New = backend.Value{Type: backend.TypeDWORD, Data: data}
	case 2:
		c.New = backend.SZ(string(data))
	case 3:
		c.New = backend.Value{Type: backend.TypeMultiSZ, Data: backend.UTF16Bytes(strings.ReplaceAll(string(data), ";", "\x00") + "\x00")}
	case 4:
		c.New = backend.Value{Type: backend.TypeBinary, Data: data}
	case 5:
		c.Loc.Name = ""
		c.New = backend.KeyValue
	case 6:
		c.Loc = backend.Loc{Backend: backend.BackendBCD, Path: path, Name: name}
		c.New = backend.Value{Type: backend.TypeBCD, Data: data}
	}
	if kind&0x80 != 0 {
		c.Skip = skip
	}
	return c
}

// FuzzScriptReg: a registry change of any key, name and data gives at
// most one key line, its own, and at most one value line naming its
// value, with data regedit reads as that data.
func FuzzScriptReg(f *testing.F) {
	for i, s := range hostileSeeds {
		f.Add(`HKLM\SOFTWARE\`+s, s, []byte(s), uint8(i), s)
		f.Add(s, "v", []byte{1, 2, 3, 4}, uint8(i+1), "")
	}
	f.Fuzz(func(t *testing.T, path, name string, data []byte, kind uint8, skip string) {
		c := fuzzRegChange(path, name, data, kind, skip)
		lines, err := Script([]Change{c}, FormatReg)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkScript(FormatReg, lines, c); err != nil {
			t.Fatalf("%v\n%s", err, strings.Join(lines, "\n"))
		}
	})
}

// FuzzScriptPS1: a registry or BCD change of any key, name and data gives
// the header and one line, whose strings PowerShell reads back as the
// change's key and name and which holds nothing unquoted but the command.
func FuzzScriptPS1(f *testing.F) {
	for i, s := range hostileSeeds {
		f.Add(`HKLM\SOFTWARE\`+s, s, []byte(s), uint8(i), s)
		f.Add("{current}", s, []byte(s), uint8(6), "")
	}
	f.Fuzz(func(t *testing.T, path, name string, data []byte, kind uint8, skip string) {
		c := fuzzRegChange(path, name, data, kind, skip)
		lines, err := Script([]Change{c}, FormatPS1)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkScript(FormatPS1, lines, c); err != nil {
			t.Fatalf("%v\n%s", err, strings.Join(lines, "\n"))
		}
		if !utf8.ValidString(strings.Join(lines, "\n")) {
			t.Fatal("invalid UTF-8 in the script")
		}
	})
}
