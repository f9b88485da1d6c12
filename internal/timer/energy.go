package timer

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
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
// Labels are matched in English, ignoring case and spaces.

// MaxEnergyReport bounds what ParseEnergyReport reads; reports are a few
// hundred KiB.
const MaxEnergyReport = 32 << 20

// maxEntries bounds the entries kept from one report.
const maxEntries = 10000

// EnergyReport is what a report says about the timer.
type EnergyReport struct {
	Format string `json:"format"` // xml, html or text
	// In 100 ns units, as the report gives them.
	CurrentPeriod100ns *int64         `json:"current_period_100ns,omitempty"`
	MaxPeriod100ns     *int64         `json:"max_period_100ns,omitempty"`
	Requests           []TimerRequest `json:"requests"`
}

// TimerRequest is one outstanding timer-resolution request.
type TimerRequest struct {
	PID         int64  `json:"pid"`
	Path        string `json:"path,omitempty"`    // \Device\HarddiskVolume4\...\firefox.exe
	Process     string `json:"process,omitempty"` // firefox.exe
	Period100ns *int64 `json:"requested_period_100ns,omitempty"`
	// Modules are the "Calling Module" rows of the request's stack.
	Modules []string `json:"calling_modules,omitempty"`
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
	{"callingmodule", fModule},
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
	name string
	rows []row
}

type row struct {
	kind  int
	value string
}

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
	if len(entries) == 0 {
		return nil, errors.New("no 'Platform Timer Resolution' entry: not a powercfg /energy report, or one in another language (latlab reads English reports)")
	}
	if err := rep.fill(entries); err != nil {
		return nil, err
	}
	return rep, nil
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
		out   []entry
		stack []string
		cur   *entry
		dName string
		dVal  string
		text  strings.Builder
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
				cur = &entry{}
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
			case t.Name.Local == "Name" && parent == "LogEntry" && cur != nil:
				cur.name = s
			case t.Name.Local == "Name" && parent == "Detail":
				dName = s
			case t.Name.Local == "Value" && parent == "Detail":
				dVal = s
			case t.Name.Local == "Detail" && cur != nil:
				if k := kindOf(dName); k != 0 {
					cur.rows = append(cur.rows, row{k, dVal})
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
	reDrop  = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)\s*>`)
	reBreak = regexp.MustCompile(`(?i)</?(tr|br|p|div|h[1-6]|li|table|thead|tbody)\b[^>]*>`)
	reCell  = regexp.MustCompile(`(?i)</t[dh]\s*>`)
	reTag   = regexp.MustCompile(`<[^>]*>`)
)

// htmlToText keeps the report's text: a line per table row, cells
// separated by tabs.
func htmlToText(s string) string {
	s = reDrop.ReplaceAllString(s, "")
	s = reCell.ReplaceAllString(s, "\t")
	s = reBreak.ReplaceAllString(s, "\n")
	s = reTag.ReplaceAllString(s, "")
	return html.UnescapeString(s)
}

const timerTitle = "platformtimerresolution:"

// textEntries reads the text form: an entry starts at a line "Platform
// Timer Resolution:NAME" and takes the known rows below it until the next
// title (any "Troubleshooter:Entry" line that is not a known row).
func textEntries(s string) []entry {
	var out []entry
	var cur *entry
	flush := func() {
		if cur != nil && len(cur.rows) > 0 && len(out) < maxEntries {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "\r", ""))
		if line == "" {
			continue
		}
		if k, v, ok := textRow(line); ok {
			if cur != nil {
				cur.rows = append(cur.rows, row{k, v})
			}
			continue
		}
		n := normLabel(line)
		if strings.HasPrefix(n, timerTitle) {
			flush()
			name := line[strings.IndexByte(line, ':')+1:]
			cur = &entry{name: strings.TrimSpace(name)}
			continue
		}
		if i := strings.IndexByte(line, ':'); i > 0 && i < 80 && !strings.ContainsAny(line[:i], "\t.") {
			flush() // another troubleshooter's entry
		}
	}
	flush()
	return out
}

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
// period, and one request per process (an outstanding request and its
// stack are two entries for one process).
func (rep *EnergyReport) fill(entries []entry) error {
	byPID := map[int64]*TimerRequest{}
	var order []int64
	for _, e := range entries {
		var req TimerRequest
		hasPID := false
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
			}
		}
		if !hasPID {
			continue
		}
		if req.Path != "" {
			req.Process = baseName(req.Path)
		}
		have := byPID[req.PID]
		if have == nil {
			if len(order) >= maxEntries {
				continue
			}
			r := req
			byPID[req.PID] = &r
			order = append(order, req.PID)
			continue
		}
		if have.Period100ns == nil || (req.Period100ns != nil && *req.Period100ns < *have.Period100ns) {
			if req.Period100ns != nil {
				have.Period100ns = req.Period100ns
			}
		}
		if have.Path == "" {
			have.Path, have.Process = req.Path, req.Process
		}
		if len(have.Modules) == 0 {
			have.Modules = req.Modules
		}
	}
	for _, pid := range order {
		rep.Requests = append(rep.Requests, *byPID[pid])
	}
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
