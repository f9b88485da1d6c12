package timer

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/lazy"
)

// The "Platform Timer Resolution" entries of a 'powercfg /energy' report
// are how Windows names who holds a timer request. Microsoft's PwrTest
// documentation names the Microsoft-Windows-Kernel-Power events behind
// them (TimerResolutionRequestRundown: AppName, Resolution, ProcessID)
// but documents no event layout, so latlab reads the report, in any of
// the forms it comes in:
//
//   - XML ('powercfg /energy /xml', and the reports Windows keeps under
//     ProgramData\Microsoft\Windows\Power Efficiency Diagnostics):
//     EnergyReport > Troubleshooter > AnalysisLog > LogEntry, each with a
//     Name and Details > Detail (Name, Value);
//   - the HTML report (energy-report.html), or its text as people paste
//     it: a title "Platform Timer Resolution:Outstanding Timer Request",
//     then rows "Requested Period", "Requesting Process ID", "Requesting
//     Process Path" (and "Calling Module" rows in "Timer Request Stack").
//
// Labels are matched in English, ignoring case and spaces. powercfg
// localises them, so a report with no English label is read by the shape
// of its values instead (readByShape): a timer request is an entry whose
// values are, in order, a period in 100 ns units, a process ID and a
// \Device\... image path; the entry of the same troubleshooter with two
// numbers and no path holds the current and the maximum period; a stack
// entry is a process ID and paths.

// MaxEnergyReport bounds what ParseEnergyReport reads; reports are a few
// hundred KiB.
const MaxEnergyReport = 32 << 20

// maxEntries bounds the entries kept from one report, maxRows the rows
// of one entry.
const (
	maxEntries = 10000
	maxRows    = 256
)

// EnergyReport is what a report says about the timer.
type EnergyReport struct {
	Format string `json:"format"` // xml, html or text
	// Labels is "by shape" when the report's labels were not English and
	// its timer entries were recognised by their values.
	Labels string `json:"labels,omitempty"`
	// In 100 ns units, as the report gives them.
	CurrentPeriod100ns *int64         `json:"current_period_100ns,omitempty"`
	MaxPeriod100ns     *int64         `json:"max_period_100ns,omitempty"`
	Requests           []TimerRequest `json:"requests"`
}

// TimerRequest is one outstanding timer-resolution request.
type TimerRequest struct {
	// PID is 0 when the entry gives none: a kernel-mode entry, or a
	// request quoted without it (0 is the Idle process, never a requester).
	PID         int64  `json:"pid"`
	Path        string `json:"path,omitempty"`    // \Device\HarddiskVolume4\...\firefox.exe
	Process     string `json:"process,omitempty"` // firefox.exe
	Period100ns *int64 `json:"requested_period_100ns,omitempty"`
	// Modules are the "Calling Module" rows of the request's stack.
	Modules []string `json:"calling_modules,omitempty"`
	// Kernel marks a kernel-mode request: a driver's ExSetTimerResolution.
	// powercfg lists those as "Outstanding Kernel Timer Request" entries,
	// a period and a count with no process (PID 0 here); a request listed
	// under the System process (PID 4) or a driver image (.sys) is taken
	// for one too.
	Kernel bool `json:"kernel,omitempty"`
	// Count is a kernel-mode entry's "Request Count": how many requests of
	// that period drivers hold.
	Count int64 `json:"request_count,omitempty"`
	// StackPeriod100ns is the period of the process's "Timer Request
	// Stack" entry when it differs from its "Outstanding Timer Request":
	// powercfg describes the stack as "the stack of modules responsible for
	// the lowest platform timer setting in this process", while Period100ns
	// is the outstanding request's.
	StackPeriod100ns *int64 `json:"stack_period_100ns,omitempty"`
}

// DefaultPeriod100ns is the platform's default (and coarsest) period:
// 15.625 ms, 64 Hz.
const DefaultPeriod100ns = 156250

// defaultFloor100ns is the finest current period still read as the
// default: real reports give the default as 156250 or 156001 (their
// "Maximum Timer Period" rows), and one, of Windows build 19045 with four
// processes asking for 1 ms, gives the current resolution as 156211.
const defaultFloor100ns = 156000

