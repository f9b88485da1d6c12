package inf

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Windows does not match the one ID Device Manager shows first: the bus
// driver reports a list of hardware IDs and a list of compatible IDs, from
// the most to the least specific, and Windows ranks every INF line that
// names one of them. For a PCI function the lists are (Microsoft,
// "Identifiers for PCI Devices"; a setupapi.dev.log "Searching for
// compatible ID(s)" line shows the second):
//
//	hardware IDs:   VEN&DEV&SUBSYS&REV, VEN&DEV&SUBSYS, VEN&DEV&CC_ccsspp, VEN&DEV&CC_ccss
//	compatible IDs: VEN&DEV&REV, VEN&DEV, VEN&CC_ccsspp, VEN&CC_ccss, VEN, CC_ccsspp, CC_ccss
//
// The identifier part of a driver's rank is 0xTHHH (identifierScore):
// T says which of the device's lists and which of the INF line's IDs
// matched, HHH the matching ID's position in the device's list and, when
// both IDs are compatible IDs, also in the line's. Lower wins. An I225-V
// installed from Intel's e2f INF through its "PCI\VEN_8086&DEV_15F3&REV_03"
// line has rank 0x00FF2000: a compatible ID of the device, at position 0,
// equal to the line's hardware ID.

// idForm is the parts one ID of a device's list has, in the order Windows
// writes them. "CC6" and "CC4" are the class code with and without the
// programming interface.
type idForm []string

var (
	pciHardware   = []idForm{{"VEN", "DEV", "SUBSYS", "REV"}, {"VEN", "DEV", "SUBSYS"}, {"VEN", "DEV", "CC6"}, {"VEN", "DEV", "CC4"}}
	pciCompatible = []idForm{{"VEN", "DEV", "REV"}, {"VEN", "DEV"}, {"VEN", "CC6"}, {"VEN", "CC4"}, {"VEN"}, {"CC6"}, {"CC4"}}
	// A USB device's hardware IDs, and a USB interface's (MI_, the
	// interfaces of a composite device, enumerated by USBCCGP). Microsoft's
	// "Standard USB identifiers"
	// (https://learn.microsoft.com/windows-hardware/drivers/install/standard-usb-identifiers)
	// lists:
	//
	//	single-interface device:  device ID USB\VID_v(4)&PID_d(4)&REV_r(4)
	//	                          hardware ID USB\VID_v(4)&PID_d(4)
	//	                          compatible IDs USB\CLASS_c(2)&SUBCLASS_s(2)&PROT_p(2),
	//	                            USB\CLASS_c(2)&SUBCLASS_s(2), USB\CLASS_c(2)
	//	interface of a composite: device ID USB\VID_v(4)&PID_d(4)&MI_z(2)
	//	                          compatible IDs USB\CLASS_d(2)&SUBCLASS_s(2)&PROT_p(2),
	//	                            USB\CLASS_d(2)&SUBCLASS_s(2), USB\CLASS_d(2), USB\COMPOSITE
	//
	// For an interface it names the device ID, not the list of hardware
	// IDs. That list is in "Plug and Play support"
	// (https://learn.microsoft.com/windows-hardware/drivers/hid/plug-and-play-support),
	// whose hardware IDs are USB\Vid_xxxx&Pid_yyyy&Rev_zzzz and
	// USB\Vid_xxxx&Pid_yyyy for a device, and for an interface, as USBCCGP
	// "appends the interface number ... to the end of the hardware ID":
	//
	//	USB\Vid_xxxx&Pid_yyyy&Rev_zzzz&MI_ww
	//	USB\Vid_xxxx&Pid_yyyy&MI_ww
	//
	// The second is the first page's device ID. Built from the first page
	// alone, an interface's list would lack the ID the second page puts
	// first, and an INF line naming REV and MI would match no interface.
	// These two lists are built here. The compatible IDs are not: their
	// class codes come from the device's or the interface's descriptor,
	// which the ID does not carry, and USB\COMPOSITE, which the first
	// page gives an interface and the second the composite device itself,
	// comes after them.
	usbHardware = []idForm{{"VID", "PID", "REV", "MI"}, {"VID", "PID", "MI"}, {"VID", "PID", "REV"}, {"VID", "PID"}}
	// An HD Audio function's hardware IDs, from Microsoft's "Identifiers
	// for High Definition Audio (HDAUDIO) devices": "The first hwid is the
	// device id and the second hwid is the more general reference without
	// the revision number", the device ID being
	// HDAUDIO\FUNC_01&VEN_vvvv&DEV_dddd&SUBSYS_ssssssss&REV_rrrr. Its
	// compatible IDs are not built: the page says only that they are "a
	// list of IDs including different components from the full hardware
	// ID in order of increasing generality", some with the controller's
	// CTRL_VEN and CTRL_DEV, which the ID does not carry.
	hdaudioHardware = []idForm{{"FUNC", "VEN", "DEV", "SUBSYS", "REV"}, {"FUNC", "VEN", "DEV", "SUBSYS"}}
	busParts        = map[string][]string{
		"PCI":     {"VEN", "DEV", "SUBSYS", "REV", "CC"},
		"USB":     {"VID", "PID", "REV", "MI"},
		"HDAUDIO": {"FUNC", "VEN", "DEV", "SUBSYS", "REV"},
	}
)

