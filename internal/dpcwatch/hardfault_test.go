package dpcwatch

import (
	"testing"

	"github.com/latlab/latlab/internal/etw"
)

// A reused thread id belongs to the process whose lifetime spans the
// fault, else to the nearest one in time; an id no event named has none.
func TestLifetimesAttributeByTime(t *testing.T) {
	l := newLifetimes()
	l.add(300, 1234, "", 100)
	l.add(300, 1234, "", 150)
	l.add(300, 2000, "", 400)
	l.add(300, 2000, "", 500)
	for _, c := range []struct {
		at    int64
		owner uint32
	}{{90, 1234}, {120, 1234}, {200, 1234}, {300, 2000}, {450, 2000}, {900, 2000}} {
		lt, ok := l.at(300, c.at)
		if !ok || lt.owner != c.owner {
			t.Errorf("at %d: %+v %v, want process %d", c.at, lt, ok, c.owner)
		}
	}
	if _, ok := l.at(301, 100); ok {
		t.Error("an id no event named has an owner")
	}
}

// A trace that names one id over and over cannot make latlab keep more
// than maxLifetimesPerID lifetimes of it.
func TestLifetimesBounded(t *testing.T) {
	l := newLifetimes()
	for i := 0; i < 1000; i++ {
		l.add(7, uint32(i), "", int64(i))
	}
	if len(l.byID[7]) != maxLifetimesPerID || l.capped != 1000-maxLifetimesPerID {
		t.Errorf("%d lifetimes kept, %d capped", len(l.byID[7]), l.capped)
	}
}

// Faults are summed in ticks and converted once; a fault of a thread no
// Thread event names is its own row; rows beyond MaxFaultRows are folded
// into one and noted.
func TestHardFaultsRows(t *testing.T) {
	own := newOwners()
	h := newHardFaults(own, 10_000_000)
	fault := func(tid uint32) *etw.Event {
		b := make([]byte, 40)
		b[0] = 100 // InitialTime 100
		b[32] = byte(tid)
		b[33] = byte(tid >> 8)
		b[36] = 0x10 // ByteCount 16
		return &etw.Event{Provider: etw.PageFaultGUID, Opcode: etw.TypeHardFault, Version: 2, PointerSize: 8, Timestamp: 103, Data: b}
	}
	for i := 0; i < MaxFaultRows+5; i++ {
		h.add(fault(uint32(i)))
	}
	out, notes := h.result()
	if out.Events != MaxFaultRows+5 || len(out.Processes) != MaxFaultRows+1 || out.TotalUs != float64(MaxFaultRows+5)*0.3 || out.LongestUs != 0.3 {
		t.Errorf("%d events, %d rows, total %v µs, longest %v µs", out.Events, len(out.Processes), out.TotalUs, out.LongestUs)
	}
	if len(notes) != 1 || out.Missing != "" {
		t.Errorf("notes %q, missing %q", notes, out.Missing)
	}
	out, _ = newHardFaults(own, 10_000_000).result()
	if out.Missing == "" || out.Events != 0 {
		t.Errorf("no faults: %+v", out)
	}
}
