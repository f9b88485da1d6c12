package netload

import (
	"strings"
	"testing"
)

// A run whose socket took receive stamps but whose echoes all came
// without one is timed at the read, as a run without stamps is (compare
// tells runs apart by ReceiveTimes), and says why; one stamped echo keeps
// the run stamped, and a run with no echo is left as it is.
func TestNoStampCame(t *testing.T) {
	for _, c := range []struct {
		name        string
		in          UDPResult
		method, why string
		missing     int64
	}{
		{"none stamped", UDPResult{ReceiveTimes: rxStampMethod, ReceiveStampsMissing: 64}, userReceiveTimes, rxStampsNone, 0},
		{"one stamped", UDPResult{ReceiveTimes: rxStampMethod, ReceiverWake: []int64{40_000}, ReceiveStampsMissing: 63}, rxStampMethod, "", 63},
		{"no echo", UDPResult{ReceiveTimes: rxStampMethod}, rxStampMethod, "", 0},
		{"refused", UDPResult{ReceiveTimes: userReceiveTimes, ReceiveStampsUnavailable: "refused"}, userReceiveTimes, "refused", 0},
	} {
		r := c.in
		noStampCame(&r)
		if r.ReceiveTimes != c.method || r.ReceiveStampsUnavailable != c.why || r.ReceiveStampsMissing != c.missing {
			t.Errorf("%s: %q, unavailable %q, %d missing; want %q, %q, %d", c.name, r.ReceiveTimes, r.ReceiveStampsUnavailable, r.ReceiveStampsMissing, c.method, c.why, c.missing)
		}
		if c.method == userReceiveTimes && r.ReceiverWake != nil {
			t.Errorf("%s: %d wake-ups kept in a run timed at the read", c.name, len(r.ReceiverWake))
		}
	}
}

// The document's notes say why echoes were timed at the read.
func TestUDPDataNotesWhyNoStamps(t *testing.T) {
	r := &UDPResult{RatePPS: 128, Size: 256, Planned: 2, Sent: 2, Received: 2, RTT: []int64{50_000, 60_000},
		FromIntended: []int64{50_000, 60_000}, SendLag: []int64{0, 0},
		ReceiveTimes: userReceiveTimes, ReceiveStampsUnavailable: "WSAIoctl(SIO_TIMESTAMPING) failed: x"}
	_, notes, err := NewUDPData(r, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if strings.HasPrefix(n, "receive_stamps_unavailable: ") && strings.HasSuffix(n, r.ReceiveStampsUnavailable) {
			return
		}
	}
	t.Fatalf("no note of receive_stamps_unavailable in %q", notes)
}
