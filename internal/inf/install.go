package inf

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/textdec"
)

// Manufacturer is one [Manufacturer] entry.
type Manufacturer struct {
	Name        string       `json:"name"`
	Models      string       `json:"models"` // base name of the models sections
	Decorations []Decoration `json:"decorations"`
	Line        int          `json:"line"`
}

// Manufacturers reads [Manufacturer]. Bad decorations are errors: Windows
// would not install from such a file either.
func (f *File) Manufacturers(lang string) ([]Manufacturer, error) {
	s := f.Section("Manufacturer")
	if s == nil {
		return nil, &ParseError{Line: f.Lines, Msg: "no [Manufacturer] section: expected a device INF that lists manufacturers and their models"}
	}
	var out []Manufacturer
	for _, l := range s.Lines {
		m := Manufacturer{Line: l.Num}
		if l.HasKey {
			m.Name = f.Expand(l.Key, lang)
			m.Models = f.Expand(l.Field(0), lang)
		} else {
			m.Models = f.Expand(l.Field(0), lang)
			m.Name = m.Models
		}
		if m.Models == "" {
			return nil, &ParseError{Line: l.Num, Msg: "manufacturer entry without a models section: expected %Name% = ModelsSection[, NTamd64...]"}
		}
		for _, raw := range l.Fields[1:] {
			raw = f.Expand(raw, lang)
			if strings.TrimSpace(raw) == "" {
				continue
			}
			d, err := ParseDecoration(raw)
			if err != nil {
				return nil, &ParseError{Line: l.Num, Msg: err.Error()}
			}
			m.Decorations = append(m.Decorations, d)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, &ParseError{Line: s.Line, Msg: "[Manufacturer] is empty: expected %Name% = ModelsSection[, NTamd64...]"}
	}
	return out, nil
}

// ModelsSection is the section name for a decoration.
func (m Manufacturer) ModelsSection(d Decoration) string {
	if d.Raw == "" {
		return m.Models
	}
	return m.Models + "." + d.Raw
}

// AllDecorations is the undecorated section (if the INF has it) followed
// by the listed decorations.
func (m Manufacturer) AllDecorations(f *File) []Decoration {
	var out []Decoration
	if f.Section(m.Models) != nil {
		out = append(out, Decoration{})
	}
	return append(out, m.Decorations...)
}

// Candidate is a decoration with whether and why it applies to a target.
type Candidate struct {
	Decoration Decoration `json:"decoration"`
	Section    string     `json:"section"`
	Exists     bool       `json:"exists"`
	Applies    bool       `json:"applies"`
	Reason     string     `json:"reason,omitempty"`
}

// Choose ranks the manufacturer's models sections for t: the best
// applicable one first (nil when none applies), and every candidate.
func (f *File) Choose(m Manufacturer, t Target) (*Candidate, []Candidate) {
	var cs []Candidate
	for _, d := range m.AllDecorations(f) {
		c := Candidate{Decoration: d, Section: m.ModelsSection(d), Exists: f.Section(m.ModelsSection(d)) != nil}
		c.Applies, c.Reason = d.Applies(t)
		if c.Applies && !c.Exists {
			c.Applies, c.Reason = false, "listed in [Manufacturer] but the INF has no ["+c.Section+"]"
		}
		cs = append(cs, c)
	}
	var best *Candidate
	for i := range cs {
		if cs[i].Applies && (best == nil || cs[i].Decoration.Better(best.Decoration)) {
			best = &cs[i]
		}
	}
	return best, cs
}

// Model is one device line of a models section.
type Model struct {
	Description    string   `json:"description"`
	InstallSection string   `json:"install_section"`
	HardwareIDs    []string `json:"hardware_ids"` // hardware ID then compatible IDs
	Line           int      `json:"line"`
}

// Models reads a models section.
func (f *File) Models(section, lang string) []Model {
	m, _ := f.models(section, lang)
	return m
}

// models reads a models section and notes the lines it leaves out: a
// models line is Description = InstallSection, HardwareID[, CompatibleID...].
func (f *File) models(section, lang string) ([]Model, []string) {
	s := f.Section(section)
	if s == nil {
		return nil, nil
	}
	var out []Model
	var notes []string
	skip := func(l Line, why string) {
		notes = append(notes, fmt.Sprintf("%s line %d: [%s] %s; skipped (a models line is Description = InstallSection, HardwareID[, CompatibleID...])", f.Name, l.Num, s.Name, why))
	}
	for _, l := range s.Lines {
		switch {
		case !l.HasKey:
			skip(l, "line has no '='")
			continue
		case strings.TrimSpace(l.Field(0)) == "":
			skip(l, "line names no install section")
			continue
		}
		m := Model{Description: f.Expand(l.Key, lang), InstallSection: f.Expand(l.Field(0), lang), Line: l.Num}
		for _, id := range l.Fields[1:] {
			if id = strings.TrimSpace(f.Expand(id, lang)); id != "" {
				m.HardwareIDs = append(m.HardwareIDs, id)
			}
		}
		if len(m.HardwareIDs) == 0 {
			skip(l, "line names no hardware ID")
			continue
		}
		out = append(out, m)
	}
	return out, notes
}

// Install is what a DDInstall section installs.
type Install struct {
	Section  string    `json:"install_section"` // as found, with its platform extension
	Line     int       `json:"line"`
	AddReg   []Ref     `json:"addreg"`
	Needs    []Ref     `json:"needs,omitempty"`
	Include  []string  `json:"include,omitempty"`
	Keywords []Keyword `json:"keywords"`
	// Values are HKR,,Name values that are not keywords (BusType, *IfType ...).
	Values []Value `json:"values,omitempty"`
	// Service is the driver the section installs for the device: the
	// AddService entry of its .Services section that is flagged as the
	// device's function driver (SPSVCINST_ASSOCSERVICE), else the
	// HKR,Ndi,Service value NDIS reads. "" when the INF names neither.
	Service    string   `json:"service,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	ndiService string
	byName     map[string]int
}

// Ref names a section a directive refers to and where.
type Ref struct {
	Section string `json:"section"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"` // of the directive
	Found   bool   `json:"found"`
}

// Value is one HKR registry value.
type Value struct {
	Name  string `json:"name"`
	Data  string `json:"data"`
	Flags uint32 `json:"flags"`
	Line  int    `json:"line"`
}

// EnumValue is one choice of an enum keyword.
type EnumValue struct {
	Value string `json:"value"`
	Desc  string `json:"desc"`
}

// Keyword is an advanced property: HKR,Ndi\Params\<Name>,... entries and
// the HKR,,<Name> value the driver reads.
type Keyword struct {
	Name      string      `json:"name"`
	ParamDesc string      `json:"param_desc,omitempty"`
	Type      string      `json:"type,omitempty"`
	Default   string      `json:"default,omitempty"`
	Min       string      `json:"min,omitempty"`
	Max       string      `json:"max,omitempty"`
	Step      string      `json:"step,omitempty"`
	Base      string      `json:"base,omitempty"`
	Optional  string      `json:"optional,omitempty"`
	Values    []EnumValue `json:"values,omitempty"`
	// Value is the HKR,,<Name> value written at install (what the driver
	// reads before anyone changes it); nil when the INF writes none.
	Value *Value `json:"value,omitempty"`
	// Other holds any other Ndi\Params\<Name> value (LimitText, UpperCase ...).
	Other    map[string]string `json:"other,omitempty"`
	Sections []string          `json:"sections"` // AddReg sections that define it
	Line     int               `json:"line"`     // first definition
}

// Loader opens an INF named by Include= (e.g. from the same folder).
type Loader func(name string) (*File, error)

// Registry flags of AddReg lines that change what a line does.
const (
	flgDelVal   = 0x00000004
	flgKeyOnly  = 0x00000010
	flgTypeMask = 0xFFFF0001
)

// Resolve follows DDInstall section name for t: the platform extension
// Windows picks (.NT<arch>, .NT, none), Include/Needs (loops are errors),
// and every AddReg section in order, later entries overriding earlier ones.
func (f *File) Resolve(name string, t Target, lang string, load Loader) (*Install, error) {
	sec := f.installSection(name, t)
	if sec == nil {
		return nil, fmt.Errorf("install section [%s] not found (nor [%s.NT%s], [%s.NT])", name, name, t.Arch, name)
	}
	in := &Install{Section: sec.Name, Line: sec.Line, Keywords: []Keyword{}, byName: map[string]int{}}
	r := &resolver{in: in, t: t, lang: lang, load: load, files: map[string]*File{}, done: map[*Section]bool{}}
	if err := r.ddinstall(f, sec, nil); err != nil {
		return nil, err
	}
	in.Service = f.assocService(sec.Name, lang)
	if in.Service == "" {
		in.Service = in.ndiService
	}
	return in, nil
}

// spsvcinstAssocService marks the AddService entry that is the device's
// function driver.
const spsvcinstAssocService = 0x2

// assocService reads AddService = name, flags, ... from [<install>.Services].
func (f *File) assocService(install, lang string) string {
	s := f.Section(install + ".Services")
	if s == nil {
		return ""
	}
	for _, l := range s.Lines {
		if l.HasKey && strings.EqualFold(l.Key, "AddService") && parseFlags(f.Expand(l.Field(1), lang))&spsvcinstAssocService != 0 {
			return strings.TrimSpace(f.Expand(l.Field(0), lang))
		}
	}
	return ""
}

func (f *File) installSection(name string, t Target) *Section {
	for _, n := range []string{name + ".NT" + t.Arch, name + ".NT", name} {
		if s := f.Section(n); s != nil {
			return s
		}
	}
	return nil
}

type resolver struct {
	in    *Install
	t     Target
	lang  string
	load  Loader
	files map[string]*File
	done  map[*Section]bool
}

// ddinstall processes one DDInstall (or Needs) section; stack holds the
// chain of Needs for loop detection.
func (r *resolver) ddinstall(f *File, sec *Section, stack []*Section) error {
	for i, s := range stack {
		if s == sec {
			var chain []string
			for _, c := range append(stack[i:], sec) {
				chain = append(chain, "["+c.Name+"]")
			}
			return &ParseError{Line: sec.Line, Msg: fmt.Sprintf("Needs loop in %s: %s; expected Needs= to name sections that do not lead back", f.Name, strings.Join(chain, " -> "))}
		}
	}
	if r.done[sec] {
		return nil // reached again through another Needs: its entries are in already
	}
	r.done[sec] = true
	stack = append(stack, sec)
	var included []*File
	for _, l := range sec.Lines {
		switch {
		case !l.HasKey:
			r.notef(f, l.Num, "[%s] line has no '=', not a directive (Directive = value); skipped", sec.Name)
			continue
		case strings.TrimSpace(l.Key) == "":
			r.notef(f, l.Num, "[%s] line has nothing before '=', no directive name; skipped", sec.Name)
			continue
		}
		switch k := strings.ToLower(l.Key); k {
		case "include", "addreg", "needs":
			if len(names(f, l, r.lang)) == 0 {
				r.notef(f, l.Num, "[%s] %s= names no section; skipped", sec.Name, l.Key)
			}
		}
		switch strings.ToLower(l.Key) {
		case "include":
			for _, name := range l.Fields {
				name = f.Expand(name, r.lang)
				if name == "" {
					continue
				}
				r.in.Include = append(r.in.Include, name)
				inc, err := r.open(name)
				if err != nil {
					r.in.Notes = append(r.in.Notes, fmt.Sprintf("%s line %d: Include=%s not analysed: %v", f.Name, l.Num, name, err))
					continue
				}
				included = append(included, inc)
			}
		}
	}
	for _, l := range sec.Lines {
		if !l.HasKey {
			continue
		}
		switch strings.ToLower(l.Key) {
		case "addreg":
			for _, name := range l.Fields {
				name = f.Expand(name, r.lang)
				if name == "" {
					continue
				}
				s := f.Section(name)
				r.in.AddReg = append(r.in.AddReg, Ref{Section: name, File: f.Name, Line: l.Num, Found: s != nil})
				if s == nil {
					r.in.Notes = append(r.in.Notes, fmt.Sprintf("%s line %d: AddReg=%s names a section the INF does not have", f.Name, l.Num, name))
					continue
				}
				r.addreg(f, s)
			}
		case "needs":
			for _, name := range l.Fields {
				name = f.Expand(name, r.lang)
				if name == "" {
					continue
				}
				target, s := r.findNeeds(f, included, name)
				ref := Ref{Section: name, Line: l.Num, Found: s != nil}
				if target != nil {
					ref.File = target.Name
				}
				r.in.Needs = append(r.in.Needs, ref)
				if s == nil {
					r.in.Notes = append(r.in.Notes, fmt.Sprintf("%s line %d: Needs=%s not found in this INF or its includes; its registry entries are not analysed", f.Name, l.Num, name))
					continue
				}
				if err := r.ddinstall(target, s, stack); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *resolver) open(name string) (*File, error) {
	key := strings.ToLower(name)
	if f, ok := r.files[key]; ok {
		return f, nil
	}
	if r.load == nil {
		return nil, fmt.Errorf("no folder to look in")
	}
	f, err := r.load(name)
	if err != nil {
		return nil, err
	}
	r.files[key] = f
	return f, nil
}

// findNeeds looks for a Needs section in the INF itself, then in its
// includes, with the platform extensions Windows tries.
func (r *resolver) findNeeds(f *File, included []*File, name string) (*File, *Section) {
	for _, g := range append([]*File{f}, included...) {
		for _, n := range []string{name, name + ".NT" + r.t.Arch, name + ".NT"} {
			if s := g.Section(n); s != nil {
				return g, s
			}
		}
	}
	return nil, nil
}

// addreg applies one AddReg section's HKR lines, and notes the lines it
// skips (lines that write outside the adapter's key are not keywords; the
// rest are malformed or hold what latlab does not read).
func (r *resolver) addreg(f *File, s *Section) {
	// Entries for other roots are common (uninstall keys, services), so
	// they make one note per section.
	var outside []int
	roots := map[string]bool{}
	defer func() {
		if len(outside) == 0 {
			return
		}
		var rs []string
		for k := range roots {
			rs = append(rs, k)
		}
		sort.Strings(rs)
		what := "an " + strings.Join(rs, "/") + " entry writes"
		if len(outside) > 1 {
			what = fmt.Sprintf("%d %s entries write", len(outside), strings.Join(rs, "/"))
		}
		n := fmt.Sprintf("%s %s: [%s] %s outside the adapter's key (HKR): not keywords, skipped", f.Name, lineList(outside), s.Name, what)
		if !slices.Contains(r.in.Notes, n) {
			r.in.Notes = append(r.in.Notes, n)
		}
	}()
	for _, l := range s.Lines {
		if l.HasKey {
			r.notef(f, l.Num, "[%s] line has '=' outside quotes, not a registry entry (root, subkey, value name, flags, value); skipped", s.Name)
			continue
		}
		root := strings.ToUpper(strings.TrimSpace(f.Expand(l.Field(0), r.lang)))
		switch root {
		case "HKR":
		case "":
			r.notef(f, l.Num, "[%s] entry has an empty registry root (expected HKR, HKLM, HKCU, HKCR or HKU); skipped", s.Name)
			continue
		case "HKLM", "HKCU", "HKCR", "HKU":
			outside = append(outside, l.Num)
			roots[root] = true
			continue
		default:
			r.notef(f, l.Num, "[%s] unknown registry root %q (expected HKR, HKLM, HKCU, HKCR or HKU); skipped", s.Name, textdec.Clip(root))
			continue
		}
		subkey := strings.Trim(f.Expand(l.Field(1), r.lang), `\ `)
		name := f.Expand(l.Field(2), r.lang)
		rawFlags := f.Expand(l.Field(3), r.lang)
		flags, ok := parseFlagsOK(rawFlags)
		if !ok {
			r.notef(f, l.Num, "[%s] flags %q are not a number; skipped", s.Name, textdec.Clip(rawFlags))
			continue
		}
		var data []string
		for _, v := range l.Fields[min(4, len(l.Fields)):] {
			data = append(data, f.Expand(v, r.lang))
		}
		val := strings.Join(data, ",")
		low := strings.ToLower(subkey)
		switch {
		case low == "ndi" && strings.EqualFold(name, "Service"):
			r.in.ndiService = strings.TrimSpace(val)
		case low == "":
			if name == "" {
				if flags&flgKeyOnly == 0 {
					r.notef(f, l.Num, "[%s] HKR entry with no subkey and no value name writes the key's default value, not a keyword; skipped", s.Name)
				}
				continue
			}
			v := Value{Name: name, Data: val, Flags: flags, Line: l.Num}
			if flags&flgDelVal != 0 {
				r.deleteValue(name)
				continue
			}
			if k, ok := r.in.byName[strings.ToLower(name)]; ok {
				r.in.Keywords[k].Value = &v
				continue
			}
			// (a keyword with Ndi\Params entries took the branch above)
			if strings.HasPrefix(name, "*") {
				k := r.keyword(name, s.Name, l.Num)
				k.Value = &v
				continue
			}
			r.setValue(v)
		case low == `ndi\params` && name != "":
			r.notef(f, l.Num, "[%s] Ndi\\Params entry names no keyword; skipped", s.Name)
		case strings.HasPrefix(low, `ndi\params\`):
			rest := subkey[len(`ndi\params\`):]
			kw, sub, _ := strings.Cut(rest, `\`)
			if kw == "" {
				r.notef(f, l.Num, "[%s] Ndi\\Params entry names no keyword; skipped", s.Name)
				continue
			}
			k := r.keyword(kw, s.Name, l.Num)
			if flags&flgKeyOnly != 0 || name == "" {
				continue
			}
			if strings.EqualFold(sub, "enum") {
				r.setEnum(k, name, val, flags&flgDelVal != 0)
				continue
			}
			if sub != "" {
				r.notef(f, l.Num, "[%s] subkey %s of keyword %s is not read (only its values and Enum are); skipped", s.Name, textdec.Clip(sub), kw)
				continue
			}
			r.setParam(k, name, val, flags&flgDelVal != 0)
		}
	}
}

func (r *resolver) keyword(name, section string, line int) *Keyword {
	key := strings.ToLower(name)
	if i, ok := r.in.byName[key]; ok {
		k := &r.in.Keywords[i]
		if !slices.Contains(k.Sections, section) {
			k.Sections = append(k.Sections, section)
		}
		return k
	}
	// A keyword defined after its HKR,,Name value: move the value over.
	var val *Value
	for i, v := range r.in.Values {
		if strings.EqualFold(v.Name, name) {
			vv := v
			val = &vv
			r.in.Values = append(r.in.Values[:i], r.in.Values[i+1:]...)
			break
		}
	}
	r.in.Keywords = append(r.in.Keywords, Keyword{Name: name, Sections: []string{section}, Line: line, Value: val})
	r.in.byName[key] = len(r.in.Keywords) - 1
	return &r.in.Keywords[len(r.in.Keywords)-1]
}

func (r *resolver) setValue(v Value) {
	for i := range r.in.Values {
		if strings.EqualFold(r.in.Values[i].Name, v.Name) {
			r.in.Values[i] = v
			return
		}
	}
	r.in.Values = append(r.in.Values, v)
}

func (r *resolver) deleteValue(name string) {
	if i, ok := r.in.byName[strings.ToLower(name)]; ok {
		r.in.Keywords[i].Value = nil
	}
	for i := range r.in.Values {
		if strings.EqualFold(r.in.Values[i].Name, name) {
			r.in.Values = append(r.in.Values[:i], r.in.Values[i+1:]...)
			return
		}
	}
}

func (r *resolver) setParam(k *Keyword, name, val string, del bool) {
	if del {
		val = ""
	}
	switch strings.ToLower(name) {
	case "paramdesc":
		k.ParamDesc = val
	case "type":
		k.Type = strings.ToLower(val)
	case "default":
		k.Default = val
	case "min":
		k.Min = val
	case "max":
		k.Max = val
	case "step":
		k.Step = val
	case "base":
		k.Base = val
	case "optional":
		k.Optional = val
	default:
		if k.Other == nil {
			k.Other = map[string]string{}
		}
		if del {
			delete(k.Other, name)
			return
		}
		k.Other[name] = val
	}
}

func (r *resolver) setEnum(k *Keyword, value, desc string, del bool) {
	for i := range k.Values {
		if k.Values[i].Value == value {
			if del {
				k.Values = append(k.Values[:i], k.Values[i+1:]...)
				return
			}
			k.Values[i].Desc = desc
			return
		}
	}
	if !del {
		k.Values = append(k.Values, EnumValue{Value: value, Desc: desc})
		sort.SliceStable(k.Values, func(i, j int) bool {
			a, ea := strconv.Atoi(k.Values[i].Value)
			b, eb := strconv.Atoi(k.Values[j].Value)
			if ea == nil && eb == nil {
				return a < b
			}
			return false
		})
	}
}

func parseFlags(s string) uint32 {
	v, _ := parseFlagsOK(s)
	return v
}

// parseFlagsOK reads AddReg/AddService flags: empty is 0, 0x... is hex.
func parseFlagsOK(s string) (uint32, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, true
	}
	base := 10
	if strings.HasPrefix(s, "0x") {
		s, base = s[2:], 16
	}
	v, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0, false
	}
	return uint32(v), true
}

// notef adds a note about line of f once.
func (r *resolver) notef(f *File, line int, format string, a ...any) {
	n := fmt.Sprintf("%s line %d: ", f.Name, line) + fmt.Sprintf(format, a...)
	if !slices.Contains(r.in.Notes, n) {
		r.in.Notes = append(r.in.Notes, n)
	}
}

// lineList writes line numbers as "line 7" or "lines 7-9, 12".
func lineList(nums []int) string {
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", nums[i], nums[j]))
		} else {
			parts = append(parts, fmt.Sprint(nums[i]))
		}
		i = j + 1
	}
	if len(nums) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// names are the expanded, non-empty section names of a directive.
func names(f *File, l Line, lang string) []string {
	var out []string
	for _, n := range l.Fields {
		if n = strings.TrimSpace(f.Expand(n, lang)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Keyword returns the keyword named name (ignoring case), or nil.
func (in *Install) Keyword(name string) *Keyword {
	for i := range in.Keywords {
		if strings.EqualFold(in.Keywords[i].Name, name) {
			return &in.Keywords[i]
		}
	}
	return nil
}

// IsDWORD reports whether an AddReg value is REG_DWORD (FLG_ADDREG_TYPE_DWORD).
func (v Value) IsDWORD() bool { return v.Flags&flgTypeMask == 0x00010001 }
