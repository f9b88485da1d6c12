package inf

import (
	"fmt"
	"slices"
)

// refNote is a note of an Include= or Needs= line naming an INF or a
// section latlab did not find. Install sections written from one template
// repeat the line (Broadcom's bcmwl63.inf has Include=netvwifibus.inf and
// Needs=VWiFiBus.CopyFiles in each of ten, Cirrus Logic's CL_Audio.inf
// Include=ks.inf, wdmaudio.inf, hdaudio.inf in dozens): a listing or a
// device report says each once (refGroups), naming the lines and the
// install sections, where each install section's own notes keep theirs.
type refNote struct {
	file string // the INF the line is in
	line int
	what string // the note without its "file line N: " prefix
}

func (n refNote) text() string { return fmt.Sprintf("%s line %d: %s", n.file, n.line, n.what) }

// refGroups gathers the refNotes of many install sections by file and
// text, in the order first seen.
type refGroups struct {
	order []*refGroup
	byKey map[string]*refGroup
}

type refGroup struct {
	file, what string
	lines      []int
	sections   []string
}

// maxGroupLines bounds the line numbers one gathered note names; the
// rest are counted.
const maxGroupLines = 12

// add passes in's notes to note, except its refNotes, which g gathers
// to be said once by notes.
func (g *refGroups) add(in *Install, note func(string)) {
	skip := make(map[string]bool, len(in.refNotes))
	for _, rn := range in.refNotes {
		skip[rn.text()] = true
		key := rn.file + "\x00" + rn.what
		gr := g.byKey[key]
		if gr == nil {
			if g.byKey == nil {
				g.byKey = map[string]*refGroup{}
			}
			if len(g.order) >= MaxNotes {
				note(rn.text()) // counted by the caller's bound
				continue
			}
			gr = &refGroup{file: rn.file, what: rn.what}
			g.byKey[key] = gr
			g.order = append(g.order, gr)
		}
		if !slices.Contains(gr.lines, rn.line) && len(gr.lines) <= MaxNotes {
			gr.lines = append(gr.lines, rn.line)
		}
		if !slices.Contains(gr.sections, in.Section) && len(gr.sections) <= MaxNotes {
			gr.sections = append(gr.sections, in.Section)
		}
	}
	for _, n := range in.Notes {
		if !skip[n] {
			note(n)
		}
	}
}

// notes are the gathered notes, one per file and text: as an install
// section says it when one install section has it, else with every line
// (up to maxGroupLines) and the install sections.
func (g *refGroups) notes() []string {
	out := make([]string, 0, len(g.order))
	for _, gr := range g.order {
		if len(gr.sections) == 1 && len(gr.lines) == 1 {
			out = append(out, refNote{gr.file, gr.lines[0], gr.what}.text())
			continue
		}
		lines := slices.Sorted(slices.Values(gr.lines))
		where := ""
		if len(lines) > maxGroupLines {
			where = fmt.Sprintf("%s and %d more", lineList(lines[:maxGroupLines]), len(lines)-maxGroupLines)
		} else {
			where = lineList(lines)
		}
		secs := make([]string, len(gr.sections))
		for i, s := range gr.sections {
			secs[i] = "[" + s + "]"
		}
		in := "install section " + secs[0]
		if len(secs) > 1 {
			in = fmt.Sprintf("%d install sections: %s", len(secs), firstOf(secs))
		}
		out = append(out, fmt.Sprintf("%s %s: %s (in %s)", gr.file, where, gr.what, in))
	}
	return out
}

// refNotef adds a refNote about line of f to the install section.
func (r *resolver) refNotef(f *File, line int, format string, a ...any) {
	n := refNote{file: f.Name, line: line, what: fmt.Sprintf(format, a...)}
	before := len(r.in.Notes)
	r.note(n.text())
	if len(r.in.Notes) > before {
		r.in.refNotes = append(r.in.refNotes, n)
	}
}
