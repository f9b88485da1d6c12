package etw

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"sort"
)

// TCPIPGUID is the Microsoft-Windows-TCPIP provider.
var TCPIPGUID = GUID{0x2f07e2ee, 0x15db, 0x40f1, [8]byte{0x90, 0xef, 0x9d, 0x7b, 0xa2, 0x82, 0x18, 0x8a}}

// TCPIP keywords latlab enables (the provider's manifest, as
// `logman query providers Microsoft-Windows-TCPIP` lists it): the send path
// (retransmissions, RACK, tail loss probes, window restarts), the connect
// path (which Tcb is which connection) and TcpipDiagnosis (loss recovery).
const (
	TCPIPKeywordDiagnosis   = 0x80
	TCPIPKeywordSendPath    = 0x100000000
	TCPIPKeywordConnectPath = 0x400000000
	// TCPIPKeywordAll enables every keyword (EnableTraceEx2's MatchAnyKeyword).
	TCPIPKeywordAll = 0xFFFFFFFFFFFFFFFF
)

// The TCP/IP events latlab decodes. Their layouts are the templates of the
// provider's manifest as Windows 10 builds 10240, 17134 and 18990 carry
// it (dumped with the provider's other events in repnz/etw-providers-docs,
// Manifests-Win10-*/Microsoft-Windows-TCPIP.xml); a template that is in
// several of these builds is the same in each. Build column: the first
// of those builds whose manifest has the event.
//
//	id    name                            build  fields
//	1033  TcpConnectTcbComplete           10240  LocalAddressLength, LocalAddress, RemoteAddressLength, RemoteAddress, Status, ProcessId, Compartment, Tcb (+ ProcessSequenceNumber in version 1, 18990)
//	1078  TcpLossRecoveryEntry            10240  Tcb, SndUna, SndMax
//	1079  TcpLossRecoveryExit             10240  Tcb, SndUna, SndMax
//	1080  TcpLossRecoverySackEntry        10240  Tcb, SndUna, SndMax, Reason (string), IsSack
//	1081  TcpLossRecoverySackExit         10240  Tcb, SndUna, SndMax, Reason (string), IsSack
//	1221  TcpCwndRestart                  10240  Tcb, OldCwnd, NewCwnd, Processor, CurrentTick, IdleTick, Rto
//	1351  TcpDataTransferRetransmitRound  10240  Tcb, SndUna, RexmitCount, SRTT, RTO
//	1385  TcpTailLossProbe                17134  Tcb, SndUna, SndMax, SendAvailable, TailProbeSeq, TailProbeLast, ControlsToSend, ThFlags (uint8)
//	1387  TcpRack                         17134  Tcb, RackEvent, RackMinRtt, RackReoWind, RackTimeSlotDeltaMin, SequenceNumber, Timestamp, RttSample
//
// No event of these manifests names D-SACK: the D-SACK counts of the
// research are not in the events of these builds.
var tcpTemplates = map[uint16]tcpTemplate{
	1033: {"TcpConnectTcbComplete", []tcpField{{"LocalAddress", fAddr}, {"RemoteAddress", fAddr}, {"Status", fU32}, {"ProcessId", fU32}, {"Compartment", fU32}, {"Tcb", fPtr}}},
	1078: {"TcpLossRecoveryEntry", lossFields},
	1079: {"TcpLossRecoveryExit", lossFields},
	1080: {"TcpLossRecoverySackEntry", sackFields},
	1081: {"TcpLossRecoverySackExit", sackFields},
	1221: {"TcpCwndRestart", []tcpField{{"Tcb", fPtr}, {"OldCwnd", fU32}, {"NewCwnd", fU32}, {"Processor", fU32}, {"CurrentTick", fU32}, {"IdleTick", fU32}, {"Rto", fU32}}},
	1351: {"TcpDataTransferRetransmitRound", []tcpField{{"Tcb", fPtr}, {"SndUna", fU32}, {"RexmitCount", fU32}, {"SRTT", fU32}, {"RTO", fU32}}},
	1385: {"TcpTailLossProbe", []tcpField{{"Tcb", fPtr}, {"SndUna", fU32}, {"SndMax", fU32}, {"SendAvailable", fU32}, {"TailProbeSeq", fU32}, {"TailProbeLast", fU32}, {"ControlsToSend", fU32}, {"ThFlags", fU8}}},
	1387: {"TcpRack", []tcpField{{"Tcb", fPtr}, {"RackEvent", fU32}, {"RackMinRtt", fU32}, {"RackReoWind", fU32}, {"RackTimeSlotDeltaMin", fU32}, {"SequenceNumber", fU32}, {"Timestamp", fU32}, {"RttSample", fU32}}},
}

