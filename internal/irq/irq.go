// Package irq reads per-CPU interrupt, softirq and DPC counters and the
// network devices' queue -> interrupt -> CPU mapping: on Linux from
// /proc/interrupts, /proc/softirqs, /proc/irq and /sys/class/net (and the
// RSS indirection table and coalescing through ethtool ioctls); on Windows
// from the PDH processor counters and the adapters' RSS registry values.
// It reads only; changing affinity, RPS or coalescing is the knob package's
// job. It never prints.
package irq

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// Row roles.
const (
	RoleNet = "net" // network interrupts and NET_RX/NET_TX softirqs (Linux)
	RoleDPC = "dpc" // DPCs queued (Windows): all drivers', network among them
)

// Units of Row values.
const (
	UnitCount   = "count"
	UnitPercent = "percent"
)

// Interval is what happened on each CPU between two readings.
type Interval struct {
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	CPUs    []int `json:"cpus"`
	Rows    []Row `json:"rows"`
}

// Row is one source's activity per CPU over an interval.
type Row struct {
	Source string `json:"source"` // "interrupts", "softirqs" or "pdh"
	Name   string `json:"name"`   // "38", "NET_RX", "LOC", "DPCs Queued/sec"
	Label  string `json:"label,omitempty"`
	Device string `json:"device,omitempty"`
	Queue  string `json:"queue,omitempty"`
	Role   string `json:"role,omitempty"`
	Unit   string `json:"unit"`
	// PerCPU is aligned with Interval.CPUs; NaN (null in JSON) where the
	// source has no column for that CPU (an offline CPU in
	// /proc/interrupts) or the row has a single total only.
	PerCPU Values  `json:"per_cpu"`
	Total  float64 `json:"total"`
}

// Values marshals NaN as null.
type Values []float64

// MarshalJSON writes NaN as null.
func (v Values) MarshalJSON() ([]byte, error) {
	out := make([]*float64, len(v))
	for i := range v {
		if !math.IsNaN(v[i]) {
			out[i] = &v[i]
		}
	}
	return json.Marshal(out)
}

// JSONSchemaText is the JSON Schema of what MarshalJSON writes, for the
// result document's schema.
func (Values) JSONSchemaText() string {
	return `{"type":"array","items":{"anyOf":[{"type":"number"},{"type":"null"}]}}`
}

// UnmarshalJSON reads null as NaN.
func (v *Values) UnmarshalJSON(b []byte) error {
	var in []*float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*v = make(Values, len(in))
	for i, p := range in {
		if p == nil {
			(*v)[i] = math.NaN()
		} else {
			(*v)[i] = *p
		}
	}
	return nil
}

// Seconds is the interval's length.
func (iv *Interval) Seconds() float64 { return float64(iv.EndNs-iv.StartNs) / 1e9 }

// cpuIndex maps CPU numbers to column indices.
func cpuIndex(cpus []int) map[int]int {
	m := make(map[int]int, len(cpus))
	for i, c := range cpus {
		m[c] = i
	}
	return m
}

