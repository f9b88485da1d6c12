package tcpflow

import (
	"bytes"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/capture"
)

// analyseSegs runs a hand-written conversation through the analysis and
// returns each frame's result by frame number.
func analyseSegs(t *testing.T, segs []seg) map[int]Frame {
	t.Helper()
	return analyseSegsWindows(t, segs, nil)
}

func analyseSegsWindows(t *testing.T, segs []seg, windows map[int]uint16) map[int]Frame {
	t.Helper()
	frames := map[int]Frame{}
	a := NewAnalyzer()
	a.OnFrame = func(fr *Frame) { f := *fr; f.Seg, f.Opts = nil, nil; frames[fr.Seg.Frame] = f }
	var s Segment
	if _, err := capture.Scan(bytes.NewReader(writeSegsWindows(t, segs, windows)), capture.ScanOptions{Dedup: capture.DedupOff}, func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &s) {
			a.Add(&s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	return frames
}

// ackedUnseenConversation is the pattern of zeek's tcp/reassembly.pcap
// (frames 6 to 12): the server has sent its FIN; the client's data is
// acknowledged beyond what the capture saw of it, and the server
// retransmits its FIN with each ACK, within 20 ms of the client's last
// segment.
func ackedUnseenConversation() []seg {
	const c, s = 1000, 5000
	ms := time.Millisecond
	return []seg{
		{0, 40000, true, c, 0, SYN, 0, nil},
		{10 * ms, 40000, false, s, c + 1, SYN | ACK, 0, nil},
		{20 * ms, 40000, true, c + 1, s + 1, ACK, 0, nil},
		{21 * ms, 40000, true, c + 1, s + 1, ACK | PSH, 100, nil},
		{22 * ms, 40000, false, s + 1, c + 101, ACK, 0, nil},
		{23 * ms, 40000, false, s + 1, c + 101, FIN | ACK, 0, nil},
		{30 * ms, 40000, true, c + 101, s + 1, ACK, 100, nil},
		{31 * ms, 40000, false, s + 1, c + 301, FIN | ACK, 0, nil}, // 8: ACKs 100 bytes not captured
		{40 * ms, 40000, true, c + 301, s + 1, ACK, 100, nil},      // 9: previous segment not captured
		{41 * ms, 40000, false, s + 1, c + 401, FIN | ACK, 0, nil}, // 10
		{50 * ms, 40000, true, c + 401, s + 1, ACK, 100, nil},
		{51 * ms, 40000, false, s + 1, c + 501, FIN | ACK, 0, nil}, // 12
		{80 * ms, 40000, false, s + 1, c + 501, FIN | ACK, 0, nil}, // 13: 30 ms later
	}
}

// Wireshark 4.0 keeps the duplicate-ACK counter unsigned: the "ACKed
// unseen segment" branch sets it to -1, which wraps, so the next
// retransmission in the other direction counts as fast (>= 2 duplicate
// ACKs) as long as it comes within 20 ms. tshark 4.0.17 flags frames 8, 10
// and 12 of this conversation (and of zeek's tcp/reassembly.pcap) so.
func TestFastRetransmissionAfterAckedUnseen(t *testing.T) {
	fr := analyseSegs(t, ackedUnseenConversation())
	want := map[int]Flag{
		8:  FlagFastRetransmission | FlagAckLostSegment,
		9:  FlagLostSegment,
		10: FlagFastRetransmission | FlagAckLostSegment,
		11: 0,
		12: FlagFastRetransmission,
		13: FlagRetransmission, // too late for a fast one
	}
	for n, w := range want {
		if got := fr[n].Flags; got != w {
			t.Errorf("frame %d: flags [%v], want [%v]", n, got, w)
		}
	}
}

// unackedConversation: after the handshake the client sends n segments
// of 10 bytes and its FIN without an ACK from the server, which then
// acknowledges everything, FIN included.
func unackedConversation(n int) []seg {
	const c, s = 1000, 5000
	us := time.Microsecond
	segs := []seg{
		{0, 40000, true, c, 0, SYN, 0, nil},
		{10 * us, 40000, false, s, c + 1, SYN | ACK, 0, nil},
		{20 * us, 40000, true, c + 1, s + 1, ACK, 0, nil},
	}
	seq := uint32(c + 1)
	at := 30 * us
	for range n {
		segs = append(segs, seg{at, 40000, true, seq, s + 1, ACK, 10, nil})
		seq += 10
		at += us
	}
	return append(segs,
		seg{at, 40000, true, seq, s + 1, FIN | ACK, 0, nil},
		seg{at + 10*us, 40000, false, s + 1, seq + 1, ACK, 0, nil})
}

// Wireshark 4.0 remembers at most 10,000 unacknowledged segments per
// direction (TCP_MAX_UNACKED_SEGMENTS), and counts a SYN or FIN's
// sequence number only for a segment it remembers: with 10,000 segments
// unacknowledged, the FIN is not counted and the ACK of it is "ACKed
// unseen segment"; with 9,999 it is not.
func TestUnackedSegmentLimit(t *testing.T) {
	for _, c := range []struct {
		n    int
		want Flag
	}{
		{9_999, 0},
		{10_000, FlagAckLostSegment},
		{10_001, FlagAckLostSegment},
	} {
		segs := unackedConversation(c.n)
		fr := analyseSegs(t, segs)
		if got := fr[len(segs)].Flags; got != c.want {
			t.Errorf("%d unacknowledged segments: final ACK flags [%v], want [%v]", c.n, got, c.want)
		}
	}
}

// zeroWindowConversation: the client's window closes, the server probes
// it with one byte, the client acknowledges the probe with the window
// still zero, then opens it. The windows (by segment index) are in
// zeroWindowWindows.
func zeroWindowConversation() []seg {
	const c, s = 1000, 5000
	ms := time.Millisecond
	return []seg{
		{0, 40000, true, c, 0, SYN, 0, nil},
		{10 * ms, 40000, false, s, c + 1, SYN | ACK, 0, nil},
		{20 * ms, 40000, true, c + 1, s + 1, ACK, 0, nil},
		{21 * ms, 40000, false, s + 1, c + 1, ACK | PSH, 100, nil},
		{30 * ms, 40000, true, c + 1, s + 101, ACK, 0, nil},   // 5: zero window
		{230 * ms, 40000, false, s + 101, c + 1, ACK, 1, nil}, // 6: probe
		{240 * ms, 40000, true, c + 1, s + 101, ACK, 0, nil},  // 7: probe ACK, still zero
		{300 * ms, 40000, true, c + 1, s + 101, ACK, 0, nil},  // 8: window update
		{310 * ms, 40000, false, s + 101, c + 1, ACK | PSH, 100, nil},
		{320 * ms, 40000, true, c + 1, s + 201, ACK, 0, nil},
	}
}

var zeroWindowWindows = map[int]uint16{4: 0, 6: 0}

// The conversation has the flags it is meant to show (tshark agrees:
// TestGeneratedMatchTshark).
func TestZeroWindowFlags(t *testing.T) {
	fr := analyseSegsWindows(t, zeroWindowConversation(), zeroWindowWindows)
	want := map[int]Flag{
		5:  FlagZeroWindow,
		6:  FlagZeroWindowProbe,
		7:  FlagZeroWindow | FlagZeroWindowProbeAck,
		8:  FlagWindowUpdate,
		9:  0,
		10: 0,
	}
	for n, w := range want {
		if got := fr[n].Flags; got != w {
			t.Errorf("frame %d: flags [%v], want [%v]", n, got, w)
		}
	}
}
