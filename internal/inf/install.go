package inf

import (
	"fmt"
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
	// Skipped are the decorations that are not Windows NT's
	// TargetOSVersion (ME, Win64, NTmips, NTamd64.ten ...): Windows
	// selects none of their models sections, and nothing reads them.
	Skipped []SkippedDecoration `json:"skipped,omitempty"`
	Line    int                 `json:"line"`
}

// SkippedDecoration is a decoration of [Manufacturer] that no Windows
// latlab targets selects, and why.
type SkippedDecoration struct {
	Raw    string `json:"raw"`
	Reason string `json:"reason"`
}

// Manufacturers reads [Manufacturer]. A decoration that is not an NT
// TargetOSVersion is skipped (Skipped), not an error: 3Com's el2000x.inf
// lists "3COM,ME,NT,NT.5.1", whose [3COM.ME] is for Windows Me (its
// [Version] says MillenniumPreferred = .ME), and Windows 2000 and later
// install from its NT sections. Microsoft's "Combining platform extensions
// with operating system versions"
// (https://learn.microsoft.com/windows-hardware/drivers/install/combining-platform-extensions-with-operating-system-versions)
// defines the decoration as nt[Architecture][.[OSMajorVersion]...], nt
// "Specifies that the target operating system is NT-based. Windows 2000
// and later versions of Windows are all NT-based", and says nothing of a
// decoration that does not follow it; Wine's SetupAPI
// (dlls/setupapi/devinst.c, version_is_compatible and
// enum_compat_drivers_from_file) passes over each decoration whose part
// before the first '.' is neither NT nor NT<its architecture> and takes
// the manufacturer if another one is.
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
			// as substituted: white space a %strkey% brings stays, as
			// in the decoration Wine's enum_compat_drivers_from_file
			// reads with SetupGetStringFieldW and version_is_compatible
			// compares (wcsnicmp, up to the first '.'), so " NTamd64"
			// is no NT decoration (ParseDecoration)
			raw = f.Expand(raw, lang)
			if raw == "" {
				// An empty decoration is compatible to Wine's
				// version_is_compatible, which compares the text before
				// the first '.' for its length:
				//
				//	if ((p = wcschr(version, '.')))
				//	    len = p - version;
				//
				//	if (!wcsnicmp(version, NtExtension + 1, len))
				//	    return TRUE;
				//
				// so enum_compat_drivers_from_file reads the
				// manufacturer's models, from the section
				// SetupDiGetActualSectionToInstallW picks for the base
				// name (.NT<arch>, .NT, then the undecorated one), as for
				// a line with no decorations: under Wine on amd64
				// (TestINFModelsSetupAPI) "M = A, NTx86," lists [A]'s
				// device and "M = B, NTx86" none. In latlab's terms the
				// field names the undecorated models section, which
				// Choose considers whenever the INF has it
				// (AllDecorations), so it adds nothing here. Wine's
				// section choice by platform extension is its own:
				// Windows picks by TargetOSVersion and, on other than
				// x86, needs a decoration (decoration.go, Applies).
				continue
			}
			d, err := ParseDecoration(raw)
			if err != nil {
				m.Skipped = append(m.Skipped, SkippedDecoration{Raw: d.Raw, Reason: skipReason(d.Raw, err)})
				continue
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

// skipReason says why a decoration ParseDecoration refused is passed over.
func skipReason(raw string, err error) string {
	if !strings.HasPrefix(strings.ToLower(raw), "nt") {
		return fmt.Sprintf("%s is not an NT decoration (NT[arch][.major[.minor...]]): Windows 2000 and later, all NT-based, never select it", raw)
	}
	return err.Error() + "; Microsoft gives it no meaning and latlab never selects it"
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
	// NoHardwareID: the line leaves its hardware ID empty
	// ("install-section-name,[hw-id][,compatible-id...]", INF Models
	// section) and every ID of HardwareIDs is a compatible ID, the first
	// at position 1 of the line.
	NoHardwareID bool `json:"no_hardware_id,omitempty"`
	Line         int  `json:"line"`
	// positions holds each ID's position on the line (0 the hardware
	// ID, 1+ the compatible IDs) when an empty field before it takes one;
	// nil when the IDs follow each other (Position).
	positions []int
}

// Position is the position on the line of HardwareIDs[i]: 0 for the
// line's hardware ID, k+1 for its compatible ID k. An empty field counts:
// "Desc = S, , CID" has CID at 1 (NoHardwareID), "Desc = S, HW, , CID" at
// 2 (see models).
func (m Model) Position(i int) int {
	if m.positions != nil {
		return m.positions[i]
	}
	if m.NoHardwareID {
		return i + 1
	}
	return i
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
	var kept noteSet
	skip := func(l Line, why string) {
		kept.add(&notes, fmt.Sprintf("%s line %d: [%s] %s; skipped (a models line is Description = InstallSection, HardwareID[, CompatibleID...])", f.Name, l.Num, s.Name, why))
	}
	for _, l := range s.Lines {
		switch {
		case !l.HasKey:
			skip(l, "line has no '='")
			continue
		case f.Expand(l.Field(0), lang) == "":
			// An install section of white space is a name: Wine's
			// enum_compat_drivers_from_file reads it with
			// SetupGetStringFieldW, and under Wine (TestINFModelsSetupAPI)
			// a device's line whose section is a quoted " " is a driver
			// for it with section " " (latlab skipped the line, trimming
			// the name). An empty one is a driver there too, with section
			// "", which SetupDiInstallDevice turns into a section named
			// ".NT<arch>", ".NT" or "" (SetupDiGetActualSectionToInstallW):
			// it names no install section, and latlab skips the line.
			skip(l, "line names no install section")
			continue
		}
		m := Model{Description: f.Expand(l.Key, lang), InstallSection: f.Expand(l.Field(0), lang), Line: l.Num}
		// An empty field between IDs (Desc = S, HW, , CID) takes a
		// position: CID is the line's compatible ID 1, not 0, in the
		// rank's 0x3000 + j + k*0x100. Microsoft's pages do not say:
		// "INF Models section"
		// (https://learn.microsoft.com/windows-hardware/drivers/install/inf-models-section)
		// gives the line as install-section-name,[hw-id][,compatible-id...],
		// compatible IDs "each separated from the next by a comma", and
		// "Identifier Score"
		// (https://learn.microsoft.com/windows-hardware/drivers/install/identifier-score--windows-vista-and-later-)
		// k as "the identifier-list-position score of the matching
		// compatible ID in an INF Models section entry". Wine's SetupAPI
		// does: its parser (dlls/setupapi/parser.c, value_name_state)
		// makes every comma end a field, empty or not, and
		// enum_compat_drivers_from_file (dlls/setupapi/devinst.c) walks the
		// fields from 2 with SetupGetStringFieldW, the k-th ranking
		// 0x1000 + 0x100*(k-2) plus 0x2000 for a compatible ID, an empty
		// field matching nothing but counting. latlab counts as Wine.
		var pos []int
		gap := 0 // the first empty field followed by an ID, after the hardware ID's
		for i, id := range l.Fields[1:] {
			// An ID as substituted, untrimmed: Wine's
			// enum_compat_drivers_from_file reads each with
			// SetupGetStringFieldW, which trims nothing a %strkey%
			// brings (PARSER_string_substW copies it), and
			// device_matches_id compares it whole with the device's IDs
			// (wcsicmp), so an ID with white space at an end matches no
			// device, and one of white space alone matches none, as an
			// empty field does: both hold a place and are no ID here.
			if id = f.Expand(id, lang); strings.TrimFunc(id, isSpace) != "" {
				m.HardwareIDs = append(m.HardwareIDs, id)
				pos = append(pos, i)
			} else if i > 0 && gap == 0 {
				gap = i
			}
		}
		if len(m.HardwareIDs) == 0 {
			skip(l, "line names no hardware ID")
			continue
		}
		m.NoHardwareID = strings.TrimFunc(f.Expand(l.Field(1), lang), isSpace) == ""
		if gap > 0 && gap < pos[len(pos)-1] {
			m.positions = pos
			next := 0
			for pos[next] < gap {
				next++
			}
			kept.add(&notes, fmt.Sprintf("%s line %d: [%s] an empty field holds the place of compatible ID %d and matches no device; %s after it is compatible ID %d, as Wine's SetupAPI counts (Microsoft's INF Models section page does not say)", f.Name, l.Num, s.Name, gap-1, m.HardwareIDs[next], pos[next]-1))
		}
		out = append(out, m)
	}
	kept.finish(&notes)
	return out, notes
}

// Install is what a DDInstall section installs.
type Install struct {
	Section  string    `json:"install_section"` // as found, with its platform extension
	Line     int       `json:"line"`
	AddReg   []Ref     `json:"addreg"`
	DelReg   []Ref     `json:"delreg,omitempty"`
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
	notes      noteSet
	// refNotes are the notes of Include= and Needs= lines naming what
	// was not found, also in Notes.
	refNotes []refNote
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

// Registry flags of AddReg lines that change what a line does
// (FLG_ADDREG_* in setupapi.h).
const (
	flgBinValueType = 0x00000001
	flgDelVal       = 0x00000004
	flgKeyOnly      = 0x00000010
	flgTypeMask     = 0xFFFF0001
	flgTypeMultiSz  = 0x00010000
	flgTypeDWORD    = 0x00010001
)

// valueData is the data an AddReg line writes, from its fifth field on
// ([value][,[value]...] in Microsoft's INF AddReg directive). Only a
// REG_MULTI_SZ value is a list of strings and a binary one a list of
// bytes; a string value (REG_SZ, REG_EXPAND_SZ), and a REG_DWORD given as
// one number, is the fifth field alone (as Wine's reimplementation of
// SetupAPI reads it, SetupGetStringField of field 5): Intel's
// NETwLv64.inf writes `HKR, Ndi\Params\WirelessMode, Type, 0, "enum",`,
// whose type is "enum", not "enum,". A REG_DWORD given as up to four hex
// bytes (an empty one is 0) is their number, low byte first; other lists
// are kept as written.
func valueData(f *File, l Line, flags uint32, lang string) string {
	if len(l.Fields) <= 4 {
		return ""
	}
	typ := flags & flgTypeMask
	list := typ == flgTypeMultiSz || flags&flgBinValueType != 0
	if !list || (typ == flgTypeDWORD && len(l.Fields) == 5) {
		return f.Expand(l.Fields[4], lang)
	}
	data := make([]string, 0, len(l.Fields)-4)
	for _, v := range l.Fields[4:] {
		data = append(data, f.Expand(v, lang))
	}
	if typ == flgTypeDWORD && len(data) <= 4 {
		var v uint64
		for i, b := range data {
			b = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(b)), "0x")
			if b == "" {
				continue // an empty byte is 0
			}
			x, err := strconv.ParseUint(b, 16, 8)
			if err != nil {
				return strings.Join(data, ",")
			}
			v |= x << (8 * i)
		}
		return strconv.FormatUint(v, 10)
	}
	return strings.Join(data, ",")
}

