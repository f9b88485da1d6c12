// Package dpcisr reads the text report that `xperf -i trace.etl -o out.txt
// -a dpcisr` writes: per section (DPC, then ISR) the CPU-usage-by-module
// table, the histogram of execution times over all modules, one histogram
// per module, a consistency line and the per-interval usage table; at the
// end, the distribution of intervals by DPC/ISR share.
//
// Real reports are often edited by hand before they are shared (spaces
// collapsed, headings added, footers dropped), saved from PowerShell as
// UTF-16, or printed with a decimal comma. The parser accepts all of that,
// attributes every histogram block to its section and module, and refuses
// only what it cannot attribute, with the line that was wrong.
package dpcisr

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/dpcverdict"
)

// Section names. Windows defers work to DPCs from ISRs; Linux to
// softirqs from hard interrupt handlers, and a Linux trace names its
// sections so.
const (
	DPC     = "DPC"
	ISR     = "ISR"
	SoftIRQ = "softirq"
	HardIRQ = "hardirq"
)

// Deferred reports whether a section holds deferred work (DPC, softirq),
// the part a driver controls most and experiments follow.
func Deferred(section string) bool { return section == DPC || section == SoftIRQ }

// Sources of a report.
const (
	SourceXperf   = "xperf"   // the text of 'xperf -a dpcisr'
	SourceETW     = "etw"     // latlab's own kernel trace (latlab dpc watch)
	SourceTracefs = "tracefs" // latlab dpc watch on Linux: irq, irq_vectors and softirq events
)

// Live reports whether a report is latlab's own trace (Windows or Linux).
func Live(source string) bool { return source == SourceETW || source == SourceTracefs }

// Report is one parsed file, or one trace latlab recorded itself.
type Report struct {
	// Source says where the histograms come from: SourceXperf,
	// SourceETW, SourceTracefs or SourceLatencyMon. The first three use
	// xperf's buckets, so any compares with another; a LatencyMon report
	// has its own (under 250 µs, 250-500 ... 4000 µs and over) and
	// compares only with another LatencyMon report.
	Source   string    `json:"source"`
	Encoding string    `json:"encoding"`
	Lines    int       `json:"lines"`
	Sections []Section `json:"sections"`
	// Distribution is the closing table "Distribution of number of N ms
	// intervals w.r.t. DPC/ISR usage", when present.
	Distribution *Distribution `json:"distribution,omitempty"`
	// Notes are things a reader should know: totals that disagree with
	// their buckets, percentages that disagree with their counts, blocks
	// taken as DPC because no heading preceded them.
	Notes []string `json:"notes,omitempty"`
	// Interrupted says the read of an .etl trace was stopped (Ctrl-C):
	// the report covers what was read until then.
	Interrupted bool `json:"interrupted,omitempty"`
	// HardFaults is the hard page faults per process of an .etl trace
	// (nil for other reports).
	HardFaults *HardFaults `json:"hard_faults,omitempty"`
	// LatencyMon is what a LatencyMon report says beside its histograms
	// (nil for other reports).
	LatencyMon *LatencyMon `json:"latencymon,omitempty"`
	// watchVerdict is the verdict a dpc watch document holds on its
	// trace (ReportOf): judged on the exact longest executions, which
	// the buckets do not keep, so it is carried rather than judged again.
	watchVerdict *dpcverdict.Verdict
}

// Section is the DPC or the ISR half of a report. A hand-edited file may
// have several headings of the same kind; each starts a new Section.
type Section struct {
	Name    string `json:"name"`    // DPC or ISR
	Heading string `json:"heading"` // the heading as written ("DPC Info", "Interrupt Latency")
	Line    int    `json:"line"`
	// Span is "CPU Usage from A us to B us" of the usage table.
	Span *Span `json:"span,omitempty"`
	// Usage is the "CPU Usage Summing By Module For the Whole Trace" table.
	Usage []ModuleUsage `json:"usage,omitempty"`
	// Overall is the histogram over all modules ("Total = N" with no module).
	Overall *Histogram `json:"overall,omitempty"`
	// Modules are the per-module histograms, one per block, in file order.
	Modules []Histogram `json:"modules"`
	// Check is the "All Module = N, Total = M, EQUAL" line.
	Check *Check `json:"check,omitempty"`
	// Intervals is the "Usage From A ms to B ms, Summing In N second
	// intervals" table.
	Intervals *IntervalTable `json:"intervals,omitempty"`
}

// Span is the trace range the usage table covers, in microseconds.
type Span struct {
	FromUs int64 `json:"from_us"`
	ToUs   int64 `json:"to_us"`
}

// ModuleUsage is one row of the usage table: time spent per CPU.
type ModuleUsage struct {
	Module  string    `json:"module"`
	Line    int       `json:"line"`
	Usec    []int64   `json:"usec"`    // per CPU, in the table's column order
	Percent []float64 `json:"percent"` // per CPU, as printed
	CPUs    []int     `json:"cpus"`
}

// TotalUsec is the module's time over all CPUs.
func (m ModuleUsage) TotalUsec() int64 {
	var t int64
	for _, u := range m.Usec {
		t += u
	}
	return t
}

// UsageByTotal is the usage table ordered by the time over all CPUs,
// most first; rows of equal time keep the table's order.
func (s Section) UsageByTotal() []ModuleUsage {
	us := append([]ModuleUsage(nil), s.Usage...)
	sort.SliceStable(us, func(i, j int) bool { return us[i].TotalUsec() > us[j].TotalUsec() })
	return us
}

