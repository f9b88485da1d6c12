package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/rootfs"
)

// The bounds of reading a tuned profile: tuned's own tuned.conf files are
// under 4 KiB, so 256 KiB is no profile; 8 includes deep and 64 files are
// more than any profile tuned ships (the deepest, realtime-virtual-host,
// is 4 deep).
const (
	tunedMaxFile  = 256 << 10
	tunedMaxDepth = 8
	tunedMaxFiles = 64
)

// ActiveProfileFile names the profiles tuned applies, as tuned-adm
// profile writes them.
const ActiveProfileFile = "/etc/tuned/active_profile"

// tunedDirs are where tuned looks a profile up by name, the first found
// winning: /etc/tuned before /usr/lib/tuned, each in the layout of tuned
// 2.20 (DIR/NAME) and of tuned 2.23 on (DIR/profiles/NAME).
var tunedDirs = []string{"/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned"}

// IsTunedPath tells --against's path from a name: a path has a "/" or
// ends in ".conf" (a profile's name has neither).
func IsTunedPath(s string) bool { return strings.Contains(s, "/") || strings.HasSuffix(s, ".conf") }

// TunedSet is a profile read from files: the profiles merged, where each
// came from, and the merged settings with their variables.
type TunedSet struct {
	// Name is the profile's name (its directory's), or the active
	// profiles' names.
	Name string
	// File is the tuned.conf --against named, or ActiveProfileFile.
	File string
	// Loaded are the profiles in tuned's load order (an include before
	// the profile that includes it); the last one's values win.
	Loaded []LoadedProfile
	Merged *tunedProfile
	// Vars are the merged variables as tuned works them out, a call of
	// one of tuned's functions latlab cannot evaluate standing as a
	// token of fx.
	Vars  map[string]string
	Notes []string
	// Refused says why tuned refuses the profile here: a failed
	// assertion (or one latlab cannot tell).
	Refused []string
	fx      *tunedFuncs
}

// LoadedProfile is one profile merged and where it was read.
type LoadedProfile struct {
	Name string
	// From is its tuned.conf, or latlab's references of a profile it
	// cites that is not on disk.
	From string
}

// embeddedFrom says a profile came from the catalogue's references.
var embeddedFrom = "latlab's references (tuned " + knob.TunedVersion + ")"

// tunedFile is a file with whether it lies in the --root tree.
type tunedFile struct {
	Path      string
	UnderRoot bool
}

type tunedLoader struct {
	root  string
	read  func(f tunedFile, max int64) ([]byte, error)
	stat  func(f tunedFile) (fs.FileInfo, error)
	set   *TunedSet
	stack []string
	done  map[string]bool
	// files is where each profile read from a file was read.
	files map[string]tunedFile
}

// LoadTuned reads what --against names when it is not a profile latlab
// cites: "active" (the profiles ActiveProfileFile names, merged in
// order), or a path (IsTunedPath) to a tuned.conf or a profile's
// directory. Files of the system (active_profile, the profiles looked up
// by name, variables files) are read in the --root tree, root; a path
// given is read as given. What is wrong with the input is bad input
// naming it.
func LoadTuned(spec, root string) (*TunedSet, error) {
	l := &tunedLoader{
		root:  root,
		read:  func(f tunedFile, max int64) ([]byte, error) { return readTunedFile(root, f, max) },
		stat:  func(f tunedFile) (fs.FileInfo, error) { return statTunedFile(root, f) },
		done:  map[string]bool{},
		files: map[string]tunedFile{},
	}
	return l.load(spec)
}

