package tracefs

import (
	"fmt"
	"strconv"
	"strings"
)

// Interrupt-handler events: a session for IRQEvents enables these, and
// an IRQTracker pairs their entries and exits.
var IRQEvents = []string{
	"irq/irq_handler_entry", "irq/irq_handler_exit",
	"irq/softirq_entry", "irq/softirq_exit",
}

// VectorEvents are x86's system vectors (local timer, IPIs), which the
// IRQTracker pairs too. The irq_vectors group is x86's own
// (arch/x86/include/asm/trace/irq_vectors.h): a session takes them as
// Options.Optional, so a kernel without it (arm64, 32-bit ARM: none of
// the five Android kernels of testdata/real lists one) traces the rest.
var VectorEvents = []string{"irq_vectors/*_entry", "irq_vectors/*_exit"}

// Kinds of an Exec.
const (
	KindIRQ     = "irq"     // a device's hard interrupt handler (irq:irq_handler_*)
	KindVector  = "vector"  // a system vector: local timer, IPIs (irq_vectors:*)
	KindSoftIRQ = "softirq" // a softirq vector (irq:softirq_*)
)

// SoftIRQNames are the softirq vectors in the kernel's order
// (include/linux/interrupt.h, as softirq_entry's print fmt lists them).
var SoftIRQNames = []string{"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"}

// SoftIRQName is vector v's name ("vec 12" for one this list lacks).
func SoftIRQName(v int64) string {
	if v >= 0 && v < int64(len(SoftIRQNames)) {
		return SoftIRQNames[v]
	}
	return "vec " + strconv.FormatInt(v, 10)
}

// VectorRows maps irq_vectors events to the /proc/interrupts row that
// counts them (arch/x86/kernel/irq.c, arch_show_interrupts): both call
// function events count in CAL (TLB counts shootdowns, which arrive as
// call function IPIs already counted there).
var VectorRows = map[string]string{
	"local_timer":          "LOC",
	"spurious_apic":        "SPU",
	"error_apic":           "ERR",
	"reschedule":           "RES",
	"call_function":        "CAL",
	"call_function_single": "CAL",
	"irq_work":             "IWI",
	"x86_platform_ipi":     "PLT",
	"thermal_apic":         "TRM",
	"threshold_apic":       "THR",
	"deferred_error_apic":  "DFR",
}

// VectorName names a system vector as /proc/interrupts does, with the
// event's own name: "LOC (local_timer)".
func VectorName(event string) string {
	if row, ok := VectorRows[event]; ok {
		return row + " (" + event + ")"
	}
	return event
}

// IRQName names a device's interrupt handler: its action name, as the
// last column of /proc/interrupts shows it, and the line.
func IRQName(irq int64, action string) string {
	if action == "" {
		action = "?"
	}
	return fmt.Sprintf("%s (IRQ %d)", action, irq)
}

// Exec is one handler execution.
type Exec struct {
	Kind       string // KindIRQ, KindVector, KindSoftIRQ
	Name       string // IRQName, VectorName or SoftIRQName
	Number     int64  // the IRQ line, the vector, the softirq number
	CPU        int
	Start, End int64 // ns on the session's clock
}

// Label is what ran in the kernel's terms: "irq 24", "vector 236",
// "softirq 3".
func (x Exec) Label() string {
	return x.Kind + " " + strconv.FormatInt(x.Number, 10)
}

type irqRole uint8

const (
	roleNone irqRole = iota
	roleIRQEntry
	roleIRQExit
	roleVecEntry
	roleVecExit
	roleSoftEntry
	roleSoftExit
)

type openExec struct {
	kind  string
	name  string
	num   int64
	key   string // what the exit must match
	start int64
}

// maxNest bounds the handlers open at once on one CPU (a hard handler
// over a softirq, an NMI-time oddity or two).
const maxNest = 8

// IRQTracker pairs entry and exit events per CPU into executions. An exit
// without its entry (the entry came before the trace) is counted in
// Unmatched, an entry never closed is dropped at the end.
type IRQTracker struct {
	roles     map[*Format]irqRole
	fields    map[*Format][2]Field
	open      map[int][]openExec
	Unmatched int64
}