// Resolve follows DDInstall section name for t: the platform extension
// Windows picks (.NT<arch>, .NT, none), Include/Needs (loops are errors),
// and every AddReg section in order, later entries overriding earlier ones.
func (f *File) Resolve(name string, t Target, lang string, load Loader) (*Install, error) {
	return f.resolve(name, t, lang, load, &work{})
}

// resolve is Resolve charging its work to w, which the other install
// sections of the same analysis share.
func (f *File) resolve(name string, t Target, lang string, load Loader, w *work) (*Install, error) {
	sec := f.installSection(name, t)
	if sec == nil {
		return nil, fmt.Errorf("install section [%s] not found (nor [%s.NT%s], [%s.NT])", name, name, t.Arch, name)
	}
	in := &Install{Section: sec.Name, Line: sec.Line, Keywords: []Keyword{}, byName: map[string]int{}}
	r := &resolver{in: in, t: t, lang: lang, load: load, work: w, files: map[string]*File{},
		done: map[*Section]bool{}, onStack: map[*Section]bool{}, applied: map[*Section]bool{}, deleted: map[*Section]bool{}, named: map[string]bool{},
		kwSections: map[string]bool{}, values: map[string]int{}, enums: map[string]int{}}
	if err := r.ddinstall(f, sec, nil); err != nil {
		return nil, err
	}
	r.finish()
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
			// the name as substituted: Wine's
			// SetupInstallServicesFromInfSectionW reads it with
			// SetupGetStringFieldW and add_service gives it to
			// CreateServiceW as it is
			return f.Expand(l.Field(0), lang)
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

// resolver follows one install section. Every lookup that a hostile INF
// could make long (the Needs chain, the sections applied, the directives
// already listed, the values and enum choices set) is a map, so the work
// is proportional to the entries processed, which work bounds.
type resolver struct {
	in    *Install
	t     Target
	lang  string
	load  Loader
	work  *work
	files map[string]*File
	// done holds the DDInstall/Needs sections followed, onStack those of
	// the Needs chain being followed (a loop), applied the AddReg
	// sections applied: each once per install section.
	done, onStack, applied map[*Section]bool
	// deleted holds the DelReg sections applied, each once too.
	deleted map[*Section]bool
	// named holds the directive entries listed already (file, line,
	// directive, section), so AddReg=R,R,R,... lists R once.
	named map[string]bool
	// kwSections holds keyword/section pairs in Keyword.Sections.
	kwSections map[string]bool
	// values indexes in.Values by lower-case name; enums indexes each
	// keyword's Values by keyword and value. A deleted entry is kept as
	// a blank (Name or Value "") until finish compacts the lists.
	values, enums map[string]int
}

// listed reports whether this directive entry was listed already, and
// marks it listed.
func (r *resolver) listed(f *File, line int, directive, section string) bool {
	k := f.Name + "\x00" + strconv.Itoa(line) + "\x00" + directive + "\x00" + strings.ToLower(section)
	if r.named[k] {
		return true
	}
	r.named[k] = true
	return false
}

// ddinstall processes one DDInstall (or Needs) section; stack holds the
// chain of Needs for the message of a loop, onStack the same for the check.
func (r *resolver) ddinstall(f *File, sec *Section, stack []*Section) error {
	if r.onStack[sec] {
		i := 0
		for i < len(stack) && stack[i] != sec {
			i++
		}
		var chain []string
		for _, c := range append(stack[i:], sec) {
			chain = append(chain, "["+c.Name+"]")
		}
		return &ParseError{Line: sec.Line, Msg: fmt.Sprintf("Needs loop in %s: %s; expected Needs= to name sections that do not lead back", f.Name, strings.Join(chain, " -> "))}
	}
	if r.done[sec] {
		return nil // reached again through another Needs: its entries are in already
	}
	if len(stack) >= MaxNeedsDepth {
		return &ParseError{Line: sec.Line, Msg: fmt.Sprintf("Needs chain in %s deeper than %d sections at [%s]: expected Needs= to name sections that need few others", f.Name, MaxNeedsDepth, textdec.Clip(sec.Name))}
	}
	if err := r.work.charge(f, sec); err != nil {
		return err
	}
	r.done[sec] = true
	r.onStack[sec] = true
	defer delete(r.onStack, sec)
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
		case "include", "addreg", "delreg", "needs":
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
				if r.listed(f, l.Num, "include", name) {
					continue
				}
				r.in.Include = append(r.in.Include, name)
				inc, err := r.open(name)
				if err != nil {
					r.refNotef(f, l.Num, "Include=%s not analysed: %v", name, err)
					continue
				}
				included = append(included, inc)
			}
		}
	}
	// DelReg before AddReg: within one install section Windows deletes
	// first, so that the section's AddReg writes what it deleted afresh.
	// Microsoft's pages on the directives ("INF DDInstall section",
	// https://learn.microsoft.com/windows-hardware/drivers/install/inf-ddinstall-section,
	// and "INF DelReg directive",
	// https://learn.microsoft.com/windows-hardware/drivers/install/inf-delreg-directive)
	// do not state the order; the DelReg page gives the directive's
	// purpose, "to clean stale registry information from a previous
	// installation", which only works before the new entries are written.
	// Wine's reimplementation of SetupAPI (SetupInstallFromInfSectionW in
	// dlls/setupapi/install.c) runs a section's DelReg lines, then its
	// AddReg lines, and Intel's e1r68x64.inf depends on it: its install
	// sections name DelReg = Advanced.DelReg, which deletes HKR,Ndi\Params,
	// beside the AddReg sections that write every keyword under it.
	for _, l := range sec.Lines {
		if l.HasKey && strings.EqualFold(l.Key, "DelReg") {
			if err := r.regSections(f, sec, l, "DelReg", &r.in.DelReg, r.deleted, r.delreg); err != nil {
				return err
			}
		}
	}
	for _, l := range sec.Lines {
		if !l.HasKey {
			continue
		}
		switch strings.ToLower(l.Key) {
		case "addreg":
			if err := r.regSections(f, sec, l, "AddReg", &r.in.AddReg, r.applied, r.addreg); err != nil {
				return err
			}
		case "needs":
			for _, name := range l.Fields {
				name = f.Expand(name, r.lang)
				if name == "" {
					continue
				}
				if r.listed(f, l.Num, "needs", name) {
					continue
				}
				target, s := r.findNeeds(f, included, name, sec)
				ref := Ref{Section: name, Line: l.Num, Found: s != nil}
				if target != nil {
					ref.File = target.Name
				}
				r.in.Needs = append(r.in.Needs, ref)
				if s == nil {
					r.refNotef(f, l.Num, "Needs=%s not found in this INF or its includes; its registry entries are not analysed", name)
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

// regSections applies the sections line l of install section sec names
// by directive (AddReg or DelReg), each once for the install section
// (done), and lists them in refs.
func (r *resolver) regSections(f *File, sec *Section, l Line, directive string, refs *[]Ref, done map[*Section]bool, apply func(*File, *Section) error) error {
	for _, name := range l.Fields {
		name = f.Expand(name, r.lang)
		if name == "" {
			continue
		}
		if r.listed(f, l.Num, strings.ToLower(directive), name) {
			continue
		}
		s := f.Section(name)
		*refs = append(*refs, Ref{Section: name, File: f.Name, Line: l.Num, Found: s != nil})
		if s == nil {
			r.note(fmt.Sprintf("%s line %d: %s=%s names a section the INF does not have", f.Name, l.Num, directive, name))
			continue
		}
		if done[s] {
			r.notef(f, l.Num, "[%s] %s=%s names a section this install section applies already; applied once", sec.Name, directive, name)
			continue
		}
		done[s] = true
		if err := apply(f, s); err != nil {
			return err
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
// includes, with the platform extensions Windows tries. A section never
// needs itself: Intel's e1q63x64.inf (82574L) writes
//
//	[NO_DRV]
//	Include = machine.inf
//	Needs   = NO_DRV
//
// which names machine.inf's [NO_DRV], the sections Needs names being
// "typically ... a DDInstall section within one of the INF files that are
// listed in an Include entry" ("INF DDInstall section",
// https://learn.microsoft.com/windows-hardware/drivers/install/inf-ddinstall-section).
// Found in the INF itself, it was refused as a Needs loop.
func (r *resolver) findNeeds(f *File, included []*File, name string, from *Section) (*File, *Section) {
	for _, g := range append([]*File{f}, included...) {
		for _, n := range []string{name, name + ".NT" + r.t.Arch, name + ".NT"} {
			if s := g.Section(n); s != nil && s != from {
				return g, s
			}
		}
	}
	return nil, nil
}

// addreg applies one AddReg section's HKR lines, and notes the lines it
// skips (lines that write outside the adapter's key are not keywords; the
// rest are malformed or hold what latlab does not read).
func (r *resolver) addreg(f *File, s *Section) error {
	return r.hkrEntries(f, s, "write", "root, subkey, value name, flags, value", func(l Line, subkey, name string, flags uint32) {
		val := valueData(f, l, flags, r.lang)
		low := strings.ToLower(subkey)
		switch {
		case low == "ndi" && strings.EqualFold(name, "Service"):
			r.in.ndiService = val // the value's data, as written to the registry
		case low == "":
			if name == "" {
				if flags&flgKeyOnly == 0 {
					r.notef(f, l.Num, "[%s] HKR entry with no subkey and no value name writes the key's default value, not a keyword; skipped", s.Name)
				}
				return
			}
			v := Value{Name: name, Data: val, Flags: flags, Line: l.Num}
			if flags&flgDelVal != 0 {
				r.deleteValue(name)
				return
			}
			if k, ok := r.in.byName[strings.ToLower(name)]; ok {
				r.in.Keywords[k].Value = &v
				return
			}
			// (a keyword with Ndi\Params entries took the branch above)
			if strings.HasPrefix(name, "*") {
				k := r.keyword(name, s.Name, l.Num)
				k.Value = &v
				return
			}
			r.setValue(v)
		case low == `ndi\params` && name != "":
			r.notef(f, l.Num, "[%s] Ndi\\Params entry names no keyword; skipped", s.Name)
		case strings.HasPrefix(low, `ndi\params\`):
			rest := subkey[len(`ndi\params\`):]
			kw, sub, _ := strings.Cut(rest, `\`)
			if kw == "" {
				r.notef(f, l.Num, "[%s] Ndi\\Params entry names no keyword; skipped", s.Name)
				return
			}
			k := r.keyword(kw, s.Name, l.Num)
			if flags&flgKeyOnly != 0 || name == "" {
				return
			}
			if strings.EqualFold(sub, "enum") {
				r.setEnum(k, name, val, flags&flgDelVal != 0)
				return
			}
			if sub != "" {
				r.notef(f, l.Num, "[%s] subkey %s of keyword %s is not read (only its values and Enum are); skipped", s.Name, textdec.Clip(sub), kw)
				return
			}
			r.setParam(k, name, val, flags&flgDelVal != 0)
		}
	})
}

// hkrEntries walks the registry entries of s, an AddReg or DelReg
// section (verb "write" or "delete", form the entry's fields for the
// notes): each entry on HKR goes to fn with its subkey (regSubkey), value
// name and flags. Entries on the other
// roots are not keywords: one note for the section names their lines. A
// malformed entry is noted and skipped.
func (r *resolver) hkrEntries(f *File, s *Section, verb, form string, fn func(l Line, subkey, name string, flags uint32)) error {
	if err := r.work.charge(f, s); err != nil {
		return err
	}
	// Entries for other roots are common (uninstall keys, services), so
	// they make one note per section.
	var outside []int
	roots := map[string]bool{}
	for _, l := range s.Lines {
		if l.HasKey {
			r.notef(f, l.Num, "[%s] line has '=' outside quotes, not a registry entry (%s); skipped", s.Name, form)
			continue
		}
		// the root as substituted: Wine's registry_callback reads it
		// with SetupGetStringFieldW and get_root_key compares it whole
		// ("if (!wcsicmp( name, L\"HKR\" )) return def_root;"), and
		// skips the line when it is none of the five, " HKR" too
		root := strings.ToUpper(f.Expand(l.Field(0), r.lang))
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
		subkey, ok := regSubkey(f.Expand(l.Field(1), r.lang))
		if !ok {
			r.notef(f, l.Num, "[%s] subkey %q starts with '\\', which the registry refuses (SetupAPI skips the entry); skipped", s.Name, textdec.Clip(subkey))
			continue
		}
		name := f.Expand(l.Field(2), r.lang)
		rawFlags := f.Expand(l.Field(3), r.lang)
		flags, ok := parseFlagsOK(rawFlags)
		if !ok {
			// registry_callback takes the flags as 0 and applies the
			// line: a REG_SZ value written, or for DelReg the value
			// deleted (parseFlagsOK)
			r.notef(f, l.Num, "[%s] flags %q are not a number SetupAPI reads (SetupGetIntField fails): taken as 0, as SetupAPI takes them", s.Name, textdec.Clip(rawFlags))
		}
		fn(l, subkey, name, flags)
	}
	if len(outside) > 0 {
		var rs []string
		for k := range roots {
			rs = append(rs, k)
		}
		sort.Strings(rs)
		what := "an " + strings.Join(rs, "/") + " entry " + verb + "s"
		if len(outside) > 1 {
			what = fmt.Sprintf("%d %s entries %s", len(outside), strings.Join(rs, "/"), verb)
		}
		r.note(fmt.Sprintf("%s %s: [%s] %s outside the adapter's key (HKR): not keywords, skipped", f.Name, lineList(outside), s.Name, what))
	}
	return nil
}

func (r *resolver) keyword(name, section string, line int) *Keyword {
	key := strings.ToLower(name)
	if i, ok := r.in.byName[key]; ok {
		k := &r.in.Keywords[i]
		if ks := key + "\x00" + section; !r.kwSections[ks] {
			r.kwSections[ks] = true
			k.Sections = append(k.Sections, section)
		}
		return k
	}
	// A keyword defined after its HKR,,Name value: move the value over.
	var val *Value
	if v := r.takeValue(name); v != nil {
		val = v
	}
	r.kwSections[key+"\x00"+section] = true
	r.in.Keywords = append(r.in.Keywords, Keyword{Name: name, Sections: []string{section}, Line: line, Value: val})
	r.in.byName[key] = len(r.in.Keywords) - 1
	return &r.in.Keywords[len(r.in.Keywords)-1]
}

func (r *resolver) setValue(v Value) {
	if i, ok := r.values[strings.ToLower(v.Name)]; ok {
		r.in.Values[i] = v
		return
	}
	r.values[strings.ToLower(v.Name)] = len(r.in.Values)
	r.in.Values = append(r.in.Values, v)
}

// takeValue removes the value named name (ignoring case) from in.Values
// and returns it, or nil.
func (r *resolver) takeValue(name string) *Value {
	key := strings.ToLower(name)
	i, ok := r.values[key]
	if !ok {
		return nil
	}
	v := r.in.Values[i]
	r.in.Values[i] = Value{} // a blank: finish removes it
	delete(r.values, key)
	return &v
}

func (r *resolver) deleteValue(name string) {
	if i, ok := r.in.byName[strings.ToLower(name)]; ok {
		r.in.Keywords[i].Value = nil
	}
	r.takeValue(name)
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

// setEnum sets or deletes one choice of an enum keyword. The choices are
// sorted once, by finish: sorting after every line made a keyword with
// many choices quadratic.
func (r *resolver) setEnum(k *Keyword, value, desc string, del bool) {
	key := strings.ToLower(k.Name) + "\x00" + value
	if i, ok := r.enums[key]; ok {
		if del {
			k.Values[i] = EnumValue{} // a blank: finish removes it
			delete(r.enums, key)
			return
		}
		k.Values[i].Desc = desc
		return
	}
	if !del {
		r.enums[key] = len(k.Values)
		k.Values = append(k.Values, EnumValue{Value: value, Desc: desc})
	}
}

// finish removes the blanks that deletions left (values, keywords and
// enum choices), sorts each keyword's
// enum choices (numbers in numeric order) and closes the notes.
func (r *resolver) finish() {
	vs := r.in.Values[:0]
	for _, v := range r.in.Values {
		if v.Name != "" {
			vs = append(vs, v)
		}
	}
	r.in.Values = vs
	ks := r.in.Keywords[:0]
	for _, k := range r.in.Keywords {
		if k.Name != "" {
			ks = append(ks, k)
		}
	}
	r.in.Keywords = ks
	clear(r.in.byName)
	for i, k := range r.in.Keywords {
		r.in.byName[strings.ToLower(k.Name)] = i
	}
	for i := range r.in.Keywords {
		k := &r.in.Keywords[i]
		es := k.Values[:0]
		for _, e := range k.Values {
			if e.Value != "" {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			es = nil
		}
		k.Values = es
		sort.SliceStable(k.Values, func(i, j int) bool {
			a, ea := strconv.Atoi(k.Values[i].Value)
			b, eb := strconv.Atoi(k.Values[j].Value)
			if ea == nil && eb == nil {
				return a < b
			}
			return false
		})
	}
	r.in.notes.finish(&r.in.Notes)
}

func parseFlags(s string) uint32 {
	v, _ := parseFlagsOK(s)
	return v
}

// parseFlagsOK reads a flags field (AddReg, DelReg, AddService) as
// SetupAPI's SetupGetIntField reads it, and false where it fails, when
// SetupAPI's callers take the flags as 0: registry_callback in Wine's
// dlls/setupapi/install.c
//
//	/* get flags */
//	if (!SetupGetIntField( &context, 4, &flags )) flags = 0;
//
// SetupInstallServicesFromInfSectionW the same for AddService's
// ("section_flags = 0"), and SetupDiInstallDevice (devinst.c) takes no
// service as the device's when it fails. SetupGetIntField (parser.c) gives
// 0 for an empty field and otherwise
//
//	res = strtol( buffer, &end, 0 );
//	if (end != buffer && !*end) *result = res;
//	else
//	{
//	    SetLastError( ERROR_INVALID_DATA );
//	    ret = FALSE;
//	}
//
// so white space is skipped before the number and refused after it, a
// sign is taken, 0x is hex and a leading 0 octal, and a number past an
// INT's range is clamped to it. Under Wine TestINFIntFieldSetupAPI reads
// each case of intFieldCases with SetupGetIntField.
func parseFlagsOK(s string) (uint32, bool) {
	v, ok := setupIntField(s)
	return uint32(v), ok
}

// setupIntField is SetupGetIntField's reading of a field as substituted:
// strtol with base 0 (C's white space, sign, 0x hex, 0 octal, clamping)
// over the whole text, an empty text 0.
func setupIntField(s string) (int32, bool) {
	if s == "" {
		return 0, true
	}
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := 10
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && hexDigit(s[i+2]):
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	var v uint64
	digits := 0
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if v <= 1<<32 {
			v = v*uint64(base) + uint64(d)
		}
		digits++
	}
	if digits == 0 || i < len(s) {
		return 0, false
	}
	if neg {
		if v > 1<<31 {
			v = 1 << 31
		}
		return int32(-int64(v)), true
	}
	if v > 1<<31-1 {
		v = 1<<31 - 1
	}
	return int32(v), true
}

func hexDigit(c byte) bool { return digitValue(c) < 16 }

// digitValue is c's value as a digit of base up to 16, 99 for none.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// notef adds a note about line of f once.
func (r *resolver) notef(f *File, line int, format string, a ...any) {
	r.note(fmt.Sprintf("%s line %d: ", f.Name, line) + fmt.Sprintf(format, a...))
}

// note adds a note once (within MaxNotes).
func (r *resolver) note(n string) { r.in.notes.add(&r.in.Notes, n) }

// regSubkey is the key an AddReg or DelReg line's subkey names under its
// root, as the registry reads the text SetupAPI gives it, and false when
// the registry refuses it. Wine's registry_callback passes the field as
// substituted, untrimmed, to RegCreateKeyExW (AddReg) or RegOpenKeyExW
// (DelReg):
//
//	/* get key */
//	if (!SetupGetStringFieldW( &context, 2, buffer, ARRAY_SIZE( buffer ), NULL ))
//	    *buffer = 0;
//	...
//	DWORD res = RegCreateKeyExW( root_key, buffer, 0, NULL, options,
//	                             MAXIMUM_ALLOWED, NULL, &hkey, NULL );
//	...
//	if (res)
//	{
//	    ERR( "could not create key %p %s\n", root_key, debugstr_w(buffer) );
//	    continue;
//	}
//
// and under Wine (TestINFSubkeySetupAPI) the registry refuses a subkey
// that starts with '\', so the line writes nothing, takes "a\" and
// "a\\b" as a and a\b, and keeps white space: " a" and "a " are keys of
// their own. latlab trimmed backslashes and spaces off both ends.
func regSubkey(s string) (string, bool) {
	if strings.HasPrefix(s, `\`) {
		return s, false
	}
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var parts []string
	for _, p := range strings.Split(s, `\`) {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, `\`), true
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
		if n = f.Expand(n, lang); n != "" {
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
