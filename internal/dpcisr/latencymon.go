package dpcisr

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/latlab/latlab/internal/dpcverdict"
	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/textdec"
)

// SourceLatencyMon is a report of Resplendence's LatencyMon, as its
// "Save report" writes it or as it is copied into a forum post: labelled
// values under headings between lines of underscores, and for the ISRs and
// the DPCs a count of executions in six buckets.
const SourceLatencyMon = "latencymon"

// LatencyMon is what a LatencyMon report says beside its two histograms
// (which are the report's sections, DPC and ISR). A value the report
// lacks (an older version, a report cut short, a fragment quoted in a
// thread) is absent: nil or "".
type LatencyMon struct {
	// Conclusion is the report's own conclusion, its sentences as printed.
	Conclusion string `json:"conclusion,omitempty"`
	// Duration is h:mm:ss of "LatencyMon has been analyzing your system
	// for 0:01:00 (h:mm:ss)", as printed, and DurationS the same in seconds.
	Duration  string   `json:"duration,omitempty"`
	DurationS *float64 `json:"duration_s,omitempty"`
	OS        string   `json:"os,omitempty"`
	CPU       string   `json:"cpu,omitempty"`
	// LogicalProcessors is "Logical processors: N".
	LogicalProcessors *int64 `json:"logical_processors,omitempty"`
	// ReportedMHz is "Reported CPU speed", the speed LatencyMon converts
	// CPU cycles to time with; MeasuredMHz is "Measured CPU speed", which
	// only some reports print.
	ReportedMHz *float64 `json:"reported_cpu_mhz,omitempty"`
	MeasuredMHz *float64 `json:"measured_cpu_mhz,omitempty"`
	// FixedSpeedNote says the report carries LatencyMon's note that
	// "reported execution times may be calculated based on a fixed
	// reported CPU speed".
	FixedSpeedNote bool `json:"fixed_speed_note,omitempty"`
	// The measured interrupt to user process latencies, in µs.
	ProcessHighestUs *float64 `json:"interrupt_to_process_highest_us,omitempty"`
	ProcessAverageUs *float64 `json:"interrupt_to_process_average_us,omitempty"`
	DPCLatHighestUs  *float64 `json:"interrupt_to_dpc_highest_us,omitempty"`
	DPCLatAverageUs  *float64 `json:"interrupt_to_dpc_average_us,omitempty"`
	// ISR and DPC are the sections REPORTED ISRs and REPORTED DPCs less
	// their count lines (the report's histograms).
	ISR *LMRoutines `json:"isr,omitempty"`
	DPC *LMRoutines `json:"dpc,omitempty"`
	// HardFaults is REPORTED HARD PAGEFAULTS.
	HardFaults *LMHardFaults `json:"hard_pagefaults,omitempty"`
	// CPUs is PER CPU DATA, in the report's order.
	CPUs []LMCPU `json:"cpus,omitempty"`
}

// LMRoutines is what LatencyMon reports of the ISRs or the DPCs: the
// longest execution and its driver, the driver with the most time, and
// the share of time spent in them.
type LMRoutines struct {
	HighestUs     *float64 `json:"highest_us,omitempty"`
	HighestDriver string   `json:"highest_driver,omitempty"`
	// TopTotalPct is "Highest reported total ... routine time (%)", the
	// time of TopTotalDriver.
	TopTotalPct    *float64 `json:"top_total_pct,omitempty"`
	TopTotalDriver string   `json:"top_total_driver,omitempty"`
	// TotalPct is "Total time spent in ISRs (%)" (in DPCs).
	TotalPct *float64 `json:"total_pct,omitempty"`
}

// LMHardFaults is REPORTED HARD PAGEFAULTS.
type LMHardFaults struct {
	Process    string `json:"process,omitempty"` // with the most hard page faults
	Total      *int64 `json:"total,omitempty"`
	HardestHit *int64 `json:"hardest_hit,omitempty"` // the count of Process
	Processes  *int64 `json:"processes,omitempty"`   // number of processes hit
	// HighestResolutionUs is "Highest hard pagefault resolution time",
	// printed by older versions.
	HighestResolutionUs *float64 `json:"highest_resolution_us,omitempty"`
}

// LMCPU is one CPU of PER CPU DATA.
type LMCPU struct {
	CPU             int      `json:"cpu"`
	InterruptCycleS *float64 `json:"interrupt_cycle_s,omitempty"`
	ISRHighestUs    *float64 `json:"isr_highest_us,omitempty"`
	ISRTotalS       *float64 `json:"isr_total_s,omitempty"`
	ISRCount        *int64   `json:"isr_count,omitempty"`
	DPCHighestUs    *float64 `json:"dpc_highest_us,omitempty"`
	DPCTotalS       *float64 `json:"dpc_total_s,omitempty"`
	DPCCount        *int64   `json:"dpc_count,omitempty"`
}