// Busiest is the CPU column where the module spent most time: its index
// in Usec (the first of equal ones) and that time; 0 and -1 for a row
// with no column.
func (m ModuleUsage) Busiest() (col int, usec int64) {
	col, usec = 0, -1
	for k, v := range m.Usec {
		if v > usec {
			col, usec = k, v
		}
	}
	return col, usec
}

// Histogram is one block: "Total = N for module M", its bucket lines and
// the optional "Total, N" footer.
type Histogram struct {
	Module string `json:"module"` // empty for the overall histogram
	// Label is the hand-added heading in force above the block, if any
	// (e.g. "USB Keyboard Driver").
	Label string `json:"label,omitempty"`
	Line  int    `json:"line"`
	// Total is N of the "Total = N" header.
	Total int64 `json:"total"`
	// Footer is N of the "Total, N" line; nil when the line is missing or
	// carries no number.
	Footer  *int64   `json:"footer_total,omitempty"`
	Buckets []Bucket `json:"buckets"`
}

// Bucket is "Elapsed Time, > GT usecs AND <= LE usecs, COUNT, or P%".
// LE is nil for the open last bucket ("> 2048 usecs").
type Bucket struct {
	GtUs    int64   `json:"gt_us"`
	LeUs    *int64  `json:"le_us"`
	Count   int64   `json:"count"`
	Percent float64 `json:"percent"` // as printed; 0 when not printed
	Line    int     `json:"line"`

	printed bool // the line carried a percentage
}

// Open reports whether the bucket has no upper bound.
func (b Bucket) Open() bool { return b.LeUs == nil }

// Upper is the upper bound, +Inf for the open bucket.
func (b Bucket) Upper() float64 {
	if b.LeUs == nil {
		return math.Inf(1)
	}
	return float64(*b.LeUs)
}

// Range renders the bucket as "4-8 µs" or "> 2048 µs".
func (b Bucket) Range() string {
	if b.LeUs == nil {
		return fmt.Sprintf("> %d µs", b.GtUs)
	}
	return fmt.Sprintf("%d-%d µs", b.GtUs, *b.LeUs)
}

// Sum is the total of the bucket counts.
func (h Histogram) Sum() int64 {
	var s int64
	for _, b := range h.Buckets {
		s += b.Count
	}
	return s
}

// Name is the module, or "(all modules)" for the overall histogram.
func (h Histogram) Name() string {
	if h.Module == "" {
		return "(all modules)"
	}
	return h.Module
}

// Check is the "All Module = N, Total = M, EQUAL" line.
type Check struct {
	AllModule int64  `json:"all_module"`
	Total     int64  `json:"total"`
	Verdict   string `json:"verdict"` // EQUAL or NOT EQUAL, as printed
	Line      int    `json:"line"`
}

// IntervalTable is the per-interval usage table.
type IntervalTable struct {
	FromMs      int64         `json:"from_ms"`
	ToMs        int64         `json:"to_ms"`
	IntervalSec float64       `json:"interval_s"`
	Intervals   int           `json:"intervals"`
	CPUs        []int         `json:"cpus"`
	Rows        []IntervalRow `json:"rows"`
	Line        int           `json:"line"`
}

// IntervalRow is one interval: time spent per CPU.
type IntervalRow struct {
	StartMs int64     `json:"start_ms"`
	EndMs   int64     `json:"end_ms"`
	Usec    []int64   `json:"usec"`
	Percent []float64 `json:"percent"`
	Line    int       `json:"line"`
}

// Busiest is the interval and CPU column with the most time over all
// modules (the first of equal ones); ok is false when no row has a column.
func (t *IntervalTable) Busiest() (row IntervalRow, col int, usec int64, ok bool) {
	col, usec = -1, -1
	for _, r := range t.Rows {
		for k, v := range r.Usec {
			if v > usec {
				row, usec, col = r, v, k
			}
		}
	}
	return row, col, usec, col >= 0
}

// CPU is the number of the CPU in column col.
func (t *IntervalTable) CPU(col int) int {
	if col < len(t.CPUs) {
		return t.CPUs[col]
	}
	return col
}

// Distribution is the closing table: how many intervals had a given
// DPC/ISR share, per CPU.
type Distribution struct {
	IntervalMs int64     `json:"interval_ms"`
	CPUs       []int     `json:"cpus"`
	Columns    []string  `json:"columns"` // per CPU, e.g. DPC, ISR, Combined
	Rows       []DistRow `json:"rows"`
	Line       int       `json:"line"`
}

// DistRow is one share range ("> 1 AND <= 5") with a count per CPU and column.
type DistRow struct {
	Range  string  `json:"range"`
	Counts []int64 `json:"counts"`
	Line   int     `json:"line"`
}

// Filter returns a copy of r keeping only the module histograms whose name
// equals module, ignoring case, and dropping the overall histograms.
func (r *Report) Filter(module string) *Report {
	out := *r
	out.Sections = nil
	for _, s := range r.Sections {
		s2 := s
		s2.Overall = nil
		s2.Modules = nil
		for _, m := range s.Modules {
			if strings.EqualFold(m.Module, module) {
				s2.Modules = append(s2.Modules, m)
			}
		}
		s2.Usage = nil
		for _, u := range s.Usage {
			if strings.EqualFold(u.Module, module) {
				s2.Usage = append(s2.Usage, u)
			}
		}
		out.Sections = append(out.Sections, s2)
	}
	return &out
}

// ModuleNames lists the distinct module names of the report, sorted.
func (r *Report) ModuleNames() []string {
	seen := map[string]string{}
	for _, s := range r.Sections {
		for _, m := range s.Modules {
			seen[strings.ToLower(m.Module)] = m.Module
		}
	}
	var out []string
	for _, v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
