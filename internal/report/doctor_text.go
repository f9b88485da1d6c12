package report

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

// pageWidth is the terminal width the check-up page fits.
const pageWidth = 80

// verdictOrder lists the settings worst first, so what needs attention
// is read before what is fine.
var verdictOrder = []knob.Verdict{knob.Suspicious, knob.Unknown, knob.Changed, knob.Default}

// DoctorText writes the check-up as a terminal page of at most 80
// columns, the answer first: the summary (verdict, wake-ups, sleep,
// settings counts, cause), then the evidence. Without all it folds what
// needs no attention (a changed or unread setting takes a line, the
// defaults one list, three next steps) so that the page fits a terminal;
// with all it shows every finding in full. The document keeps everything
// either way.
func DoctorText(w io.Writer, r *doctor.Result, all bool) {
	p := &page{w: w}
	for _, l := range DoctorSummary(r) {
		p.line(l)
	}
	p.blank()
	p.line(fmt.Sprintf("timer (%s check-up, %s)", r.Profile, r.OS))
	for _, f := range r.Timer.Facts {
		p.fact(f.Name, f.Value)
	}
	if all {
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
	} else {
		p.blank()
		if r.Sleep != nil {
			p.brief(r.Sleep, true)
		}
		if r.Wake != nil {
			p.brief(r.Wake, false)
		}
		for i := range r.Extra {
			p.brief(&r.Extra[i], false)
		}
	}
	if r.Overhead != nil && all {
		p.blank()
		p.wrap(fmt.Sprintf("tool overhead: clock read %s, zero-length wait %s (p50): the floor latlab itself adds to a sample",
			units.Duration(time.Duration(r.Overhead.ClockReadP50Ns)), units.Duration(time.Duration(r.Overhead.ZeroWaitP50Ns))), "", "  ")
	}
	if r.Cause != nil && r.Cause.Missing == "" {
		if all {
			p.blank()
		}
		p.cause(r.Cause, all)
	}
	p.blank()
	if all {
		p.wrap("settings: "+tallyLine(r), "", "  ")
	} else {
		p.line(fmt.Sprintf("settings (%d read, none altered; --all shows each in full)", len(r.Settings)))
	}
	var defaults []doctor.Setting
	for _, v := range verdictOrder {
		for _, s := range r.Settings {
			switch {
			case s.Verdict != v:
			case all || v == knob.Suspicious:
				p.setting(s)
			case v == knob.Default:
				defaults = append(defaults, s)
			default:
				p.folded(s)
			}
		}
	}
	if len(defaults) > 0 {
		p.wrap(defaultList(defaults), fmt.Sprintf("  %-11s", knob.Default), strings.Repeat(" ", 13))
	}
	if len(r.Next) > 0 {
		p.blank()
		if !all && len(r.Next) > briefSteps {
			p.line(fmt.Sprintf("next (%d of %d; --all shows every one)", briefSteps, len(r.Next)))
		} else {
			p.line("next")
		}
		for i, s := range r.Next {
			if !all && i == briefSteps {
				break
			}
			p.wrap(s.Command, fmt.Sprintf("  %d. ", i+1), "     ")
			p.wrap(s.Why, "     ", "     ")
		}
	}
	for _, n := range r.Notes {
		p.blank()
		p.wrap("note: "+n, "", "  ")
	}
}

// briefSteps is how many next steps the folded page shows.
const briefSteps = 3

// summaryRow is one line of the summary: a label and its text, wrapped
// to at most lines terminal lines.
type summaryRow struct {
	label, text string
	lines       int
}