func (l *tunedLoader) load(spec string) (*TunedSet, error) {
	l.set = &TunedSet{Merged: newTunedProfile(), Vars: map[string]string{}, fx: newTunedFuncs(tunedMachine{
		read: func(p string) (string, error) {
			b, err := l.read(tunedFile{p, true}, 4<<20)
			return string(b), err
		},
		list: func(dir string) ([]string, error) { return listTunedDir(l.root, dir, 1<<16) },
		host: rootfs.IsHost(l.root),
	})}
	switch {
	case spec == "active":
		af := tunedFile{ActiveProfileFile, true}
		b, err := l.read(af, 4096)
		if err != nil {
			return nil, badinput.Errorf("--against active: %s: %v; it names the profiles tuned applies (tuned-adm profile NAME writes it): give a profile's name or a tuned.conf path instead", l.show(af), describeReadErr(err))
		}
		var names []string
		for _, n := range strings.Fields(string(b)) {
			if safeProfileName().MatchString(n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, badinput.Errorf("--against active: %s names no profile (tuned is off, or tuned-adm off was run): give a profile's name or a tuned.conf path", l.show(af))
		}
		l.set.Name, l.set.File = strings.Join(names, " "), l.show(af)
		for _, n := range names {
			if err := l.loadName(n, "", l.show(af)+" names"); err != nil {
				return nil, err
			}
		}
	case IsTunedPath(spec):
		f := tunedFile{filepath.Clean(spec), false}
		st, err := l.stat(f)
		if err != nil {
			return nil, badinput.Errorf("--against %s: %v; give a tuned.conf, a profile's directory holding one, \"active\" or a profile's name", spec, describeReadErr(err))
		}
		if st.IsDir() {
			f.Path = filepath.Join(f.Path, "tuned.conf")
			if _, err := l.stat(f); err != nil {
				return nil, badinput.Errorf("--against %s: a directory with no tuned.conf (%v); give a profile's directory, which holds its tuned.conf, or the file itself", spec, describeReadErr(err))
			}
		}
		l.set.File = f.Path
		name := filepath.Base(filepath.Dir(f.Path))
		if b := filepath.Base(f.Path); b != "tuned.conf" {
			name = strings.TrimSuffix(b, ".conf")
		}
		l.set.Name = name
		if err := l.loadFile(name, f); err != nil {
			return nil, err
		}
	default:
		return nil, badinput.Errorf("--against %q: neither a path (a \"/\" or a .conf ending) nor \"active\"", spec)
	}
	l.resolveVars()
	for _, u := range l.set.Merged.Units {
		// tuned expands devices= once the variables are known (loader.py).
		u.Devices = l.set.fx.restore(l.set.fx.expand(u.Devices, l.set.Vars))
	}
	l.applyConditions()
	l.set.Refused = l.set.fx.refusals
	return l.set, nil
}

// applyConditions turns off, as tuned does, a unit whose cpuinfo_regex
// does not match this machine's /proc/cpuinfo or whose uname_regex does
// not match its uname (the host's only: a --root tree has no uname).
// What cannot be checked is kept, with a note.
func (l *tunedLoader) applyConditions() {
	// The machine's texts, read once: /proc/cpuinfo in the --root tree,
	// uname on the host only.
	texts := map[string]*string{}
	machine := func(what string) (string, bool) {
		if t, ok := texts[what]; ok {
			return deref(t)
		}
		var t *string
		if what == "uname" {
			if u, ok := unameString(l.root); ok {
				t = &u
			}
		} else if b, err := l.read(tunedFile{"/proc/cpuinfo", true}, 4<<20); err == nil {
			c := string(b)
			t = &c
		}
		texts[what] = t
		return deref(t)
	}
	for _, u := range l.set.Merged.Units {
		for _, c := range []struct{ opt, re, what string }{
			{"cpuinfo_regex", u.CPUInfo, "/proc/cpuinfo"},
			{"uname_regex", u.Uname, "uname"},
		} {
			if c.re == "" || !u.Enabled {
				continue
			}
			// tuned's re.search with re.MULTILINE, where Go reads the
			// pattern and the text as Python does (pyRegexp); else not
			// checked.
			pat := l.set.fx.expand(c.re, l.set.Vars)
			text, ok := machine(c.what)
			var re *regexp.Regexp
			var err error
			if ok {
				re, err = pyRegexp(pat, true, text)
			}
			switch {
			case err != nil:
				l.set.Notes = append(l.set.Notes, fmt.Sprintf("[%s] applies only where %s matches %s=%s: not checked here (%v), compared as if it did", u.Name, c.what, c.opt, c.re, err))
			case !ok || strings.IndexByte(pat, 0) >= 0:
				l.set.Notes = append(l.set.Notes, fmt.Sprintf("[%s] applies only where %s matches %s=%s: not checked here, compared as if it did", u.Name, c.what, c.opt, c.re))
			case !re.MatchString(text):
				u.Enabled = false
				l.set.Notes = append(l.set.Notes, fmt.Sprintf("[%s] applies only where %s matches %s=%s, which it does not here: not compared, as tuned does not apply it", u.Name, c.what, c.opt, c.re))
			}
		}
	}
}

func deref(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

// show is a file's path as the user knows it: under --root, with it.
func (l *tunedLoader) show(f tunedFile) string {
	if f.UnderRoot && l.root != "" && l.root != "/" {
		return filepath.Join(l.root, f.Path)
	}
	return f.Path
}

// safeProfileName is the name tuned loads (tuned/profiles/loader.py's
// safe_name); others it skips.
var safeProfileName = lazy.Regexp(`^[a-zA-Z0-9_.-]+$`)

// splitIncludes splits [main] include= on "," and ";" as tuned does once
// it has expanded the value; a ${...} latlab cannot expand stays whole
// (its commas are the function's arguments), so the name it is part of
// is said not to be read rather than split into wrong names.
func splitIncludes(v string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch {
		case strings.HasPrefix(v[i:], "${"):
			depth++
			i++
		case v[i] == '}' && depth > 0:
			depth--
		case (v[i] == ',' || v[i] == ';') && depth == 0:
			out = append(out, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(v[start:]))
}

// loadName loads the profile called name, included by by (a file), whose
// profile directory lies in beside ("" none): beside it first, then where
// tuned looks; a profile latlab cites that none holds is its references.
// A leading "-" makes it optional, as in tuned.
func (l *tunedLoader) loadName(name string, beside string, by string) error {
	optional := strings.HasPrefix(name, "-")
	name = path.Base(strings.TrimPrefix(name, "-")) // tuned too keeps an include from leaving the profile directories
	var tried []string
	var cands []tunedFile
	if beside != "" {
		cands = append(cands, tunedFile{filepath.Join(beside, name, "tuned.conf"), false})
	}
	for _, d := range tunedDirs {
		cands = append(cands, tunedFile{path.Join(d, name, "tuned.conf"), true})
	}
	for _, c := range cands {
		if st, err := l.stat(c); err == nil && st.Mode().IsRegular() {
			return l.loadFile(name, c)
		}
		tried = append(tried, l.show(c))
	}
	if _, cited := tunedIncludes[name]; cited {
		return l.loadEmbedded(name)
	}
	if optional {
		l.set.Notes = append(l.set.Notes, fmt.Sprintf("%s -%s, which is not found: skipped, as tuned skips it", by, name))
		return nil
	}
	return badinput.Errorf("profile %q, which %s, is in none of %s, nor one latlab cites: tuned too refuses a profile whose include is missing", name, by, strings.Join(tried, ", "))
}

func (l *tunedLoader) enter(key, label string) error {
	for i, s := range l.stack {
		if s == key {
			chain := append(append([]string(nil), l.stack[i:]...), key)
			return badinput.Errorf("include loop: %s; a profile cannot include itself", strings.Join(chain, " -> "))
		}
	}
	if len(l.stack) >= tunedMaxDepth {
		return badinput.Errorf("includes nest more than %d deep at %s (%s): latlab reads at most %d", tunedMaxDepth, label, strings.Join(l.stack, " -> "), tunedMaxDepth)
	}
	if len(l.done) >= tunedMaxFiles {
		return badinput.Errorf("more than %d profiles to read at %s: latlab reads at most %d", tunedMaxFiles, label, tunedMaxFiles)
	}
	l.stack = append(l.stack, key)
	return nil
}

func (l *tunedLoader) leave() { l.stack = l.stack[:len(l.stack)-1] }

// loadFile reads one tuned.conf, loads its includes first (in order),
// then merges it over them, as tuned's loader does. A file already read
// is not read again (tuned's processed_files); one that includes itself,
// however far down, is refused.
func (l *tunedLoader) loadFile(name string, f tunedFile) error {
	key := l.show(f)
	if l.done[key] && !containsStr(l.stack, key) {
		return nil
	}
	if err := l.enter(key, key); err != nil {
		return err
	}
	defer l.leave()
	l.done[key] = true
	b, err := l.read(f, tunedMaxFile)
	if err != nil {
		return badinput.Errorf("--against: %s: %v; latlab reads a tuned.conf of at most %d KiB", key, describeReadErr(err), tunedMaxFile>>10)
	}
	ini, err := parseTunedINI(b, false)
	if err != nil {
		return badinput.Errorf("--against: %s is not a tuned.conf as tuned reads it: %v; a tuned.conf is an INI file of [sections] and key=value lines", key, err)
	}
	p, include, replace, dropped := profileFromINI(ini, name, filepath.Dir(f.Path))
	if include != "" {
		inc := l.set.fx.expand(include, l.set.Vars)
		for _, n := range splitIncludes(inc) {
			switch {
			case n == "":
			case strings.Contains(n, "${") || strings.IndexByte(n, 0) >= 0:
				why := strings.Join(l.set.fx.whys(n), "; ")
				if why == "" {
					why = "a function latlab does not evaluate"
				}
				l.set.Notes = append(l.set.Notes, fmt.Sprintf("%s includes %s, which tuned works out on the machine (%s): not read", key, l.set.fx.restore(n), why))
			default:
				beside := ""
				if !f.UnderRoot {
					beside = filepath.Dir(filepath.Dir(f.Path))
				}
				if err := l.loadName(n, beside, key+" includes"); err != nil {
					return err
				}
			}
		}
	}
	mergeInto(l.set.Merged, p, replace, dropped)
	l.set.Loaded = append(l.set.Loaded, LoadedProfile{Name: name, From: key})
	l.files[name] = f
	return nil
}

// loadEmbedded loads a profile latlab cites from the catalogue's
// references: its include first, as for a file.
func (l *tunedLoader) loadEmbedded(name string) error {
	key := "tuned " + knob.TunedVersion + " " + name
	if l.done[key] && !containsStr(l.stack, key) {
		return nil
	}
	if err := l.enter(key, name); err != nil {
		return err
	}
	defer l.leave()
	l.done[key] = true
	if inc := tunedIncludes[name]; inc != "" {
		if err := l.loadName(inc, "", key+" includes"); err != nil {
			return err
		}
	}
	p := newTunedProfile()
	for _, k := range knob.All() {
		for _, r := range k.Checkup().References {
			if r.Source != "tuned" || r.Profile != name {
				continue
			}
			u := p.unit(r.Section)
			if u == nil {
				u = &tunedUnit{Name: r.Section, Type: r.Section, Enabled: true, Devices: "*", Opts: map[string]tunedOpt{}}
				p.Units = append(p.Units, u)
			}
			u.set(r.Key, tunedOpt{r.Value, name})
		}
	}
	mergeInto(l.set.Merged, p, nil, nil)
	l.set.Loaded = append(l.set.Loaded, LoadedProfile{Name: name, From: embeddedFrom})
	return nil
}

// resolveVars works the merged [variables] out as tuned does once the
// profiles are merged: in order, each value expanded with the variables
// before it; include= a file of NAME=VALUE lines read in its place (a
// missing or unreadable one is skipped, as tuned skips it, with a note).
func (l *tunedLoader) resolveVars() {
	m := l.set.Merged
	for _, k := range m.Vars {
		v := m.VarsOf[k].Value
		if k != "include" {
			if wordRE().MatchString(k) {
				l.set.Vars[k] = l.set.fx.expand(v, l.set.Vars)
			}
			continue
		}
		// A system path (/etc/tuned/...) is the machine's, in the --root
		// tree; one in the directory of a profile given by path
		// (${i:PROFILE_DIR}/...) lies beside that profile.
		f := tunedFile{filepath.Clean(v), true}
		if from, ok := l.files[m.VarsOf[k].Profile]; ok && !from.UnderRoot && strings.HasPrefix(f.Path, filepath.Dir(from.Path)+string(filepath.Separator)) {
			f.UnderRoot = false
		}
		b, err := l.read(f, tunedMaxFile)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// tuned logs it and goes on: what it would set is unset.
				l.set.Notes = append(l.set.Notes, fmt.Sprintf("the variables file %s (%s's [variables] include=) is not found: tuned skips it, so what it would set is unset", l.show(f), m.VarsOf[k].Profile))
				continue
			}
			l.set.Notes = append(l.set.Notes, fmt.Sprintf("the variables file %s (%s's [variables] include=) cannot be read: %v; what it defines stays unknown", l.show(f), m.VarsOf[k].Profile, describeReadErr(err)))
			l.set.fx.unreadVars = appendOnce(l.set.fx.unreadVars, l.show(f))
			continue
		}
		ini, err := parseTunedINI(append([]byte("[variables]\n"), b...), true)
		if err != nil {
			l.set.Notes = append(l.set.Notes, fmt.Sprintf("the variables file %s is not one tuned reads (%v): skipped, as tuned skips it", l.show(f), err))
			continue
		}
		for _, s := range ini.Sections {
			for _, vk := range s.Keys {
				if wordRE().MatchString(vk) {
					l.set.Vars[vk] = l.set.fx.expand(s.Values[vk], l.set.Vars)
				}
			}
		}
	}
}

// describeReadErr is a read error without Go's wording of the path twice.
func describeReadErr(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}