// Verdict is dpc watch's verdict (dpcverdict.Judge, in the same words)
// on the report's highest DPC and ISR routine execution times, with the
// drivers they name. A report with one of the two lines is judged on that
// one; ok is false when it has neither.
func (lm *LatencyMon) Verdict() (v dpcverdict.Verdict, ok bool) {
	var secs []dpcverdict.Section
	var names []string
	for _, s := range []struct {
		name string
		r    *LMRoutines
	}{{DPC, lm.DPC}, {ISR, lm.ISR}} {
		if s.r == nil || s.r.HighestUs == nil {
			continue
		}
		secs = append(secs, dpcverdict.Section{Name: s.name, Longest: &dpcverdict.Execution{Module: driverFile(s.r.HighestDriver), MaxUs: *s.r.HighestUs}})
		names = append(names, s.name)
	}
	if len(secs) == 0 {
		return v, false
	}
	return dpcverdict.Judge(secs, "every "+strings.Join(names, " and ")+" ended within 1 ms"), true
}

// driverFile is the driver's file of LatencyMon's "storport.sys -
// Microsoft Storage Port Driver, Microsoft Corporation".
func driverFile(d string) string {
	if i := strings.Index(d, " - "); i > 0 {
		d = d[:i]
	}
	if d == "" {
		return "an unnamed driver"
	}
	return d
}

// LatencyMonThresholds are the bounds at which compare reports the
// cumulative share of LatencyMon reports: its bucket edges.
var LatencyMonThresholds = []float64{250, 500, 1000, 2000, 4000}

// latencyMonWant is what a file that looked like a LatencyMon report but
// held none of its values was expected to hold.
const latencyMonWant = "a LatencyMon report: lines such as 'Highest DPC routine execution time (µs): 63.69' or 'DPC count (execution time <250 µs): 21517'"

// lmMarkers are phrases only a LatencyMon report holds; one in the first
// lmSniff bytes of a file makes it one (IsLatencyMon).
var lmMarkers = sync.OnceValue(func() [][]byte {
	return [][]byte{
		[]byte("latencymon has been analyzing"),
		[]byte("interrupt to process latency"),
		[]byte("interrupt to dpc latency"),
		[]byte("count (execution time"),
		[]byte("routine execution time"),
		[]byte("isr highest execution time"),
		[]byte("dpc highest execution time"),
		[]byte("reported hard pagefaults"),
		[]byte("hard pagefault count of hardest hit"),
		[]byte("hard pagefault resolution time"),
		[]byte("interrupt cycle time"),
		[]byte("dpc count:"),
		[]byte("isr count:"),
	}
})

// lmSniff is how much of a file IsLatencyMon looks at: a report pasted
// into a thread may come after a few pages of other text.
const lmSniff = 64 << 10

// IsLatencyMon reports whether the start of a file holds a phrase only a
// LatencyMon report has, in any of the encodings Read takes: the phrases
// are ASCII, so the zero bytes of UTF-16 are dropped before looking.
func IsLatencyMon(head []byte) bool {
	if len(head) > lmSniff {
		head = head[:lmSniff]
	}
	b := bytes.ToLower(bytes.ReplaceAll(head, []byte{0}, nil))
	b = bytes.Join(bytes.Fields(b), []byte(" ")) // padded or collapsed spaces alike
	for _, m := range lmMarkers() {
		if bytes.Contains(b, m) {
			return true
		}
	}
	return false
}

// A number as LatencyMon prints it: digits with a decimal point or a
// decimal comma (the machine's locale), no sign.
const lmNum = `([0-9]+(?:[.,][0-9]+)*)`

// lmUnit is the unit in parentheses after a label, whatever it is: "µs"
// in UTF-8 or Windows-1252, or "탎" where a Korean code page read the
// Windows-1252 bytes. The unit is known by the label, not by its text.
const lmUnit = `\s*(?:\([^)]{0,12}\))?\s*:?\s*`

type lmField struct {
	key  string
	hint string // a lower-case word the line must hold before the regexp runs
	re   func() *regexp.Regexp
}

func lmf(key, hint, re string) lmField {
	return lmField{key, hint, lazy.Regexp(`(?i)` + re)}
}