// busForms are the forms of a bus's hardware and compatible IDs.
func busForms(bus string) (hw, compat []idForm) {
	switch bus {
	case "USB":
		return usbHardware, nil
	case "HDAUDIO":
		return hdaudioHardware, nil
	}
	return pciHardware, pciCompatible
}

// deviceForms are the forms of the lists Windows builds for a device with
// these parts, in its order: a form's index is its ID's position in the
// device's list, the HHH of a rank. The device reports every form of its
// bus whether or not the ID given spells it: a PCI function always has a
// SUBSYS, a REV and a class code ("Identifiers for PCI Devices",
// https://learn.microsoft.com/windows-hardware/drivers/install/identifiers-for-pci-devices),
// so VEN&DEV is its compatible ID 1 even when the ID given is VEN&DEV.
// The position counts in "an ordered list of hardware IDs and an ordered
// list of compatible IDs that are reported by the bus driver for the
// device" (Microsoft, "Identifier Score",
// https://learn.microsoft.com/windows-hardware/drivers/install/identifier-score--windows-vista-and-later-).
// Counting only the IDs the given one spells would rank a bare line as
// high as a REV line and hide that the REV line outranks it. A USB
// device's list and an interface's differ (MI).
func deviceForms(bus string, parts map[string]string) (hw, compat []idForm) {
	hw, compat = busForms(bus)
	if bus == "USB" {
		hw = slices.DeleteFunc(slices.Clone(hw), func(f idForm) bool { return slices.Contains(f, "MI") != (parts["MI"] != "") })
	}
	return hw, compat
}

// maxDeviceID bounds a hardware ID; real ones are under 100 characters.
const maxDeviceID = 512

// DeviceIDs is the list of IDs Windows builds for a device from the ID
// given: hardware IDs, then compatible IDs, most specific first. They are
// the lists a rank's position counts in (Match.DevicePos indexes them):
// every form of the bus (deviceForms), also those that need a part the ID
// given lacks (Lacks), whose value the ID shows as one '?' a digit, e.g.
// PCI\VEN_8086&DEV_15F3&SUBSYS_????????&REV_?? for PCI\VEN_8086&DEV_15F3.
// Such an ID stands for one the device has and latlab does not know: it
// matches no INF line. An ID that stands for itself (ParseDeviceID) is its
// only hardware ID.
type DeviceIDs struct {
	Given      string   `json:"given"`
	Hardware   []string `json:"hardware_ids"`
	Compatible []string `json:"compatible_ids"`
	// Lacks names the parts (SUBSYS, REV, CC ...) that IDs of the lists
	// have and the ID given does not: the parts written with '?'.
	Lacks []string `json:"lacks,omitempty"`
	bus   string
	parts map[string]string // CC6/CC4 split out
	// asWritten: the ID stands for itself, the one hardware ID of its
	// list (ParseDeviceID says when).
	asWritten bool
}

