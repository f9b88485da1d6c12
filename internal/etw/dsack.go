package etw

import (
	"fmt"
	"net/netip"
	"strings"
)

// Windows 11's RACK-TLP loss recovery, read from its own events. Gary
// Nebbett ("Windows 11 TCP/IP Congestion Control Improvements", January
// 2022) found Windows 11 "at least an improved RFC 8985 ... implementation
// with per-segment tracking", and a bug: a "sanity check" in TcpReceiveSack
// is coded so that "genuine D-SACKs are not recognized as such", so
// "tuning of things such as the 'reorder window' does not take place"
// (still in build 22000.376); his October 2022 update: "Windows 11 22H2
// corrects the D-SACK recognition problem" (build 22621), so the bug is
// named only for a 22000.x build. RFC 8985 grows the reorder window
// (RACK.reo_wnd_mult) when D-SACKs show that retransmissions were
// spurious; a build whose TcpReceiveSack counts D-SACKs and whose
// TcpSendTrackerUpdateReoWnd raises the multiplier recognises them. Even
// then, Nebbett's trace with recognition working shows that Windows 11
// does not undo the congestion-window cut after a retransmission a D-SACK
// shows to be spurious, so reordering still costs a sender throughput.
// TcpReceiveSack's DSackCount "accurately reflects the number of D-SACKs
// (as observed in the raw packet data)" when recognition works: zero
// counted proves the bug only if the peer sent D-SACKs, which a capture
// of the same connection shows (CompareWire).

// Windows builds of the D-SACK recognition bug: Windows 11's first
// release (22000.x) has it, 22H2 (22621) fixed it.
const (
	BuildDSackBug   = 22000
	BuildDSackFixed = 22621
)

// NoCwndUndo is what recognising D-SACKs does not fix on Windows 11.
const NoCwndUndo = "Windows 11 does not undo the congestion-window cut after a retransmission a D-SACK shows spurious (Nebbett), so reordering still costs throughput"

// NamedTCPEvents are the Windows 11 TCP/IP events latlab finds by name in
// the machine's manifest (their IDs and layouts are not published).
var NamedTCPEvents = []string{"TcpReceiveSack", "TcpSendTrackerUpdateReoWnd", "DetectLoss", "SackReorderingDetected",
	"EarlyRetransmit", "LossRecoverySend", "TcpTcbExpireTimer"}

// namedTCPEvent is the name of NamedTCPEvents an event's template goes by
// (its event, task or opcode name equals one, or ends with it:
// TcpSendTrackerDetectLoss is DetectLoss), "" when none.
func namedTCPEvent(info *EventInfo) string {
	for _, n := range info.Names() {
		for _, want := range NamedTCPEvents {
			if strings.EqualFold(n, want) || strings.HasSuffix(strings.ToLower(n), strings.ToLower(want)) {
				return want
			}
		}
	}
	return ""
}

// DecodeByTemplate decodes a TCP/IP event with its template from the
// machine's manifest: the named Windows 11 events, and the events of
// tcpTemplates whose template TDH gave. ok is false for an event latlab
// does not read.
func DecodeByTemplate(info *EventInfo, ev *Event) (e TCPEvent, ok bool, err error) {
	name := namedTCPEvent(info)
	if name == "" {
		if t, known := tcpTemplates[ev.ID]; known {
			name = t.name
		}
	}
	if name == "" {
		return TCPEvent{}, false, nil
	}
	what := fmt.Sprintf("TCPIP %s (event %d, version %d, by its manifest)", name, ev.ID, ev.Version)
	if err := checkPointer(ev, what); err != nil {
		return TCPEvent{}, true, err
	}
	f, err := DecodeProperties(info, ev.Data, ev.PointerSize)
	if err != nil {
		return TCPEvent{}, true, &DecodeError{Event: what, Msg: err.Error()}
	}
	e = TCPEvent{ID: ev.ID, Name: name, Timestamp: ev.Timestamp, Fields: map[string]uint64{}}
	for k, v := range f.Num {
		switch {
		case k == "Tcb":
			e.Tcb = v
		case strings.HasSuffix(k, "AddressLength"):
		default:
			e.Fields[k] = v
		}
	}
	e.Reason = f.Str["Reason"]
	for k, dst := range map[string]*netip.AddrPort{"LocalAddress": &e.Local, "RemoteAddress": &e.Remote} {
		if b, ok := f.Bytes[k]; ok {
			ap, aerr := ParseSockaddr(b)
			if aerr != nil {
				return TCPEvent{}, true, &DecodeError{Event: what, Msg: fmt.Sprintf("%s: %v", k, aerr)}
			}
			*dst = ap
		}
	}
	return e, true, nil
}

