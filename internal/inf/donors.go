package inf

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// findDonors compares the RSS keywords the device gets with those of every
// other install section of the INF, in every models section (decoration)
// of every manufacturer. A vendor INF often gives the advanced RSS
// keywords to one adapter and not to its sibling in the same models
// section (the I225-V lacks the RSSAdvanced.reg its I225-LM sibling has),
// so comparing only the device's own lines in other decorations misses
// them. Each missing keyword is taken from the closest donor: the same
// device in another decoration, then an install section that installs the
// same driver (in the device's models section first), then one whose
// driver is not named, then one of another driver.
func (rep *DeviceReport) findDonors(f *File, mans []Manufacturer, t Target, lang string, load Loader, w *work) error {
	rep.MissingRSS = []string{}
	var cands []Donor
	everywhere := map[string]bool{}
	for _, k := range rep.RSS {
		everywhere[k] = true
	}
	resolved := map[string]*Install{}
	tried := map[string]bool{}
	order := 0
	for _, m := range mans {
		for _, d := range m.AllDecorations(f) {
			models := m.ModelsSection(d)
			for _, md := range f.Models(models, lang) {
				order++
				key := strings.ToLower(md.InstallSection)
				in, ok := resolved[key]
				if !ok && !tried[key] {
					tried[key] = true
					var err error
					if in, err = f.resolve(md.InstallSection, t, lang, load, w); err != nil {
						if w.over() {
							return err
						}
						rep.note(fmt.Sprintf("%s line %d: install section [%s] not compared: %v", f.Name, md.Line, md.InstallSection, err))
						in = nil
					}
					resolved[key] = in
				}
				if in == nil {
					continue
				}
				for _, k := range in.Keywords {
					if IsRSS(k.Name) {
						everywhere[canonicalRSS(k.Name)] = true
					}
				}
				if rep.Model == nil || strings.EqualFold(in.Section, rep.InstallSection) {
					continue
				}
				c := Donor{
					InstallSection: in.Section, ModelsSection: models, Decoration: d.Raw, Description: md.Description,
					Line: md.Line, Service: in.Service, install: in, order: order,
				}
				// The line's hardware ID, also for the device's own line
				// (where the device may have matched one of its compatible
				// IDs). A line whose hardware ID field is empty lists only
				// compatible IDs: its hardware ID is "", not the first of
				// them.
				if len(md.HardwareIDs) > 0 && !md.NoHardwareID {
					c.HardwareID = md.HardwareIDs[0]
				}
				switch line, ok := rep.deviceLines[strings.ToLower(models)]; {
				case ok && line == md.Line:
					c.Relation, c.tier = SameDevice, 0
				case in.Service != "" && strings.EqualFold(in.Service, rep.Service):
					c.Relation, c.tier = SameDriver, 2
					if strings.EqualFold(models, rep.ModelsSection) {
						c.tier = 1
					}
				case in.Service == "" || rep.Service == "":
					c.Relation, c.tier = UnknownDriver, 3
				default:
					c.Relation, c.tier = OtherDriver, 4
				}
				cands = append(cands, c)
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].tier != cands[j].tier {
			return cands[i].tier < cands[j].tier
		}
		return cands[i].order < cands[j].order
	})
	rep.NotInINF = nil
	rep.DonorSection = map[string]string{}
	used := map[string]int{} // install section -> index in rep.Donors
	for _, k := range RSSKeywords {
		if !everywhere[k] {
			rep.NotInINF = append(rep.NotInINF, k)
			continue
		}
		if rep.Model == nil || slices.Contains(rep.RSS, k) {
			continue
		}
		for _, c := range cands {
			if c.install.Keyword(k) == nil {
				continue
			}
			key := strings.ToLower(c.InstallSection)
			i, ok := used[key]
			if !ok {
				i = len(rep.Donors)
				used[key] = i
				c.Keywords = []string{}
				rep.Donors = append(rep.Donors, c)
			}
			rep.Donors[i].Keywords = append(rep.Donors[i].Keywords, k)
			rep.MissingRSS = append(rep.MissingRSS, k)
			rep.DonorSection[k] = c.InstallSection
			break
		}
	}
	if len(rep.DonorSection) == 0 {
		rep.DonorSection = nil
	}
	sort.SliceStable(rep.Donors, func(i, j int) bool {
		a, b := rep.Donors[i], rep.Donors[j]
		return a.tier < b.tier || a.tier == b.tier && a.order < b.order
	})
	return nil
}

func (rep *DeviceReport) note(n string) { rep.notes.add(&rep.Notes, n) }

// RelationText says in words how a donor relates to the device.
func (d Donor) RelationText() string {
	switch d.Relation {
	case SameDevice:
		return "the same device under " + DecorationName(d.Decoration)
	case SameDriver:
		return fmt.Sprintf("%s, line %d: same driver %s", d.Description, d.Line, d.Service)
	case UnknownDriver:
		return fmt.Sprintf("%s, line %d: driver not named, may not implement them", d.Description, d.Line)
	}
	return fmt.Sprintf("%s, line %d: another driver (%s), may not implement them", d.Description, d.Line, d.Service)
}