// summaryRows are the summary after the verdict: the wake-ups, the
// sleeps, the settings by class and the cause, for the terminal and the
// page alike.
func summaryRows(r *doctor.Result) []summaryRow {
	var rows []summaryRow
	if w := r.Wake; w != nil {
		s := w.Summary
		rows = append(rows, summaryRow{"wake-ups", fmt.Sprintf("%s, %d missed periods: %s", tailOf(s, short), w.Overruns, orDash(w.Band)), 1})
	}
	if sl := r.Sleep; sl != nil {
		s := sl.Summary
		rows = append(rows, summaryRow{"sleep", fmt.Sprintf("%s asked: overshoot p50 %s, %s", units.Ns(sl.RequestNs), short(s.P50), tailOf(s, short)), 1})
	}
	rows = append(rows, summaryRow{"settings", classCounts(r), 1})
	if c := r.Cause; c != nil {
		switch {
		case c.Missing != "":
			rows = append(rows, summaryRow{"cause", c.Missing, 2})
		case c.Source == "tracefs":
			rows = append(rows, summaryRow{"cause", c.Text + " (from a second, traced run: see cause below)", 2})
		default:
			rows = append(rows, summaryRow{"cause", c.Text, 2})
		}
	}
	return rows
}

// DoctorSummary is the check-up's answer in at most six lines of at most
// 80 columns: the verdict, the wake-ups, the sleeps, the settings by
// class (every class, zeros too) and the cause of the worst wake-ups.
func DoctorSummary(r *doctor.Result) []string {
	// The verdict fits one line (OverallVerdict); one that does not is
	// wrapped whole, never cut to its first line.
	out := wrapText(r.Verdict.Text, "", "  ", pageWidth)
	for _, row := range summaryRows(r) {
		ls := wrapText(row.text, fmt.Sprintf("  %-10s", row.label), strings.Repeat(" ", 12), pageWidth)
		if len(ls) > row.lines {
			ls = ls[:row.lines]
			ls[row.lines-1] = Clip(ls[row.lines-1]+" ...", pageWidth)
		}
		out = append(out, ls...)
	}
	return out
}

// short is a duration in three significant digits (1.92ms, 497µs).
func short(ns int64) string { return units.NsShort(float64(ns)) }

// duration is a duration in full (1.0713ms).
func duration(ns int64) string { return units.Duration(time.Duration(ns)) }

// tailOf is a probe's tail, "p99 X, max Y", without the p99 while it is
// still the maximum (fewer than 100 samples): the standard check-up's 60
// sleeps once read "p99 38.4ms, max 38.4ms", a p99 that was one sleep.
func tailOf(s stats.Summary, f func(int64) string) string {
	if s.Count < 100 {
		return "max " + f(s.Max)
	}
	return fmt.Sprintf("p99 %s, max %s", f(s.P99), f(s.Max))
}

