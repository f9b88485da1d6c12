// Package dpcwatch is the work of 'latlab dpc watch': it records every DPC
// and ISR a kernel trace reports, attributes each routine to the driver
// module that holds it, and summarises per module in the form of
// 'xperf -a dpcisr' (the same power-of-two µs buckets), so its document is
// a dpcisr report that 'latlab dpcisr compare' sets against xperf's.
package dpcwatch

import (
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
)

// Unknown names routines outside every known module, as xperf does.
const Unknown = "Unknown"

// BucketIndex is the xperf bucket of an execution of ticks at freq ticks
// per second: 0 is (0, 1] µs (a zero-length execution included), k > 0
// is (2^(k-1), 2^k] µs. It compares ticks·10^6 with 2^k·freq exactly.
func BucketIndex(ticks, freq int64) int {
	if ticks <= 0 || freq <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(ticks), 1_000_000)
	for k := 0; k < 63; k++ {
		bh, bl := bits.Mul64(uint64(1)<<k, uint64(freq))
		if hi < bh || (hi == bh && lo <= bl) {
			return k
		}
	}
	return 63
}

// Bucket returns the bounds of bucket k in xperf's form.
func Bucket(k int) dpcisr.Bucket {
	le := int64(1) << k
	gt := int64(0)
	if k > 0 {
		gt = le / 2
	}
	return dpcisr.Bucket{GtUs: gt, LeUs: &le}
}

// Exec is one execution in a section, whatever traced it: on Windows a
// DPC or ISR of a routine, on Linux a hard IRQ handler, a system vector
// or a softirq.
type Exec struct {
	CPU        uint16
	Start, End int64 // ticks
	Kind       string
	Routine    uint64 // Windows: the routine's address
	Label      string // Linux: what ran, e.g. "irq 24", "vector 236", "vec 3"
}

// stat accumulates one module's executions in one section.
type stat struct {
	count   int64
	ticks   int64
	max     Exec
	buckets [64]int64
	perCPU  map[uint16]int64 // ticks
	kinds   map[string]int64
}

func (s *stat) add(x Exec, freq int64) {
	d := x.End - x.Start
	s.count++
	s.ticks += d
	if s.count == 1 || d > s.max.End-s.max.Start {
		s.max = x
	}
	s.buckets[BucketIndex(d, freq)]++
	if s.perCPU == nil {
		s.perCPU = map[uint16]int64{}
		s.kinds = map[string]int64{}
	}
	s.perCPU[x.CPU] += d
	s.kinds[x.Kind]++
}

// lite is the per-interval tally of one module.
type lite struct {
	count, ticks, max int64
}

// FlushLag is how long after an interval ends its events may still be on
// their way: a real-time session hands over each CPU's buffer when it is
// full or when the flush timer fires (etw.StartKernel sets FlushTimer to
// 1 s), so events arrive out of order and up to a second late; half a
// second more covers the delivery to the consumer.
const FlushLag = 1500 * time.Millisecond

// maxOpen bounds the live intervals held open at once: a time stamp far
// ahead (a damaged event) must not grow the table without end. The events
// of an interval beyond it count in the summary only.
const maxOpen = 256

// tally is one live interval's executions per section and module.
type tally [2]map[string]*lite

// Recorder takes executions as the trace delivers them (from the
// consumer's thread) and summarises them. Its methods may be called from
// several goroutines.
type Recorder struct {
	mu     sync.Mutex
	source string
	names  [2]string // the sections: deferred work, then interrupts
	freq   int64
	start  int64 // ticks at the start of the watch
	last   int64 // the latest exit seen
	mods   *etw.Modules
	memo   map[uint64]string // routine -> module, memoised
	secs   [2]map[string]*stat
	cpus   map[uint16]bool
	events int64
	bad    int64
	badMsg string

	// The live line: executions counted in the interval of their own
	// time stamp, not of their arrival.
	every int64            // ticks per interval
	lag   int64            // ticks an interval stays open after its end
	open  map[int64]*tally // interval index -> its executions so far
	next  int64            // the first interval not yet closed
	late  int64            // executions that came after their interval closed
}

