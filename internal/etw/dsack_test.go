package etw

import (
	"net/netip"
	"strings"
	"testing"
)

// Windows 11 templates by ID for the fake manifest: the IDs are
// invented (the real ones are not published); only the names matter.
var fakeManifest = map[uint16][]byte{
	1033: eventInfoBytes(1033, 0, "TcpConnectTcbComplete", "", "", []tmplProp{
		{"LocalAddressLength", InUInt32, 0, 0, 0}, {"LocalAddress", InBinary, PropertyParamLength, 0, 0},
		{"RemoteAddressLength", InUInt32, 0, 0, 0}, {"RemoteAddress", InBinary, PropertyParamLength, 0, 2},
		{"Status", InUInt32, 0, 0, 0}, {"ProcessId", InUInt32, 0, 0, 0}, {"Compartment", InUInt32, 0, 0, 0}, {"Tcb", InPointer, 0, 0, 0}}),
	1600: eventInfoBytes(1600, 0, "TcpReceiveSack", "", "", receiveSackTmpl),
	1601: eventInfoBytes(1601, 0, "TcpSendTrackerUpdateReoWnd", "", "", reoWndTmpl),
	1602: eventInfoBytes(1602, 0, "TcpSendTrackerDetectLoss", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}, {"SeqNo", InUInt32, 0, 0, 0}}),
	1603: eventInfoBytes(1603, 0, "TcpSendTrackerSackReorderingDetected", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}}),
	1604: eventInfoBytes(1604, 0, "TcpSendTrackerLossRecoverySend", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}, {"SeqNo", InUInt32, 0, 0, 0}}),
	1605: eventInfoBytes(1605, 0, "TcpSendTrackerEarlyRetransmit", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}}),
	1606: eventInfoBytes(1606, 0, "TcpTcbExpireTimer", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}, {"Timer", InUInt32, 0, 0, 0}}),
	1700: eventInfoBytes(1700, 0, "TcpSomethingElse", "", "", []tmplProp{{"Tcb", InPointer, 0, 0, 0}}),
}

func withFakeManifest(t *testing.T) {
	old := eventTemplate
	eventTemplate = func(ev *Event) (*EventInfo, error) {
		b, ok := fakeManifest[ev.ID]
		if !ok {
			return nil, ErrUnsupported
		}
		return ParseEventInfo(b)
	}
	t.Cleanup(func() { eventTemplate = old })
}

const tcb = 0xffffa00012345678

func sackEv(ts int64, dsacks uint32) *Event {
	return tcpEvent(1600, ts, (&payload{ptr: 8}).pointer(tcb).u32(1000).u32(900).u32(1000).u32(dsacks).b)
}

func reoEv(ts int64, mult uint8, reownd uint32, reordering, dsackLast, round uint32) *Event {
	return tcpEvent(1601, ts, (&payload{ptr: 8}).pointer(tcb).u8(mult).u8(16).u32(reownd).u32(reordering).u32(dsackLast).u32(round).b)
}

func tcbEv(id uint16, ts int64) *Event {
	return tcpEvent(id, ts, (&payload{ptr: 8}).pointer(tcb).u32(7).b)
}

// trace decodes events as a live trace does, by the fake manifest, and
// picks the connection's.
func trace(t *testing.T, evs ...*Event) *TCPConnection {
	t.Helper()
	loc, rem := netip.MustParseAddrPort("192.0.2.10:50123"), netip.MustParseAddrPort("192.0.2.20:9")
	tr := &TCPTrace{}
	all := append([]*Event{tcpEvent(1033, 0, connectComplete(8, sockaddrIn(loc), sockaddrIn(rem), tcb, false))}, evs...)
	var out []TCPEvent
	for _, ev := range all {
		e, ok, err := tr.decode(ev)
		if err != nil {
			t.Fatalf("event %d: %v", ev.ID, err)
		}
		if ok {
			out = append(out, e)
		}
	}
	c := ForConnection(out, loc, rem, 1000)
	if !c.Found {
		t.Fatalf("connection not found: %v", c.Notes)
	}
	return c
}

// A build that recognises D-SACKs: TcpReceiveSack counts them and the
// reorder window's multiplier grows (RFC 8985).
func TestDSackRecognised(t *testing.T) {
	withFakeManifest(t)
	c := trace(t,
		reoEv(1, 1, 250, 0, 0, 0),
		tcbEv(1603, 2), tcbEv(1604, 3),
		sackEv(4, 1),
		reoEv(5, 2, 500, 1, 1, 1),
		tcbEv(1700, 6), tcbEv(1606, 7),
	)
	if c.Counts["TcpReceiveSack"] != 1 || c.Counts["TcpSendTrackerUpdateReoWnd"] != 2 || c.Counts["TcpSomethingElse"] != 0 {
		t.Fatalf("counts %v", c.Counts)
	}
	r := AnalyzeDSack(c, 22621)
	if !r.Seen || r.DSacks != 1 || !r.Adapted || r.Changes != 1 || r.MaxMultiplier != 2 || len(r.Updates) != 2 || r.Updates[1].Reownd != 500 {
		t.Fatalf("report %+v", r)
	}
	if !strings.HasPrefix(r.Verdict, VerdictDSackRecognised+": 1 D-SACKs in 1 TcpReceiveSack events") || !strings.Contains(r.Verdict, "does not undo the congestion-window cut") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if r.Counts["SackReorderingDetected"] != 1 || r.Counts["LossRecoverySend"] != 1 || r.Counts["TcpTcbExpireTimer"] != 1 {
		t.Errorf("counts %v", r.Counts)
	}
}

