package doctor

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/lazy"
)

// A tuned.conf is read as tuned 2.x reads it (tuned/profiles/loader.py):
// Python's configparser with "=" the only delimiter, "#" and ";" starting
// a comment line, " #" (a # after white space) starting an inline
// comment, keys kept in their case, a repeated section or key merged (the
// later value wins: strict=False), a line indented deeper than its key
// continuing the key's value, a [DEFAULT] section's keys given to every
// section, and anything else (a line with no "=", a key before any
// section) an error that makes tuned refuse the profile.

// iniSection is one section of a tuned.conf: its keys in the order they
// first appeared, each with its last value.
type iniSection struct {
	Name   string
	Keys   []string
	Values map[string]string
}

func (s *iniSection) set(k, v string) {
	if _, ok := s.Values[k]; !ok {
		s.Keys = append(s.Keys, k)
	}
	s.Values[k] = v
}

// iniFile is a parsed tuned.conf: its sections in order of appearance.
type iniFile struct {
	Sections []*iniSection
	// Defaults are the [DEFAULT] section's keys, which configparser
	// gives every section that does not set them itself.
	Defaults *iniSection
}

func (f *iniFile) section(name string) *iniSection {
	for _, s := range f.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// iniError is a line tuned's parser refuses.
type iniError struct {
	Line int
	Text string
	Why  string
}

func (e *iniError) Error() string {
	return fmt.Sprintf("line %d (%q): %s", e.Line, shortLine(e.Text), e.Why)
}

func shortLine(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// parseTunedINI parses a tuned.conf. noValue accepts a key without "="
// (tuned's variables files, read with allow_no_value): such a key is
// dropped, as tuned drops it.
func parseTunedINI(data []byte, noValue bool) (*iniFile, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("not UTF-8 text (tuned reads the file as text and stops on it)")
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return nil, fmt.Errorf("holds a NUL byte: not a text file")
	}
	f := &iniFile{}
	var cur *iniSection
	// value lines of the key being read, for continuation lines.
	var optname string
	var optlines []string
	indent := 0
	flush := func() {
		if cur != nil && optname != "" && optlines != nil {
			cur.set(optname, strings.TrimRight(strings.Join(optlines, "\n"), " \t\n\r\f\v"))
		}
		optname, optlines = "", nil
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		// An inline comment: a # at the line's start or after white space.
		cut := -1
		for j := 0; j < len(line); j++ {
			if line[j] == '#' && (j == 0 || isSpaceByte(line[j-1])) {
				cut = j
				break
			}
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";") {
			cut = 0
		}
		value := line
		if cut >= 0 {
			value = line[:cut]
		}
		value = strings.TrimSpace(value)
		if value == "" {
			// A blank line inside a value is kept (configparser's
			// empty_lines_in_values); a comment line is not.
			if cut < 0 && optname != "" && optlines != nil {
				optlines = append(optlines, "")
			}
			continue
		}
		lvl := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		if cur != nil && optname != "" && lvl > indent {
			if optlines != nil {
				optlines = append(optlines, value)
			}
			continue
		}
		indent = lvl
		if strings.HasPrefix(value, "[") {
			if end := strings.LastIndexByte(value, ']'); end > 1 {
				flush()
				name := value[1:end]
				switch {
				case name == "DEFAULT":
					if f.Defaults == nil {
						f.Defaults = &iniSection{Name: name, Values: map[string]string{}}
					}
					cur = f.Defaults
				case f.section(name) != nil:
					cur = f.section(name)
				default:
					cur = &iniSection{Name: name, Values: map[string]string{}}
					f.Sections = append(f.Sections, cur)
				}
				continue
			}
		}
		if cur == nil {
			return nil, &iniError{n, line, "a key before any [section]; a tuned.conf starts with a section such as [main]"}
		}
		flush()
		k, v, ok := strings.Cut(value, "=")
		k = strings.TrimRightFunc(k, unicode.IsSpace)
		switch {
		case !ok && noValue:
			optname, optlines = k, nil // no value: dropped, as tuned drops it
		case !ok:
			return nil, &iniError{n, line, "neither a [section], a key=value nor a comment"}
		case k == "":
			return nil, &iniError{n, line, "a value with no key"}
		default:
			optname, optlines = k, []string{strings.TrimSpace(v)}
		}
	}
	flush()
	return f, nil
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\v' || b == '\f' || b == '\r'
}

// The options of a section that tuned takes as the unit's own settings,
// not the plugin's (tuned/profiles/unit.py).
var unitControls = map[string]bool{
	"priority": true, "type": true, "enabled": true, "replace": true, "prepend": true, "drop": true,
	"devices": true, "devices_udev_regex": true, "cpuinfo_regex": true, "uname_regex": true,
	"script_pre": true, "script_post": true,
}

// tunedOpt is one plugin option with the profile that set it.
type tunedOpt struct {
	Value   string
	Profile string
}

// tunedUnit is one plugin section ("unit") of a profile.
type tunedUnit struct {
	Name    string
	Type    string
	Enabled bool
	Devices string
	// CPUInfo and Uname are the unit's cpuinfo_regex and uname_regex:
	// tuned applies the unit only where /proc/cpuinfo, and uname's
	// fields joined by spaces, match them (units/manager.py).
	CPUInfo string
	Uname   string
	Keys    []string
	Opts    map[string]tunedOpt
}

func (u *tunedUnit) set(k string, o tunedOpt) {
	if _, ok := u.Opts[k]; !ok {
		u.Keys = append(u.Keys, k)
	}
	u.Opts[k] = o
}

func (u *tunedUnit) drop(k string) {
	if _, ok := u.Opts[k]; !ok {
		return
	}
	delete(u.Opts, k)
	for i, x := range u.Keys {
		if x == k {
			u.Keys = append(u.Keys[:i:i], u.Keys[i+1:]...)
			break
		}
	}
}

// tunedProfile is one profile as read, or several merged.
type tunedProfile struct {
	Units []*tunedUnit
	// Vars are the [variables], in tuned's order; VarsOf is each one's
	// value with the profile that set it.
	Vars   []string
	VarsOf map[string]tunedOpt
}

func newTunedProfile() *tunedProfile { return &tunedProfile{VarsOf: map[string]tunedOpt{}} }

func (p *tunedProfile) unit(name string) *tunedUnit {
	for _, u := range p.Units {
		if u.Name == name {
			return u
		}
	}
	return nil
}

// isTrue is tuned's truth of a unit's enabled, replace and prepend.
func isTrue(v string) bool { return v == "True" || v == "true" || v == "1" }

// profileFromINI makes a profile of a parsed tuned.conf: [main] apart
// (its include is returned), [variables] as variables, every other
// section a unit whose control options (type, enabled, replace, drop,
// devices...) are taken off its plugin options. dir is the file's
// directory, tuned's ${i:PROFILE_DIR}.
func profileFromINI(f *iniFile, name, dir string) (p *tunedProfile, include string, replace map[string]bool, dropped map[string][]string) {
	p = newTunedProfile()
	replace = map[string]bool{}
	dropped = map[string][]string{}
	for _, s := range f.Sections {
		vals := map[string]string{}
		keys := append([]string(nil), s.Keys...)
		for _, k := range s.Keys {
			vals[k] = strings.ReplaceAll(s.Values[k], "${i:PROFILE_DIR}", dir)
		}
		if f.Defaults != nil {
			for _, k := range f.Defaults.Keys {
				if _, ok := vals[k]; !ok {
					keys = append(keys, k)
					vals[k] = strings.ReplaceAll(f.Defaults.Values[k], "${i:PROFILE_DIR}", dir)
				}
			}
		}
		switch s.Name {
		case "main":
			include = vals["include"]
			continue
		}
		typ := s.Name
		if t, ok := vals["type"]; ok {
			typ = t
		}
		if typ == "variables" {
			if isTrue(vals["replace"]) {
				replace[s.Name] = true
			}
			for _, k := range keys {
				if unitControls[k] {
					continue
				}
				if _, ok := p.VarsOf[k]; !ok {
					p.Vars = append(p.Vars, k)
				}
				p.VarsOf[k] = tunedOpt{vals[k], name}
			}
			continue
		}
		u := &tunedUnit{Name: s.Name, Type: typ, Enabled: true, Devices: "*", Opts: map[string]tunedOpt{}}
		if v, ok := vals["enabled"]; ok {
			u.Enabled = isTrue(v)
		}
		if v, ok := vals["devices"]; ok {
			u.Devices = v
		}
		u.CPUInfo, u.Uname = vals["cpuinfo_regex"], vals["uname_regex"]
		if isTrue(vals["replace"]) {
			replace[s.Name] = true
		}
		if v, ok := vals["drop"]; ok {
			dropped[s.Name] = dropList().Split(v, -1)
		}
		for _, k := range keys {
			if !unitControls[k] {
				u.set(k, tunedOpt{vals[k], name})
			}
		}
		p.Units = append(p.Units, u)
	}
	return p, include, replace, dropped
}

// dropList splits a unit's drop= as tuned does.
var dropList = lazy.Regexp(`\s*[,;]\s*`)

// mergeInto merges b, read after a, into a as tuned's merger does: a unit
// of a new name is added; one with replace=1 takes the place of a's unit
// of its name whole; otherwise b's options are laid over a's (after a's
// options that b drops are removed), and b's type, enabled and devices
// win. Variables merge by name, replace=1 dropping a's first.
func mergeInto(a, b *tunedProfile, replace map[string]bool, dropped map[string][]string) {
	for _, bu := range b.Units {
		au := a.unit(bu.Name)
		if au == nil || replace[bu.Name] {
			if au == nil {
				a.Units = append(a.Units, bu)
			} else {
				*au = *bu
			}
			continue
		}
		au.Type, au.Enabled, au.Devices = bu.Type, bu.Enabled, bu.Devices
		if bu.CPUInfo != "" {
			au.CPUInfo = bu.CPUInfo
		}
		if bu.Uname != "" {
			au.Uname = bu.Uname
		}
		for _, k := range dropped[bu.Name] {
			au.drop(k)
		}
		for _, k := range bu.Keys {
			au.set(k, bu.Opts[k])
		}
	}
	for name := range replace {
		if b.unit(name) == nil { // a [variables] section with replace=1
			a.Vars, a.VarsOf = nil, map[string]tunedOpt{}
		}
	}
	for _, k := range b.Vars {
		if _, ok := a.VarsOf[k]; !ok {
			a.Vars = append(a.Vars, k)
		}
		a.VarsOf[k] = b.VarsOf[k]
	}
}

// tunedMaxValue bounds a value with its variables and functions worked
// out: far above any real one (a kernel command line is at most 4 KiB on
// most architectures, COMMAND_LINE_SIZE), small enough that a value made
// of copies of copies stops growing long before it costs memory.
const tunedMaxValue = 64 << 10

// expandVars substitutes the variables known in vars into s as tuned's
// Variables.expand_static does: each ${NAME} not preceded by a backslash
// whose NAME is defined, in one pass (a substituted value is not expanded
// again), then \${NAME} unescaped. What is left in ${...} is a function
// (${f:NAME:...}) or a variable the profile does not define. It stops
// once the result is longer than tunedMaxValue.
func expandVars(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "${") && (i == 0 || s[i-1] != '\\') {
			if end := strings.IndexByte(s[i:], '}'); end > 0 {
				if v, ok := vars[s[i+2:i+end]]; ok && wordRE().MatchString(s[i+2:i+end]) {
					b.WriteString(v)
					if b.Len() > tunedMaxValue {
						return b.String() // the caller refuses it
					}
					i += end + 1
					continue
				}
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return escapedVar().ReplaceAllString(b.String(), "$1")
}

var (
	wordRE     = lazy.Regexp(`^\w+$`)
	escapedVar = lazy.Regexp(`\\(\$\{\w+\})`)
)

// unresolved names what is left to evaluate in a value: tuned's
// functions (f:NAME) and the variables the profile does not define.
func unresolved(s string) (funcs, vars []string) {
	for _, m := range refRE().FindAllStringSubmatch(s, -1) {
		inner := m[1]
		if fn, ok := strings.CutPrefix(inner, "f:"); ok {
			fn, _, _ = strings.Cut(fn, ":")
			if !containsStr(funcs, fn) {
				funcs = append(funcs, fn)
			}
			continue
		}
		if !containsStr(vars, inner) {
			vars = append(vars, inner)
		}
	}
	return funcs, vars
}

var refRE = lazy.Regexp(`\$\{([^{}$]*)`)