// NewRecorder records on a clock of freq ticks per second, starting at
// start (ticks), attributing routines with mods (which it then owns).
func NewRecorder(freq, start int64, mods *etw.Modules) *Recorder {
	if mods == nil {
		mods = &etw.Modules{}
	}
	r := &Recorder{source: dpcisr.SourceETW, names: [2]string{dpcisr.DPC, dpcisr.ISR}, freq: freq, start: start, last: start,
		mods: mods, memo: map[uint64]string{}, cpus: map[uint16]bool{}, open: map[int64]*tally{}}
	r.init()
	return r
}

// NewLinuxRecorder records a Linux trace: softirqs and hard IRQ handlers
// (the system vectors among them) on a clock of nanoseconds, from start.
func NewLinuxRecorder(start int64) *Recorder {
	r := &Recorder{source: dpcisr.SourceTracefs, names: [2]string{dpcisr.SoftIRQ, dpcisr.HardIRQ}, freq: 1_000_000_000,
		start: start, last: start, mods: &etw.Modules{}, memo: map[uint64]string{}, cpus: map[uint16]bool{}, open: map[int64]*tally{}}
	r.init()
	return r
}

func (r *Recorder) init() {
	for i := range r.secs {
		r.secs[i] = map[string]*stat{}
	}
	r.every = max(1, r.freq)
	r.lag = max(0, int64(FlushLag.Seconds()*float64(r.freq)))
}

// Live sets the length of the live intervals and how long each stays open
// after its end for late events (FlushLag and one second by default).
func (r *Recorder) Live(every, lag time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.every = max(1, int64(every.Seconds()*float64(r.freq)))
	r.lag = max(0, int64(lag.Seconds()*float64(r.freq)))
}

// index is the live interval of a time stamp; stamps before the start
// count in the first.
func (r *Recorder) index(t int64) int64 {
	if t <= r.start {
		return 0
	}
	return (t - r.start) / r.every
}

func section(k etw.Kind) int {
	if k.IsISR() {
		return 1
	}
	return 0
}

// maxNames bounds the memo of routine addresses; a trace has a few
// thousand distinct routines.
const maxNames = 1 << 16

func (r *Recorder) module(addr uint64) string {
	if n, ok := r.memo[addr]; ok {
		return n
	}
	n := Unknown
	if m, ok := r.mods.Lookup(addr); ok {
		n = m.Name
	}
	if len(r.memo) < maxNames {
		r.memo[addr] = n
	}
	return n
}

// Add records one execution of a Windows trace.
func (r *Recorder) Add(x etw.Execution) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(section(x.Kind), r.module(x.Routine), Exec{CPU: x.CPU, Start: x.Start, End: x.End, Kind: x.Kind.String(), Routine: x.Routine})
}

// Deferred and Interrupt are the sections of AddNamed: DPC or softirq,
// ISR or hardirq.
const (
	Deferred  = 0
	Interrupt = 1
)

