package tcpflow

import (
	"bytes"
	"net/netip"
	"os"
	"testing"

	"github.com/latlab/latlab/internal/capture"
)

func analyse(t *testing.T, path string) (map[int]Frame, []*Conn) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames := map[int]Frame{}
	var conns []*Conn
	a := NewAnalyzer()
	a.OnFrame = func(fr *Frame) { c := *fr; c.Opts = nil; c.Seg = nil; frames[fr.Seg.Frame] = c }
	a.OnClose = func(c *Conn) { conns = append(conns, c) }
	var seg Segment
	if _, err := capture.Scan(f, capture.ScanOptions{}, func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &seg) {
			a.Add(&seg)
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	return frames, conns
}

// The fixture's documented facts (tcpdump tests/ssh.pcap, checked with
// tshark 4.0): frame 49 is a retransmission, 48 and 54 duplicate ACKs,
// and 54 carries the D-SACK 5186-5283.
func TestSSHFixture(t *testing.T) {
	fr, conns := analyse(t, "testdata/ssh.pcap")
	if len(conns) != 1 {
		t.Fatalf("%d connections, want 1", len(conns))
	}
	if f := fr[49]; f.Flags != FlagRetransmission || !f.Retransmitted {
		t.Errorf("frame 49: flags %v retransmitted %v, want retransmission", f.Flags, f.Retransmitted)
	}
	if f := fr[48]; f.Flags != FlagDuplicateAck || f.DupAckNum != 1 || f.DupAckOf != 39 {
		t.Errorf("frame 48: %v #%d of %d, want duplicate_ack #1 of frame 39", f.Flags, f.DupAckNum, f.DupAckOf)
	}
	f54 := fr[54]
	if !f54.DSACK || f54.DSACKLeft != 5186 || f54.DSACKRight != 5283 {
		t.Errorf("frame 54: dsack %v %d-%d, want 5186-5283", f54.DSACK, f54.DSACKLeft, f54.DSACKRight)
	}
	if len(f54.SpuriousByDSACK) != 1 || f54.SpuriousByDSACK[0] != 49 {
		t.Errorf("frame 54 should prove frame 49 spurious, got %v", f54.SpuriousByDSACK)
	}
	for n, f := range fr {
		if n != 48 && n != 49 && n != 54 && f.Flags != 0 {
			t.Errorf("frame %d: unexpected flags %v", n, f.Flags)
		}
	}
	c := conns[0]
	client, server := c.Dir(0).Stats, c.Dir(1).Stats
	if client.Packets != 30 || server.Packets != 24 {
		t.Errorf("packets %d/%d, want 30/24", client.Packets, server.Packets)
	}
	if client.Retransmissions != 1 || client.DSACKSpurious != 1 || client.Spurious() != 1 {
		t.Errorf("client retransmissions %d, D-SACK-spurious %d, spurious %d; want 1, 1, 1", client.Retransmissions, client.DSACKSpurious, client.Spurious())
	}
	if server.DSACKBlocks != 1 || server.SACKBlocks != 3 || server.DuplicateAcks != 2 {
		t.Errorf("server dsack %d sack blocks %d dupacks %d; want 1, 3, 2", server.DSACKBlocks, server.SACKBlocks, server.DuplicateAcks)
	}
	if client.RTT.Samples == 0 || client.RTT.MinNs <= 0 {
		t.Errorf("no RTT samples for the client's data: %+v", client.RTT)
	}
	if h := client.Handshake; h == nil || h.MSS == 0 {
		t.Errorf("client handshake options %+v", h)
	}
}

