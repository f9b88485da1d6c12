package report

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/units"
)

// pageWidth is the terminal width the check-up page fits.
const pageWidth = 80

// verdictOrder lists the settings worst first, so what needs attention
// is read before what is fine.
var verdictOrder = []knob.Verdict{knob.Suspicious, knob.Unknown, knob.Changed, knob.Default}

// DoctorText writes the check-up as a terminal page of at most 80
// columns.
func DoctorText(w io.Writer, r *doctor.Result) {
	p := &page{w: w}
	p.line(fmt.Sprintf("latlab check-up (%s, %s)", r.Profile, r.OS))
	p.blank()
	p.line("timer")
	for _, f := range r.Timer.Facts {
		p.fact(f.Name, f.Value)
	}
	if r.Sleep != nil {
		p.blank()
		p.probe(r.Sleep)
	}
	if r.Wake != nil {
		p.blank()
		p.probe(r.Wake)
	}
	for i := range r.Extra {
		p.blank()
		p.probe(&r.Extra[i])
	}
	if r.Overhead != nil {
		p.blank()
		p.wrap(fmt.Sprintf("tool overhead: clock read %s, zero-length wait %s (p50): the floor latlab itself adds to a sample",
			units.Duration(time.Duration(r.Overhead.ClockReadP50Ns)), units.Duration(time.Duration(r.Overhead.ZeroWaitP50Ns))), "", "  ")
	}
	p.blank()
	p.wrap("settings: "+tallyLine(r), "", "  ")
	for _, v := range verdictOrder {
		for _, s := range r.Settings {
			if s.Verdict == v {
				p.setting(s)
			}
		}
	}
	if len(r.Next) > 0 {
		p.blank()
		p.line("next")
		for i, s := range r.Next {
			p.wrap(s.Command, fmt.Sprintf("  %d. ", i+1), "     ")
			p.wrap(s.Why, "     ", "     ")
		}
	}
	for _, n := range r.Notes {
		p.blank()
		p.wrap("note: "+n, "", "  ")
	}
}

func tallyLine(r *doctor.Result) string {
	c := r.Counts
	var parts []string
	for _, x := range []struct {
		n    int
		name string
	}{{c.Suspicious, "suspicious"}, {c.Unknown, "unknown"}, {c.Changed, "changed"}, {c.Default, "default"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.name))
		}
	}
	return fmt.Sprintf("%d read, nothing changed: %s", len(r.Settings), strings.Join(parts, ", "))
}

type page struct {
	w io.Writer
	// cited holds the knobs whose references the page has shown: a knob
	// with several findings (one per CPU group, per file) cites once.
	cited map[string]bool
}

func (p *page) line(s string) { fmt.Fprintln(p.w, s) }
func (p *page) blank()        { fmt.Fprintln(p.w) }

// wrap writes text in lines of at most pageWidth columns: the first
// after first, the rest after indent.
func (p *page) wrap(text, first, indent string) {
	for _, l := range wrapText(text, first, indent, pageWidth) {
		p.line(l)
	}
}

func (p *page) fact(name, value string) {
	const col = 22
	head := "  " + name
	if utf8.RuneCountInString(head) >= col {
		p.line(head)
		head = ""
	}
	p.wrap(value, head+strings.Repeat(" ", col-utf8.RuneCountInString(head)), strings.Repeat(" ", col))
}

func (p *page) probe(pr *doctor.Probe) {
	p.wrap(pr.Name+": "+pr.What, "", "  ")
	s := pr.Summary
	line := fmt.Sprintf("p50 %s, p99 %s, max %s", units.Duration(time.Duration(s.P50)), units.Duration(time.Duration(s.P99)), units.Duration(time.Duration(s.Max)))
	if pr.IntervalNs > 0 {
		line += fmt.Sprintf("; %d missed periods", pr.Overruns)
	}
	p.wrap(line, "  ", "  ")
	for _, t := range pr.Threads {
		p.wrap(fmt.Sprintf("CPU %d: p50 %s, p99 %s, max %s, %d missed", t.CPU, units.Duration(time.Duration(t.Summary.P50)),
			units.Duration(time.Duration(t.Summary.P99)), units.Duration(time.Duration(t.Summary.Max)), t.Overruns), "    ", "      ")
	}
	p.wrap(pr.Verdict, "  ", "  ")
	for _, n := range pr.Notes {
		p.wrap("note: "+n, "  ", "    ")
	}
}

func (p *page) setting(s doctor.Setting) {
	name := s.Knob
	if s.Target != "" {
		name += " (" + s.Target + ")"
	}
	p.wrap(name+": "+s.Value, fmt.Sprintf("  %-11s", s.Verdict), strings.Repeat(" ", 13))
	p.wrap(s.Reason, strings.Repeat(" ", 13), strings.Repeat(" ", 13))
	if s.Evidence != "" && s.Verdict == knob.Suspicious {
		p.wrap("evidence: "+s.Evidence, strings.Repeat(" ", 13), strings.Repeat(" ", 15))
	}
	if p.cited[s.Knob] {
		return
	}
	if p.cited == nil {
		p.cited = map[string]bool{}
	}
	p.cited[s.Knob] = true
	for _, l := range referenceLines(s.References, s.Reason) {
		p.wrap(l, strings.Repeat(" ", 13), strings.Repeat(" ", 15))
	}
}

// referenceLines says what the tuning profiles a finding's knob cites set,
// leaving out what the reason already quotes, one line per value with the
// profiles that set it: "tuned 2.20.0 cpu-partitioning, powersave:
// kernel.nmi_watchdog=0". The document keeps every reference.
func referenceLines(refs []knob.Reference, reason string) []string {
	type group struct {
		head, setting string
		profiles      []string
	}
	var groups []*group
	for _, r := range refs {
		if strings.Contains(reason, r.Cite()) {
			continue
		}
		head, setting := r.Source+" "+r.Version, r.Key+"="+r.Value
		var g *group
		for _, x := range groups {
			if x.head == head && x.setting == setting {
				g = x
			}
		}
		if g == nil {
			g = &group{head: head, setting: setting}
			groups = append(groups, g)
		}
		g.profiles = append(g.profiles, r.Profile)
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.head+" "+strings.Join(g.profiles, ", ")+": "+g.setting)
	}
	return out
}

// wrapText breaks text at spaces into lines of at most width columns
// (runes); a word longer than a line is cut.
func wrapText(text, first, indent string, width int) []string {
	var out []string
	line, prefix := first, first
	n := utf8.RuneCountInString
	for _, word := range strings.Fields(text) {
		for n(indent)+n(word) > width {
			// A word too long for any line: cut it where the line ends.
			room := width - n(line)
			if line != prefix {
				room--
			}
			if room <= 0 {
				out = append(out, line)
				line, prefix = indent, indent
				continue
			}
			r := []rune(word)
			if line != prefix {
				line += " "
			}
			out = append(out, line+string(r[:room]))
			line, prefix, word = indent, indent, string(r[room:])
		}
		switch {
		case line == prefix:
			line += word
		case n(line)+1+n(word) <= width:
			line += " " + word
		default:
			out = append(out, line)
			line, prefix = indent+word, indent
		}
	}
	if line != prefix || len(out) == 0 {
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}