// ReoWndUpdate is one TcpSendTrackerUpdateReoWnd event.
type ReoWndUpdate struct {
	TMs                float64 `json:"t_ms"`
	Multiplier         uint64  `json:"multiplier"`
	Persist            uint64  `json:"persist"`
	Reownd             uint64  `json:"reownd"`
	ReorderingSeen     uint64  `json:"reordering_seen"`
	DSackSeenOnLastAck uint64  `json:"dsack_seen_on_last_ack"`
	DSackRound         uint64  `json:"dsack_round"`
}

// MaxReoWndUpdates bounds the updates a report lists.
const MaxReoWndUpdates = 1000

// DSackReport is what a connection's Windows 11 loss-recovery events say
// about D-SACKs and the reorder window.
type DSackReport struct {
	// Seen: the connection had any of NamedTCPEvents.
	Seen bool `json:"seen"`
	// ReceiveSacks are the TcpReceiveSack events, DSackEvents those with
	// a DSackCount above 0 and DSacks the sum of their DSackCount.
	ReceiveSacks int    `json:"receive_sack_events"`
	DSackEvents  int    `json:"dsack_events"`
	DSacks       uint64 `json:"dsacks"`
	// Updates are the reorder window's updates (the first
	// MaxReoWndUpdates); Changes how many changed it.
	Updates []ReoWndUpdate `json:"reo_wnd_updates,omitempty"`
	Changes int            `json:"reo_wnd_changes"`
	// Adapted: the multiplier rose above its first value, or an update
	// followed a D-SACK (DSackSeenOnLastAck).
	Adapted       bool           `json:"adapted"`
	MaxMultiplier uint64         `json:"max_multiplier"`
	Counts        map[string]int `json:"counts"`
	// Build is the Windows build the events came from (0: unknown).
	Build   uint32 `json:"build,omitempty"`
	Verdict string `json:"verdict"`
	// WireDSacks are the D-SACK blocks a capture of the same connection
	// shows the peer sending, and Wire what comparing them with DSacks
	// says (CompareWire; absent without a capture).
	WireDSacks *uint64 `json:"wire_dsacks,omitempty"`
	Wire       string  `json:"wire_verdict,omitempty"`
}

// Verdicts of a D-SACK report.
const (
	VerdictDSackRecognised = "this build recognises D-SACKs"
	VerdictDSackBug        = "D-SACKs never adapted the reorder window (the Windows 11 22000.x TcpReceiveSack sanity-check bug, fixed in 22H2)"
	VerdictDSackNoneFixed  = "no D-SACK counted on a build that recognises them (Windows 11 22H2, 22621, fixed the 22000.x bug): the peer most likely sent none"
	VerdictDSackNoneBuild  = "no D-SACK counted and the reorder window never adapted: on Windows 11 22000.x that is the TcpReceiveSack sanity-check bug (fixed in 22H2, 22621)"
)

