package knob

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/regfile"
)

// Script formats: what `knob set --dry-run` prints and `knob export`
// writes, for people who would rather apply a change by hand.
const (
	FormatReg = "reg" // a .reg file for regedit (bcdedit lines as comments)
	FormatPS1 = "ps1" // PowerShell
	FormatSh  = "sh"  // POSIX shell
)

// Script renders changes (their New values) in a format.
func Script(changes []Change, format string) ([]string, error) {
	switch format {
	case FormatReg:
		return regScript(changes), nil
	case FormatPS1:
		return ps1Script(changes), nil
	case FormatSh:
		return shScript(changes), nil
	}
	return nil, checkFormat(format)
}

// checkFormat says whether format names a script format Script renders.
func checkFormat(format string) error {
	switch format {
	case FormatReg, FormatPS1, FormatSh:
		return nil
	}
	return badinput.Errorf("unknown format %q: accepted reg, ps1, sh", format)
}

// DefaultFormat is the natural script format of the knob's OS.
func DefaultFormat(os string) string {
	if os == "windows" {
		return FormatReg
	}
	return FormatSh
}

func regData(v backend.Value) string {
	switch v.Type {
	case backend.TypeDWORD:
		if len(v.Data) == 4 {
			return regfile.DWORD(binary.LittleEndian.Uint32(v.Data))
		}
	case backend.TypeSZ:
		s := v.String()
		if !hasControl(s) {
			return regfile.String(s)
		}
	}
	t, _ := backend.RegTypeNumber(v.Type)
	return regfile.Hex(t, v.Data)
}

func regScript(changes []Change) []string {
	out := []string{regfile.Header}
	cur := ""
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "", "; "+skipped(c))
			cur = ""
			continue
		}
		switch c.Loc.Backend {
		case backend.BackendRegistry:
		case backend.BackendBCD:
			out = append(out, "", "; not a registry value; run in an elevated prompt:", "; "+bcdLine(c, false))
			cur = ""
			continue
		default:
			out = append(out, "", "; "+comment(c.Loc.String())+": not a registry value")
			cur = ""
			continue
		}
		key := regfile.LongRoot(c.Loc.Path)
		if why := regUnsafe(key, c.Loc.Name); why != "" {
			out = append(out, "", "; "+leftOut(c, why))
			cur = ""
			continue
		}
		if c.Loc.Name == "" {
			if c.New.IsAbsent() {
				out = append(out, "", regfile.DeleteKey(key))
			} else {
				out = append(out, "", regfile.Key(key))
			}
			cur = ""
			if !c.New.IsAbsent() {
				cur = key
			}
			continue
		}
		if key != cur {
			out = append(out, "", regfile.Key(key))
			cur = key
		}
		name := regfile.String(c.Loc.Name)
		if c.New.IsAbsent() {
			out = append(out, name+"=-")
		} else {
			out = append(out, name+"="+regData(c.New))
		}
	}
	return append(out, "")
}

// regRoots are the root keys a .reg file can name.
var regRoots = []string{"HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER", "HKEY_USERS", "HKEY_CLASSES_ROOT", "HKEY_CURRENT_CONFIG"}

// regUnsafe says why a key (its root spelt in full) or a value name cannot
// be written in a .reg file as exactly that key and value: a line break
// would start a new key or value, a key that is not under a root would be
// read as something else ("[-..." deletes), and brackets end the key.
func regUnsafe(key, name string) string {
	if hasControl(key) || hasControl(name) {
		return "its key or value name holds control characters"
	}
	if !regKey(key) || strings.ContainsAny(key, "[]") {
		return "it is not a key under a registry root"
	}
	return ""
}

