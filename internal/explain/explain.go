// Package explain says why a late wake-up was late: from scheduler, timer
// and interrupt events of the measured CPU (tracefs on Linux), what ran
// there between the deadline and the moment the thread took its time
// stamp: the timer interrupt's delay, hard and soft interrupt handlers,
// the threads that held the CPU, and the wake-up-to-running delay. It is
// rtla timerlat's auto-analysis without the timerlat tracer, which many
// kernels lack.
package explain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/tracefs"
)

// Events a trace for explanations enables, restricted to the measured
// CPUs, and tracefs.VectorEvents where the kernel has them (x86).
var Events = append([]string{"sched/sched_switch", "sched/sched_wakeup", "timer/hrtimer_expire_entry"}, tracefs.IRQEvents...)

// Kinds of what ran.
const (
	KindThread  = "thread"
	KindIRQ     = "irq" // a device's handler or a system vector
	KindSoftIRQ = "softirq"
	KindIdle    = "idle" // the CPU's idle task (pid 0)
)

// Ran is one thing that held the measured CPU inside an explained window.
type Ran struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	PID        int    `json:"pid,omitempty"`
	Policy     string `json:"policy,omitempty"` // threads: SCHED_OTHER, SCHED_FIFO, ...
	Prio       int    `json:"prio,omitempty"`   // threads: the kernel's prio (0-99 realtime, 100-139 normal)
	Count      int    `json:"count"`
	DurationNs int64  `json:"duration_ns"`
	// Own marks a thread of latlab's own process (its trace reader, the Go
	// runtime, another measuring thread): a cost of the traced run, not
	// something of the system's that the untraced run met.
	Own bool `json:"own,omitempty"`
}

// Wakeup is one explained wake-up.
type Wakeup struct {
	Thread     int     `json:"thread"`
	CPU        int     `json:"cpu"`
	LatencyNs  int64   `json:"latency_ns"`
	DeadlineNs int64   `json:"deadline_ns"` // CLOCK_MONOTONIC
	AtS        float64 `json:"at_s"`        // since the first deadline
	// TimerLatencyNs: deadline to hrtimer_expire_entry of the thread's
	// timer (the hrtimer expiry that preceded its wake-up); -1 unknown,
	// or the thread never slept (Note says so).
	TimerLatencyNs int64 `json:"timer_latency_ns"`
	// WakeToRunNs: sched_wakeup of the thread to the sched_switch that
	// ran it; -1 unknown.
	WakeToRunNs int64 `json:"wake_to_run_ns"`
	// SwitchToStampNs: from the switch to the thread's time stamp (the
	// return to user space and the clock read).
	SwitchToStampNs int64 `json:"switch_to_stamp_ns"`
	// Ran is what held the CPU in [deadline, time stamp], longest first,
	// the measuring thread itself left out; interrupt time is counted in
	// the handler, not in the thread it interrupted.
	Ran   []Ran  `json:"ran"`
	Cause string `json:"cause"`
	Note  string `json:"note,omitempty"`
}

// Cause is one cause's total over the explained wake-ups.
type Cause struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Wakeups    int    `json:"wakeups"` // times it ran in an explained wake-up
	DurationNs int64  `json:"duration_ns"`
	Own        bool   `json:"own,omitempty"` // latlab's own threads (Ran.Own)
}

// Sample is one measured wake-up to explain.
type Sample struct {
	Thread   int
	CPU      int
	TID      int
	Deadline int64 // CLOCK_MONOTONIC ns
	Latency  int64
}

// record kinds of the timeline.
const (
	evSwitch uint8 = iota + 1
	evWakeup
	evTimer
	evEnter // an interrupt handler begins (name, kind)
	evLeave
)

type event struct {
	ts   int64
	kind uint8
	pid  int32 // switch: next pid; wakeup: the woken pid
	prio int32 // switch: next prio
	name string
	ik   string // evEnter/evLeave: tracefs.KindIRQ, KindVector, KindSoftIRQ
}