// AddNamed records one execution of module name in section sec
// (Deferred or Interrupt).
func (r *Recorder) AddNamed(sec int, name string, x Exec) {
	if sec != Deferred && sec != Interrupt {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(sec, name, x)
}

func (r *Recorder) add(i int, name string, x Exec) {
	r.events++
	s := r.secs[i][name]
	if s == nil {
		s = &stat{}
		r.secs[i][name] = s
	}
	s.add(x, r.freq)
	r.cpus[x.CPU] = true
	r.last = max(r.last, x.End)
	k := r.index(x.End)
	t := r.open[k]
	if t == nil {
		if k < r.next || len(r.open) >= maxOpen {
			r.late++
			return
		}
		t = &tally{{}, {}}
		r.open[k] = t
	}
	c := t[i][name]
	if c == nil {
		c = &lite{}
		t[i][name] = c
	}
	d := x.End - x.Start
	c.count++
	c.ticks += d
	c.max = max(c.max, d)
}

// Bad counts an event that could not be decoded; the first message is
// kept for the notes.
func (r *Recorder) Bad(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad++
	if r.badMsg == "" {
		r.badMsg = err.Error()
	}
}

// Image applies an Image event: kernel-mode modules (process 0, or an
// address in the upper half, where only the kernel maps) of a load or
// either rundown (DCStart, DCEnd) join the table; an unload leaves it as
// it is.
func (r *Recorder) Image(im etw.Image) {
	if im.PID != 0 && im.Base < 1<<63 {
		return // a user-mode image: no DPC or ISR runs there
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if im.Unload {
		return
	}
	r.mods.Add(etw.Module{Name: im.Name(), Base: im.Base, Size: im.Size})
	clear(r.memo)
}

// Top is one module's share of an interval.
type Top struct {
	Module string  `json:"module"`
	Count  int64   `json:"count"`
	MaxUs  float64 `json:"max_us"`
	SumUs  float64 `json:"total_us"`
}

// SectionInterval is one section (DPC or ISR) over one interval.
type SectionInterval struct {
	Count  int64 `json:"count"`
	ByMax  *Top  `json:"by_max,omitempty"`  // the module with the longest execution
	ByTime *Top  `json:"by_time,omitempty"` // the module with the most time
}

// Interval is what happened since the previous call: the live line.
type Interval struct {
	FromS float64         `json:"from_s"`
	ToS   float64         `json:"to_s"`
	DPC   SectionInterval `json:"dpc"` // softirqs on Linux
	ISR   SectionInterval `json:"isr"` // hard IRQ handlers on Linux
	// Names are the sections' names: DPC and ISR, or softirq and hardirq.
	Names [2]string `json:"-"`
}

// Closed returns, oldest first, the live intervals whose events have all
// arrived by now (ticks): those that ended at least the lag ago. Each is
// returned once; an execution that arrives for a closed interval counts in
// the summary only.
func (r *Recorder) Closed(now int64) []Interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Interval
	for r.start+(r.next+1)*r.every+r.lag <= now {
		out = append(out, r.close(r.next, r.start+(r.next+1)*r.every))
	}
	return out
}

// Flush returns every interval still open, up to now (ticks), oldest
// first: the session has delivered all its events (it stopped and its
// processing returned), so nothing more can arrive. The interval holding
// now ends at now; intervals of stamps after now are returned too, and
// the empty ones between are skipped.
func (r *Recorder) Flush(now int64) []Interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Interval
	for r.start+r.next*r.every < now || len(r.open) > 0 {
		if r.start+r.next*r.every >= now {
			first := true
			for k := range r.open {
				if first || k < r.next {
					r.next, first = k, false
				}
			}
		}
		from, to := r.start+r.next*r.every, r.start+(r.next+1)*r.every
		if from < now && now < to {
			to = now
		}
		out = append(out, r.close(r.next, to))
	}
	return out
}

// close ends interval k at to (ticks) and starts the next.
func (r *Recorder) close(k, to int64) Interval {
	iv := Interval{FromS: r.seconds(r.start + k*r.every), ToS: r.seconds(to), Names: r.names}
	if t := r.open[k]; t != nil {
		for i, sec := range []*SectionInterval{&iv.DPC, &iv.ISR} {
			for name, c := range t[i] {
				sec.Count += c.count
				t := Top{Module: name, Count: c.count, MaxUs: r.us(c.max), SumUs: r.us(c.ticks)}
				if sec.ByMax == nil || t.MaxUs > sec.ByMax.MaxUs || (t.MaxUs == sec.ByMax.MaxUs && name < sec.ByMax.Module) {
					tt := t
					sec.ByMax = &tt
				}
				if sec.ByTime == nil || t.SumUs > sec.ByTime.SumUs || (t.SumUs == sec.ByTime.SumUs && name < sec.ByTime.Module) {
					tt := t
					sec.ByTime = &tt
				}
			}
		}
		delete(r.open, k)
	}
	r.next = k + 1
	return iv
}