// regKey reports whether path is a key below a registry root: a root
// (short or long name) and non-empty names.
func regKey(path string) bool {
	root, rest, _ := strings.Cut(regfile.LongRoot(path), `\`)
	return slices.Contains(regRoots, root) && rest != "" && !slices.Contains(strings.Split(rest, `\`), "")
}

// leftOut is the comment that stands for a change a script cannot carry.
func leftOut(c Change, why string) string {
	return comment(c.Loc.String()) + ": left out: " + why
}

// comment makes s safe in a comment of any script: a control character
// (a line break would end the comment and start live code) is written as
// an escape.
func comment(s string) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case isControl(r) && r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		case isControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skipped is the comment that stands for a change not to be made.
func skipped(c Change) string { return comment(c.Loc.String() + ": left alone: " + c.Skip) }

// psQuotes are the characters PowerShell takes for a single quote.
const psQuotes = "'\u2018\u2019\u201a\u201b"

// PSQuote is a PowerShell single-quoted string: inside one, every kind of
// single quote is doubled (PowerShell ends the string at any of them).
// It is the one quoting of PowerShell text in latlab.
// Callers keep control characters out (psUnsafe): a line break inside
// quotes is legal but makes a script that is not one command per line.
func PSQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if strings.ContainsRune(psQuotes, r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

// psPath is a key as a PowerShell path: the HKLM: and HKCU: drives, the
// Registry:: provider for the other roots.
func psPath(p string) string {
	root, rest, _ := strings.Cut(regfile.LongRoot(p), `\`)
	switch root {
	case "HKEY_LOCAL_MACHINE":
		root = "HKLM:"
	case "HKEY_CURRENT_USER":
		root = "HKCU:"
	default:
		root = "Registry::" + root
	}
	return PSQuote(root + `\` + rest)
}

func ps1Script(changes []Change) []string {
	out := []string{"# run in an elevated PowerShell", "$ErrorActionPreference = 'Stop'"}
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "# "+skipped(c))
			continue
		}
		switch c.Loc.Backend {
		case backend.BackendBCD:
			out = append(out, bcdLine(c, true))
			continue
		case backend.BackendRegistry:
		default:
			out = append(out, "# "+comment(c.Loc.String())+": not a registry value")
			continue
		}
		if hasControl(c.Loc.Path) || hasControl(c.Loc.Name) {
			out = append(out, "# "+leftOut(c, "its key or value name holds control characters"))
			continue
		}
		if !regKey(c.Loc.Path) {
			out = append(out, "# "+leftOut(c, "it is not a key under a registry root"))
			continue
		}
		p := psPath(c.Loc.Path)
		if c.Loc.Name == "" {
			if c.New.IsAbsent() {
				out = append(out, "Remove-Item -LiteralPath "+p)
			} else {
				out = append(out, "New-Item -Path "+p+" -Force | Out-Null")
			}
			continue
		}
		n := PSQuote(c.Loc.Name)
		if c.New.IsAbsent() {
			out = append(out, "Remove-ItemProperty -LiteralPath "+p+" -Name "+n)
			continue
		}
		var typ, val string
		switch c.New.Type {
		case backend.TypeDWORD:
			typ, val = "DWord", c.New.String()
		case backend.TypeQWORD:
			typ, val = "QWord", c.New.String()
		case backend.TypeSZ:
			typ, val = "String", psString(c.New.String())
		case backend.TypeExpandSZ:
			typ, val = "ExpandString", psString(c.New.String())
		case backend.TypeMultiSZ:
			var qs []string
			for _, s := range multiSZ(c.New.Data) {
				qs = append(qs, psString(s))
			}
			typ, val = "MultiString", "@("+strings.Join(qs, ",")+")"
		}
		if typ == "" || (c.New.Type == backend.TypeDWORD && len(c.New.Data) != 4) || (c.New.Type == backend.TypeQWORD && len(c.New.Data) != 8) {
			var bs []string
			for _, b := range c.New.Data {
				bs = append(bs, fmt.Sprintf("0x%02x", b))
			}
			typ, val = "Binary", "([byte[]]("+strings.Join(bs, ",")+"))"
		}
		out = append(out, fmt.Sprintf("New-ItemProperty -LiteralPath %s -Name %s -PropertyType %s -Value %s -Force | Out-Null", p, n, typ, val))
	}
	return out
}

// psString is a PowerShell expression of s on one line: a single-quoted
// string, with each control character as [char]N joined to the text
// around it.
func psString(s string) string {
	if !hasControl(s) {
		return PSQuote(s)
	}
	var parts []string
	run := []rune{}
	for _, r := range s {
		if isControl(r) {
			if len(run) > 0 {
				parts = append(parts, PSQuote(string(run)))
				run = run[:0]
			}
			parts = append(parts, fmt.Sprintf("[char]%d", r))
			continue
		}
		run = append(run, r)
	}
	if len(run) > 0 {
		parts = append(parts, PSQuote(string(run)))
	}
	return "(" + strings.Join(parts, "+") + ")"
}

// multiSZ splits REG_MULTI_SZ data into its strings.
func multiSZ(data []byte) []string {
	s := strings.TrimRight(backend.UTF16String(data), "\x00")
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\x00")
}

// bcdLine is the bcdedit command of a change, for PowerShell (ps, its
// arguments quoted: PowerShell reads {current} bare as a script block) or
// for a comment of a .reg file, to run in a command prompt.
func bcdLine(c Change, ps bool) string {
	args := []string{c.Loc.Path, c.Loc.Name}
	verb := "/deletevalue"
	if !c.New.IsAbsent() {
		verb = "/set"
		args = append(args, strings.ToLower(c.New.String()))
	}
	for i, a := range args {
		if !bcdWord(a) {
			return prefix(ps) + leftOut(c, "its object, element or value is not a plain bcdedit word")
		}
		if ps {
			args[i] = PSQuote(a)
		}
	}
	return "bcdedit " + verb + " " + strings.Join(args, " ")
}

func prefix(ps bool) string {
	if ps {
		return "# "
	}
	return ""
}

// bcdWord reports whether s is a word bcdedit takes as is: an identifier
// ({current}, a GUID) or an element name or value.
func bcdWord(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("{}-_.", r)) {
			return false
		}
	}
	return true
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shScript(changes []Change) []string {
	out := []string{"#!/bin/sh", "# run as root", "set -e"}
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "# "+skipped(c))
			continue
		}
		switch c.Loc.Backend {
		case backend.BackendFile:
			data := strings.TrimRight(string(c.New.Data), "\n")
			if c.Loc.Name == backend.ChoiceName {
				// The kernel takes the bare word, not the list it shows.
				if w, err := backend.ChosenWord(data); err == nil {
					data = w
				}
			}
			if hasControl(c.Loc.String()) || hasControl(data) {
				out = append(out, "# "+leftOut(c, "its path or value holds control characters"))
				continue
			}
			out = append(out, fmt.Sprintf("printf '%%s\\n' %s > %s", shQuote(data), shQuote(c.Loc.String())))
		case backend.BackendEthtool:
			if hasControl(c.Loc.Path) {
				out = append(out, "# "+leftOut(c, "its interface name holds control characters"))
				continue
			}
			co, err := backend.DecodeCoalesce(c.New)
			if err != nil {
				out = append(out, "# "+comment(c.Loc.String()+": "+err.Error()))
				continue
			}
			old, _ := backend.DecodeCoalesce(c.Old)
			args := []string{"ethtool", "-C", shQuote(c.Loc.Path)}
			for i, f := range backend.CoalesceFields() {
				if c.Old.IsAbsent() || old[i] != co[i] || c.Old.Type == "" {
					v := fmt.Sprint(co[i])
					if strings.HasPrefix(f.Name, "adaptive-") {
						v = backend.OnOff(co[i])
					}
					args = append(args, f.Name, v)
				}
			}
			out = append(out, strings.Join(args, " "))
		case backend.BackendService:
			out = append(out, serviceLines(c)...)
		default:
			out = append(out, "# "+comment(c.Loc.String())+": not a Linux setting")
		}
	}
	return out
}

// serviceLines are the systemctl commands that bring a unit from c.Old
// to c.New, in the order the service backend runs them: stop, enable or
// disable, start. From an absent or unknown Old (an export of the current
// state) both the enablement and the activity are written.
func serviceLines(c Change) []string {
	if !backend.ValidUnit(c.Loc.Path) {
		return []string{"# " + leftOut(c, "it is not a service unit name")}
	}
	want, err := backend.DecodeService(c.New)
	if err != nil {
		return []string{"# " + comment(c.Loc.String()+": "+err.Error())}
	}
	cur, err := backend.DecodeService(c.Old)
	known := err == nil
	unit := shQuote(c.Loc.Path)
	var out []string
	if !want.Running() && (!known || cur.Running()) {
		out = append(out, "systemctl stop "+unit)
	}
	if !known || cur.Enabled != want.Enabled {
		switch want.Enabled {
		case "enabled":
			out = append(out, "systemctl enable "+unit)
		case "disabled":
			out = append(out, "systemctl disable "+unit)
		default:
			out = append(out, "# "+comment(c.Loc.Path)+" is "+want.Enabled+" (left as it is)")
		}
	}
	if want.Running() && (!known || !cur.Running()) {
		out = append(out, "systemctl start "+unit)
	}
	return out
}