// lmIsText says which fields take as their value the text after their
// label, up to the next label (lmText): a value of the same line's next
// field is no part.
func lmIsText(key string) bool {
	switch key {
	case "os", "cpu", "high_driver", "top_driver", "pf_process":
		return true
	}
	return false
}

// lmFields are the labelled values; a label may stand anywhere in a line
// (a report whose line ends were lost is one line).
var lmFields = sync.OnceValue(func() []lmField {
	return []lmField{
		lmf("duration", "analyzing", `analyzing\s+your\s+system\s+for\s*(\d+:\d{1,2}:\d{1,2})`),
		lmf("os", "os version", `\bos\s+version\s*:\s*`),
		lmf("cpu", "cpu:", `\bcpu\s*:\s*`),
		lmf("logical", "logical", `logical\s+processors\s*:\s*(\d+)`),
		lmf("reported_mhz", "reported cpu speed", `reported\s+cpu\s+speed\s*:?\s*`+lmNum+`\s*(mhz|ghz)?`),
		lmf("measured_mhz", "measured cpu speed", `measured\s+cpu\s+speed\s*:?\s*`+lmNum+`\s*(mhz|ghz)?`),
		lmf("proc_high", "process latency", `highest\s+measured\s+interrupt\s+to\s+process\s+latency`+lmUnit+lmNum),
		lmf("proc_avg", "process latency", `average\s+measured\s+interrupt\s+to\s+process\s+latency`+lmUnit+lmNum),
		lmf("dpclat_high", "dpc latency", `highest\s+measured\s+interrupt\s+to\s+dpc\s+latency`+lmUnit+lmNum),
		lmf("dpclat_avg", "dpc latency", `average\s+measured\s+interrupt\s+to\s+dpc\s+latency`+lmUnit+lmNum),
		lmf("high", "routine execution time", `highest\s+(isr|dpc)\s+routine\s+execution\s+time`+lmUnit+lmNum),
		lmf("high_driver", "driver with", `driver\s+with\s+highest\s+(isr|dpc)\s+routine\s+execution\s+time\s*:\s*`),
		lmf("top_pct", "total", `highest\s+reported\s+total\s+(isr|dpc)\s+routine\s+time`+lmUnit+lmNum),
		lmf("top_driver", "driver with", `driver\s+with\s+highest\s+(isr|dpc)\s+total\s+(?:execution\s+)?time\s*:\s*`),
		lmf("total_pct", "time spent", `total\s+time\s+spent\s+in\s+(isr|dpc)s`+lmUnit+lmNum),
		lmf("bucket", "count", `(isr|dpc)\s+count\s*\(\s*execution\s+time\s*(<|>=|>)?\s*(\d+)(?:\s*-\s*(\d+))?[^)]{0,12}\)\s*:?\s*`+lmNum),
		lmf("pf_process", "pagefault", `process\s+with\s+highest\s+pagefault\s+count\s*:\s*`),
		lmf("pf_total", "pagefault", `total\s+number\s+of\s+hard\s+pagefaults\s*:?\s*`+lmNum),
		lmf("pf_hardest", "pagefault", `hard\s+pagefault\s+count\s+of\s+hardest\s+hit\s+process\s*:?\s*`+lmNum),
		lmf("pf_processes", "processes hit", `number\s+of\s+processes\s+hit\s*:?\s*`+lmNum),
		lmf("pf_resolution", "pagefault", `highest\s+hard\s+pagefault\s+resolution\s+time`+lmUnit+lmNum),
		lmf("cpu_cycle", "cycle", `cpu\s*(\d+)\s+interrupt\s+cycle\s+time`+lmUnit+lmNum),
		lmf("cpu_high", "highest", `cpu\s*(\d+)\s+(isr|dpc)\s+highest\s+execution\s+time`+lmUnit+lmNum),
		lmf("cpu_total", "total", `cpu\s*(\d+)\s+(isr|dpc)\s+total\s+execution\s+time`+lmUnit+lmNum),
		lmf("cpu_count", "count", `cpu\s*(\d+)\s+(isr|dpc)\s+count\s*:\s*`+lmNum),
	}
})

// lmTextEnd cuts a text value (a driver, a process, the OS) where the
// next label starts, for a report whose line ends were lost.
var lmTextEnd = lazy.Regexp(`(?i)\s+(?:computer\s+name|os\s+version|hardware|cpu|logical\s+processors|processor\s+groups|ram)\s*:|\s+(?:highest\s+reported|total\s+time\s+spent|total\s+number|driver\s+with|hard\s+pagefault\s+count|number\s+of\s+processes)\b|\s+[_-]{5,}`)

