package etw

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
)

// sockaddrIn is a SOCKADDR_IN: family 2 (little-endian), the port
// big-endian, the address, 8 bytes of zero.
func sockaddrIn(ap netip.AddrPort) []byte {
	b := binary.LittleEndian.AppendUint16(nil, afInet)
	b = binary.BigEndian.AppendUint16(b, ap.Port())
	a := ap.Addr().As4()
	return append(append(b, a[:]...), make([]byte, 8)...)
}

// sockaddrIn6 is a SOCKADDR_IN6: family 23, port, flow info, address,
// scope ID.
func sockaddrIn6(ap netip.AddrPort) []byte {
	b := binary.LittleEndian.AppendUint16(nil, afInet6)
	b = binary.BigEndian.AppendUint16(b, ap.Port())
	b = binary.LittleEndian.AppendUint32(b, 0)
	a := ap.Addr().As16()
	return binary.LittleEndian.AppendUint32(append(b, a[:]...), 0)
}

// connectComplete is TcpConnectTcbComplete (1033): LocalAddressLength,
// LocalAddress, RemoteAddressLength, RemoteAddress, Status, ProcessId,
// Compartment, Tcb; version 1 appends ProcessSequenceNumber.
func connectComplete(ptr int, local, remote []byte, tcb uint64, v1 bool) []byte {
	p := &payload{ptr: ptr}
	p.u32(uint32(len(local)))
	p.b = append(p.b, local...)
	p.u32(uint32(len(remote)))
	p.b = append(p.b, remote...)
	p.u32(0).u32(4242).u32(1).pointer(tcb)
	if v1 {
		p.u64(77)
	}
	return p.b
}

func tcpEvent(id uint16, ts int64, data []byte) *Event {
	return &Event{Provider: TCPIPGUID, ID: id, PointerSize: 8, Timestamp: ts, Data: data}
}

func TestDecodeTCPIP(t *testing.T) {
	loc := netip.MustParseAddrPort("192.0.2.10:50123")
	rem := netip.MustParseAddrPort("198.51.100.7:9")
	const tcb = 0xffffa0012345e000
	e, ok, err := DecodeTCPIP(tcpEvent(1033, 5, connectComplete(8, sockaddrIn(loc), sockaddrIn(rem), tcb, false)))
	if !ok || err != nil || e.Name != "TcpConnectTcbComplete" || e.Local != loc || e.Remote != rem || e.Tcb != tcb || e.Fields["ProcessId"] != 4242 {
		t.Fatalf("%+v %v %v", e, ok, err)
	}
	// Version 1 (build 18990) appends a field; IPv6 addresses.
	l6, r6 := netip.MustParseAddrPort("[2001:db8::1]:50123"), netip.MustParseAddrPort("[2001:db8::7]:9")
	e, _, err = DecodeTCPIP(tcpEvent(1033, 5, connectComplete(8, sockaddrIn6(l6), sockaddrIn6(r6), tcb, true)))
	if err != nil || e.Local != l6 || e.Remote != r6 || e.Tcb != tcb {
		t.Fatalf("%+v %v", e, err)
	}
	// TcpDataTransferRetransmitRound: Tcb, SndUna, RexmitCount, SRTT, RTO.
	p := &payload{ptr: 8}
	e, _, err = DecodeTCPIP(tcpEvent(1351, 9, p.pointer(tcb).u32(1000).u32(2).u32(40).u32(300).b))
	if err != nil || e.Tcb != tcb || e.Fields["SndUna"] != 1000 || e.Fields["RexmitCount"] != 2 || e.Fields["SRTT"] != 40 || e.Fields["RTO"] != 300 {
		t.Errorf("%+v %v", e, err)
	}
	// TcpRack: Tcb, RackEvent, RackMinRtt, RackReoWind, RackTimeSlotDeltaMin, SequenceNumber, Timestamp, RttSample.
	p = &payload{ptr: 8}
	e, _, err = DecodeTCPIP(tcpEvent(1387, 9, p.pointer(tcb).u32(1).u32(20).u32(5).u32(0).u32(7).u32(8).u32(21).b))
	if err != nil || e.Fields["RackReoWind"] != 5 || e.Fields["RttSample"] != 21 {
		t.Errorf("%+v %v", e, err)
	}
	// TcpTailLossProbe ends with a uint8.
	p = &payload{ptr: 4}
	ev := tcpEvent(1385, 9, p.pointer(0x8000).u32(1).u32(2).u32(3).u32(4).u32(5).u32(6).u8(0x18).b)
	ev.PointerSize = 4
	e, _, err = DecodeTCPIP(ev)
	if err != nil || e.Tcb != 0x8000 || e.Fields["ThFlags"] != 0x18 {
		t.Errorf("%+v %v", e, err)
	}
	// TcpLossRecoverySackEntry carries a string.
	p = &payload{ptr: 8}
	e, _, err = DecodeTCPIP(tcpEvent(1080, 9, p.pointer(tcb).u32(1).u32(2).str("DupAck").u32(1).b))
	if err != nil || e.Reason != "DupAck" || e.Fields["IsSack"] != 1 {
		t.Errorf("%+v %v", e, err)
	}
	// TcpCwndRestart.
	p = &payload{ptr: 8}
	e, _, err = DecodeTCPIP(tcpEvent(1221, 9, p.pointer(tcb).u32(64000).u32(14600).u32(1).u32(2).u32(3).u32(200).b))
	if err != nil || e.Fields["OldCwnd"] != 64000 || e.Fields["NewCwnd"] != 14600 {
		t.Errorf("%+v %v", e, err)
	}
	if _, ok, err := DecodeTCPIP(tcpEvent(1001, 1, nil)); ok || err != nil {
		t.Errorf("event 1001: %v %v", ok, err)
	}
}