// MaxEvents bounds the timeline: at 40 bytes an event, 80 MiB. A CPU
// under heavy interrupt load makes ~50,000 events a second, so this
// covers minutes; later events are dropped and counted.
const MaxEvents = 2_000_000

// Timeline holds the events of the measured CPUs in time order per CPU.
type Timeline struct {
	cpus map[int][]event // in time order, made by sorted from chunks
	// chunks are the events as recorded, per CPU, in slices of
	// chunkEvents: recording, which runs on a measured CPU, never copies
	// what it holds, as an append to one slice per CPU did when it grew
	// (a megabyte at a time in a 4 s run, which a measuring thread woken
	// meanwhile waited for).
	chunks  map[int][][]event
	n       int
	Dropped int64
	irq     *tracefs.IRQTracker
	fields  map[*tracefs.Format][]tracefs.Field
	names   map[string]string // interned names
	// own are the threads of latlab's own process (Ran.Own), as the
	// Tracer found them when it stopped.
	own map[int32]bool
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline {
	return &Timeline{cpus: map[int][]event{}, chunks: map[int][][]event{}, irq: tracefs.NewIRQTracker(), fields: map[*tracefs.Format][]tracefs.Field{},
		names: map[string]string{}}
}

func (t *Timeline) intern(s string) string {
	if v, ok := t.names[s]; ok {
		return v
	}
	if len(t.names) < 1<<16 {
		t.names[s] = s
	}
	return s
}

func (t *Timeline) push(cpu int, e event) {
	if t.n >= MaxEvents {
		t.Dropped++
		return
	}
	t.n++
	cs := t.chunks[cpu]
	if n := len(cs); n == 0 || len(cs[n-1]) == cap(cs[n-1]) {
		cs = append(cs, make([]event, 0, chunkEvents))
		t.chunks[cpu] = cs
	}
	last := &cs[len(cs)-1]
	*last = append(*last, e)
}

// chunkEvents is how many events a chunk of a Timeline holds (56 kB).
const chunkEvents = 1024

func (t *Timeline) fieldsOf(f *tracefs.Format, names ...string) []tracefs.Field {
	if fl, ok := t.fields[f]; ok {
		return fl
	}
	fl := make([]tracefs.Field, len(names))
	for i, n := range names {
		fl[i], _ = f.Field(n)
	}
	t.fields[f] = fl
	return fl
}

// Add takes one event of the trace.
func (t *Timeline) Add(e tracefs.Event) {
	f := e.Format
	switch {
	case f.System == "sched" && f.Name == "sched_switch":
		fl := t.fieldsOf(f, "next_pid", "next_prio", "next_comm")
		pid := int32(fl[0].Int(e.Data))
		t.push(e.CPU, event{ts: e.TS, kind: evSwitch, pid: pid, prio: int32(fl[1].Int(e.Data)), name: t.intern(fl[2].String(e.Data))})
	case f.System == "sched" && f.Name == "sched_wakeup":
		fl := t.fieldsOf(f, "pid")
		t.push(e.CPU, event{ts: e.TS, kind: evWakeup, pid: int32(fl[0].Int(e.Data))})
	case f.System == "timer" && f.Name == "hrtimer_expire_entry":
		t.push(e.CPU, event{ts: e.TS, kind: evTimer})
	default:
		// Interrupt events: entry and exit once paired, with the name.
		t.irq.Add(e, func(x tracefs.Exec) {
			t.push(e.CPU, event{ts: x.Start, kind: evEnter, name: t.intern(x.Name), ik: x.Kind})
			t.push(e.CPU, event{ts: x.End, kind: evLeave, name: t.intern(x.Name), ik: x.Kind})
		})
	}
}

// sorted puts each CPU's events in time order: an interrupt's entry is
// pushed when its exit arrives, after the events inside it.
func (t *Timeline) sorted() {
	for c, cs := range t.chunks {
		n := len(t.cpus[c])
		for _, ch := range cs {
			n += len(ch)
		}
		evs := append(make([]event, 0, n), t.cpus[c]...)
		for _, ch := range cs {
			evs = append(evs, ch...)
		}
		t.cpus[c] = evs
	}
	clear(t.chunks)
	for c, evs := range t.cpus {
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].ts < evs[j].ts })
		t.cpus[c] = evs
	}
}