var (
	lmConclusion = lazy.Regexp(`(?i)^[_\-\s]*conclusion\s*(?:$|[_-]{3,}\s*(.*)$)`)
	lmAnalyzing  = lazy.Regexp(`(?i)latencymon\s+has\s+been\s+analyzing`)
	lmHeading    = lazy.Regexp(`(?i)^\s*reported\s+(isr|dpc)s\s*$`)
	lmQuote      = lazy.Regexp(`^(?:\s*>)+`)
)

// maxLMText bounds a text value kept from a report (a conclusion, a
// driver's description); LatencyMon's longest are a few hundred bytes.
const maxLMText = 2000

// maxLMBuckets bounds the count lines of a section; LatencyMon prints 6.
const maxLMBuckets = 64

// maxLMCPUs bounds PER CPU DATA: Windows runs on at most 2048 logical
// processors.
const maxLMCPUs = 2048

type lmBucket struct {
	lower, stated int64 // stated: the label's upper bound, -1 for none
	open          bool  // ">=4000"
	count         int64
	line          int
}

type lmParser struct {
	lm      LatencyMon
	rep     *Report
	seen    map[string]int // field (with its section or CPU) -> line
	buckets map[string][]lmBucket
	heads   map[string]string // section -> heading as printed
	cpus    map[int]int       // CPU number -> index in lm.CPUs
	inConc  bool
	conc    []string
	concLen int // bytes in conc: past maxLMText no more is kept
	values  int
	stopped bool
}

