package dpcwatch

import (
	"fmt"
	"math"
	"sort"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
)

// Bounds of what a trace's Thread and Process events may make latlab
// keep: lifetimes (a thread or process id seen between two times),
// lifetimes per id (ids are reused), and rows of the hard fault table
// (one per process, and one per thread whose process is unknown).
// Reaching one is noted; the faults are still counted.
const (
	MaxLifetimes      = 1 << 20
	maxLifetimesPerID = 64
	MaxFaultRows      = 4096
)

// lifetime is a thread's process (owner) or a process's image, from the
// first to the last event that names it.
type lifetime struct {
	owner    uint32
	image    string
	from, to int64
}

// lifetimes maps thread ids to their processes, or process ids to their
// images, over time: an id the kernel reuses has one lifetime per use.
type lifetimes struct {
	byID   map[uint32][]lifetime
	n      int
	capped int
}

func newLifetimes() *lifetimes { return &lifetimes{byID: map[uint32][]lifetime{}} }

// add widens the lifetime of id with that owner and image to time t, or
// starts one.
func (l *lifetimes) add(id, owner uint32, image string, t int64) {
	ls := l.byID[id]
	for i := range ls {
		if ls[i].owner == owner && ls[i].image == image {
			ls[i].from, ls[i].to = min(ls[i].from, t), max(ls[i].to, t)
			return
		}
	}
	if l.n >= MaxLifetimes || len(ls) >= maxLifetimesPerID {
		l.capped++
		return
	}
	l.n++
	l.byID[id] = append(ls, lifetime{owner: owner, image: image, from: t, to: t})
}

// at is the lifetime of id at time t: the one that spans t, else the
// nearest in time; ok is false for an id no event named.
func (l *lifetimes) at(id uint32, t int64) (lt lifetime, ok bool) {
	best := int64(-1)
	for _, x := range l.byID[id] {
		var d int64
		switch {
		case t < x.from:
			d = x.from - t
		case t > x.to:
			d = t - x.to
		}
		if best < 0 || d < best {
			lt, best = x, d
		}
	}
	return lt, best >= 0
}

// owners is what the Thread and Process events of a trace say: which
// process each thread belongs to, and each process's image.
type owners struct {
	threads, processes *lifetimes
	bad                int
	firstBad           error
}

func newOwners() *owners { return &owners{threads: newLifetimes(), processes: newLifetimes()} }

// add reads a kernel Thread or Process event.
func (o *owners) add(ev *etw.Event) {
	switch ev.Provider {
	case etw.ThreadGUID:
		t, ok, err := etw.DecodeThread(ev)
		if ok && err == nil {
			o.threads.add(t.TID, t.PID, "", ev.Timestamp)
		}
		o.fail(err)
	case etw.ProcessGUID:
		p, ok, err := etw.DecodeProcess(ev)
		if ok && err == nil {
			o.processes.add(p.PID, 0, p.ImageFileName, ev.Timestamp)
		}
		o.fail(err)
	}
}

func (o *owners) fail(err error) {
	if err == nil {
		return
	}
	if o.bad == 0 {
		o.firstBad = err
	}
	o.bad++
}

// faultKey is a row of the table.
type faultKey struct {
	pidKnown bool
	pid, tid uint32
	image    string
	other    bool // rows beyond MaxFaultRows
}

// hardFaults sums HardFault events per process.
type hardFaults struct {
	own     *owners
	freq    int64
	rows    map[faultKey]*faultRow
	order   []faultKey
	sum     dpcisr.HardFaults
	total   int64 // ticks
	longest int64
	folded  int64
	first   error
}

// faultRow is a row with its times in clock ticks (summed exactly,
// converted once).
type faultRow struct {
	dpcisr.ProcessFaults
	total, longest int64
}

func newHardFaults(own *owners, freq int64) *hardFaults {
	return &hardFaults{own: own, freq: freq, rows: map[faultKey]*faultRow{}}
}