func TestDecodeTCPIPErrors(t *testing.T) {
	loc := sockaddrIn(netip.MustParseAddrPort("192.0.2.10:1"))
	tests := []struct {
		name string
		ev   *Event
		want string
	}{
		{"cut", tcpEvent(1351, 1, make([]byte, 10)), "TCPIP TcpDataTransferRetransmitRound (event 1351, version 0): 10 bytes, SndUna at offset 8 needs 4 more"},
		{"address too long", tcpEvent(1033, 1, binary.LittleEndian.AppendUint32(nil, 4096)), "LocalAddressLength 4096: a socket address is at most 128 bytes"},
		{"bad family", tcpEvent(1033, 1, connectComplete(8, append([]byte{9, 0}, loc[2:]...), loc, 1, false)), "LocalAddress: address family 9"},
		{"short sockaddr", tcpEvent(1033, 1, connectComplete(8, loc[:6], loc, 1, false)), "SOCKADDR_IN of 6 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := DecodeTCPIP(tt.ev)
			if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v %v; want %q", ok, err, tt.want)
			}
		})
	}
}

// The connection is found by its addresses, then its events by Tcb; the
// times count from its TcpConnectTcbComplete.
func TestForConnection(t *testing.T) {
	loc := netip.MustParseAddrPort("127.0.0.1:41376")
	rem := netip.MustParseAddrPort("127.0.0.1:43453")
	other := netip.MustParseAddrPort("127.0.0.1:50000")
	const freq = 10_000_000
	evs := []TCPEvent{
		{ID: 1351, Name: "TcpDataTransferRetransmitRound", Tcb: 0xa, Timestamp: 1_000_000 + 30_000},
		{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: 0xb, Timestamp: 900_000, Local: other, Remote: rem},
		{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: 0xa, Timestamp: 1_000_000, Local: netip.AddrPortFrom(netip.MustParseAddr("::ffff:127.0.0.1"), 41376), Remote: rem},
		{ID: 1387, Name: "TcpRack", Tcb: 0xa, Timestamp: 1_000_000 + 10_000, Fields: map[string]uint64{"RackReoWind": 3}},
		{ID: 1385, Name: "TcpTailLossProbe", Tcb: 0xa, Timestamp: 1_000_000 + 20_000},
		{ID: 1351, Name: "TcpDataTransferRetransmitRound", Tcb: 0xb, Timestamp: 1_000_000 + 40_000},
		{ID: 1387, Name: "TcpRack", Tcb: 0xa, Timestamp: 1_000_000 + 50_000, Fields: map[string]uint64{"RackReoWind": 7}},
	}
	c := ForConnection(evs, loc, rem, freq)
	if !c.Found || c.Total != 4 || c.Counts["TcpRack"] != 2 || c.Counts["TcpDataTransferRetransmitRound"] != 1 {
		t.Fatalf("%+v", c)
	}
	if r := c.Retransmissions(); len(r) != 2 || r[0] != 2 || r[1] != 3 {
		t.Errorf("retransmissions at %v ms, want [2 3]", r)
	}
	if w, ok := c.ReorderingWindow(); !ok || w != 7 {
		t.Errorf("reordering window %d %v", w, ok)
	}
	c = ForConnection(evs, loc, netip.MustParseAddrPort("10.0.0.1:9"), freq)
	if c.Found || len(c.Notes) != 1 || len(c.Events) != 0 {
		t.Errorf("%+v", c)
	}
}

func FuzzDecodeTCPIP(f *testing.F) {
	loc := sockaddrIn(netip.MustParseAddrPort("192.0.2.1:1"))
	f.Add(uint16(1033), true, connectComplete(8, loc, loc, 1, true))
	f.Add(uint16(1080), false, (&payload{ptr: 4}).pointer(1).u32(1).u32(2).str("x").u32(1).b)
	f.Add(uint16(1387), true, make([]byte, 36))
	f.Fuzz(func(t *testing.T, id uint16, wide bool, data []byte) {
		ptr := 4
		if wide {
			ptr = 8
		}
		_, _, err := DecodeTCPIP(&Event{ID: id, PointerSize: ptr, Data: data})
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatal(err)
		}
	})
}