// ParseLatencyMon reads a LatencyMon report (see SourceLatencyMon) one
// line at a time, within MaxInput. It takes what it finds: a report cut
// short or quoted in part gives what it holds. A second report in the
// same file (a field seen again) ends the reading, with a note. A file
// with none of LatencyMon's values is an error.
func ParseLatencyMon(r io.Reader) (*Report, error) {
	var rep *Report
	err := textdec.Scan(r, MaxInput, latencyMonWant, func(l *textdec.Lines) error {
		p := &lmParser{rep: &Report{Source: SourceLatencyMon}, seen: map[string]int{},
			buckets: map[string][]lmBucket{}, heads: map[string]string{}, cpus: map[int]int{}}
		for {
			t, ok := l.Next()
			if !ok {
				break
			}
			if !p.stopped {
				if err := p.line(t, l.Count()); err != nil {
					return err
				}
			}
		}
		p.endConclusion()
		if p.values == 0 {
			return &ParseError{Line: l.EditorCount(), Msg: fmt.Sprintf("no LatencyMon value in %d lines: expected %s", l.EditorCount(), latencyMonWant)}
		}
		p.rep.Lines = l.EditorCount()
		p.rep.Encoding = string(l.Encoding())
		if dropped, why := p.sections(); dropped == p.values {
			// Count lines were all it held, and too few for a histogram.
			return &ParseError{Line: l.EditorCount(), Msg: fmt.Sprintf("no LatencyMon value but %s, too few for a histogram (%s): expected %s", countLines(dropped), why, latencyMonWant)}
		}
		p.crossCheck(l.EditorCount())
		lm := p.lm
		p.rep.LatencyMon = &lm
		rep = p.rep
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (p *lmParser) line(raw string, ln int) error {
	t := strings.TrimSpace(lmQuote().ReplaceAllString(raw, ""))
	if t == "" {
		return nil
	}
	low := strings.ToLower(t)
	if p.inConc {
		if loc := lmAnalyzing().FindStringIndex(t); loc != nil {
			p.conc = append(p.conc, t[:loc[0]])
			p.endConclusion()
		} else if isRule(t) || strings.HasPrefix(t, "```") {
			if len(p.conc) > 0 { // the rule under the heading opens it
				p.endConclusion()
			}
		} else if p.concLen < maxLMText {
			p.conc = append(p.conc, t)
			p.concLen += len(t) + 1
		}
	} else if m := lmConclusion().FindStringSubmatch(t); m != nil {
		if _, again := p.seen["conclusion"]; again {
			return p.second("CONCLUSION", ln)
		}
		p.seen["conclusion"] = ln
		p.inConc = true
		if rest := strings.TrimSpace(m[1]); rest != "" { // the heading and the text on one line
			if loc := lmAnalyzing().FindStringIndex(rest); loc != nil {
				p.conc = append(p.conc, rest[:loc[0]])
				p.endConclusion()
			} else {
				p.conc = append(p.conc, rest)
			}
		}
	}
	if m := lmHeading().FindStringSubmatch(t); m != nil {
		p.heads[strings.ToUpper(m[1])] = t
	}
	if strings.Contains(low, "fixed reported cpu speed") {
		p.lm.FixedSpeedNote = true
	}
	for _, f := range lmFields() {
		if !strings.Contains(low, f.hint) {
			continue
		}
		for _, m := range f.re().FindAllStringSubmatchIndex(t, -1) {
			if strings.HasPrefix(f.key, "high") || f.key == "top_pct" {
				// "Driver with highest ISR routine execution time: 3dfx.sys"
				// is no time.
				if strings.HasSuffix(strings.ToLower(strings.TrimSpace(t[:m[0]])), "with") {
					continue
				}
			}
			g := make([]string, len(m)/2)
			for i := range g {
				if m[2*i] >= 0 {
					g[i] = t[m[2*i]:m[2*i+1]]
				}
			}
			if lmIsText(f.key) {
				g = append(g, t[m[1]:])
			}
			if err := p.field(f.key, g, ln); err != nil {
				return err
			}
			if p.stopped {
				return nil
			}
		}
	}
	return nil
}

func (p *lmParser) endConclusion() {
	if !p.inConc && len(p.conc) == 0 {
		return
	}
	p.inConc = false
	c := strings.Join(strings.Fields(strings.Join(p.conc, " ")), " ")
	p.conc, p.concLen = nil, 0
	if len(c) > maxLMText {
		c = clipUTF8(c, maxLMText)
	}
	if c != "" && p.lm.Conclusion == "" {
		p.lm.Conclusion = c
		p.values++
	}
}

// second ends the reading at a field seen before: a second report.
func (p *lmParser) second(what string, ln int) error {
	p.stopped = true
	p.notef(ln, "%s again: a second report starts here; only the first is read", what)
	return nil
}

func (p *lmParser) notef(ln int, format string, a ...any) {
	if len(p.rep.Notes) < maxNotes {
		p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("line %d: ", ln)+fmt.Sprintf(format, a...))
	}
}

// once records key as seen, or ends the reading when it was.
func (p *lmParser) once(key, what string, ln int) bool {
	if _, ok := p.seen[key]; ok {
		_ = p.second(what, ln)
		return false
	}
	p.seen[key] = ln
	p.values++
	return true
}

func (p *lmParser) field(key string, g []string, ln int) error {
	num := func(s string) (*float64, error) {
		v, err := lmFloat(s)
		if err != nil {
			return nil, &ParseError{Line: ln, Msg: fmt.Sprintf("%q: %v: expected %s", textdec.Clip(g[0]), err, latencyMonWant)}
		}
		return &v, nil
	}
	count := func(s string) (*int64, error) {
		v, err := lmInt(s)
		if err != nil {
			return nil, &ParseError{Line: ln, Msg: fmt.Sprintf("%q: %v: expected %s", textdec.Clip(g[0]), err, latencyMonWant)}
		}
		return &v, nil
	}
	last := g[len(g)-1]
	var err error
	switch key {
	case "duration":
		if p.once(key, "'LatencyMon has been analyzing your system'", ln) {
			p.lm.Duration = g[1]
			if s, ok := hms(g[1]); ok {
				p.lm.DurationS = &s
			}
		}
	case "os", "cpu":
		if p.once(key, fmt.Sprintf("%q", strings.SplitN(g[0], ":", 2)[0]+":"), ln) {
			v := lmText(g[1])
			if key == "os" {
				p.lm.OS = v
			} else {
				p.lm.CPU = v
			}
		}
	case "logical":
		if p.once(key, "'Logical processors'", ln) {
			p.lm.LogicalProcessors, err = count(g[1])
		}
	case "reported_mhz", "measured_mhz":
		if p.once(key, fmt.Sprintf("%q", strings.TrimSpace(strings.SplitN(g[0], ":", 2)[0])), ln) {
			var v *float64
			if v, err = num(g[1]); err == nil {
				if strings.EqualFold(g[2], "ghz") {
					*v *= 1000
				}
				if key == "reported_mhz" {
					p.lm.ReportedMHz = v
				} else {
					p.lm.MeasuredMHz = v
				}
			}
		}
	case "proc_high", "proc_avg", "dpclat_high", "dpclat_avg":
		if p.once(key, fmt.Sprintf("%q", clipLabel(g[0])), ln) {
			var v *float64
			if v, err = num(last); err == nil {
				switch key {
				case "proc_high":
					p.lm.ProcessHighestUs = v
				case "proc_avg":
					p.lm.ProcessAverageUs = v
				case "dpclat_high":
					p.lm.DPCLatHighestUs = v
				default:
					p.lm.DPCLatAverageUs = v
				}
			}
		}
	case "high", "high_driver", "top_pct", "top_driver", "total_pct":
		sec := strings.ToUpper(g[1])
		if !p.once(key+sec, fmt.Sprintf("%q", clipLabel(g[0])), ln) {
			return nil
		}
		r := p.routines(sec)
		switch key {
		case "high":
			r.HighestUs, err = num(last)
		case "top_pct":
			r.TopTotalPct, err = num(last)
		case "total_pct":
			r.TotalPct, err = num(last)
		case "high_driver":
			r.HighestDriver = lmText(last)
		default:
			r.TopTotalDriver = lmText(last)
		}
	case "bucket":
		err = p.bucket(g, ln)
	case "pf_process", "pf_total", "pf_hardest", "pf_processes", "pf_resolution":
		if !p.once(key, fmt.Sprintf("%q", clipLabel(g[0])), ln) {
			return nil
		}
		if p.lm.HardFaults == nil {
			p.lm.HardFaults = &LMHardFaults{}
		}
		h := p.lm.HardFaults
		switch key {
		case "pf_process":
			h.Process = lmText(last)
		case "pf_total":
			h.Total, err = count(last)
		case "pf_hardest":
			h.HardestHit, err = count(last)
		case "pf_processes":
			h.Processes, err = count(last)
		default:
			h.HighestResolutionUs, err = num(last)
		}
	case "cpu_cycle", "cpu_high", "cpu_total", "cpu_count":
		err = p.cpuField(key, g, ln)
	}
	return err
}

func (p *lmParser) routines(sec string) *LMRoutines {
	if sec == ISR {
		if p.lm.ISR == nil {
			p.lm.ISR = &LMRoutines{}
		}
		return p.lm.ISR
	}
	if p.lm.DPC == nil {
		p.lm.DPC = &LMRoutines{}
	}
	return p.lm.DPC
}

func (p *lmParser) bucket(g []string, ln int) error {
	sec := strings.ToUpper(g[1])
	lo, err := strconv.ParseInt(g[3], 10, 64)
	if err != nil || lo > 1<<40 {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: bucket bound %q out of range: expected %s", textdec.Clip(g[0]), g[3], latencyMonWant)}
	}
	b := lmBucket{lower: lo, stated: -1, line: ln}
	switch g[2] {
	case "<":
		b.lower, b.stated = 0, lo
	case ">=", ">":
		b.open = true
	}
	if g[4] != "" {
		hi, err := strconv.ParseInt(g[4], 10, 64)
		if err != nil || hi <= lo || hi > 1<<40 {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: bucket %d-%s is not a range: expected %s", textdec.Clip(g[0]), lo, g[4], latencyMonWant)}
		}
		b.stated = hi
	}
	if b.stated < 0 && !b.open {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: a bucket with one bound and no '<' or '>=': expected %s", textdec.Clip(g[0]), latencyMonWant)}
	}
	if len(p.buckets[sec]) == maxLMBuckets {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("more than %d %s count lines, where LatencyMon prints 6: expected %s", maxLMBuckets, sec, latencyMonWant)}
	}
	key := fmt.Sprintf("bucket%s%d%v", sec, b.lower, b.open)
	if !p.once(key, fmt.Sprintf("%q", clipLabel(g[0])), ln) {
		return nil
	}
	n, err := lmInt(g[5])
	if err != nil {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: %v: expected %s", textdec.Clip(g[0]), err, latencyMonWant)}
	}
	b.count = n
	p.buckets[sec] = append(p.buckets[sec], b)
	return nil
}

func (p *lmParser) cpuField(key string, g []string, ln int) error {
	n, err := strconv.Atoi(g[1])
	if err != nil || n < 0 || n >= maxLMCPUs {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: CPU %s out of range 0 to %d: expected %s", textdec.Clip(g[0]), g[1], maxLMCPUs-1, latencyMonWant)}
	}
	sec := ""
	if key != "cpu_cycle" {
		sec = strings.ToUpper(g[2])
	}
	if !p.once(fmt.Sprintf("%s%s/%d", key, sec, n), fmt.Sprintf("%q", clipLabel(g[0])), ln) {
		return nil
	}
	i, ok := p.cpus[n]
	if !ok {
		i = len(p.lm.CPUs)
		p.cpus[n] = i
		p.lm.CPUs = append(p.lm.CPUs, LMCPU{CPU: n})
	}
	c := &p.lm.CPUs[i]
	last := g[len(g)-1]
	bad := func(err error) error {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("%q: %v: expected %s", textdec.Clip(g[0]), err, latencyMonWant)}
	}
	if key == "cpu_count" {
		v, err := lmInt(last)
		if err != nil {
			return bad(err)
		}
		if sec == ISR {
			c.ISRCount = &v
		} else {
			c.DPCCount = &v
		}
		return nil
	}
	v, err := lmFloat(last)
	if err != nil {
		return bad(err)
	}
	switch {
	case key == "cpu_cycle":
		c.InterruptCycleS = &v
	case key == "cpu_high" && sec == ISR:
		c.ISRHighestUs = &v
	case key == "cpu_high":
		c.DPCHighestUs = &v
	case sec == ISR:
		c.ISRTotalS = &v
	default:
		c.DPCTotalS = &v
	}
	return nil
}