func TestParseOptions(t *testing.T) {
	o := ParseOptions([]byte{2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 5, 10, 0, 0, 0, 10, 0, 0, 0, 20})
	if !o.HasMSS || o.MSS != 1460 || !o.HasWScale || o.WScale != 7 || !o.SACKPermitted || !o.HasTS || o.TSVal != 1 || o.TSEcr != 2 {
		t.Errorf("parsed %+v", o)
	}
	if o.NSACK != 1 || o.SACK[0] != (Block{10, 20}) || o.Malformed {
		t.Errorf("sack %+v malformed %v", o.SACK, o.Malformed)
	}
	for _, b := range [][]byte{{2}, {2, 1}, {5, 200, 1}, {8, 10, 1, 2}, {5, 5, 1, 2, 3}} {
		if o := ParseOptions(b); !o.Malformed {
			t.Errorf("%v: malformed option not reported: %+v", b, o)
		}
	}
	// what comes before a malformed option is kept
	if o := ParseOptions([]byte{2, 4, 5, 0xb4, 8, 30, 0}); !o.Malformed || !o.HasMSS || o.MSS != 1460 {
		t.Errorf("MSS before a bad timestamps option: %+v", o)
	}
}

// Segments with malformed options are analysed with the options before the
// bad one, and counted.
func TestMalformedOptionsCounted(t *testing.T) {
	a := NewAnalyzer()
	var st DirStats
	a.OnClose = func(c *Conn) { st = c.Dir(0).Stats }
	src, dst := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	for i, o := range [][]byte{{2, 4, 5, 0xb4, 8, 30, 0}, nil, {5, 5, 1, 2, 3}} {
		a.Add(&Segment{Frame: i + 1, TimeNs: int64(i), Src: src, Dst: dst, SrcPort: 1, DstPort: 2, Seq: 100, Flags: SYN, Options: o})
	}
	a.Finish()
	if st.Packets != 3 || st.MalformedOptions != 2 || st.Handshake == nil {
		t.Errorf("%d packets, %d with malformed options, handshake %+v; want 3, 2, seen", st.Packets, st.MalformedOptions, st.Handshake)
	}
}

func TestIsDSACK(t *testing.T) {
	cases := []struct {
		blocks []Block
		ack    uint32
		want   bool
	}{
		{[]Block{{100, 200}}, 200, true},              // below the cumulative ACK
		{[]Block{{100, 200}}, 150, false},             // straddles: ordinary SACK
		{[]Block{{300, 400}, {250, 500}}, 200, true},  // inside the second block
		{[]Block{{300, 400}, {500, 600}}, 200, false}, // two ordinary blocks
		{[]Block{{0xfffffff0, 5}}, 10, true},          // across the wrap
	}
	for _, c := range cases {
		o := TCPOptions{NSACK: len(c.blocks)}
		copy(o.SACK[:], c.blocks)
		if got := IsDSACK(&o, c.ack); got != c.want {
			t.Errorf("%v ack %d: %v, want %v", c.blocks, c.ack, got, c.want)
		}
	}
}

func FuzzParseOptions(f *testing.F) {
	f.Add([]byte{2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Add([]byte{1, 1, 5, 18, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4})
	f.Add([]byte{5, 255})
	f.Add([]byte{1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		o := ParseOptions(b)
		if o.NSACK > 4 {
			t.Fatalf("%d SACK blocks", o.NSACK)
		}
		var all TCPOptions
		if all.parseAll(b); all != o {
			t.Fatalf("% x: parse %+v, every option %+v", b, o, all)
		}
		_ = IsDSACK(&o, 12345)
	})
}

// FuzzAnalyze runs captures through the reader and the TCP analysis: no
// input may panic.
func FuzzAnalyze(f *testing.F) {
	for _, name := range []string{"testdata/ssh.pcap", "testdata/accecn_handshake.pcap", "testdata/corpus/zeek/tcp/reassembly.pcap", "testdata/corpus/zeek/ldap/gap-data-missing.pcapng"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a := NewAnalyzer()
		a.KeepTimeline = func(int) bool { return true }
		var seg Segment
		_, _ = capture.Scan(bytes.NewReader(b), capture.ScanOptions{}, func(rec *capture.Record, p *capture.Packet) {
			if FromCapture(rec, p, &seg) {
				a.Add(&seg)
			}
		})
		a.Finish()
	})
}