func (r *Recorder) us(ticks int64) float64 {
	if r.freq <= 0 {
		return 0
	}
	return float64(ticks) * 1e6 / float64(r.freq)
}

func (r *Recorder) seconds(t int64) float64 {
	if r.freq <= 0 {
		return 0
	}
	return float64(t-r.start) / float64(r.freq)
}

// ModuleStat is one module's executions in one section over the watch.
type ModuleStat struct {
	Module  string  `json:"module"`
	Count   int64   `json:"count"`
	TotalUs float64 `json:"total_us"`
	MaxUs   float64 `json:"max_us"`
	// The longest execution: when (seconds since the start), where, what.
	MaxAtS     float64 `json:"max_at_s"`
	MaxCPU     int     `json:"max_cpu"`
	MaxKind    string  `json:"max_kind"`
	MaxRoutine string  `json:"max_routine"`
	// Kinds counts the executions by kind (DPC, TimerDPC, ThreadedDPC,
	// ISR; on Linux irq, vector, softirq).
	Kinds map[string]int64 `json:"kinds"`
}

// Summary is the watch's result beside the dpcisr report.
type Summary struct {
	Seconds float64      `json:"seconds"`
	Events  int64        `json:"events"`
	Bad     int64        `json:"undecoded_events,omitempty"`
	Modules int          `json:"modules_known"`
	DPC     []ModuleStat `json:"dpc"` // by longest execution, longest first
	ISR     []ModuleStat `json:"isr"`
	// A Linux trace's sections (DPC and ISR are then empty): softirqs
	// per vector, hard IRQ handlers per line and the system vectors.
	SoftIRQ []ModuleStat `json:"softirq,omitempty"`
	HardIRQ []ModuleStat `json:"hardirq,omitempty"`
	Verdict Verdict      `json:"verdict"`
	Notes   []string     `json:"notes,omitempty"`
}

// SectionStats is one section's modules, longest execution first.
type SectionStats struct {
	Name  string
	Stats []ModuleStat
}

// Sections are the summary's sections with their names: DPC and ISR, or
// on Linux softirq and hardirq.
func (s *Summary) Sections() []SectionStats {
	if s.SoftIRQ != nil || s.HardIRQ != nil {
		return []SectionStats{{dpcisr.SoftIRQ, s.SoftIRQ}, {dpcisr.HardIRQ, s.HardIRQ}}
	}
	return []SectionStats{{dpcisr.DPC, s.DPC}, {dpcisr.ISR, s.ISR}}
}

// Summary summarises the watch up to now (ticks).
func (r *Recorder) Summary(now int64) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Summary{Seconds: r.seconds(max(now, r.last)), Events: r.events, Bad: r.bad, Modules: r.mods.Len()}
	if r.source == dpcisr.SourceTracefs {
		s.DPC, s.ISR = []ModuleStat{}, []ModuleStat{}
		s.SoftIRQ, s.HardIRQ = r.stats(0), r.stats(1)
		s.Modules = len(s.SoftIRQ) + len(s.HardIRQ)
		s.Verdict = JudgeSections(s.Sections(), "every softirq and hard interrupt handler ended within 1 ms")
	} else {
		s.DPC, s.ISR = r.stats(0), r.stats(1)
		s.Verdict = Judge(s.DPC, s.ISR)
		if r.mods.Len() == 0 && r.events > 0 {
			s.Notes = append(s.Notes, "no driver list: every routine is Unknown")
		}
	}
	if r.bad > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d events could not be decoded; the first: %s", r.bad, r.badMsg))
	}
	if r.late > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d events arrived after their second's live line was printed (the trace delivers each CPU's buffer when full or at its flush); the totals count them", r.late))
	}
	return s
}