// lookback is how far before a deadline the walk starts, to know which
// handlers are running at the deadline.
const lookback = 5_000_000 // 5 ms

// Explain explains each sample from the timeline; policy, when set, names
// a pid's scheduling policy. A thread that ran is latlab's own (Ran.Own)
// when the Tracer found it in its process or it is a sample's measuring
// thread.
func (t *Timeline) Explain(samples []Sample, first int64, policy func(pid int) string) []Wakeup {
	t.sorted()
	if t.own == nil {
		t.own = map[int32]bool{}
	}
	for _, s := range samples {
		t.own[int32(s.TID)] = true
	}
	out := make([]Wakeup, 0, len(samples))
	for _, s := range samples {
		out = append(out, t.explain(s, first, policy))
	}
	return out
}

type key struct {
	kind, name string
	pid        int32
}

func (t *Timeline) explain(s Sample, first int64, policy func(int) string) Wakeup {
	w := Wakeup{Thread: s.Thread, CPU: s.CPU, LatencyNs: s.Latency, DeadlineNs: s.Deadline,
		AtS: float64(s.Deadline-first) / 1e9, TimerLatencyNs: -1, WakeToRunNs: -1, Ran: []Ran{}}
	evs := t.cpus[s.CPU]
	d, stamp := s.Deadline, s.Deadline+s.Latency
	i0 := sort.Search(len(evs), func(i int) bool { return evs[i].ts >= d-lookback })
	if i0 == len(evs) || len(evs) == 0 || evs[len(evs)-1].ts < d {
		w.Note = "no trace events after the deadline on this CPU"
		w.Cause = "unknown"
		return w
	}
	// Who ran at the walk's start: the last switch before it.
	cur := event{pid: -1, name: "?"}
	for i := i0 - 1; i >= 0 && i >= i0-200000; i-- {
		if evs[i].kind == evSwitch {
			cur = evs[i]
			break
		}
	}
	var stack []event // open handlers, innermost last
	acc := map[key]*Ran{}
	var order []key
	prev := max(d, evs[i0].ts)
	var lastTimer, wakeAt, switchAt int64 = -1, -1, -1
	charge := func(from, to int64) {
		if to <= from || to <= d || from >= stamp {
			return
		}
		from, to = max(from, d), min(to, stamp)
		var k key
		r := Ran{}
		switch {
		case len(stack) > 0:
			top := stack[len(stack)-1]
			kind := KindIRQ
			if top.ik == tracefs.KindSoftIRQ {
				kind = KindSoftIRQ
			}
			k, r = key{kind, top.name, 0}, Ran{Kind: kind, Name: top.name}
		case cur.pid == int32(s.TID):
			return // the measuring thread itself
		case cur.pid == 0:
			k, r = key{KindIdle, "idle", 0}, Ran{Kind: KindIdle, Name: "idle"}
		default:
			k, r = key{KindThread, cur.name, cur.pid}, Ran{Kind: KindThread, Name: cur.name, PID: int(cur.pid), Prio: int(cur.prio)}
		}
		a := acc[k]
		if a == nil {
			a = &r
			acc[k] = a
			order = append(order, k)
		}
		a.DurationNs += to - from
	}
	switchIns := map[int32]int{}
	for i := i0; i < len(evs) && evs[i].ts <= stamp; i++ {
		e := evs[i]
		if e.ts >= d {
			charge(prev, e.ts)
			prev = e.ts
		}
		switch e.kind {
		case evSwitch:
			cur = e
			if e.ts >= d && e.pid == int32(s.TID) && wakeAt >= 0 && switchAt < 0 {
				switchAt = e.ts
			}
			if e.ts >= d && e.pid != int32(s.TID) {
				switchIns[e.pid]++
			}
		case evWakeup:
			// Its timer cannot wake it before the deadline: a wake-up
			// before it ended an earlier wait.
			if e.pid == int32(s.TID) && e.ts >= d {
				wakeAt = e.ts
				if lastTimer >= 0 {
					w.TimerLatencyNs = lastTimer - d
				}
			}
		case evTimer:
			if e.ts >= d {
				lastTimer = e.ts
			}
		case evEnter:
			if len(stack) < 16 {
				stack = append(stack, e)
			}
			if e.ts >= d {
				kind := KindIRQ
				if e.ik == tracefs.KindSoftIRQ {
					kind = KindSoftIRQ
				}
				k := key{kind, e.name, 0}
				if a := acc[k]; a != nil {
					a.Count++
				} else {
					acc[k] = &Ran{Kind: kind, Name: e.name, Count: 1}
					order = append(order, k)
				}
			}
		case evLeave:
			for j := len(stack) - 1; j >= 0; j-- {
				if stack[j].name == e.name {
					stack = append(stack[:j], stack[j+1:]...)
					break
				}
			}
		}
	}
	charge(prev, stamp)
	if wakeAt >= 0 && switchAt >= 0 {
		w.WakeToRunNs = switchAt - wakeAt
		w.SwitchToStampNs = stamp - switchAt
	} else if wakeAt >= 0 {
		w.Note = "the thread's switch-in was not in the trace"
	} else {
		// No wake-up after the deadline: the thread never slept; it was
		// preempted before its wait began and the deadline passed while
		// it waited for the CPU.
		w.Note = "the thread did not sleep: it lost the CPU before its wait began and got it back after the deadline"
	}
	for _, k := range order {
		a := acc[k]
		if a.DurationNs == 0 {
			continue
		}
		if a.Kind == KindThread || a.Kind == KindIdle {
			a.Count = max(1, switchIns[int32(a.PID)])
		}
		if a.Kind == KindThread && policy != nil {
			a.Policy = policy(a.PID)
		}
		if a.Kind == KindThread {
			a.Own = t.own[int32(a.PID)]
		}
		w.Ran = append(w.Ran, *a)
	}
	sort.SliceStable(w.Ran, func(i, j int) bool { return w.Ran[i].DurationNs > w.Ran[j].DurationNs })
	w.Cause = cause(w)
	return w
}