// NewIRQTracker returns a tracker; it learns formats as events arrive.
func NewIRQTracker() *IRQTracker {
	return &IRQTracker{roles: map[*Format]irqRole{}, fields: map[*Format][2]Field{}, open: map[int][]openExec{}}
}

func (t *IRQTracker) role(f *Format) irqRole {
	if r, ok := t.roles[f]; ok {
		return r
	}
	r := roleNone
	var fl [2]Field
	switch {
	case f.System == "irq" && f.Name == "irq_handler_entry":
		r = roleIRQEntry
		fl[0], _ = f.Field("irq")
		fl[1], _ = f.Field("name")
	case f.System == "irq" && f.Name == "irq_handler_exit":
		r = roleIRQExit
		fl[0], _ = f.Field("irq")
	case f.System == "irq" && f.Name == "softirq_entry":
		r = roleSoftEntry
		fl[0], _ = f.Field("vec")
	case f.System == "irq" && f.Name == "softirq_exit":
		r = roleSoftExit
		fl[0], _ = f.Field("vec")
	case f.System == "irq_vectors" && strings.HasSuffix(f.Name, "_entry"):
		r = roleVecEntry
		fl[0], _ = f.Field("vector")
	case f.System == "irq_vectors" && strings.HasSuffix(f.Name, "_exit"):
		r = roleVecExit
		fl[0], _ = f.Field("vector")
	}
	t.roles[f], t.fields[f] = r, fl
	return r
}

// Add takes one event; when it closes an execution, done receives it. It
// reports whether the event was an interrupt event at all.
func (t *IRQTracker) Add(e Event, done func(Exec)) bool {
	r := t.role(e.Format)
	fl := t.fields[e.Format]
	var o openExec
	switch r {
	case roleNone:
		return false
	case roleIRQEntry:
		n := fl[0].Int(e.Data)
		o = openExec{kind: KindIRQ, num: n, name: IRQName(n, fl[1].String(e.Data)), key: "irq" + strconv.FormatInt(n, 10)}
	case roleVecEntry:
		base := strings.TrimSuffix(e.Format.Name, "_entry")
		o = openExec{kind: KindVector, num: fl[0].Int(e.Data), name: VectorName(base), key: "vec " + base}
	case roleSoftEntry:
		n := fl[0].Int(e.Data)
		o = openExec{kind: KindSoftIRQ, num: n, name: SoftIRQName(n), key: "soft" + strconv.FormatInt(n, 10)}
	case roleIRQExit:
		t.close(e, "irq"+strconv.FormatInt(fl[0].Int(e.Data), 10), done)
		return true
	case roleVecExit:
		t.close(e, "vec "+strings.TrimSuffix(e.Format.Name, "_exit"), done)
		return true
	case roleSoftExit:
		t.close(e, "soft"+strconv.FormatInt(fl[0].Int(e.Data), 10), done)
		return true
	}
	o.start = e.TS
	st := t.open[e.CPU]
	if len(st) >= maxNest {
		st = st[1:] // the oldest lost its exit
		t.Unmatched++
	}
	t.open[e.CPU] = append(st, o)
	return true
}

func (t *IRQTracker) close(e Event, key string, done func(Exec)) {
	st := t.open[e.CPU]
	for i := len(st) - 1; i >= 0; i-- {
		if st[i].key != key {
			continue
		}
		o := st[i]
		// Entries above the match lost their exits (lost events).
		t.Unmatched += int64(len(st) - 1 - i)
		t.open[e.CPU] = st[:i]
		done(Exec{Kind: o.kind, Name: o.name, Number: o.num, CPU: e.CPU, Start: o.start, End: e.TS})
		return
	}
	t.Unmatched++
}

// Open is the number of executions begun and not ended.
func (t *IRQTracker) Open() int {
	n := 0
	for _, st := range t.open {
		n += len(st)
	}
	return n
}
