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
// (still in build 22000.376). RFC 8985 grows the reorder window
// (RACK.reo_wnd_mult) when D-SACKs show that retransmissions were
// spurious; a build whose TcpReceiveSack counts D-SACKs and whose
// TcpSendTrackerUpdateReoWnd raises the multiplier recognises them.

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
	Verdict       string         `json:"verdict"`
}

// Verdicts of a D-SACK report.
const (
	VerdictDSackRecognised = "this build recognises D-SACKs"
	VerdictDSackBug        = "D-SACKs never adapted the reorder window (the Windows 11 22000.x TcpReceiveSack sanity-check bug)"
)

// AnalyzeDSack reads a connection's named events.
func AnalyzeDSack(c *TCPConnection) *DSackReport {
	r := &DSackReport{Counts: map[string]int{}}
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
		r.Verdict = fmt.Sprintf("%s: %d D-SACKs in %d TcpReceiveSack events; the reorder window changed %d times (multiplier up to %d)",
			VerdictDSackRecognised, r.DSacks, r.ReceiveSacks, r.Changes, r.MaxMultiplier)
	case retrans > 0 && reordering:
		r.Verdict = fmt.Sprintf("%s: %d retransmissions under reordering, 0 D-SACKs counted in %d TcpReceiveSack events, multiplier never above %d; a Linux peer answers spurious retransmissions with D-SACKs (tcp_dsack=1, its default)",
			VerdictDSackBug, retrans, r.ReceiveSacks, r.MaxMultiplier)
	default:
		r.Verdict = "nothing to judge: no retransmission under reordering in this run; a peer that reorders (docs/commands/net.md: latlab net serve behind netem reorder) provokes them"
	}
	return r
}