// AnalyzeDSack reads a connection's named events, recorded on Windows
// build (0: unknown).
func AnalyzeDSack(c *TCPConnection, build uint32) *DSackReport {
	r := &DSackReport{Counts: map[string]int{}, Build: build}
	if c == nil {
		r.Verdict = "no connection events"
		return r
	}
	var first *ReoWndUpdate
	var last ReoWndUpdate
	for _, e := range c.Events {
		switch e.Name {
		case "TcpReceiveSack":
			r.ReceiveSacks++
			if n := e.Fields["DSackCount"]; n > 0 {
				r.DSackEvents++
				r.DSacks += n
			}
		case "TcpSendTrackerUpdateReoWnd":
			u := ReoWndUpdate{TMs: e.TMs, Multiplier: e.Fields["Multiplier"], Persist: e.Fields["Persist"], Reownd: e.Fields["Reownd"],
				ReorderingSeen: e.Fields["ReorderingSeen"], DSackSeenOnLastAck: e.Fields["DSackSeenOnLastAck"], DSackRound: e.Fields["DSackRound"]}
			if first == nil {
				f := u
				first = &f
			} else if u.Reownd != last.Reownd || u.Multiplier != last.Multiplier {
				r.Changes++
			}
			if u.Multiplier > first.Multiplier || u.DSackSeenOnLastAck != 0 {
				r.Adapted = true
			}
			r.MaxMultiplier = max(r.MaxMultiplier, u.Multiplier)
			last = u
			if len(r.Updates) < MaxReoWndUpdates {
				r.Updates = append(r.Updates, u)
			}
		}
		for _, n := range NamedTCPEvents {
			if e.Name == n {
				r.Seen = true
				r.Counts[n]++
			}
		}
	}
	retrans := r.Counts["LossRecoverySend"] + r.Counts["EarlyRetransmit"]
	reordering := r.Counts["SackReorderingDetected"] > 0 || (last.ReorderingSeen != 0)
	switch {
	case !r.Seen:
		r.Verdict = "no Windows 11 loss-recovery event for this connection: the build's TCPIP manifest has none of them by name, or they could not be read (Windows 10 writes none)"
	case r.DSacks > 0 || r.Adapted:
		r.Verdict = fmt.Sprintf("%s: %d D-SACKs in %d TcpReceiveSack events; the reorder window changed %d times (multiplier up to %d); %s",
			VerdictDSackRecognised, r.DSacks, r.ReceiveSacks, r.Changes, r.MaxMultiplier, NoCwndUndo)
	case retrans > 0 && reordering:
		what := fmt.Sprintf("%d retransmissions under reordering, 0 D-SACKs counted in %d TcpReceiveSack events, multiplier never above %d", retrans, r.ReceiveSacks, r.MaxMultiplier)
		switch {
		case build >= BuildDSackFixed:
			r.Verdict = fmt.Sprintf("%s: %s on build %d; a capture of the connection shows whether the peer sent any (latlab pcap tcp --etw-result)", VerdictDSackNoneFixed, what, build)
		case build >= BuildDSackBug:
			r.Verdict = fmt.Sprintf("%s: %s on build %d; a Linux peer answers spurious retransmissions with D-SACKs (tcp_dsack=1, its default), which a capture of the connection confirms (latlab pcap tcp --etw-result)",
				VerdictDSackBug, what, build)
		default:
			r.Verdict = fmt.Sprintf("%s: %s; the build is not known to be 22000.x, and only a capture of the connection shows whether the peer sent D-SACKs (latlab pcap tcp --etw-result)", VerdictDSackNoneBuild, what)
		}
	default:
		r.Verdict = "nothing to judge: no retransmission under reordering in this run; a peer that reorders (docs/commands/net.md: latlab net serve behind netem reorder) provokes them"
	}
	return r
}

// CompareWire holds the D-SACKs TcpReceiveSack counted against wire, the
// D-SACK blocks a capture of the same connection shows the peer sending:
// Nebbett compared DSackCount with the raw packets, and when recognition
// works the two agree. It sets WireDSacks and Wire.
func (r *DSackReport) CompareWire(wire uint64) {
	r.WireDSacks = &wire
	switch {
	case wire == 0 && r.DSacks == 0:
		r.Wire = "the capture shows no D-SACK from the peer: there was nothing to recognise, so zero counted says nothing about this build"
	case wire == 0:
		r.Wire = fmt.Sprintf("TcpReceiveSack counted %d D-SACKs but the capture shows none from the peer: the capture is not of this connection, or missed packets", r.DSacks)
	case r.DSacks == 0:
		r.Wire = fmt.Sprintf("the peer sent %d D-SACKs (capture) and TcpReceiveSack counted none: this build does not recognise D-SACKs", wire)
	case r.DSacks == wire:
		r.Wire = fmt.Sprintf("TcpReceiveSack counted all %d D-SACKs the capture shows: recognition works", wire)
	default:
		r.Wire = fmt.Sprintf("TcpReceiveSack counted %d D-SACKs where the capture shows %d: a capture taken elsewhere on the path can see a different set", r.DSacks, wire)
	}
}