// unionCPUs merges sorted CPU lists.
func unionCPUs(lists ...[]int) []int {
	set := map[int]bool{}
	for _, l := range lists {
		for _, c := range l {
			set[c] = true
		}
	}
	out := make([]int, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// counterDelta is cur - prev for a kernel counter that is an unsigned int
// (32 bits) per CPU: a smaller current value means it wrapped once.
func counterDelta(prev, cur uint64) float64 {
	if cur >= prev {
		return float64(cur - prev)
	}
	if prev < 1<<32 {
		return float64(cur + (1 << 32) - prev)
	}
	return 0 // a reset (CPU replugged); no honest delta
}

// DeltaRows turns two readings of one counter file into rows over cpus.
// role decides each row's Role; rows new in cur count from zero. A row is
// matched with the row of prev that has its name and comes as many rows
// of that name into the file: POWER prints two rows named LOC.
func DeltaRows(source string, prev, cur *Counters, cpus []int, role func(CounterRow) string) []Row {
	idx := cpuIndex(cpus)
	pidx := map[int]int{}
	var prevRows map[string][]*CounterRow
	if prev != nil {
		pidx = cpuIndex(prev.CPUs)
		prevRows = make(map[string][]*CounterRow, len(prev.Rows))
		for i := range prev.Rows {
			n := prev.Rows[i].Name
			prevRows[n] = append(prevRows[n], &prev.Rows[i])
		}
	}
	seen := map[string]int{}
	rows := make([]Row, 0, len(cur.Rows))
	for _, r := range cur.Rows {
		row := Row{Source: source, Name: r.Name, Unit: UnitCount, PerCPU: nanValues(len(cpus))}
		switch r.Kind {
		case KindIRQ:
			if len(r.Actions) > 0 {
				row.Label = joinActions(r.Actions)
				row.Device, row.Queue = SplitQueue(r.Actions[0])
			}
		case KindArch:
			row.Label = r.Desc
		}
		if role != nil {
			row.Role = role(r)
		}
		var p *CounterRow
		if same := prevRows[r.Name]; seen[r.Name] < len(same) {
			p = same[seen[r.Name]]
		}
		seen[r.Name]++
		if r.PerCPU == nil {
			var pv uint64
			if p != nil {
				pv = p.Total
			}
			row.Total = counterDelta(pv, r.Total)
			rows = append(rows, row)
			continue
		}
		for i, c := range cur.CPUs {
			var pv uint64
			if p != nil && p.PerCPU != nil {
				if j, ok := pidx[c]; ok {
					pv = p.PerCPU[j]
				}
			}
			d := counterDelta(pv, r.PerCPU[i])
			if k, ok := idx[c]; ok {
				row.PerCPU[k] = d
			}
			row.Total += d
		}
		rows = append(rows, row)
	}
	return rows
}

func joinActions(a []string) string {
	s := a[0]
	for _, x := range a[1:] {
		s += ", " + x
	}
	return s
}

func nanValues(n int) Values {
	v := make(Values, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// Accumulator keeps the running sum of a series of intervals, so a long
// watch need not keep them all: counts are summed, percentages averaged
// weighted by interval length. Rows are matched by source, name and how
// many rows of that name come before them in the interval (POWER's two
// LOC rows); CPUs are the union of those seen.
type Accumulator struct {
	n          int
	start, end int64
	cpus       map[int]bool
	order      []string
	rows       map[string]*rowSum
}

type rowSum struct {
	row    Row             // the row as first seen; PerCPU and Total unused
	sum    map[int]float64 // per CPU: counts, or percentages x seconds
	weight map[int]float64 // per CPU: seconds (percentages)
	total  float64
	wtotal float64
}

// Add adds one interval.
func (a *Accumulator) Add(iv *Interval) {
	if a.rows == nil {
		a.cpus, a.rows = map[int]bool{}, map[string]*rowSum{}
		a.start = iv.StartNs
	}
	a.n++
	a.end = iv.EndNs
	for _, c := range iv.CPUs {
		a.cpus[c] = true
	}
	w := iv.Seconds()
	seen := map[string]int{}
	for _, r := range iv.Rows {
		key := r.Source + "\x00" + r.Name
		if n := seen[key]; n > 0 {
			seen[key]++
			key += "\x00" + strconv.Itoa(n)
		} else {
			seen[key] = 1
		}
		s := a.rows[key]
		if s == nil {
			s = &rowSum{row: r, sum: map[int]float64{}, weight: map[int]float64{}}
			a.rows[key] = s
			a.order = append(a.order, key)
		}
		for i, c := range iv.CPUs {
			v := r.PerCPU[i]
			if math.IsNaN(v) {
				continue
			}
			if r.Unit == UnitPercent {
				s.sum[c] += v * w
				s.weight[c] += w
			} else {
				s.sum[c] += v
			}
		}
		if r.Unit == UnitPercent {
			s.total += r.Total * w
			s.wtotal += w
		} else {
			s.total += r.Total
		}
	}
}

// Len is the number of intervals added.
func (a *Accumulator) Len() int { return a.n }

// Total returns the sum so far as one interval; a CPU a row never had a
// value for is NaN in that row.
func (a *Accumulator) Total() *Interval {
	if a.n == 0 {
		return &Interval{}
	}
	cpus := make([]int, 0, len(a.cpus))
	for c := range a.cpus {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	out := &Interval{StartNs: a.start, EndNs: a.end, CPUs: cpus, Rows: make([]Row, 0, len(a.order))}
	for _, key := range a.order {
		s := a.rows[key]
		r := s.row
		r.PerCPU = nanValues(len(cpus))
		for k, c := range cpus {
			v, ok := s.sum[c]
			if !ok {
				continue
			}
			if r.Unit == UnitPercent && s.weight[c] > 0 {
				v /= s.weight[c]
			}
			r.PerCPU[k] = v
		}
		r.Total = s.total
		if r.Unit == UnitPercent && s.wtotal > 0 {
			r.Total /= s.wtotal
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}

// SumPerCPU adds up per CPU the rows pred selects (a NaN cell, where a row
// has no column for a CPU, adds nothing) and their totals; found says
// whether any row matched.
func (iv *Interval) SumPerCPU(pred func(Row) bool) (perCPU []float64, total float64, found bool) {
	perCPU = make([]float64, len(iv.CPUs))
	for _, r := range iv.Rows {
		if !pred(r) {
			continue
		}
		found = true
		for i, v := range r.PerCPU {
			if !math.IsNaN(v) {
				perCPU[i] += v
			}
		}
		total += r.Total
	}
	return perCPU, total, found
}

// IsInterrupt selects the rows that count hardware interrupts: every count
// of /proc/interrupts (Linux), PDH Interrupts/sec (Windows).
func IsInterrupt(r Row) bool {
	return r.Unit == UnitCount && (r.Source == "interrupts" || r.Source == "pdh" && r.Name == "Interrupts/sec")
}

// NetWork returns per CPU the network work of an interval: the counts of
// rows with RoleNet (Linux) or, when there are none, RoleDPC (Windows).
// role says which was used.
func (iv *Interval) NetWork() (perCPU []float64, role string) {
	for _, want := range []string{RoleNet, RoleDPC} {
		if w, _, ok := iv.SumPerCPU(func(r Row) bool { return r.Role == want && r.Unit == UnitCount }); ok {
			return w, want
		}
	}
	return make([]float64, len(iv.CPUs)), ""
}

// BusyCPUs returns the CPUs that did at least share (0..1) of the work.
func BusyCPUs(cpus []int, work []float64, share float64) []int {
	total := 0.0
	for _, v := range work {
		total += v
	}
	var out []int
	if total <= 0 {
		return out
	}
	for i, v := range work {
		if v/total >= share {
			out = append(out, cpus[i])
		}
	}
	return out
}

// Watcher reads the counters repeatedly.
type Watcher interface {
	// Next returns the activity since the previous call (or since the
	// watcher was created).
	Next() (*Interval, error)
	// Network describes the network devices, their queues and interrupts.
	Network() *NetInfo
	Close()
}

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// Root is the filesystem root for /proc and /sys (Linux); "" or "/" is
	// this machine, which also allows ethtool ioctls and OS queries. Any
	// other root is a fixture tree.
	Root string
	// Iface, when set, limits the interrupts given RoleNet (Linux) to that
	// interface's; otherwise every hardware network device's count.
	Iface string
}

// live reports whether the watcher reads this machine.
func (o WatchOptions) live() bool { return o.Root == "" || o.Root == "/" }

// NewWatcher takes the first reading.
func NewWatcher(o WatchOptions) (Watcher, error) { return newWatcher(o) }

// Method describes where the counters come from, for documents.
func Method() string { return method }

// BuildInterval computes the activity between two readings of
// /proc/interrupts and /proc/softirqs; netIRQs are the network devices'
// interrupt numbers.
func BuildInterval(prevIntr, intr, prevSft, sft *Counters, netIRQs map[int]bool) *Interval {
	cpus := unionCPUs(intr.CPUs, sft.CPUs)
	iv := &Interval{CPUs: cpus}
	iv.Rows = append(iv.Rows, DeltaRows("interrupts", prevIntr, intr, cpus, func(r CounterRow) string {
		if r.Kind == KindIRQ {
			if n, err := strconv.Atoi(r.Name); err == nil && netIRQs[n] {
				return RoleNet
			}
		}
		return ""
	})...)
	iv.Rows = append(iv.Rows, DeltaRows("softirqs", prevSft, sft, cpus, func(r CounterRow) string {
		if r.Name == "NET_RX" || r.Name == "NET_TX" {
			return RoleNet
		}
		return ""
	})...)
	return iv
}