// HiddenRequests counts the process requests finer than the current
// resolution when the report gives that as the default (156250, or
// within defaultFloor100ns of it). Since
// Windows 10 2004 powercfg reads the system's current resolution as 156250
// unless a driver holds a request, while it still lists each requesting
// process with the period it asked for: a reader's comment on Bruce
// Dawson's "Windows Timer Resolution: The Great Rule Change"
// (randomascii.wordpress.com, 2020-10-04), and another's on a driver's
// ExSetTimerResolution showing where a program's request does not. The
// requests still set the timer interrupt (Dawson: "timeBeginPeriod still
// sets the global timer interrupt interval, on all versions"); only other
// processes' sleeps no longer follow it.
func (e *EnergyReport) HiddenRequests() int {
	if e.CurrentPeriod100ns == nil || *e.CurrentPeriod100ns < defaultFloor100ns {
		return 0
	}
	n := 0
	for _, q := range e.Requests {
		if !q.Kernel && q.Period100ns != nil && *q.Period100ns < *e.CurrentPeriod100ns {
			n++
		}
	}
	return n
}

// isKernel: the System process, or a driver image.
func isKernel(pid int64, path string) bool {
	p := strings.ToLower(path)
	return pid == 4 || strings.HasSuffix(p, ".sys") || strings.HasPrefix(p, `\systemroot\system32\drivers\`)
}

// PeriodMs is the requested period in ms, or -1 when the report gave none.
func (r TimerRequest) PeriodMs() float64 {
	if r.Period100ns == nil {
		return -1
	}
	return float64(*r.Period100ns) / 1e4
}

// label kinds
const (
	fCurrent = iota + 1
	fMax
	fPeriod
	fPID
	fPath
	fModule
	fCount
)

var labels = []struct {
	norm string
	kind int
}{
	{"currenttimerresolution(100nsunits)", fCurrent},
	{"maximumtimerperiod(100nsunits)", fMax},
	{"requestedperiod", fPeriod},
	{"requestingprocessid", fPID},
	{"requestingprocesspath", fPath},
	// Before "callingmodule", which it begins with: powercfg labels the
	// first row of a stack "Calling Module Stack" and leaves the label of
	// the rows below it empty (see moduleRows).
	{"callingmodulestack", fModule},
	{"callingmodule", fModule},
	// The other row of an "Outstanding Kernel Timer Request", with
	// "Requested Period": how many requests of that period drivers hold.
	{"requestcount", fCount},
}

func normLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != ' ' && r != '\t' && r != '\u00a0' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// entry is one log entry: its name and its rows, in order.
type entry struct {
	category string
	name     string
	rows     []row
}

type row struct {
	kind  int
	value string
}

// entry's category is its troubleshooter: the XML Troubleshooter's Name,
// or the text before the colon of a text entry's title.

// ParseEnergyReport reads a powercfg /energy report (XML, HTML or pasted
// text) and returns its timer entries. A report without any "Platform
// Timer Resolution" entry is an error: every report has one, so the input
// is another file, or a report in another language.
func ParseEnergyReport(r io.Reader) (*EnergyReport, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxEnergyReport+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxEnergyReport {
		return nil, fmt.Errorf("larger than %d MiB: not a powercfg /energy report", MaxEnergyReport>>20)
	}
	b, err = decodeText(b)
	if err != nil {
		return nil, err
	}
	rep := &EnergyReport{Requests: []TimerRequest{}}
	var entries []entry
	head := strings.ToLower(string(bytes.TrimSpace(b[:min(len(b), 512)])))
	switch {
	case strings.HasPrefix(head, "<?xml") || strings.HasPrefix(head, "<energyreport"):
		rep.Format = "xml"
		entries, err = xmlEntries(b)
	case strings.Contains(head, "<html") || strings.HasPrefix(head, "<!doctype"):
		rep.Format = "html"
		entries = textEntries(htmlToText(string(b)))
	default:
		rep.Format = "text"
		entries = textEntries(string(b))
	}
	if err != nil {
		return nil, err
	}
	moduleRows(entries)
	if english(entries) {
		entries = timerEntries(entries, rep.Format)
	} else {
		entries = readByShape(entries)
		rep.Labels = "by shape"
	}
	if len(entries) == 0 {
		return nil, errors.New("no 'Platform Timer Resolution' entry: not a powercfg /energy report (in any language it holds neither a timer request, a period with a process ID and a \\Device\\ path, nor the current resolution's entry, titled \"X:X\" with a period)")
	}
	if err := rep.fill(entries); err != nil {
		return nil, err
	}
	return rep, nil
}

// moduleRows labels the rows below a stack's first module: powercfg
// writes one "Calling Module Stack" row and then a row with an empty
// label for each further module, so a path without a label right after a
// module is the next module.
func moduleRows(entries []entry) {
	for _, e := range entries {
		for i := 1; i < len(e.rows); i++ {
			if e.rows[i].kind == 0 && e.rows[i-1].kind == fModule && shape(e.rows[i].value) == vPath {
				e.rows[i].kind = fModule
			}
		}
	}
}

// english reports whether any row has an English label.
func english(entries []entry) bool {
	for _, e := range entries {
		for _, r := range e.rows {
			if r.kind != 0 {
				return true
			}
		}
	}
	return false
}

// timerEntries keeps the entries with English labels; in the text forms
// only those of the Platform Timer Resolution troubleshooter.
func timerEntries(entries []entry, format string) []entry {
	var out []entry
	for _, e := range entries {
		if format != "xml" && normLabel(e.category)+":" != timerTitle {
			continue
		}
		if english([]entry{e}) {
			out = append(out, e)
		}
	}
	return out
}

// value shapes
const (
	vOther = iota
	vInt
	vPath
)

func shape(v string) int {
	v = strings.TrimSpace(v)
	switch {
	case reInteger().MatchString(v):
		return vInt
	case strings.HasPrefix(v, `\`) || len(v) > 3 && v[1] == ':' && v[2] == '\\':
		return vPath // \Device\..., \SystemRoot\..., or C:\... (older reports)
	}
	return vOther
}

// shapes is an entry's value shapes in order, other values left out.
func shapes(e entry) []int {
	var out []int
	for _, r := range e.rows {
		if sh := shape(r.value); sh != vOther {
			out = append(out, sh)
		}
	}
	return out
}

// isRequest: a period, a process ID and a path, in that order and
// nothing before them but text (the entry of an outstanding request).
func isRequest(e entry) bool {
	sh := shapes(e)
	return len(sh) >= 3 && sh[0] == vInt && sh[1] == vInt && sh[2] == vPath
}

// isResolution: the entry that gives the current (and maximum) period,
// in a report with no outstanding request to mark the troubleshooter. Its
// title repeats the troubleshooter's name ("Platform Timer Resolution:
// Platform Timer Resolution", "Plattform-Zeitgeberauflösung:Plattform-
// Zeitgeberauflösung"), as no other entry's does in the 18 real reports
// docs/commands/timer.md describes, and it holds one or two numbers, the
// second no finer than the first.
func isResolution(e entry) bool {
	if e.category == "" || normLabel(e.category) != normLabel(e.name) {
		return false
	}
	var ints []int64
	for _, r := range e.rows {
		switch shape(r.value) {
		case vPath:
			return false
		case vInt:
			v, err := period(r.value, "")
			if err != nil {
				return false
			}
			ints = append(ints, v)
		}
	}
	return len(ints) == 1 || len(ints) == 2 && ints[1] >= ints[0]
}

// readByShape labels the rows of a report whose labels are not English,
// from the shapes of their values: every entry shaped as a timer request
// marks its troubleshooter (or, with none, the entry of the current
// period: isResolution); in that troubleshooter an entry of numbers and
// paths is read as [period,] process ID, process path, calling modules;
// one of a number and no path as the current period; one of two numbers
// and no path as the current and the maximum period when the second is
// no finer, else as a kernel-mode request's period and count (the two
// rows of an "Outstanding Kernel Timer Request"). Entries of other
// troubleshooters are dropped.
func readByShape(entries []entry) []entry {
	cats := map[string]bool{}
	for _, e := range entries {
		if isRequest(e) {
			cats[e.category] = true
		}
	}
	if len(cats) == 0 {
		for _, e := range entries {
			if isResolution(e) {
				cats[e.category] = true
			}
		}
	}
	var out []entry
	for _, e := range entries {
		if !cats[e.category] || (e.category == "" && !isRequest(e)) {
			continue
		}
		var ints, paths []string
		for _, r := range e.rows {
			switch shape(r.value) {
			case vInt:
				if len(paths) == 0 {
					ints = append(ints, r.value)
				}
			case vPath:
				paths = append(paths, r.value)
			}
		}
		l := entry{category: e.category, name: e.name}
		switch {
		case len(paths) == 0 && len(ints) == 1:
			l.rows = []row{{fCurrent, ints[0]}}
		case len(paths) == 0 && len(ints) == 2:
			l.rows = []row{{fCurrent, ints[0]}, {fMax, ints[1]}}
			a, errA := period(ints[0], "")
			b, errB := period(ints[1], "")
			if errA == nil && errB == nil && b < a {
				l.rows = []row{{fPeriod, ints[0]}, {fCount, ints[1]}}
			}
		case len(paths) > 0 && len(ints) >= 2:
			l.rows = []row{{fPeriod, ints[len(ints)-2]}, {fPID, ints[len(ints)-1]}}
		case len(paths) > 0 && len(ints) == 1:
			l.rows = []row{{fPID, ints[0]}}
		default:
			continue
		}
		for i, p := range paths {
			k := fModule
			if i == 0 {
				k = fPath
			}
			l.rows = append(l.rows, row{k, p})
		}
		out = append(out, l)
	}
	return out
}

// decodeText turns UTF-16 (with a byte-order mark) into UTF-8; powercfg
// writes UTF-8, a report saved from an editor may not be.
func decodeText(b []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}), bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		big := b[0] == 0xfe
		b = b[2:]
		var out strings.Builder
		for i := 0; i+1 < len(b); i += 2 {
			c := rune(b[i]) | rune(b[i+1])<<8
			if big {
				c = rune(b[i])<<8 | rune(b[i+1])
			}
			out.WriteRune(c)
		}
		return []byte(out.String()), nil
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		return b[3:], nil
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, errors.New("binary data (NUL bytes): not a powercfg /energy report")
	}
	return b, nil
}

// xmlEntries reads the LogEntry elements: their Name and every Detail's
// Name and Value.
func xmlEntries(b []byte) ([]entry, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		out      []entry
		stack    []string
		cur      *entry
		dName    string
		dVal     string
		text     strings.Builder
		category string
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			if len(stack) > 64 {
				return nil, errors.New("XML nested more than 64 deep: not a powercfg /energy report")
			}
			text.Reset()
			switch t.Name.Local {
			case "LogEntry":
				cur = &entry{category: category}
			case "Detail":
				dName, dVal = "", ""
			}
		case xml.CharData:
			if text.Len() < 1<<16 {
				text.Write(t)
			}
		case xml.EndElement:
			n := len(stack)
			if n == 0 {
				continue
			}
			parent := ""
			if n >= 2 {
				parent = stack[n-2]
			}
			s := strings.TrimSpace(text.String())
			switch {
			case t.Name.Local == "Name" && parent == "Troubleshooter":
				category = s
			case t.Name.Local == "Name" && parent == "LogEntry" && cur != nil:
				cur.name = s
			case t.Name.Local == "Name" && parent == "Detail":
				dName = s
			case t.Name.Local == "Value" && parent == "Detail":
				dVal = s
			case t.Name.Local == "Detail" && cur != nil:
				if len(cur.rows) < maxRows {
					cur.rows = append(cur.rows, row{kindOf(dName), dVal})
				}
			case t.Name.Local == "LogEntry" && cur != nil:
				if len(cur.rows) > 0 && len(out) < maxEntries {
					out = append(out, *cur)
				}
				cur = nil
			}
			stack = stack[:n-1]
			text.Reset()
		}
	}
	return out, nil
}

func kindOf(label string) int {
	n := normLabel(label)
	for _, l := range labels {
		if n == l.norm {
			return l.kind
		}
	}
	return 0
}

var (
	reDrop  = lazy.Regexp(`(?is)<(script|style)\b.*?</(script|style)\s*>`)
	reBreak = lazy.Regexp(`(?i)</?(tr|br|p|div|h[1-6]|li|table|thead|tbody)\b[^>]*>`)
	reCell  = lazy.Regexp(`(?i)</t[dh]\s*>`)
	reTag   = lazy.Regexp(`<[^>]*>`)
	reSpace = lazy.Regexp(`[ \t\r\n\f]+`)
)

// htmlToText keeps the report's text: a line per table row, cells
// separated by tabs. White space in HTML is insignificant, and the report
// powercfg writes puts each cell on a line of its own
// ("<td>...Requested Period</span></td>\n<td>10000</td>"), so runs of it
// become one space before the rows and cells are marked.
func htmlToText(s string) string {
	s = reDrop().ReplaceAllString(s, "")
	s = reSpace().ReplaceAllString(s, " ")
	s = reCell().ReplaceAllString(s, "\t")
	s = reBreak().ReplaceAllString(s, "\n")
	s = reTag().ReplaceAllString(s, "")
	return html.UnescapeString(s)
}

const timerTitle = "platformtimerresolution:"

// textEntries reads the text form: an entry starts at a title line
// "Troubleshooter:Entry" ("Platform Timer Resolution:Outstanding Timer
// Request" in English) and takes the rows below it until the next title.
// A row with an English label is split at the label; any other row keeps
// the value at its end (see rowValue), with kind 0. A label alone on its
// line takes the next line as its value when that is a number or a path:
// a report's text copied from a browser can put every cell on a line of
// its own ("Requested Period", a blank line, "30000", in the report
// quoted in "Who changed my Platform Timer Resolution?", Microsoft's
// maartenb blog, 2010).
func textEntries(s string) []entry {
	var out []entry
	var cur *entry
	pending := -1 // the row of cur whose label stood alone on its line
	flush := func() {
		if cur != nil && len(cur.rows) > 0 && len(out) < maxEntries {
			out = append(out, *cur)
		}
		cur, pending = nil, -1
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "\r", ""))
		if line == "" {
			continue
		}
		if k, v, ok := textRow(line); ok {
			pending = -1
			if cur != nil && len(cur.rows) < maxRows {
				cur.rows = append(cur.rows, row{k, v})
				if v == "" {
					pending = len(cur.rows) - 1
				}
			}
			continue
		}
		if pending >= 0 {
			p := pending
			pending = -1
			if shape(line) != vOther {
				cur.rows[p].value = line
				continue
			}
		}
		if cat, name, ok := title(line); ok {
			flush()
			cur = &entry{category: cat, name: name}
			continue
		}
		if v, ok := rowValue(line); ok && cur != nil && len(cur.rows) < maxRows {
			cur.rows = append(cur.rows, row{0, v})
		}
	}
	flush()
	return out
}

// title splits a line "Troubleshooter:Entry": a colon within the first 80
// bytes, not after a drive letter or before a path, with no tab or full
// stop before it (a sentence of a description is not a title).
func title(line string) (category, name string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 1 || i >= 80 || strings.ContainsAny(line[:i], "\t.") {
		return "", "", false
	}
	rest := strings.TrimSpace(line[i+1:])
	if strings.HasPrefix(rest, `\`) || rest == "" {
		return "", "", false
	}
	return strings.TrimSpace(line[:i]), rest, true
}

// rowValue is the value of a row whose label latlab cannot read: what
// follows the last tab (a table cell), else a path (from a backslash),
// else a number at the end of the line (with its digit grouping).
func rowValue(line string) (string, bool) {
	if i := strings.LastIndexByte(line, '\t'); i >= 0 {
		v := strings.TrimSpace(line[i+1:])
		return v, v != ""
	}
	if i := strings.Index(line, `\`); i >= 0 {
		return line[i:], true
	}
	if m := reTrailingNumber().FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	return "", false
}

var (
	// reTrailingNumber is a number ending a line after a label: plain
	// digits or thousands grouped with , . or a (narrow) no-break space.
	reTrailingNumber = lazy.Regexp(`(?:^|[^\d.,])(\d{1,3}(?:[,.\x{a0}\x{202f}]\d{3})+|\d+)\s*$`)
	// reInteger is a whole value that is an integer in those forms.
	reInteger = lazy.Regexp(`^(?:\d{1,3}(?:[,. \x{a0}\x{202f}]\d{3})+|\d+)$`)
)

// textRow matches a known label at the start of a line; the value is
// what follows, after a tab, a colon or spaces.
func textRow(line string) (kind int, value string, ok bool) {
	for _, l := range labels {
		// Walk the line while it spells the label, skipping spaces.
		i, j := 0, 0
		lower := strings.ToLower(line)
		for i < len(lower) && j < len(l.norm) {
			switch {
			case lower[i] == ' ' || lower[i] == '\t':
				i++
			case lower[i] == l.norm[j]:
				i++
				j++
			default:
				j = -1
			}
			if j < 0 {
				break
			}
		}
		if j != len(l.norm) {
			continue
		}
		rest := line[i:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != ':' {
			continue // a longer word
		}
		return l.kind, strings.TrimSpace(strings.TrimLeft(rest, " \t:")), true
	}
	return 0, "", false
}

// fill turns the entries into the report: the current and maximum
// period, one request per process (an outstanding request and its stack
// are two entries for one process), and the kernel-mode requests.
func (rep *EnergyReport) fill(entries []entry) error {
	type proc struct {
		req        TimerRequest
		out, stack *int64 // the periods of its outstanding request and of its stack
	}
	byPID := map[int64]*proc{}
	var order []int64
	var noPID []TimerRequest // kernel-mode entries, and requests quoted without a process ID
	for _, e := range entries {
		var req TimerRequest
		hasPID, hasCount := false, false
		for _, r := range e.rows {
			switch r.kind {
			case fCurrent:
				v, err := period(r.value, "Current Timer Resolution")
				if err != nil {
					return err
				}
				rep.CurrentPeriod100ns = &v
			case fMax:
				v, err := period(r.value, "Maximum Timer Period")
				if err != nil {
					return err
				}
				rep.MaxPeriod100ns = &v
			case fPeriod:
				v, err := period(r.value, "Requested Period")
				if err != nil {
					return err
				}
				req.Period100ns = &v
			case fPID:
				v, err := strconv.ParseInt(strings.TrimSpace(r.value), 10, 64)
				if err != nil || v < 0 || v > 1<<32 {
					//lint:ignore ST1005 the error begins with the report's field name, as it is spelt there
					return fmt.Errorf("Requesting Process ID %q: want a process ID", clipValue(r.value))
				}
				req.PID, hasPID = v, true
			case fPath:
				req.Path = clipValue(r.value)
			case fModule:
				if len(req.Modules) < 64 && r.value != "" {
					req.Modules = append(req.Modules, clipValue(r.value))
				}
			case fCount:
				v, err := strconv.ParseInt(strings.TrimSpace(r.value), 10, 64)
				if err != nil || v < 0 || v > 1<<32 {
					return fmt.Errorf("Request Count %q: want a number of requests", clipValue(r.value))
				}
				req.Count, hasCount = v, true
			}
		}
		if !hasPID {
			switch {
			case req.Period100ns == nil || len(noPID) >= maxEntries:
			case hasCount:
				// An "Outstanding Kernel Timer Request": a period and a
				// count, no process.
				req.Kernel = true
				noPID = append(noPID, req)
			case req.Path != "":
				// A request quoted without its process ID (PID 0 here):
				// still a request, not "nothing holds the timer".
				req.Process = baseName(req.Path)
				req.Kernel = isKernel(0, req.Path)
				noPID = append(noPID, req)
			}
			continue
		}
		if req.Path != "" {
			req.Process = baseName(req.Path)
		}
		req.Kernel = isKernel(req.PID, req.Path)
		p := byPID[req.PID]
		if p == nil {
			if len(order) >= maxEntries {
				continue
			}
			p = &proc{req: req}
			p.req.Period100ns, p.req.Modules = nil, nil
			byPID[req.PID] = p
			order = append(order, req.PID)
		}
		// A stack entry lists the modules; the outstanding request does
		// not. Of several of one kind, the finest period.
		at := &p.out
		if len(req.Modules) > 0 {
			at = &p.stack
		}
		if req.Period100ns != nil && (*at == nil || *req.Period100ns < **at) {
			*at = req.Period100ns
		}
		if p.req.Path == "" {
			p.req.Path, p.req.Process = req.Path, req.Process
		}
		p.req.Kernel = p.req.Kernel || req.Kernel
		if len(p.req.Modules) == 0 {
			p.req.Modules = req.Modules
		}
	}
	for _, pid := range order {
		p := byPID[pid]
		p.req.Period100ns = p.out
		switch {
		case p.out == nil:
			p.req.Period100ns = p.stack
		case p.stack != nil && *p.stack != *p.out:
			p.req.StackPeriod100ns = p.stack
		}
		rep.Requests = append(rep.Requests, p.req)
	}
	rep.Requests = append(rep.Requests, noPID...)
	sort.SliceStable(rep.Requests, func(i, j int) bool {
		a, b := rep.Requests[i].PeriodMs(), rep.Requests[j].PeriodMs()
		if (a < 0) != (b < 0) {
			return a >= 0 // requests with a period first
		}
		if a != b {
			return a < b
		}
		return rep.Requests[i].PID < rep.Requests[j].PID
	})
	return nil
}

// period reads a value in 100 ns units: digits, with the grouping a
// localised report may print (156,250 or 156 250).
func period(s, what string) (int64, error) {
	t := strings.NewReplacer(",", "", ".", "", " ", "", "\u00a0", "").Replace(strings.TrimSpace(s))
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > 1e9 {
		return 0, fmt.Errorf("%s %q: want a period in 100 ns units, e.g. 10000 for 1 ms", what, clipValue(s))
	}
	return v, nil
}

func clipValue(s string) string {
	if r := []rune(s); len(r) > 260 {
		return string(r[:260])
	}
	return s
}

func baseName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