// sections turns the count lines into the report's histograms, DPC then
// ISR as in xperf's reports. A bucket's upper bound is where the next one
// starts: LatencyMon prints the DPCs' third bucket as "500-10000 µs"
// between "250-500" and "1000-2000", and some versions "500-999",
// "1000-1999" where others print "500-1000", "1000-2000"; the edges are
// the same. A bucket stays apart from the next only when its own upper
// bound is below the next one's start by more than 1 µs (a line missing).
// The buckets hold [lower, upper) µs, where xperf's hold (lower, upper].
//
// It returns the number of count lines it built no histogram from.
func (p *lmParser) sections() (dropped int, why string) {
	for _, name := range []string{DPC, ISR} {
		bs := p.buckets[name]
		if len(bs) == 0 {
			continue
		}
		sort.SliceStable(bs, func(i, j int) bool {
			if bs[i].lower != bs[j].lower {
				return bs[i].lower < bs[j].lower
			}
			return !bs[i].open
		})
		h := Histogram{Line: bs[0].line, Buckets: []Bucket{}}
		for i, b := range bs {
			out := Bucket{GtUs: b.lower, Count: b.count, Line: b.line}
			if !b.open {
				up := b.stated
				if i+1 < len(bs) && bs[i+1].lower > b.lower && up >= bs[i+1].lower-1 {
					up = bs[i+1].lower
				}
				if up > b.lower {
					out.LeUs = &up
				}
			}
			if out.LeUs == nil && i+1 < len(bs) {
				// an open bucket below another: LatencyMon prints none.
				p.notef(b.line, "%s bucket from %d µs up is not the last; left out", name, b.lower)
				continue
			}
			h.Buckets = append(h.Buckets, out)
			h.Total += b.count
		}
		if gap := lmIncomplete(h.Buckets); gap != "" {
			// A fragment (a report quoted in part) gives some buckets
			// only: percentiles and "longest in" from them would be
			// answers about counts that are not there.
			p.notef(bs[0].line, "%s count lines %s: LatencyMon prints six, from <250 µs to >=4000 µs; no %s histogram is built from them", name, gap, name)
			dropped += len(bs)
			why = fmt.Sprintf("%s count lines %s", name, gap)
			continue
		}
		head := p.heads[name]
		if head == "" {
			head = "REPORTED " + name + "s"
		}
		h.Total = min(h.Total, maxCount)
		p.rep.Sections = append(p.rep.Sections, Section{Name: name, Heading: head, Line: h.Line, Overall: &h, Modules: []Histogram{}})
	}
	return dropped, why
}

