package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/testutil"
)

// The --events rows of `pcap tcp` (as in the README) read back into the
// fields tshark shows: fast and spurious retransmissions carry
// tcp.analysis.retransmission too, latlab's own events are ignored.
func TestReadEvents(t *testing.T) {
	csv := `time,flow,frame,event,seq,ack,detail
0.555264000,0 223.132.53.222:22>202.108.87.165:62146,48,duplicate_ack,3312,5186,#1 of frame 39
0.555385000,0 202.108.87.165:62146>223.132.53.222:22,49,fast_retransmission,5186,3312,len 96
0.555385000,0 202.108.87.165:62146>223.132.53.222:22,49,reordered,5186,3312,"overtaken by 9 segments, 2.13s"
0.575377000,0 223.132.53.222:22>202.108.87.165:62146,54,duplicate_ack,3313,5283,#12 of frame 51
0.575377000,0 223.132.53.222:22>202.108.87.165:62146,54,dsack,3313,5283,5186-5283
0.575377000,0 223.132.53.222:22>202.108.87.165:62146,54,dsack_spurious,3313,5283,frame 49 was received twice
0.575377000,0 223.132.53.222:22>202.108.87.165:62146,55,rtt_sample,3313,5283,81µs
`
	p := filepath.Join(testutil.TempDir(t), "events.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := readEvents(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]frameView{
		48: {flags: tcpflow.FlagDuplicateAck, dupAckNum: 1},
		49: {flags: tcpflow.FlagFastRetransmission | tcpflow.FlagRetransmission},
		54: {flags: tcpflow.FlagDuplicateAck, dupAckNum: 12, dsack: "5186-5283"},
	}
	if len(m) != len(want) {
		t.Errorf("%d frames, want %d: %v", len(m), len(want), m)
	}
	for n, w := range want {
		if m[n] != w {
			t.Errorf("frame %d: %v, want %v", n, m[n], w)
		}
	}
}

func TestFlagDiff(t *testing.T) {
	l := frameView{flags: tcpflow.FlagRetransmission, dsack: "1-2"}
	ts := frameView{flags: tcpflow.FlagRetransmission | tcpflow.FlagFastRetransmission | tcpflow.FlagAckLostSegment}
	if got, want := flagDiff(l, ts), "-fast_retransmission -ack_lost_segment dsack"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