// add reads a PageFault event; ok is false for other types than
// HardFault.
func (h *hardFaults) add(ev *etw.Event) {
	f, ok, err := etw.DecodeHardFault(ev)
	if !ok {
		return
	}
	if err != nil {
		if h.sum.Bad == 0 {
			h.first = err
		}
		h.sum.Bad++
		return
	}
	var k faultKey
	if th, ok := h.own.threads.at(f.TID, f.End); ok {
		k.pidKnown, k.pid = true, th.owner
		if p, ok := h.own.processes.at(th.owner, f.End); ok {
			k.image = p.image
		}
	} else {
		k.tid = f.TID
	}
	row := h.rows[k]
	if row == nil && len(h.rows) >= MaxFaultRows {
		k = faultKey{other: true}
		row = h.rows[k]
		h.folded++
	}
	if row == nil {
		row = &faultRow{ProcessFaults: dpcisr.ProcessFaults{Image: k.image}}
		if k.pidKnown {
			pid := k.pid
			row.PID = &pid
		} else if !k.other {
			tid := k.tid
			row.TID = &tid
		}
		h.rows[k] = row
		h.order = append(h.order, k)
	}
	row.Faults++
	row.Bytes += uint64(f.Bytes)
	row.total += f.Ticks()
	row.longest = max(row.longest, f.Ticks())
	h.sum.Events++
	h.sum.Bytes += uint64(f.Bytes)
	h.total += f.Ticks()
	h.longest = max(h.longest, f.Ticks())
}

// micros converts ticks to microseconds, rounded to 0.1 µs (a 10 MHz
// clock's tick).
func (h *hardFaults) micros(ticks int64) float64 {
	if h.freq <= 0 {
		return 0
	}
	return math.Round(float64(ticks)*1e7/float64(h.freq)) / 10
}

// result is the table, the longest total wait first (then the most
// faults, then the name), and notes on what it could not attribute.
func (h *hardFaults) result() (*dpcisr.HardFaults, []string) {
	out := h.sum
	out.Processes = []dpcisr.ProcessFaults{}
	for _, k := range h.order {
		r := h.rows[k]
		p := r.ProcessFaults
		p.TotalUs, p.LongestUs = h.micros(r.total), h.micros(r.longest)
		out.Processes = append(out.Processes, p)
	}
	out.TotalUs, out.LongestUs = h.micros(h.total), h.micros(h.longest)
	sort.SliceStable(out.Processes, func(i, j int) bool {
		a, b := out.Processes[i], out.Processes[j]
		if a.TotalUs != b.TotalUs {
			return a.TotalUs > b.TotalUs
		}
		if a.Faults != b.Faults {
			return a.Faults > b.Faults
		}
		return a.Name() < b.Name()
	})
	var notes []string
	if out.Events == 0 && out.Bad == 0 {
		out.Missing = fmt.Sprintf("no hard page fault events: the trace was not recorded with the %s kernel flag (xperf -on ...+%s)", dpcisr.HardFaultFlag, dpcisr.HardFaultFlag)
	}
	if out.Bad > 0 {
		notes = append(notes, fmt.Sprintf("%d HardFault events could not be decoded and are not counted; the first: %v", out.Bad, h.first))
	}
	if h.folded > 0 {
		notes = append(notes, fmt.Sprintf("more than %d processes and unknown threads with hard faults: %d faults are in the row \"process unknown\"", MaxFaultRows, h.folded))
	}
	if n := h.own.threads.capped + h.own.processes.capped; n > 0 {
		notes = append(notes, fmt.Sprintf("the trace names threads and processes more than %d times (or one id more than %d times): %d of them are not used to attribute faults", MaxLifetimes, maxLifetimesPerID, n))
	}
	if h.own.bad > 0 && out.Events > 0 {
		notes = append(notes, fmt.Sprintf("%d Thread or Process events could not be decoded: faults of their threads may be attributed to no process; the first: %v", h.own.bad, h.own.firstBad))
	}
	return &out, notes
}