// The 22000.x bug: retransmissions under reordering, D-SACKs from the peer
// not counted, the window never adapted. Nebbett: "Windows 11 22H2
// corrects the D-SACK recognition problem" (research 001:54), so the bug
// is named only on a 22000.x build (22000.376 had it, 001:7).
func TestDSackBug(t *testing.T) {
	withFakeManifest(t)
	c := trace(t,
		reoEv(1, 1, 250, 1, 0, 0),
		tcbEv(1603, 2), tcbEv(1604, 3), tcbEv(1605, 4),
		sackEv(5, 0), sackEv(6, 0),
		reoEv(7, 1, 250, 1, 0, 0),
	)
	for _, tc := range []struct {
		build   uint32
		verdict string
		not     string
	}{
		{22000, VerdictDSackBug + ": 2 retransmissions under reordering, 0 D-SACKs counted in 2 TcpReceiveSack events", ""},
		{22621, VerdictDSackNoneFixed, "sanity-check bug)"},
		{26100, VerdictDSackNoneFixed, "sanity-check bug)"},
		{0, VerdictDSackNoneBuild, "sanity-check bug)"},
	} {
		r := AnalyzeDSack(c, tc.build)
		if r.DSacks != 0 || r.Adapted || r.Changes != 0 {
			t.Fatalf("report %+v", r)
		}
		if !strings.HasPrefix(r.Verdict, tc.verdict) {
			t.Errorf("build %d: verdict %q, want %q", tc.build, r.Verdict, tc.verdict)
		}
		if tc.not != "" && strings.Contains(r.Verdict, tc.not) {
			t.Errorf("build %d: verdict %q names the bug", tc.build, r.Verdict)
		}
		if !strings.Contains(r.Verdict, "pcap tcp --etw-result") {
			t.Errorf("build %d: verdict %q does not say how to check the wire", tc.build, r.Verdict)
		}
	}
	if !strings.Contains(VerdictDSackBug, "fixed in 22H2") {
		t.Errorf("%q does not say 22H2 fixed it", VerdictDSackBug)
	}
	// No reordering, no retransmission: nothing to judge.
	if r := AnalyzeDSack(trace(t, sackEv(1, 0)), 22000); !strings.HasPrefix(r.Verdict, "nothing to judge") {
		t.Errorf("quiet run: %q", r.Verdict)
	}
}

// DSackCount "accurately reflects the number of D-SACKs (as observed in the
// raw packet data) when D-SACK recognition is working" (research 001:52):
// the comparison with a capture of the same connection is what proves or
// clears the bug.
func TestDSackCompareWire(t *testing.T) {
	for _, tc := range []struct {
		counted, wire uint64
		want          string
	}{
		{0, 0, "nothing to recognise"},
		{0, 5, "the peer sent 5 D-SACKs (capture) and TcpReceiveSack counted none: this build does not recognise D-SACKs"},
		{5, 5, "counted all 5 D-SACKs the capture shows: recognition works"},
		{3, 5, "counted 3 D-SACKs where the capture shows 5"},
		{2, 0, "the capture is not of this connection"},
	} {
		r := &DSackReport{DSacks: tc.counted}
		r.CompareWire(tc.wire)
		if r.WireDSacks == nil || *r.WireDSacks != tc.wire || !strings.Contains(r.Wire, tc.want) {
			t.Errorf("%d counted, %d on the wire: %q, want %q", tc.counted, tc.wire, r.Wire, tc.want)
		}
	}
}

// Without a manifest (TDH failing, or off Windows) the Windows 10 layouts
// still decode the events they know, and the named ones are not seen.
func TestDecodeFallsBackToWindows10Layouts(t *testing.T) {
	old := eventTemplate
	eventTemplate = func(*Event) (*EventInfo, error) { return nil, ErrUnsupported }
	defer func() { eventTemplate = old }()
	c := trace(t, sackEv(1, 1), tcpEvent(1078, 2, (&payload{ptr: 8}).pointer(tcb).u32(1).u32(2).b))
	if c.Counts["TcpLossRecoveryEntry"] != 1 || c.Counts["TcpReceiveSack"] != 0 {
		t.Fatalf("counts %v", c.Counts)
	}
	if r := AnalyzeDSack(c, 0); r.Seen || !strings.HasPrefix(r.Verdict, "no Windows 11 loss-recovery event") {
		t.Errorf("report %+v", r)
	}
}