// ParseDeviceID reads a hardware ID (or a device instance ID, whose
// instance part is dropped) and builds the lists Windows would build.
// PCI and USB IDs get the bus's lists, HDAUDIO IDs their two hardware IDs;
// any other ID stands for itself (AsWritten says why, per bus).
func ParseDeviceID(s string) (DeviceIDs, error) {
	// Trimmed: s is what the user copied from Device Manager, where a
	// device's IDs have no white space at their ends (the INF's IDs are
	// compared untrimmed, as SetupAPI compares them: Models).
	ids := DeviceIDs{Given: strings.TrimSpace(s)}
	const eg = `e.g. PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03, the first of the "Hardware Ids" Device Manager shows`
	switch {
	case ids.Given == "":
		return ids, fmt.Errorf("empty hardware ID: expected %s", eg)
	case len(ids.Given) > maxDeviceID:
		return ids, fmt.Errorf("hardware ID of %d bytes: expected at most %d, %s", len(ids.Given), maxDeviceID, eg)
	}
	up := strings.ToUpper(ids.Given)
	bus, rest, ok := strings.Cut(up, `\`)
	if i := strings.IndexByte(rest, '\\'); ok && i >= 0 {
		rest = rest[:i] // PCI\VEN_...\3&11583659&0&FE: the instance part
		up = bus + `\` + rest
	}
	known, structured := busParts[bus]
	if !ok || !structured {
		ids.Hardware, ids.asWritten = []string{up}, true
		return ids, nil
	}
	if bus == "USB" && strings.HasPrefix(rest, "ROOT_HUB") {
		// A root hub's ID (USB\ROOT_HUB30&VID1022&PID15D7&REV0000, as
		// AMD's amdusbhubfilter.inf names one): the host controller's
		// driver makes it, not the hub driver whose forms Microsoft's
		// "Standard USB identifiers" gives, and no page lists the IDs of
		// a root hub. It stands for itself, as an INF line names it.
		ids.Hardware, ids.asWritten = []string{up}, true
		return ids, nil
	}
	parts, err := splitParts(rest, known)
	if err != nil && bus == "HDAUDIO" {
		// A compatible ID (with CTRL_VEN, CTRL_DEV) or another form
		// Microsoft does not spell out: it stands for itself.
		ids.Hardware, ids.asWritten = []string{up}, true
		return ids, nil
	}
	if err != nil {
		return ids, fmt.Errorf("hardware ID %q: %v; expected %s", ids.Given, err, eg)
	}
	ids.bus, ids.parts = bus, parts
	hw, compat := deviceForms(bus, parts)
	full := 0 // IDs whose every part the ID given has
	for _, f := range slices.Concat(hw, compat) {
		if _, ok := renderForm(bus, parts, f); ok {
			full++
		}
	}
	if bus == "HDAUDIO" && full == 0 {
		// Without SUBSYS the ID is no hardware ID Microsoft documents
		// (one of the compatible IDs, perhaps): it stands for itself,
		// and lines that name a SUBSYS are weighed as for PCI.
		ids.Hardware, ids.asWritten = []string{up}, true
		return ids, nil
	}
	if full == 0 {
		return ids, fmt.Errorf("hardware ID %q names no %s device: expected %s", ids.Given, bus, eg)
	}
	ids.Hardware, ids.Compatible = ids.render(hw), ids.render(compat)
	ids.Lacks = lacking(parts, slices.Concat(hw, compat))
	return ids, nil
}

// lacking names the parts the forms have and parts lacks, in the order
// IDs write them.
func lacking(parts map[string]string, forms []idForm) []string {
	var out []string
	for _, f := range forms {
		for _, k := range f {
			if n := partName(k); parts[k] == "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return partOrder(out[i]) < partOrder(out[j]) })
	return out
}

// splitParts reads VEN_8086&DEV_15F3&... into its parts; a CC part gives
// CC6 (with the programming interface) and CC4.
func splitParts(rest string, known []string) (map[string]string, error) {
	parts := map[string]string{}
	for _, p := range strings.Split(rest, "&") {
		k, v, ok := strings.Cut(p, "_")
		if !ok || v == "" || !slices.Contains(known, k) {
			return nil, fmt.Errorf("part %q is not one of %s followed by _ and a value", p, strings.Join(known, "_, ")+"_")
		}
		if k == "CC" {
			if len(v) != 4 && len(v) != 6 {
				return nil, fmt.Errorf("class code %q: expected 4 or 6 hex digits", p)
			}
			if parts["CC4"] != "" {
				return nil, fmt.Errorf("part CC given twice")
			}
			parts["CC4"] = v[:4]
			if len(v) == 6 {
				parts["CC6"] = v
			}
			continue
		}
		if _, dup := parts[k]; dup {
			return nil, fmt.Errorf("part %s given twice", k)
		}
		parts[k] = v
	}
	return parts, nil
}

// render writes the forms as Windows writes them, a part the ID given
// lacks as '?' for each of its digits (placeholder).
func (ids DeviceIDs) render(forms []idForm) []string {
	var out []string
	for _, form := range forms {
		p := ids.parts
		if _, ok := renderForm(ids.bus, p, form); !ok {
			p = maps.Clone(p)
			for _, k := range form {
				if p[k] == "" {
					p[k] = placeholder(ids.bus, k, p)
				}
			}
		}
		s, _ := renderForm(ids.bus, p, form)
		out = append(out, s)
	}
	return out
}

// partDigits is how many hex digits a part's value has, per bus
// ("Identifiers for PCI Devices", "Standard USB identifiers",
// "Identifiers for High Definition Audio (HDAUDIO) devices").
var partDigits = map[string]map[string]int{
	"PCI":     {"VEN": 4, "DEV": 4, "SUBSYS": 8, "REV": 2, "CC6": 6, "CC4": 4},
	"USB":     {"VID": 4, "PID": 4, "REV": 4, "MI": 2},
	"HDAUDIO": {"FUNC": 2, "VEN": 4, "DEV": 4, "SUBSYS": 8, "REV": 4},
}

// placeholder stands for the value of a part the ID given lacks: a '?'
// per digit, after the class and subclass when only the programming
// interface is unknown (CC_0200?? for CC_0200).
func placeholder(bus, k string, parts map[string]string) string {
	if k == "CC6" && parts["CC4"] != "" {
		return parts["CC4"] + "??"
	}
	n := partDigits[bus][k]
	if n == 0 {
		n = 1
	}
	return strings.Repeat("?", n)
}

func renderForm(bus string, parts map[string]string, form idForm) (string, bool) {
	if bus == "USB" && slices.Contains(form, "MI") != (parts["MI"] != "") {
		return "", false
	}
	var b strings.Builder
	b.WriteString(bus + `\`)
	for i, k := range form {
		v := parts[k]
		if v == "" {
			return "", false
		}
		if i > 0 {
			b.WriteByte('&')
		}
		if k == "CC6" || k == "CC4" {
			k = "CC"
		}
		b.WriteString(k + "_" + v)
	}
	return b.String(), true
}

// identifierScore is the identifier part of Windows' rank, 0xTHHH, for a
// match between the device's ID at position devPos of its hardware IDs
// (devCompat false) or of its compatible IDs, and the INF ID at position
// infPos of its models line (0: the line's hardware ID, 1 its first
// compatible ID ...). Microsoft, "Identifier Score"
// (https://learn.microsoft.com/windows-hardware/drivers/install/identifier-score--windows-vista-and-later-):
//
//	device hardware ID   = line's hardware ID:      0x0000 + j
//	device hardware ID   = line's compatible ID:    0x1000 + j
//	device compatible ID = line's hardware ID:      0x2000 + j
//	device compatible ID = line's compatible ID k:  0x3000 + j + k*0x100
//
// where j is the device ID's position in its list and k the INF ID's
// position in the line's list of compatible IDs (its first is 0). Only the
// last case counts the line's position: a device hardware ID ranks alike
// whichever of the line's compatible IDs it equals. "Driver Rank Example"
// (https://learn.microsoft.com/windows-hardware/drivers/install/driver-rank-example--windows-vista-and-later-)
// gives the four cases for a line "INF_HwID_1, INF_CID_1, INF_CID_2":
// CID_1 = INF_CID_2 is 0x3100, CID_2 = INF_CID_2 0x3101, HwID_2 = INF_CID_2
// 0x1001. Each score stays in its type's range (0xT000 to 0xTFFF, the page
// says), so HHH is held at 0xFFF.
func identifierScore(devCompat bool, devPos, infPos int) int {
	t, hhh := 0, devPos
	if devCompat {
		t = 2
	}
	if infPos > 0 {
		t++
		if devCompat {
			hhh += (infPos - 1) * 0x100
		}
	}
	return t<<12 | min(hhh, 0xfff)
}

// rank is the identifier part of Windows' rank for an INF ID at position
// pos of its models line (0 = the line's hardware ID), the device's ID
// that equals it and that ID's position in its list, or false when the
// device's lists do not contain it. The ID's position is its place in the
// list Windows builds for the device (deviceForms), not in the shorter
// list the ID given spells out.
func (ids DeviceIDs) rank(infID string, pos int) (int, string, int, bool) {
	up := strings.ToUpper(infID) // untrimmed: see Models
	if ids.parts != nil {
		hw, compat := deviceForms(ids.bus, ids.parts)
		for li, list := range [][]idForm{hw, compat} {
			for i, form := range list {
				if id, ok := renderForm(ids.bus, ids.parts, form); ok && id == up {
					return identifierScore(li == 1, i, pos), id, i, true
				}
			}
		}
	}
	if !ids.asWritten {
		return 0, "", 0, false
	}
	// An ID that stands for itself (no bus list, or an HDAUDIO ID
	// Microsoft does not document) is its own list.
	for i, id := range ids.Hardware {
		if id == up {
			return identifierScore(false, i, pos), id, i, true
		}
	}
	return 0, "", 0, false
}

// potential is the best rank an INF ID could have on a device that agrees
// with the given ID in every part the given ID has: the INF ID must be a
// form Windows builds, agree with every part both have, and need a part
// the given ID lacks (else rank already judged it). It also returns those
// parts and the ID's position in the device's list.
func (ids DeviceIDs) potential(infID string, pos int) (int, []string, int, bool) {
	if ids.parts == nil {
		return 0, nil, 0, false
	}
	bus, rest, ok := strings.Cut(strings.ToUpper(infID), `\`)
	if !ok || bus != ids.bus {
		return 0, nil, 0, false
	}
	parts, err := splitParts(rest, busParts[bus])
	if err != nil {
		return 0, nil, 0, false
	}
	hw, compat := deviceForms(bus, parts)
	for li, list := range [][]idForm{hw, compat} {
		for i, form := range list {
			s, ok := renderForm(bus, parts, form)
			if !ok || s != bus+`\`+rest || len(form) != countForm(parts) {
				continue
			}
			var lacks []string
			for _, k := range form {
				switch g, has := ids.parts[k]; {
				case has && g != parts[k]:
					return 0, nil, 0, false
				case !has:
					lacks = append(lacks, partName(k))
				}
			}
			if len(lacks) == 0 {
				return 0, nil, 0, false
			}
			return identifierScore(li == 1, i, pos), lacks, i, true
		}
	}
	return 0, nil, 0, false
}

// countForm counts the parts as a form counts them (a 6-digit class code
// is one part, CC6, not CC6 and CC4).
func countForm(parts map[string]string) int {
	n := len(parts)
	if parts["CC6"] != "" {
		n--
	}
	return n
}

// Match is the models line Windows would pick for a device, and why.
type Match struct {
	Line     int    `json:"line"`
	INFID    string `json:"inf_id"`
	INFPos   int    `json:"inf_id_position"` // 0: the line's hardware ID; 1+: its compatible IDs (Model.NoHardwareID)
	DeviceID string `json:"device_id"`       // the device's ID that equals it
	// DevicePos is DeviceID's position in the device's list of hardware
	// IDs (Rank 0x0HHH, 0x1HHH) or of compatible IDs (0x2HHH, 0x3HHH).
	DevicePos int `json:"device_id_position"`
	// Rank is the identifier part of Windows' driver rank, 0xTHHH (lower
	// is better): see DeviceIDs.
	Rank int `json:"rank"`
	// Assumes names the parts (SUBSYS, REV ...) the line needs and the ID
	// given lacks, when no line names one of the given ID's forms and the
	// line is taken because every candidate leads to its install section;
	// Rank is then what the line would rank if the device has them.
	Assumes []string `json:"assumes,omitempty"`
	// OutrankedBy are the lines of the same models section that name
	// parts the ID given lacks (SUBSYS, REV, CC ...), agree with it in
	// every part it has, and would rank above this line on a device whose
	// full ID has their parts, best first. A real device always reports
	// them ("Identifiers for PCI Devices"), and Windows installs the line
	// of the best rank ("How Setup Ranks Drivers",
	// https://learn.microsoft.com/windows-hardware/drivers/install/how-setup-ranks-drivers--windows-vista-and-later-),
	// so the line matched here is Windows' choice only for a device whose
	// parts differ from theirs. They all lead to this line's install
	// section (lines that lead elsewhere make an AmbiguousError instead).
	OutrankedBy []Outranking `json:"outranked_by,omitempty"`
	model       Model
}

// Outranking is a line that outranks a Match on a device whose full ID
// has the parts the ID given lacks.
type Outranking struct {
	Line        int    `json:"line"`
	INFID       string `json:"inf_id"`
	INFPos      int    `json:"inf_id_position"` // as Match.INFPos
	Description string `json:"description"`
	// Rank is what the line ranks on a device whose ID has Needs as the
	// line names them.
	Rank int `json:"rank"`
	// Needs are the parts the line names and the ID given lacks.
	Needs []string `json:"needs"`
}

// Kind says which of the device's and the INF line's IDs matched. Both
// positions count from 0: the device's in its list of hardware or of
// compatible IDs, the line's in its compatible IDs (Match.INFPos - 1).
func (m Match) Kind() string {
	dev := "hardware ID"
	if m.Rank>>12 >= 2 {
		dev = "compatible ID"
	}
	inf := "hardware ID"
	if m.INFPos > 0 {
		inf = fmt.Sprintf("compatible ID %d", m.INFPos-1)
	}
	k := fmt.Sprintf("the device's %s %d = the line's %s", dev, m.DevicePos, inf)
	if len(m.Assumes) > 0 {
		k += " if the device's full ID has its " + strings.Join(m.Assumes, " and ")
	}
	return k
}

// AmbiguousError says the ID given does not decide which line of a models
// section Windows would pick: lines that name parts the ID lacks (SUBSYS,
// REV ...) lead to different install sections.
type AmbiguousError struct {
	Device   string
	Section  string
	Lacks    []string
	Lines    []int
	IDs      []string
	Installs []string
}

func (e *AmbiguousError) Error() string {
	// Three candidates at most: a line each is 60-90 characters on real
	// INFs (Broadcom's b57nd60a.inf made a message of 930), and the
	// listing without --device shows every line with its install section.
	var c []string
	for i := range e.Lines {
		if i == 3 {
			c = append(c, fmt.Sprintf("and %d more (latlab inf FILE without --device lists them)", len(e.Lines)-i))
			break
		}
		c = append(c, fmt.Sprintf("line %d %s -> [%s]", e.Lines[i], e.IDs[i], e.Installs[i]))
	}
	var hint []string
	if slices.Contains(e.Lacks, "SUBSYS") || slices.Contains(e.Lacks, "REV") || slices.Contains(e.Lacks, "DEV") {
		hint = append(hint, `give the full ID, the first of the "Hardware Ids" Device Manager shows (Details tab)`)
	}
	if slices.Contains(e.Lacks, "CC") {
		hint = append(hint, "append the class code those Hardware Ids show (e.g. &CC_020000)")
	}
	if slices.Contains(e.Lacks, "MI") {
		hint = append(hint, "give the interface's ID (with MI_)")
	}
	verb := "decide"
	if len(e.Lacks) == 1 {
		verb = "decides"
	}
	return fmt.Sprintf("device %q lacks %s, which %s between lines of [%s]: %s; %s",
		e.Device, strings.Join(e.Lacks, " and "), verb, e.Section, strings.Join(c, "; "), strings.Join(hint, ", and "))
}

// sectionMatch is how a device matches one models section.
type sectionMatch struct {
	best *Match
	// guess is set when no line names one of the device's IDs but lines
	// that need parts the given ID lacks all lead to one install section:
	// the best of them.
	guess     *Match
	ambiguous *AmbiguousError
}

func (s sectionMatch) match() *Match {
	if s.best != nil {
		return s.best
	}
	return s.guess
}

// matchSection ranks every line of a models section for the device as
// Windows does, and checks that lines the device's full ID might match
// better would not change the install section.
func matchSection(models []Model, ids DeviceIDs, section string) sectionMatch {
	var sm sectionMatch
	type cand struct {
		m     Match
		lacks []string
	}
	var cands []cand
	for _, md := range models {
		for i, id := range md.HardwareIDs {
			pos := md.Position(i)
			if r, dev, dpos, ok := ids.rank(id, pos); ok {
				if sm.best == nil || r < sm.best.Rank || r == sm.best.Rank && pos < sm.best.INFPos {
					sm.best = &Match{Line: md.Line, INFID: id, INFPos: pos, DeviceID: dev, DevicePos: dpos, Rank: r, model: md}
				}
				continue
			}
			if r, lacks, dpos, ok := ids.potential(id, pos); ok {
				cands = append(cands, cand{Match{Line: md.Line, INFID: id, INFPos: pos, DevicePos: dpos, Rank: r, model: md}, lacks})
			}
		}
	}
	var better []cand
	for _, c := range cands {
		if sm.best == nil || c.m.Rank < sm.best.Rank {
			better = append(better, c)
		}
	}
	if len(better) == 0 {
		return sm
	}
	installs := map[string]bool{}
	if sm.best != nil {
		installs[strings.ToLower(sm.best.model.InstallSection)] = true
	}
	lacks := map[string]bool{}
	for _, c := range better {
		installs[strings.ToLower(c.m.model.InstallSection)] = true
		for _, l := range c.lacks {
			lacks[l] = true
		}
	}
	var lk []string
	for l := range lacks {
		lk = append(lk, l)
	}
	sort.Slice(lk, func(i, j int) bool { return partOrder(lk[i]) < partOrder(lk[j]) })
	if len(installs) == 1 {
		sort.SliceStable(better, func(i, j int) bool { return better[i].m.Rank < better[j].m.Rank })
		if sm.best == nil {
			g := better[0].m
			g.DeviceID, g.Assumes = strings.ToUpper(g.INFID), better[0].lacks
			sm.guess = &g
			return sm
		}
		// The install section holds either way, but the line, its rank
		// and its description are the ID given's, not a real device's.
		for _, c := range better {
			sm.best.OutrankedBy = append(sm.best.OutrankedBy, Outranking{
				Line: c.m.Line, INFID: c.m.INFID, INFPos: c.m.INFPos, Description: c.m.model.Description, Rank: c.m.Rank, Needs: c.lacks,
			})
		}
		return sm
	}
	e := &AmbiguousError{Device: ids.Given, Section: section, Lacks: lk}
	all := better
	if sm.best != nil {
		all = append([]cand{{m: *sm.best}}, better...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].m.Line < all[j].m.Line })
	for _, c := range all {
		e.Lines = append(e.Lines, c.m.Line)
		e.IDs = append(e.IDs, c.m.INFID)
		e.Installs = append(e.Installs, c.m.model.InstallSection)
	}
	sm.ambiguous = e
	return sm
}

// partName names a form's part as IDs write it (CC6 and CC4 are CC).
func partName(k string) string {
	if k == "CC6" || k == "CC4" {
		return "CC"
	}
	return k
}

func partOrder(p string) int {
	for i, k := range []string{"VEN", "VID", "DEV", "PID", "SUBSYS", "REV", "MI", "CC"} {
		if p == k {
			return i
		}
	}
	return 99
}
