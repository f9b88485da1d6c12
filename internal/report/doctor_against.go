package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/latlab/latlab/internal/doctor"
)

// againstOrder lists what differs first, then what cannot be told or
// set, then what is already the profile's.
var againstOrder = []string{doctor.Differs, doctor.CannotSet, doctor.NotCompare, doctor.Same}

// againstWord is a state as the page's first column says it.
var againstWord = map[string]string{doctor.Differs: "differs", doctor.CannotSet: "cannot set", doctor.NotCompare: "not compared", doctor.Same: "same"}

// DoctorAgainstText writes the settings set beside a tuning profile, as
// tuned-adm verify does: what differs, each with the command that makes
// it the profile's, first.
func DoctorAgainstText(w io.Writer, a *doctor.Against) {
	p := &page{w: w}
	head := fmt.Sprintf("against %s %s", a.Source, a.Profile)
	if a.File != "" {
		head = fmt.Sprintf("against tuned profile %s (%s)", a.Profile, a.File)
		if len(a.Profiles) > 1 {
			head += ", merging " + strings.Join(a.Profiles, " <- ")
		}
	} else if len(a.Profiles) > 1 {
		head += " (with " + strings.Join(a.Profiles[1:], ", ") + ")"
	}
	p.wrap(fmt.Sprintf("%s: %d of the %d settings latlab audits differ", head, a.Differ, len(a.Items)), "", "  ")
	// tuned would refuse the profile: said first, as it outweighs the rest.
	for _, r := range a.Refused {
		p.wrap(r, "  ! ", "    ")
	}
	for _, st := range againstOrder {
		for _, it := range a.Items {
			if it.State != st {
				continue
			}
			r := it.Reference
			from := ""
			if r.Profile != a.Profile {
				from = " (" + r.Profile + ")"
			}
			cur := it.Current
			if cur == "" {
				cur = "not read"
			}
			p.wrap(fmt.Sprintf("%s: %s; the profile sets [%s] %s=%s%s", it.Knob, cur, r.Section, r.Key, r.Value, from),
				fmt.Sprintf("  %-13s", againstWord[st]), strings.Repeat(" ", 15))
			if it.Command != "" {
				p.wrap(it.Command, strings.Repeat(" ", 15), strings.Repeat(" ", 17))
			}
			if it.Note != "" && st != doctor.Same {
				p.wrap(it.Note, strings.Repeat(" ", 15), strings.Repeat(" ", 15))
			}
		}
	}
	p.blank()
	if a.File == "" {
		p.wrap("What the profile sets that latlab does not audit (vm.dirty_ratio, for one) is not compared; nothing was changed.", "", "")
		return
	}
	for i, f := range a.From {
		if i < len(a.Profiles) {
			p.wrap(fmt.Sprintf("%s: read from %s", a.Profiles[i], f), "", "  ")
		}
	}
	for _, n := range a.Notes {
		p.wrap(n, "note: ", "  ")
	}
	if len(a.NotAudited) > 0 {
		p.wrap(fmt.Sprintf("not audited by latlab (%d): %s", len(a.NotAudited), strings.Join(a.NotAudited, ", ")), "", "  ")
	}
	p.wrap("Nothing was changed.", "", "")
}