// Name is what held a CPU in a sentence: "thread stress-ng (pid 4123)",
// "latlab's own thread latlab (pid 4130)" (own: Ran.Own), "hard irq
// virtio0-input.0 (IRQ 24)", "softirq NET_RX", "idle idle".
func Name(kind, name string, pid int, own bool) string {
	switch kind {
	case KindThread:
		if own {
			return fmt.Sprintf("latlab's own thread %s (pid %d)", name, pid)
		}
		return fmt.Sprintf("thread %s (pid %d)", name, pid)
	case KindIRQ:
		return "hard irq " + name
	}
	return kind + " " + name
}

// cause names the main cause of one late wake-up: what held the CPU
// longest, else the timer's own delay, else the way back to user space.
func cause(w Wakeup) string {
	if len(w.Ran) > 0 && w.Ran[0].Kind != KindIdle {
		if w.Ran[0].Own {
			return w.Ran[0].Kind + " " + w.Ran[0].Name + " (latlab's own)"
		}
		return w.Ran[0].Kind + " " + w.Ran[0].Name
	}
	if w.TimerLatencyNs >= 0 && w.TimerLatencyNs*2 >= w.LatencyNs {
		return "timer"
	}
	if w.WakeToRunNs > 0 && w.WakeToRunNs*2 >= w.LatencyNs {
		return "wake-to-run"
	}
	if len(w.Ran) > 0 {
		return KindIdle
	}
	return "return-to-user"
}