func (r *Recorder) stats(i int) []ModuleStat {
	out := []ModuleStat{}
	for name, st := range r.secs[i] {
		m := ModuleStat{Module: name, Count: st.count, TotalUs: r.us(st.ticks), MaxUs: r.us(st.max.End - st.max.Start),
			MaxAtS: r.seconds(st.max.End), MaxCPU: int(st.max.CPU), MaxKind: st.max.Kind,
			MaxRoutine: st.max.Label, Kinds: map[string]int64{}}
		if m.MaxRoutine == "" {
			m.MaxRoutine = fmt.Sprintf("%#x", st.max.Routine)
		}
		for k, n := range st.kinds {
			if n > 0 {
				m.Kinds[k] = n
			}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].MaxUs != out[b].MaxUs {
			return out[a].MaxUs > out[b].MaxUs
		}
		return out[a].Module < out[b].Module
	})
	return out
}

// Report is the watch as a dpcisr report: per section the CPU time by
// module and CPU, the histogram over all modules, one histogram per
// module (most time first), in xperf's buckets, with source "etw" (or
// "tracefs" for a Linux trace, its sections softirq and hardirq).
func (r *Recorder) Report(now int64) *dpcisr.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &dpcisr.Report{Source: r.source, Encoding: r.source, Sections: []dpcisr.Section{}}
	spanUs := int64(r.us(max(now, r.last) - r.start))
	var cpus []int
	for c := range r.cpus {
		cpus = append(cpus, int(c))
	}
	sort.Ints(cpus)
	for i, name := range r.names {
		sec := dpcisr.Section{Name: name, Heading: name, Span: &dpcisr.Span{FromUs: 0, ToUs: spanUs}, Modules: []dpcisr.Histogram{}}
		names := make([]string, 0, len(r.secs[i]))
		for n := range r.secs[i] {
			names = append(names, n)
		}
		sort.Slice(names, func(a, b int) bool {
			ta, tb := r.secs[i][names[a]].ticks, r.secs[i][names[b]].ticks
			if ta != tb {
				return ta > tb
			}
			return names[a] < names[b]
		})
		var all [64]int64
		var total int64
		for _, n := range names {
			st := r.secs[i][n]
			for k, c := range st.buckets {
				all[k] += c
			}
			total += st.count
			sec.Modules = append(sec.Modules, histogram(n, st.buckets, st.count))
			u := dpcisr.ModuleUsage{Module: n, CPUs: cpus}
			for _, c := range cpus {
				us := int64(r.us(st.perCPU[uint16(c)]))
				u.Usec = append(u.Usec, us)
				pct := 0.0
				if spanUs > 0 {
					pct = 100 * float64(us) / float64(spanUs)
				}
				u.Percent = append(u.Percent, pct)
			}
			sec.Usage = append(sec.Usage, u)
		}
		if total == 0 {
			continue
		}
		h := histogram("", all, total)
		sec.Overall = &h
		sec.Check = &dpcisr.Check{AllModule: total, Total: total, Verdict: "EQUAL"}
		rep.Sections = append(rep.Sections, sec)
	}
	return rep
}

// histogram lists the non-empty buckets, as xperf prints them.
func histogram(module string, b [64]int64, total int64) dpcisr.Histogram {
	h := dpcisr.Histogram{Module: module, Total: total, Buckets: []dpcisr.Bucket{}}
	t := total
	h.Footer = &t
	for k, c := range b {
		if c == 0 {
			continue
		}
		bk := Bucket(k)
		bk.Count = c
		bk.Percent = 100 * float64(c) / float64(total)
		h.Buckets = append(h.Buckets, bk)
	}
	return h
}