// p99Column is the heading and the value of a table's tail column over
// the runs counted: the p99, or the maximum, headed so, when any run has
// fewer than 100 samples (its p99 is then its maximum, nearest rank).
func p99Column(counts ...int64) (string, func(stats.Summary) int64) {
	for _, n := range counts {
		if n < 100 {
			return "max", func(s stats.Summary) int64 { return s.Max }
		}
	}
	return "p99", func(s stats.Summary) int64 { return s.P99 }
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// classCounts names every class of finding with its count, zeros too,
// worst first.
func classCounts(r *doctor.Result) string {
	c := r.Counts
	return fmt.Sprintf("%d %s, %d %s, %d %s, %d %s", c.Suspicious, knob.Suspicious,
		c.Changed, knob.Changed, c.Default, knob.Default, c.Unknown, knob.Unknown)
}

func tallyLine(r *doctor.Result) string {
	return fmt.Sprintf("%d read, none altered: %s", len(r.Settings), classCounts(r))
}

// defaultList is the default findings in one list: each knob once, with
// how many instances when more than one.
func defaultList(ss []doctor.Setting) string {
	n := map[string]int{}
	var order []string
	for _, s := range ss {
		if n[s.Knob] == 0 {
			order = append(order, s.Knob)
		}
		n[s.Knob]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = k
		if n[k] > 1 {
			parts[i] += fmt.Sprintf(" (%d)", n[k])
		}
	}
	return fmt.Sprintf("%d: %s", len(ss), strings.Join(parts, ", "))
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
	line := fmt.Sprintf("p50 %s, %s", duration(s.P50), tailOf(s, duration))
	if pr.IntervalNs > 0 {
		line += fmt.Sprintf("; %d missed periods", pr.Overruns)
	}
	p.wrap(line, "  ", "  ")
	for _, t := range pr.Threads {
		p.wrap(fmt.Sprintf("CPU %d: p50 %s, %s, %d missed", t.CPU, duration(t.Summary.P50), tailOf(t.Summary, duration), t.Overruns), "    ", "      ")
	}
	p.wrap(pr.Verdict, "  ", "  ")
	for _, n := range pr.Notes {
		p.wrap("note: "+n, "  ", "    ")
	}
}

// brief is a probe in two lines, and its verdict when withVerdict (the
// summary already gives the wake probe's).
func (p *page) brief(pr *doctor.Probe, withVerdict bool) {
	s := pr.Summary
	var head string
	if pr.IntervalNs > 0 {
		head = fmt.Sprintf("%s: every %s x%d: late p50 %s, %s; %d missed", pr.Name,
			units.Ns(pr.IntervalNs), s.Count, short(s.P50), tailOf(s, short), pr.Overruns)
	} else {
		head = fmt.Sprintf("%s: %s(%s) x%d: overshoot p50 %s, %s", pr.Name,
			pr.Method, units.Ns(pr.RequestNs), s.Count, short(s.P50), tailOf(s, short))
	}
	p.wrap(head, "", "  ")
	if withVerdict {
		p.wrap(pr.Verdict, "  ", "  ")
	}
	for _, n := range pr.Notes {
		p.wrap("note: "+n, "  ", "    ")
	}
}

// cause is the traced cause's evidence: which run it came from, and
// what held the CPU longest in the worst wake-ups (all: each culprit of
// the explained wake-ups; else the three longest).
func (p *page) cause(c *doctor.Cause, all bool) {
	p.wrap("cause: "+c.Run, "", "  ")
	lines := causeLines(c, all)
	if !all && len(c.Notes) > 0 && len(lines) > 2 {
		lines = lines[:2] // room for the note
	}
	for _, l := range lines {
		p.wrap(l, "  ", "    ")
	}
	for _, n := range c.Notes {
		if !all {
			// What the trace lacks qualifies the cause: the first note,
			// in a line.
			p.line(Clip("  note: "+n, pageWidth))
			break
		}
		p.wrap("note: "+n, "  ", "    ")
	}
}

// causeLines are a cause's culprits, most first: the threads, handlers
// and softirqs of the explained wake-ups, or the drivers of a DPC watch.
func causeLines(c *doctor.Cause, all bool) []string {
	limit := 3
	if all {
		limit = 1 << 30
	}
	var out []string
	if c.Longest != nil {
		out = append(out, "longest: "+c.Longest.Verdict)
	}
	for _, d := range c.Drivers {
		if len(out) >= limit {
			break
		}
		out = append(out, fmt.Sprintf("%s: DPC %s, ISR %s, %d executions", d.Module, units.Us(d.DPCUs), units.Us(d.ISRUs), d.Count))
	}
	for _, t := range doctor.Culprits(c.Explained) {
		if len(out) >= limit {
			break
		}
		out = append(out, t)
	}
	return out
}

// folded is a finding in one line: verdict, name, value.
func (p *page) folded(s doctor.Setting) {
	name := s.Knob
	if s.Target != "" {
		name += " (" + s.Target + ")"
	}
	p.line(Clip(fmt.Sprintf("  %-11s%s: %s", s.Verdict, name, s.Value), pageWidth))
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

// wrapText is textwrap.Hanging for a page that must hold 80 columns whatever
// it quotes: text after first, continued after indent (spaces), and a
// word longer than any line (a path, a hash) cut into pieces that fit
// instead of left whole.
func wrapText(text, first, indent string, width int) []string {
	room := width - max(utf8.RuneCountInString(first), len(indent))
	var words []string
	for _, w := range strings.Fields(text) {
		for r := []rune(w); ; r = r[room:] {
			if room <= 0 || len(r) <= room {
				words = append(words, string(r))
				break
			}
			words = append(words, string(r[:room]))
		}
	}
	return textwrap.Hanging(first+strings.Join(words, " "), len(indent), width)
}
