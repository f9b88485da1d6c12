package inf

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/textdec"
)

// RSSKeywords are the standardized INF keywords for receive side scaling
// (Microsoft's "Standardized INF Keywords for RSS"). An adapter whose INF
// installs only *RSS and *NumRSSQueues gets no say over which processors
// RSS uses.
var RSSKeywords = []string{
	"*RSS", "*NumRSSQueues", "*RSSProfile", "*MaxRssProcessors",
	"*RssBaseProcGroup", "*RssBaseProcNumber", "*RssMaxProcGroup", "*RssMaxProcNumber", "*NumaNodeId",
}

// IsRSS reports whether name is a standardized RSS keyword.
func IsRSS(name string) bool {
	for _, k := range RSSKeywords {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// DeviceReport is what a device gets from an INF on a target Windows.
type DeviceReport struct {
	File          string `json:"file"`
	Device        string `json:"device"`
	Target        Target `json:"target"`
	Manufacturer  string `json:"manufacturer"`
	Decoration    string `json:"decoration"` // as written; "" for the undecorated section
	ModelsSection string `json:"models_section"`
	// IDs are the hardware and compatible IDs Windows builds for the
	// device from the ID given; Match is the line of the chosen models
	// section they match best.
	IDs   DeviceIDs `json:"device_ids"`
	Model *Model    `json:"model,omitempty"`
	// NotInstalled says why the INF installs nothing for the device on
	// the target Windows ("" when it does: Model is set). The text
	// output leads with it; Notes holds it too.
	NotInstalled   string    `json:"not_installed,omitempty"`
	Match          *Match    `json:"match,omitempty"`
	InstallSection string    `json:"install_section"`
	Keywords       []Keyword `json:"keywords"`
	Values         []Value   `json:"values,omitempty"`
	// Service is the driver the install section installs (see Install.Service).
	Service string   `json:"service,omitempty"`
	RSS     []string `json:"rss"` // standardized RSS keywords installed
	// MissingRSS are standardized RSS keywords that another install
	// section of the same INF installs and the device's does not.
	MissingRSS []string `json:"missing_rss"`
	// MissingRSSFrom names, per missing keyword, the other decorations that
	// install it for this same device.
	MissingRSSFrom map[string][]string `json:"missing_rss_from,omitempty"`
	// DonorSection names, per missing keyword, the install section whose
	// definition --reg-out copies (Donors says why that one).
	DonorSection map[string]string `json:"donor_section,omitempty"`
	Donors       []Donor           `json:"donors,omitempty"`
	// NotInINF are standardized RSS keywords no install section of the INF
	// installs.
	NotInINF     []string           `json:"rss_not_in_inf"`
	OtherProduct *OtherProduct      `json:"other_product,omitempty"`
	Decorations  []DecorationReport `json:"decorations"`
	Candidates   []Candidate        `json:"candidates"`
	Notes        []string           `json:"notes,omitempty"`
	installs     map[string]*Install
	// deviceLines and deviceIDs give, per models section (lower case),
	// the line that lists the device and the ID it matched.
	deviceLines map[string]int
	deviceIDs   map[string]string
	notes       noteSet
}

// How a donor install section relates to the device, closest first: the
// order in which donors are preferred.
const (
	// The same device's line in another models section (decoration).
	SameDevice = "same_device"
	// Another device whose install section installs the same driver: the
	// same family, most likely to implement the same keywords.
	SameDriver = "same_driver"
	// The donor or the device names no driver, so the family is unknown.
	UnknownDriver = "unknown_driver"
	// Another driver of the same INF: it may not implement the keyword.
	OtherDriver = "other_driver"
)

// Donor is an install section of the same INF that installs standardized
// RSS keywords the device's own install section lacks.
type Donor struct {
	InstallSection string `json:"install_section"` // with its platform extension
	ModelsSection  string `json:"models_section"`
	Decoration     string `json:"decoration"`
	Description    string `json:"description"`
	HardwareID     string `json:"hardware_id"` // "" when the line leaves it empty (Model.NoHardwareID)
	Line           int    `json:"line"`        // of the models line
	Service        string `json:"service,omitempty"`
	Relation       string `json:"relation"`
	// Keywords are the missing keywords taken from this donor.
	Keywords []string `json:"keywords"`
	install  *Install
	// tier (closeness) and order (in the INF) rank donors
	tier, order int
}

// OtherProduct is what the same Windows version of the other product type
// (server for a workstation target, and back) would use.
type OtherProduct struct {
	ProductType    int      `json:"product_type"`
	Decoration     string   `json:"decoration"`
	InstallSection string   `json:"install_section,omitempty"`
	ListsDevice    bool     `json:"lists_device"`
	RSS            []string `json:"rss,omitempty"`
}

// DecorationReport is one models section that lists the device.
type DecorationReport struct {
	Decoration     string   `json:"decoration"`
	Describe       string   `json:"describe"`
	ModelsSection  string   `json:"models_section"`
	HardwareID     string   `json:"hardware_id"` // the INF ID the device matched
	Rank           int      `json:"rank"`        // see Match.Rank
	InstallSection string   `json:"install_section"`
	Applies        bool     `json:"applies"`
	Reason         string   `json:"reason,omitempty"`
	Chosen         bool     `json:"chosen"`
	RSS            []string `json:"rss"`
	Keywords       []string `json:"keywords"`
}

// Analyze follows device through the INF for target t.
func Analyze(f *File, device string, t Target, lang string, load Loader) (*DeviceReport, error) {
	return analyze(f, device, t, lang, load, &work{})
}

// analyze is Analyze charging its work to w.
func analyze(f *File, device string, t Target, lang string, load Loader, w *work) (*DeviceReport, error) {
	mans, err := f.Manufacturers(lang)
	if err != nil {
		return nil, err
	}
	rep := &DeviceReport{File: f.Name, Device: device, Target: t, installs: map[string]*Install{}, deviceLines: map[string]int{}, deviceIDs: map[string]string{}, Keywords: []Keyword{}, MissingRSS: []string{}, RSS: []string{}}
	ids, err := ParseDeviceID(device)
	if err != nil {
		return nil, err
	}
	rep.IDs = ids
	if n := busIDNote(ids); n != "" {
		rep.note(n) // how the ID given was matched, for a bus other than PCI
	}
	for _, n := range f.Notes {
		rep.note(n)
	}
	for _, n := range placeholderNotes(f, mans, t) {
		rep.note(n)
	}
	var man *Manufacturer
	type hit struct {
		d       Decoration
		section string
		sm      sectionMatch
	}
	var found []hit
	for i := range mans {
		var skipped []string
		for _, d := range mans[i].AllDecorations(f) {
			sec := mans[i].ModelsSection(d)
			models, notes := f.models(sec, lang)
			skipped = append(skipped, notes...)
			if sm := matchSection(models, ids, sec); sm.match() != nil || sm.ambiguous != nil {
				found = append(found, hit{d, sec, sm})
			}
		}
		if len(found) > 0 {
			man = &mans[i]
			for _, n := range skipped {
				rep.note(n)
			}
			break
		}
	}
	if man == nil {
		ids0 := allIDs(f, mans, lang)
		eg := ""
		if len(ids0) > 0 {
			eg = fmt.Sprintf("; it lists %d, e.g. %s", len(ids0), strings.Join(ids0[:min(3, len(ids0))], ", "))
		}
		var fewer []string
		for _, id := range ids0 {
			if ids.fewerParts(id) {
				fewer = append(fewer, id)
			}
		}
		if len(fewer) > 0 {
			eg += fmt.Sprintf("; Windows may match %s through a compatible ID latlab does not build for %s IDs: give it as written to analyse its line", firstOf(fewer), ids.bus)
		}
		return nil, fmt.Errorf("device %q is in no models section of %s%s", device, f.Name, eg)
	}
	rep.Manufacturer = man.Name
	best, cands := f.Choose(*man, t)
	rep.Candidates = cands
	type hitModel struct {
		d     Decoration
		model Model
		id    string
		match *Match
	}
	var hits []hitModel
	for _, h := range found {
		chosen := best != nil && best.Decoration.Raw == h.d.Raw
		if e := h.sm.ambiguous; e != nil {
			if chosen {
				return nil, e
			}
			rep.note(fmt.Sprintf("[%s] not compared: %q lacks %s, on which %d of its lines with different install sections depend", h.section, device, strings.Join(e.Lacks, " and "), len(e.Lines)))
			continue
		}
		m := h.sm.match()
		if g := h.sm.guess; g != nil && chosen {
			lacks := strings.Join(g.Assumes, " and ")
			rep.note(fmt.Sprintf("%q names no line of [%s] exactly; its lines that also name %s all lead to [%s]: taken line %d (%s), which Windows installs only if the device's full ID has the same %s",
				device, h.section, lacks, g.model.InstallSection, g.Line, g.INFID, lacks))
		}
		hits = append(hits, hitModel{h.d, m.model, m.INFID, m})
	}
	union := map[string][]string{} // RSS keyword -> decorations installing it
	var refs refGroups             // Include=/Needs= notes, said once each
	for _, h := range hits {
		// Each decoration's install section takes its own architecture's
		// extension, as in the listing (sectionTarget).
		in, err := f.resolve(h.model.InstallSection, sectionTarget(h.d, t), lang, load, w)
		chosen := best != nil && best.Decoration.Raw == h.d.Raw
		if err != nil && !chosen {
			// A models section Windows does not use here may name an
			// install section the INF lacks (NVIDIA's nvefd64A.inf keeps
			// an x86 [Nvidia] whose sections it dropped): Windows never
			// follows it, so neither does the answer.
			rep.note(fmt.Sprintf("[%s], which Windows does not use here, names install section [%s] on line %d, which cannot be followed: %v",
				man.ModelsSection(h.d), h.model.InstallSection, h.model.Line, err))
			continue
		}
		if err != nil {
			return nil, err
		}
		rep.installs[h.d.Raw] = in
		dr := DecorationReport{
			Decoration: h.d.Raw, Describe: h.d.Describe(), ModelsSection: man.ModelsSection(h.d), HardwareID: h.id,
			InstallSection: in.Section, Rank: h.match.Rank, RSS: []string{}, Keywords: []string{},
		}
		dr.Applies, dr.Reason = h.d.Applies(t)
		dr.Chosen = chosen
		for _, k := range in.Keywords {
			dr.Keywords = append(dr.Keywords, k.Name)
			if IsRSS(k.Name) {
				dr.RSS = append(dr.RSS, canonicalRSS(k.Name))
				union[canonicalRSS(k.Name)] = append(union[canonicalRSS(k.Name)], DecorationName(h.d.Raw))
			}
		}
		refs.add(in, rep.note)
		rep.Decorations = append(rep.Decorations, dr)
		rep.deviceLines[strings.ToLower(dr.ModelsSection)] = h.model.Line
		rep.deviceIDs[strings.ToLower(dr.ModelsSection)] = h.id
		if dr.Chosen {
			m := h.model
			rep.Model = &m
			rep.Match = h.match
			rep.Decoration = h.d.Raw
			rep.ModelsSection = dr.ModelsSection
			rep.InstallSection = in.Section
			rep.Keywords = in.Keywords
			rep.Values = in.Values
			rep.RSS = dr.RSS
			rep.Service = in.Service
		}
	}
	switch {
	case best == nil:
		rep.NotInstalled = fmt.Sprintf("no models section of %s applies to Windows %d.%d.%d %s %s: the driver does not install there", man.Name, t.Major, t.Minor, t.Build, ProductName(t.ProductType), t.Arch)
		rep.note(rep.NotInstalled)
	case rep.Model == nil:
		rep.Decoration, rep.ModelsSection = best.Decoration.Raw, best.Section
		rep.NotInstalled = fmt.Sprintf("Windows %d.%d.%d %s uses [%s], which does not list %s: this INF does not install the device there", t.Major, t.Minor, t.Build, ProductName(t.ProductType), best.Section, device)
		rep.note(rep.NotInstalled)
	}
	rep.MissingRSSFrom = map[string][]string{}
	for _, k := range RSSKeywords {
		if decos, ok := union[k]; ok && rep.Model != nil && !slices.Contains(rep.RSS, k) {
			rep.MissingRSSFrom[k] = decos
		}
	}
	if len(rep.MissingRSSFrom) == 0 {
		rep.MissingRSSFrom = nil
	}
	if err := rep.findDonors(f, mans, t, lang, load, w); err != nil {
		return nil, err
	}
	rep.OtherProduct = otherProduct(f, *man, t, device, lang, rep)
	for _, n := range refs.notes() {
		rep.note(n)
	}
	rep.notes.finish(&rep.Notes)
	return rep, nil
}

func otherProduct(f *File, man Manufacturer, t Target, device, lang string, rep *DeviceReport) *OtherProduct {
	t2 := t
	if t.ProductType == Workstation {
		t2.ProductType = Server
	} else {
		t2.ProductType = Workstation
	}
	best, _ := f.Choose(man, t2)
	if best == nil {
		return nil
	}
	op := &OtherProduct{ProductType: t2.ProductType, Decoration: best.Decoration.Raw}
	if in, ok := rep.installs[best.Decoration.Raw]; ok {
		op.ListsDevice = true
		op.InstallSection = in.Section
		for _, k := range in.Keywords {
			if IsRSS(k.Name) {
				op.RSS = append(op.RSS, canonicalRSS(k.Name))
			}
		}
	}
	return op
}

// DecorationName is how a decoration is shown: as written, or
// "(undecorated)" for the undecorated models section.
func DecorationName(raw string) string {
	if raw == "" {
		return "(undecorated)"
	}
	return raw
}

func canonicalRSS(name string) string {
	for _, k := range RSSKeywords {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return name
}

func allIDs(f *File, mans []Manufacturer, lang string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range mans {
		for _, d := range m.AllDecorations(f) {
			for _, md := range f.Models(m.ModelsSection(d), lang) {
				for _, h := range md.HardwareIDs {
					if !seen[strings.ToUpper(h)] {
						seen[strings.ToUpper(h)] = true
						out = append(out, h)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// DonorOf returns the definition of a missing keyword from its donor
// install section, and the donor.
func (rep *DeviceReport) DonorOf(name string) (*Keyword, *Donor) {
	for i := range rep.Donors {
		d := &rep.Donors[i]
		if !containsFold(d.Keywords, name) {
			continue
		}
		if k := d.install.Keyword(name); k != nil {
			return k, d
		}
	}
	return nil, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Listing is every device of an INF per decoration.
type Listing struct {
	File          string                `json:"file"`
	Target        Target                `json:"target"`
	Manufacturers []ManufacturerListing `json:"manufacturers"`
	// Notes are lines latlab skipped in the models sections and install
	// chains it read, with their line numbers.
	Notes []string `json:"notes,omitempty"`
	notes noteSet
}

// ManufacturerListing lists one manufacturer's models sections.
type ManufacturerListing struct {
	Name     string           `json:"name"`
	Sections []SectionListing `json:"sections"`
}

// SectionListing is one models section and its devices.
type SectionListing struct {
	Candidate
	Describe string          `json:"describe"`
	Chosen   bool            `json:"chosen"`
	Devices  []DeviceListing `json:"devices"`
}

// DeviceListing is one device line with its resolved install section.
type DeviceListing struct {
	Description string   `json:"description"`
	HardwareIDs []string `json:"hardware_ids"`
	// NoHardwareID: the line leaves its hardware ID empty and every ID of
	// HardwareIDs is a compatible ID (Model.NoHardwareID).
	NoHardwareID   bool   `json:"no_hardware_id,omitempty"`
	InstallSection string `json:"install_section"` // with the platform extension Windows picks
	Line           int    `json:"line"`
}

// List lists every device ID with its install section per decoration.
// Every install section is followed through Include/Needs so that a broken
// chain (a Needs loop) is reported here too.
func List(f *File, t Target, lang string, load Loader) (*Listing, error) {
	return list(f, t, lang, load, &work{})
}

// list is List charging its work to w.
func list(f *File, t Target, lang string, load Loader, w *work) (*Listing, error) {
	mans, err := f.Manufacturers(lang)
	if err != nil {
		return nil, err
	}
	l := &Listing{File: f.Name, Target: t}
	l.note(f.Notes...)
	l.note(placeholderNotes(f, mans, t)...)
	// Each install section is followed once, however many models lines
	// name it, and all of them share one bound on the work.
	resolved := map[*Section]bool{}
	var refs refGroups // Include=/Needs= notes, said once each
	listed := 0
	for _, m := range mans {
		ml := ManufacturerListing{Name: m.Name}
		best, cands := f.Choose(m, t)
		for _, c := range cands {
			sl := SectionListing{Candidate: c, Describe: c.Decoration.Describe(), Chosen: best != nil && best.Section == c.Section, Devices: []DeviceListing{}}
			models, notes := f.models(c.Section, lang)
			for _, md := range models {
				listed += 1 + len(md.HardwareIDs)
			}
			if listed > maxListed {
				return nil, &ParseError{Line: f.Section(c.Section).Line, Msg: fmt.Sprintf("its models sections list more than %d devices and IDs (the limit was reached in [%s]): expected a driver INF's models sections, which list far fewer", maxListed, textdec.Clip(c.Section))}
			}
			l.note(notes...)
			st := sectionTarget(c.Decoration, t)
			for _, md := range models {
				inst := md.InstallSection
				if s := f.installSection(md.InstallSection, st); s != nil {
					inst = s.Name
					if !resolved[s] {
						resolved[s] = true
						in, err := f.resolve(md.InstallSection, st, lang, load, w)
						if err != nil {
							return nil, err
						}
						refs.add(in, func(n string) { l.note(n) })
					}
				}
				sl.Devices = append(sl.Devices, DeviceListing{Description: md.Description, HardwareIDs: md.HardwareIDs, NoHardwareID: md.NoHardwareID, InstallSection: inst, Line: md.Line})
			}
			ml.Sections = append(ml.Sections, sl)
		}
		l.Manufacturers = append(l.Manufacturers, ml)
	}
	if err := noDevice(l, mans); err != nil {
		return nil, err
	}
	l.note(refs.notes()...)
	l.notes.finish(&l.Notes)
	return l, nil
}

// sectionTarget is t on the architecture a models section is for, whose
// install sections take that architecture's platform extension: Cirrus
// Logic's CL_Audio.inf lists the same install sections in
// [MfgModelSection.ntx86.6.1] and [MfgModelSection.ntamd64.6.1], and x86
// Windows installs [HDAudio....ntx86] from the first, not the .ntamd64
// that the target's architecture picks. An undecorated or plain NT
// models section is for x86; NT$ARCH$ stands for the target's.
func sectionTarget(d Decoration, t Target) Target {
	switch {
	case d.ArchPlaceholder:
	case d.Arch != "":
		t.Arch = d.Arch
	default:
		t.Arch = "x86"
	}
	return t
}

// noDevice is the error of a listing without a device: every models
// section [Manufacturer] names is missing (a file cut short) or empty.
// Windows installs nothing from such an INF, and a listing of none is
// no answer.
func noDevice(l *Listing, mans []Manufacturer) error {
	var missing, empty, skipped []string
	for _, m := range mans {
		for _, s := range m.Skipped {
			skipped = append(skipped, "["+m.Models+"."+s.Raw+"]")
		}
	}
	for i, m := range l.Manufacturers {
		if len(m.Sections) == 0 && i < len(mans) {
			// no decoration and no undecorated section: the one
			// [Manufacturer] names is missing (DP_LAN's feand5.inf, whose
			// "\" continuation before [Myson] makes the header part of
			// the line above)
			missing = append(missing, "["+mans[i].Models+"]")
		}
		for _, s := range m.Sections {
			if len(s.Devices) > 0 {
				return nil
			}
			if s.Exists {
				empty = append(empty, "["+s.Section+"]")
			} else {
				missing = append(missing, "["+s.Section+"]")
			}
		}
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, fmt.Sprintf("the file has none of %s (cut short?)", firstOf(missing)))
	}
	if len(empty) > 0 {
		verb := "list"
		if len(empty) == 1 {
			verb = "lists"
		}
		why = append(why, fmt.Sprintf("%s %s no device", firstOf(empty), verb))
	}
	if len(skipped) > 0 {
		why = append(why, fmt.Sprintf("it skips %s, whose decorations are not NT TargetOSVersions Windows selects", firstOf(skipped)))
	}
	return fmt.Errorf("no device in the models sections [Manufacturer] names: %s; expected models lines Description = InstallSection, HardwareID", strings.Join(why, ", and "))
}

// firstOf joins the first three names, and counts the rest.
func firstOf(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}

func (l *Listing) note(notes ...string) {
	for _, n := range notes {
		l.notes.add(&l.Notes, n)
	}
}

// placeholderNotes says where the INF is a driver source, not a built INF,
// and which decorations are skipped (Manufacturer.Skipped).
func placeholderNotes(f *File, mans []Manufacturer, t Target) []string {
	var out []string
	for _, m := range mans {
		for _, s := range m.Skipped {
			out = append(out, fmt.Sprintf("%s line %d: [%s.%s] skipped: %s", f.Name, m.Line, m.Models, s.Raw, s.Reason))
		}
		for _, d := range m.Decorations {
			if d.ArchPlaceholder {
				out = append(out, fmt.Sprintf("%s line %d: NT$ARCH$ is the placeholder a driver build (stampinf) replaces with the architecture it builds for; taken as NT%s", f.Name, m.Line, t.Arch))
				break
			}
		}
	}
	return out
}
