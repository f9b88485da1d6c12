package etl

import (
	"bytes"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/etw"
)

// Crafted traces of a few hundred KB cannot grow the summary's tables
// without end: each table stops at its bound with a note.

func summarize(t *testing.T, b []byte) *Summary {
	t.Helper()
	s, err := Summarize(t.Context(), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hasNote(s []string, sub string) bool {
	for _, n := range s {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func TestSummaryProvidersAreBounded(t *testing.T) {
	w := newTraceWriter(8, 65536, 2, "many providers")
	for i := range MaxProviders + 10 {
		w.event(etw.GUID{Data1: uint32(i + 1), Data2: 0x4444}, 1, 0, 0, 0, 1, 2, testStartQPC+int64(i), nil)
	}
	s := summarize(t, w.bytes())
	if len(s.Providers) != MaxProviders || !hasNote(s.Notes, "more than 4096 providers: 11 events of further providers") {
		t.Errorf("%d providers, notes %q", len(s.Providers), s.Notes)
	}
}

func TestSummaryEventIDsAreBounded(t *testing.T) {
	w := newTraceWriter(8, 65536, 2, "many ids")
	g := etw.GUID{Data1: 0x1234}
	for p := range 2 { // with the header event's opcode, MaxCounts counts
		for id := range MaxCounts/2 - p {
			w.event(etw.GUID{Data1: g.Data1 + uint32(p)}, uint16(id), 0, 0, 0, 1, 2, testStartQPC, nil)
		}
	}
	w.event(g, 65535, 0, 0, 0, 1, 2, testStartQPC, nil) // one id too many
	s := summarize(t, w.bytes())
	if !hasNote(s.Notes, "more than 8192 opcodes and event ids in all: 1 events") {
		t.Errorf("notes %q", s.Notes)
	}
}

func TestSummaryImageNamesAreBounded(t *testing.T) {
	w := newTraceWriter(8, 65536, 2, "long names")
	long := `\SystemRoot\` + strings.Repeat("x", 20000) + ".sys"
	w.system(0x140a, 3, 0, 0, testStartQPC+1, imagePayload(8, 0xfffff80000000000, 0x1000, 0, long))
	s := summarize(t, w.bytes())
	if len(s.Modules) != 1 || len([]rune(s.Modules[0].File)) != MaxModuleName || len([]rune(s.Modules[0].Name)) > MaxModuleName ||
		!hasNote(s.Notes, "1 image file names longer than 1024 characters are cut there") {
		t.Errorf("modules %d, notes %q", len(s.Modules), s.Notes)
	}
}

// NDIS frames whose last fragment never comes are held at most per
// interface and in all.
func TestPendingNDISFragmentsAreBounded(t *testing.T) {
	w := newTraceWriter(8, 65536, 2, "unfinished")
	frag := bytes.Repeat([]byte{0xab}, 64)
	for ifx := range maxPendingIfaces + 5 {
		w.event(NDISPacketCaptureGUID, ndisFragmentID, 0, 0, kwPacketStart|0x1, 1, 2, testStartQPC, ndisPayload(uint32(ifx), frag))
	}
	_, pc, err := Packets(bytes.NewReader(w.bytes()), func(*Packet) error { return nil })
	if err == nil || pc.Skipped != 6 || !strings.Contains(pc.SkipReason, "more than 256 interfaces") {
		t.Errorf("err %v, skipped %d (%s)", err, pc.Skipped, pc.SkipReason)
	}
}

// The connections' counts are those etw.ForConnection gives each
// connection, found in one pass over the events instead of one per
// connection.
func TestTCPCountsMatchForConnection(t *testing.T) {
	var evs []etw.TCPEvent
	addr := func(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
	for c := range 50 {
		l, r := addr(fmt.Sprintf("192.0.2.1:%d", 40000+c)), addr("192.0.2.2:9")
		tcb := uint64(0xffff0000) + uint64(c%40) // some connections share a Tcb (reused)
		evs = append(evs, etw.TCPEvent{ID: 1351, Name: "TcpDataTransferRetransmitRound", Tcb: tcb})
		evs = append(evs, etw.TCPEvent{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: tcb, Local: l, Remote: r})
		for k := range c % 7 {
			evs = append(evs, etw.TCPEvent{ID: 1387, Name: "TcpRack", Tcb: tcb + uint64(k%2)})
		}
	}
	// the same connection again, as an IPv4-mapped address
	evs = append(evs, etw.TCPEvent{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: 1, Local: addr("[::ffff:192.0.2.1]:40000"), Remote: addr("[::ffff:192.0.2.2]:9")})
	tc := newTCPCounter()
	for _, e := range evs {
		tc.add(e)
	}
	got := tc.conns()
	if len(got) != 51 {
		t.Fatalf("%d connections", len(got))
	}
	for _, c := range got {
		want := etw.ForConnection(evs, addr(c.Local), addr(c.Remote), 0)
		if c.Events != want.Total || !reflect.DeepEqual(c.Counts, want.Counts) {
			t.Errorf("%s -> %s: %d %v, ForConnection %d %v", c.Local, c.Remote, c.Events, c.Counts, want.Total, want.Counts)
		}
	}
}

// BenchmarkSummaryTCP reads a trace of many connections: the time per
// trace grows with its events, not with connections times events.
func BenchmarkSummaryTCP(b *testing.B) {
	w := newTraceWriter(8, 65536, 2, "tcp")
	for range 2000 {
		for _, e := range tcpipEvents() {
			w.event(etw.TCPIPGUID, e.id, 0, 0, 0, 1, 2, testStartQPC, e.data)
		}
	}
	trace := w.bytes()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Summarize(b.Context(), bytes.NewReader(trace)); err != nil {
			b.Fatal(err)
		}
	}
}