// countLines is n count lines in words.
func countLines(n int) string {
	if n == 1 {
		return "1 count line"
	}
	return fmt.Sprintf("%d count lines", n)
}

// lmIncomplete says what keeps buckets from covering every execution
// time, from 0 µs to an open last bucket without a gap; "" when they do.
func lmIncomplete(bs []Bucket) string {
	switch {
	case len(bs) == 0:
		return "left out"
	case bs[0].GtUs != 0:
		return fmt.Sprintf("start at %d µs, not at 0", bs[0].GtUs)
	case bs[len(bs)-1].LeUs != nil:
		return fmt.Sprintf("end at %d µs, without the open last bucket", *bs[len(bs)-1].LeUs)
	}
	for i := 0; i+1 < len(bs); i++ {
		if bs[i].LeUs == nil || *bs[i].LeUs != bs[i+1].GtUs {
			return fmt.Sprintf("leave a gap after %d µs", bs[i].GtUs)
		}
	}
	return ""
}

// lmFloat reads a number with a decimal point or comma. A number with
// both takes the last as the decimal mark and the others as thousands
// separators (groups of three digits), as does one mark repeated.
func lmFloat(s string) (float64, error) {
	c, err := lmCanon(s, false)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(c, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is no number", s)
	}
	return v, nil
}

