package tracefs

import (
	"encoding/binary"
	"testing"
)

// The tracker pairs entries and exits per CPU, names what ran as
// /proc/interrupts does, and counts exits it cannot pair.
func TestIRQTracker(t *testing.T) {
	hin, hout := readFormat(t, "irq_irq_handler_entry"), &Format{System: "irq", Name: "irq_handler_exit", ID: 226,
		Fields: []Field{{Name: "irq", Offset: 8, Size: 4, Signed: true}}}
	hin.System = "irq"
	sin := readFormat(t, "irq_softirq_entry")
	sin.System = "irq"
	sout := &Format{System: "irq", Name: "softirq_exit", ID: 224, Fields: []Field{{Name: "vec", Offset: 8, Size: 4}}}
	lin := readFormat(t, "irq_vectors_local_timer_entry")
	lin.System = "irq_vectors"
	lout := &Format{System: "irq_vectors", Name: "local_timer_exit", ID: 166, Fields: []Field{{Name: "vector", Offset: 8, Size: 4, Signed: true}}}
	u32 := func(f *Format, v uint32, extra ...byte) []byte {
		d := rec(f.ID)
		d = binary.LittleEndian.AppendUint32(d, v)
		return append(d, extra...)
	}
	named := func(irq uint32, name string) []byte {
		d := u32(hin, irq)
		d = binary.LittleEndian.AppendUint32(d, uint32(len(name)+1)<<16|16)
		return append(d, name+"\x00"...)
	}
	tr := NewIRQTracker()
	var got []Exec
	add := func(cpu int, ts int64, f *Format, d []byte) {
		tr.Add(Event{CPU: cpu, TS: ts, Format: f, Data: d}, func(x Exec) { got = append(got, x) })
	}
	add(0, 50, sout, u32(sout, 3))                 // began before the trace
	add(0, 100, sin, u32(sin, 3))                  // NET_RX on CPU 0 ...
	add(1, 110, lin, u32(lin, 236))                // a timer tick on CPU 1
	add(0, 120, hin, named(24, "virtio0-input.0")) // ... interrupted by IRQ 24
	add(0, 125, hout, u32(hout, 24))
	add(1, 140, lout, u32(lout, 236))
	add(0, 200, sout, u32(sout, 3))
	want := []Exec{
		{KindIRQ, "virtio0-input.0 (IRQ 24)", 24, 0, 120, 125},
		{KindVector, "LOC (local_timer)", 236, 1, 110, 140},
		{KindSoftIRQ, "NET_RX", 3, 0, 100, 200},
	}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if tr.Unmatched != 1 || tr.Open() != 0 {
		t.Errorf("unmatched %d open %d", tr.Unmatched, tr.Open())
	}
	if got[0].Label() != "irq 24" || SoftIRQName(12) != "vec 12" || VectorName("foo") != "foo" {
		t.Error("names")
	}
}