// Totals sums what ran over the explained wake-ups by kind and name (a
// thread's name is its comm: the threads of one program together),
// longest first.
func Totals(ws []Wakeup) []Cause {
	m := map[key]*Cause{}
	var order []key
	for _, w := range ws {
		for _, r := range w.Ran {
			k := key{r.Kind, r.Name, 0}
			if r.Own {
				k.pid = -1 // apart from another program of the same name
			}
			c := m[k]
			if c == nil {
				c = &Cause{Kind: r.Kind, Name: r.Name, Own: r.Own}
				m[k] = c
				order = append(order, k)
			}
			c.Wakeups++
			c.DurationNs += r.DurationNs
		}
	}
	out := make([]Cause, 0, len(order))
	for _, k := range order {
		out = append(out, *m[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DurationNs > out[j].DurationNs })
	return out
}

// NextStep names the knob that addresses the main cause: the longest
// total of what ran (idle and latlab's own threads aside), else the
// timer's delay.
func NextStep(ws []Wakeup, totals []Cause, slackNs int64, realtime bool) string {
	var top *Cause
	own := false
	for i := range totals {
		if totals[i].Own {
			own = true
			continue
		}
		if totals[i].Kind != KindIdle {
			top = &totals[i]
			break
		}
	}
	cpus := map[int]bool{}
	for _, w := range ws {
		cpus[w.CPU] = true
	}
	var cl []string
	for c := range cpus {
		cl = append(cl, fmt.Sprint(c))
	}
	sort.Strings(cl)
	cpu := strings.Join(cl, ",")
	if top == nil && own {
		return fmt.Sprintf("nothing but latlab's own threads (the trace's reader, the Go runtime) and the idle task held CPU %s: the lateness they add is the tracing's cost, which an untraced run does not pay; compare with a run without --explain", cpu)
	}
	if top == nil {
		if slackNs > 0 && !realtime {
			return fmt.Sprintf("the timer fired late with the CPU idle: the thread's timer slack (%d µs) lets it; --rtprio (realtime threads have no slack) or --resolution 1us; then cpu-idle-states / --dma-latency 0 for the idle exit", slackNs/1000)
		}
		return "the timer fired late with the CPU idle: the idle state's exit latency; knob cpu-idle-states, or --dma-latency 0 for the run"
	}
	switch top.Kind {
	case KindThread:
		if realtime {
			return fmt.Sprintf("thread %s held CPU %s: it runs at a realtime priority at or above the measuring thread's; raise --rtprio above it, or isolation (isolcpus/nohz_full) for CPU %s; a realtime hog is also what rt-throttling bounds", top.Name, cpu, cpu)
		}
		return fmt.Sprintf("thread %s held CPU %s: realtime priority for the measuring thread (--rtprio 80), or isolation (isolcpus, nohz_full) to keep other threads off CPU %s", top.Name, cpu, cpu)
	case KindSoftIRQ:
		switch top.Name {
		case "NET_RX", "NET_TX":
			return fmt.Sprintf("network softirqs (%s) ran on CPU %s: rps (receive packet steering, /sys/class/net/DEV/queues/rx-N/rps_cpus) and irq-affinity of the NIC's queues to move them off it", top.Name, cpu)
		case "BLOCK", "IRQ_POLL":
			return fmt.Sprintf("block-device completions (%s) ran on CPU %s: irq-affinity of the disk's interrupt lines", top.Name, cpu)
		}
		return fmt.Sprintf("softirq %s ran on CPU %s: isolation (nohz_full, rcu_nocbs) takes the timer and RCU work off it", top.Name, cpu)
	default:
		if strings.Contains(top.Name, "(IRQ ") {
			return fmt.Sprintf("interrupt handler %s ran on CPU %s: irq-affinity (/proc/irq/N/smp_affinity_list) to move the line off it", top.Name, cpu)
		}
		return fmt.Sprintf("system vector %s ran on CPU %s: isolation (nohz_full) reduces ticks and IPIs there", top.Name, cpu)
	}
}