// lmInt reads a count: digits, with thousands separators if any.
func lmInt(s string) (int64, error) {
	c, err := lmCanon(s, true)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(c, 10, 64)
	if err != nil || v > maxCount {
		return 0, fmt.Errorf("count %q out of range 0 to 2^53", s)
	}
	return v, nil
}

func lmCanon(s string, integer bool) (string, error) {
	marks := strings.Count(s, ".") + strings.Count(s, ",")
	if marks == 0 {
		return s, nil
	}
	dec := strings.LastIndexAny(s, ".,")
	mixed := strings.Contains(s, ".") && strings.Contains(s, ",")
	grouped := func(t string) bool { // t: digits and marks, groups of 3 after the first
		parts := strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == ',' })
		for i, x := range parts {
			if i > 0 && len(x) != 3 || i == 0 && (len(x) == 0 || len(x) > 3) {
				return false
			}
		}
		return true
	}
	switch {
	case integer && marks == 1 && s == "0"+s[1:] && strings.Trim(s[dec+1:], "0") == "":
		return s[:dec], nil // "0,0" for a count
	case integer:
		if grouped(s) {
			return strings.NewReplacer(".", "", ",", "").Replace(s), nil
		}
		return "", fmt.Errorf("%q is no count", s)
	case marks == 1:
		return s[:dec] + "." + s[dec+1:], nil
	case mixed && strings.Count(s, s[dec:dec+1]) == 1 && grouped(s[:dec]):
		return strings.NewReplacer(".", "", ",", "").Replace(s[:dec]) + "." + s[dec+1:], nil
	case !mixed && grouped(s):
		return strings.NewReplacer(".", "", ",", "").Replace(s), nil
	}
	return "", fmt.Errorf("%q is no number", s)
}

// hms reads h:mm:ss as seconds.
func hms(s string) (float64, bool) {
	f := strings.Split(s, ":")
	if len(f) != 3 {
		return 0, false
	}
	var t float64
	for _, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n > 1<<40 {
			return 0, false
		}
		t = t*60 + float64(n)
	}
	return t, true
}

// lmText is a text value cut where the next label starts and bounded.
func lmText(s string) string {
	if loc := lmTextEnd().FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	s = strings.Join(strings.Fields(s), " ")
	return clipUTF8(s, maxLMText)
}

// clipLabel is a label as a note quotes it: up to its colon or unit.
func clipLabel(s string) string {
	if i := strings.IndexAny(s, "(:"); i > 0 {
		s = s[:i]
	}
	return textdec.Clip(strings.Join(strings.Fields(s), " "))
}

func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xc0) == 0x80 {
		n--
	}
	return s[:n]
}

// crossCheck compares PER CPU DATA with the sections when it is whole
// (every CPU of "Logical processors" there, with the value compared): in
// the real reports the CPUs' counts add up to the histogram's total and
// the longest of the CPUs' highest times is the section's highest. A
// difference (a CPU lost in copying, a value altered) is a note.
func (p *lmParser) crossCheck(ln int) {
	cpus := p.lm.CPUs
	if len(cpus) == 0 || p.lm.LogicalProcessors != nil && *p.lm.LogicalProcessors != int64(len(cpus)) {
		return
	}
	for _, sec := range p.rep.Sections {
		var sum int64
		whole := true
		for _, c := range cpus {
			n := c.DPCCount
			if sec.Name == ISR {
				n = c.ISRCount
			}
			if n == nil {
				whole = false
				break
			}
			sum += *n
		}
		if whole && sum != sec.Overall.Total {
			p.notef(ln, "PER CPU DATA's %s counts of %d CPUs add up to %d, the %s count lines to %d: a CPU left out or a value altered", sec.Name, len(cpus), sum, sec.Name, sec.Overall.Total)
		}
	}
	for _, s := range []struct {
		name string
		r    *LMRoutines
	}{{DPC, p.lm.DPC}, {ISR, p.lm.ISR}} {
		if s.r == nil || s.r.HighestUs == nil {
			continue
		}
		top := math.Inf(-1)
		for _, c := range cpus {
			v := c.DPCHighestUs
			if s.name == ISR {
				v = c.ISRHighestUs
			}
			if v == nil {
				top = math.NaN()
				break
			}
			top = max(top, *v)
		}
		if !math.IsNaN(top) && top != *s.r.HighestUs {
			p.notef(ln, "the highest %s execution time of PER CPU DATA is %s µs, the report's %s µs: a CPU left out or a value altered", s.name, strconv.FormatFloat(top, 'f', -1, 64), strconv.FormatFloat(*s.r.HighestUs, 'f', -1, 64))
		}
	}
}