var (
	lossFields = []tcpField{{"Tcb", fPtr}, {"SndUna", fU32}, {"SndMax", fU32}}
	sackFields = []tcpField{{"Tcb", fPtr}, {"SndUna", fU32}, {"SndMax", fU32}, {"Reason", fUTF16}, {"IsSack", fU32}}
)

type tcpTemplate struct {
	name   string
	fields []tcpField
}

type fieldKind uint8

const (
	fU8 fieldKind = iota
	fU32
	fPtr
	fAddr  // a UInt32 length, then that many bytes of SOCKADDR
	fUTF16 // NUL-terminated
)

type tcpField struct {
	name string
	kind fieldKind
}

// TCPEvent is one decoded TCP/IP event.
type TCPEvent struct {
	ID        uint16            `json:"id"`
	Name      string            `json:"name"`
	Timestamp int64             `json:"-"`
	Tcb       uint64            `json:"-"`
	Fields    map[string]uint64 `json:"fields,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Local     netip.AddrPort    `json:"-"`
	Remote    netip.AddrPort    `json:"-"`
}

// maxSockaddr bounds an address field: a SOCKADDR_IN6 is 28 bytes.
const maxSockaddr = 128

// DecodeTCPIP decodes one of the provider's events that latlab reads; ok
// is false for the others.
func DecodeTCPIP(ev *Event) (e TCPEvent, ok bool, err error) {
	t, known := tcpTemplates[ev.ID]
	if !known {
		return TCPEvent{}, false, nil
	}
	what := fmt.Sprintf("TCPIP %s (event %d, version %d)", t.name, ev.ID, ev.Version)
	if err := checkPointer(ev, what); err != nil {
		return TCPEvent{}, true, err
	}
	r := reader{b: ev.Data, ptr: ev.PointerSize}
	e = TCPEvent{ID: ev.ID, Name: t.name, Timestamp: ev.Timestamp, Fields: map[string]uint64{}}
	for _, f := range t.fields {
		switch f.kind {
		case fU8:
			e.Fields[f.name] = uint64(r.u8(f.name))
		case fU32:
			e.Fields[f.name] = uint64(r.u32(f.name))
		case fPtr:
			v := r.pointer(f.name)
			if f.name == "Tcb" {
				e.Tcb = v
			} else {
				e.Fields[f.name] = v
			}
		case fUTF16:
			e.Reason = r.utf16z(f.name)
		case fAddr:
			n := int(r.u32(f.name + "Length"))
			if r.bad == "" && n > maxSockaddr {
				r.bad = fmt.Sprintf("%sLength %d: a socket address is at most %d bytes", f.name, n, maxSockaddr)
			}
			if !r.need(n, f.name) {
				break
			}
			ap, aerr := ParseSockaddr(r.b[r.off : r.off+n])
			r.off += n
			if aerr != nil {
				r.bad = fmt.Sprintf("%s: %v", f.name, aerr)
				break
			}
			if f.name == "LocalAddress" {
				e.Local = ap
			} else {
				e.Remote = ap
			}
		}
	}
	if r.bad != "" {
		return TCPEvent{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	return e, true, nil
}

// Address families of a SOCKADDR (ws2def.h).
const (
	afInet  = 2
	afInet6 = 23
)

// ParseSockaddr reads a SOCKADDR_IN (family 2, port big-endian, 4 address
// bytes) or SOCKADDR_IN6 (family 23, port, flow info, 16 address bytes,
// scope ID).
func ParseSockaddr(b []byte) (netip.AddrPort, error) {
	if len(b) < 2 {
		return netip.AddrPort{}, fmt.Errorf("%d bytes: no address family", len(b))
	}
	fam := binary.LittleEndian.Uint16(b)
	switch fam {
	case afInet:
		if len(b) < 8 {
			return netip.AddrPort{}, fmt.Errorf("SOCKADDR_IN of %d bytes, want 8 or more", len(b))
		}
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:])), nil
	case afInet6:
		if len(b) < 24 {
			return netip.AddrPort{}, fmt.Errorf("SOCKADDR_IN6 of %d bytes, want 24 or more", len(b))
		}
		return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])), binary.BigEndian.Uint16(b[2:])), nil
	}
	return netip.AddrPort{}, fmt.Errorf("address family %d, want 2 (IPv4) or 23 (IPv6)", fam)
}

// TCPConnection is the TCP/IP events of one connection, found by its
// addresses in TcpConnectTcbComplete and then by its Tcb.
type TCPConnection struct {
	Found bool `json:"found"`
	// Events are in time order; TMs is milliseconds after the
	// connection's TcpConnectTcbComplete event.
	Events []TCPConnEvent `json:"events"`
	Counts map[string]int `json:"counts"`
	Kept   int            `json:"kept"`
	Total  int            `json:"total"`
	Notes  []string       `json:"notes,omitempty"`
}

// TCPConnEvent is an event of the connection with its time.
type TCPConnEvent struct {
	TMs float64 `json:"t_ms"`
	TCPEvent
}

// MaxConnEvents bounds the events kept for one connection; the counts
// cover all of them.
const MaxConnEvents = 100_000

// ForConnection picks the events of the connection local -> remote from
// evs (in any order), timed in ms after its TcpConnectTcbComplete event on
// a clock of freq ticks per second.
func ForConnection(evs []TCPEvent, local, remote netip.AddrPort, freq int64) *TCPConnection {
	c := &TCPConnection{Counts: map[string]int{}, Events: []TCPConnEvent{}}
	norm := func(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
	local, remote = norm(local), norm(remote)
	var tcb uint64
	var t0 int64
	for _, e := range evs {
		if e.ID == 1033 && norm(e.Local) == local && norm(e.Remote) == remote {
			tcb, t0, c.Found = e.Tcb, e.Timestamp, true
			break
		}
	}
	if !c.Found {
		c.Notes = append(c.Notes, fmt.Sprintf("no TcpConnectTcbComplete event for %s -> %s: the connection's events cannot be told from others", local, remote))
		return c
	}
	for _, e := range evs {
		if e.Tcb != tcb || e.ID == 1033 {
			continue
		}
		c.Total++
		c.Counts[e.Name]++
		if len(c.Events) < MaxConnEvents {
			ms := 0.0
			if freq > 0 {
				ms = float64(e.Timestamp-t0) * 1e3 / float64(freq)
			}
			c.Events = append(c.Events, TCPConnEvent{TMs: ms, TCPEvent: e})
		}
	}
	sort.SliceStable(c.Events, func(i, j int) bool { return c.Events[i].TMs < c.Events[j].TMs })
	c.Kept = len(c.Events)
	if c.Kept < c.Total {
		c.Notes = append(c.Notes, fmt.Sprintf("%d events, the first %d kept", c.Total, c.Kept))
	}
	return c
}

// Retransmissions are the times (ms) of the events that resend data: a
// retransmission round after a timeout and a tail loss probe.
func (c *TCPConnection) Retransmissions() []float64 {
	var out []float64
	for _, e := range c.Events {
		if e.ID == 1351 || e.ID == 1385 {
			out = append(out, e.TMs)
		}
	}
	return out
}

// ReorderingWindow is the last RACK reordering window the connection
// reported (RackReoWind of TcpRack), and whether there was one.
func (c *TCPConnection) ReorderingWindow() (uint64, bool) {
	for i := len(c.Events) - 1; i >= 0; i-- {
		if c.Events[i].ID == 1387 {
			return c.Events[i].Fields["RackReoWind"], true
		}
	}
	return 0, false
}
