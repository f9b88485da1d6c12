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

// stat accumulates one module's executions in one section.
type stat struct {
	count   int64
	ticks   int64
	max     etw.Execution
	buckets [64]int64
	perCPU  map[uint16]int64 // ticks
	kinds   [4]int64
}

func (s *stat) add(x etw.Execution, freq int64) {
	d := x.Ticks()
	s.count++
	s.ticks += d
	if s.count == 1 || d > s.max.Ticks() {
		s.max = x
	}
	s.buckets[BucketIndex(d, freq)]++
	if s.perCPU == nil {
		s.perCPU = map[uint16]int64{}
	}
	s.perCPU[x.CPU] += d
	if int(x.Kind) < len(s.kinds) {
		s.kinds[x.Kind]++
	}
}

// lite is the per-interval tally of one module.
type lite struct {
	count, ticks, max int64
}

// Recorder takes executions as the trace delivers them (from the
// consumer's thread) and summarises them. Its methods may be called from
// several goroutines.
type Recorder struct {
	mu      sync.Mutex
	freq    int64
	start   int64 // ticks at the start of the watch
	last    int64 // the latest exit seen
	mods    *etw.Modules
	names   map[uint64]string // routine -> module, memoised
	secs    [2]map[string]*stat
	cur     [2]map[string]*lite // since the last Interval
	curFrom int64
	cpus    map[uint16]bool
	events  int64
	bad     int64
	badMsg  string
}

// NewRecorder records on a clock of freq ticks per second, starting at
// start (ticks), attributing routines with mods (which it then owns).
func NewRecorder(freq, start int64, mods *etw.Modules) *Recorder {
	if mods == nil {
		mods = &etw.Modules{}
	}
	r := &Recorder{freq: freq, start: start, last: start, curFrom: start, mods: mods, names: map[uint64]string{}, cpus: map[uint16]bool{}}
	for i := range r.secs {
		r.secs[i] = map[string]*stat{}
		r.cur[i] = map[string]*lite{}
	}
	return r
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
	if n, ok := r.names[addr]; ok {
		return n
	}
	n := Unknown
	if m, ok := r.mods.Lookup(addr); ok {
		n = m.Name
	}
	if len(r.names) < maxNames {
		r.names[addr] = n
	}
	return n
}

// Add records one execution.
func (r *Recorder) Add(x etw.Execution) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events++
	name := r.module(x.Routine)
	i := section(x.Kind)
	s := r.secs[i][name]
	if s == nil {
		s = &stat{}
		r.secs[i][name] = s
	}
	s.add(x, r.freq)
	c := r.cur[i][name]
	if c == nil {
		c = &lite{}
		r.cur[i][name] = c
	}
	d := x.Ticks()
	c.count++
	c.ticks += d
	c.max = max(c.max, d)
	r.cpus[x.CPU] = true
	r.last = max(r.last, x.End)
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
// address in the upper half, where only the kernel maps) join the table,
// unloads leave it.
func (r *Recorder) Image(im etw.Image) {
	if im.PID != 0 && im.Base < 1<<63 {
		return // a user-mode image: no DPC or ISR runs there
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if im.Unload {
		// DCEnd closes the rundown and means nothing for the table.
		return
	}
	r.mods.Add(etw.Module{Name: im.Name(), Base: im.Base, Size: im.Size})
	clear(r.names)
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
	DPC   SectionInterval `json:"dpc"`
	ISR   SectionInterval `json:"isr"`
}

// Interval returns the executions since the previous call (or the start)
// up to now (ticks) and starts a new interval.
func (r *Recorder) Interval(now int64) Interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	iv := Interval{FromS: r.seconds(r.curFrom), ToS: r.seconds(now)}
	for i, sec := range []*SectionInterval{&iv.DPC, &iv.ISR} {
		for name, c := range r.cur[i] {
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
		r.cur[i] = map[string]*lite{}
	}
	r.curFrom = now
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
	// Kinds counts the executions by kind (DPC, TimerDPC, ThreadedDPC, ISR).
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
	Verdict Verdict      `json:"verdict"`
	Notes   []string     `json:"notes,omitempty"`
}

// Summary summarises the watch up to now (ticks).
func (r *Recorder) Summary(now int64) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Summary{Seconds: r.seconds(max(now, r.last)), Events: r.events, Bad: r.bad, Modules: r.mods.Len()}
	s.DPC, s.ISR = r.stats(0), r.stats(1)
	s.Verdict = Judge(s.DPC, s.ISR)
	if r.bad > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d events could not be decoded; the first: %s", r.bad, r.badMsg))
	}
	if r.mods.Len() == 0 && r.events > 0 {
		s.Notes = append(s.Notes, "no driver list: every routine is Unknown")
	}
	return s
}

func (r *Recorder) stats(i int) []ModuleStat {
	out := []ModuleStat{}
	for name, st := range r.secs[i] {
		m := ModuleStat{Module: name, Count: st.count, TotalUs: r.us(st.ticks), MaxUs: r.us(st.max.Ticks()),
			MaxAtS: r.seconds(st.max.End), MaxCPU: int(st.max.CPU), MaxKind: st.max.Kind.String(),
			MaxRoutine: fmt.Sprintf("%#x", st.max.Routine), Kinds: map[string]int64{}}
		for k, n := range st.kinds {
			if n > 0 {
				m.Kinds[etw.Kind(k).String()] = n
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
// module (most time first), in xperf's buckets, with source "etw".
func (r *Recorder) Report(now int64) *dpcisr.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &dpcisr.Report{Source: dpcisr.SourceETW, Encoding: "etw", Sections: []dpcisr.Section{}}
	spanUs := int64(r.us(max(now, r.last) - r.start))
	var cpus []int
	for c := range r.cpus {
		cpus = append(cpus, int(c))
	}
	sort.Ints(cpus)
	for i, name := range []string{dpcisr.DPC, dpcisr.ISR} {
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
