package tcpflow

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/capture"
)

// seg is one segment of a hand-written conversation between a client
// (10.0.0.1:port) and a server (10.0.0.2:80).
type seg struct {
	at       time.Duration
	port     uint16 // client port
	toServer bool
	seq, ack uint32
	flags    uint16
	n        int         // payload bytes
	sack     [][2]uint32 // SACK blocks
}

var t0 = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

// writeSegs writes the conversation as a raw-IP pcap with ns timestamps;
// every segment advertises a window of 1000.
func writeSegs(t *testing.T, segs []seg) []byte {
	t.Helper()
	return writeSegsWindows(t, segs, nil)
}

// writeSegsWindows is writeSegs with the window of segment i (0-based)
// taken from windows[i] when present.
func writeSegsWindows(t *testing.T, segs []seg, windows map[int]uint16) []byte {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeRaw); err != nil {
		t.Fatal(err)
	}
	cli, srv := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	for i, s := range segs {
		win, ok := windows[i]
		if !ok {
			win = 1000
		}
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: srv.AsSlice(), DstIP: cli.AsSlice()}
		tcp := &layers.TCP{SrcPort: 80, DstPort: layers.TCPPort(s.port), Seq: s.seq, Ack: s.ack, Window: win,
			FIN: s.flags&FIN != 0, SYN: s.flags&SYN != 0, RST: s.flags&RST != 0, PSH: s.flags&PSH != 0, ACK: s.flags&ACK != 0}
		if s.toServer {
			ip.SrcIP, ip.DstIP = ip.DstIP, ip.SrcIP
			tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
		}
		if len(s.sack) > 0 {
			var d []byte
			for _, bl := range s.sack {
				d = append(d, byte(bl[0]>>24), byte(bl[0]>>16), byte(bl[0]>>8), byte(bl[0]), byte(bl[1]>>24), byte(bl[1]>>16), byte(bl[1]>>8), byte(bl[1]))
			}
			tcp.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindNop}, {OptionType: layers.TCPOptionKindNop},
				{OptionType: layers.TCPOptionKindSACK, OptionLength: uint8(2 + len(d)), OptionData: d}}
		}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
			ip, tcp, gopacket.Payload(make([]byte, s.n))); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(s.at), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
		if err := w.WritePacket(ci, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// closingConversation has the segments that trail the end of a
// connection: a D-SACK after both FINs are acknowledged (within the grace
// period, as in tcpdump's ssh.pcap), a FIN retransmitted seconds later
// (after it), data in flight when a RST came, and a new connection on the
// ports of a closed one.
func closingConversation() []seg {
	const c, s = 1000, 5000 // ISNs
	ms := time.Millisecond
	return []seg{
		// port 40000: data, a needless retransmission, the close, then the
		// D-SACK for it 20 ms after the last ACK
		{0, 40000, true, c, 0, SYN, 0, nil},
		{10 * ms, 40000, false, s, c + 1, SYN | ACK, 0, nil},
		{20 * ms, 40000, true, c + 1, s + 1, ACK, 0, nil},
		{21 * ms, 40000, true, c + 1, s + 1, ACK | PSH, 100, nil},
		{22 * ms, 40000, true, c + 101, s + 1, ACK | PSH, 100, nil},
		{25 * ms, 40000, true, c + 101, s + 1, ACK | PSH, 100, nil}, // retransmission
		{26 * ms, 40000, true, c + 201, s + 1, FIN | ACK, 0, nil},
		{31 * ms, 40000, false, s + 1, c + 202, FIN | ACK, 0, nil},
		{32 * ms, 40000, true, c + 202, s + 2, ACK, 0, nil},
		{52 * ms, 40000, false, s + 2, c + 202, ACK, 0, [][2]uint32{{c + 101, c + 201}}}, // D-SACK, late
		// port 40001: a RST while the server still has data in flight
		{100 * ms, 40001, true, c, 0, SYN, 0, nil},
		{110 * ms, 40001, false, s, c + 1, SYN | ACK, 0, nil},
		{120 * ms, 40001, true, c + 1, s + 1, ACK, 0, nil},
		{121 * ms, 40001, false, s + 1, c + 1, ACK | PSH, 500, nil},
		{122 * ms, 40001, true, c + 1, s + 501, RST | ACK, 0, nil},
		{123 * ms, 40001, false, s + 501, c + 1, ACK | PSH, 500, nil}, // in flight
		{124 * ms, 40001, true, c + 1, 0, RST, 0, nil},
		// 3 s later: port 40000's server retransmits its FIN and the
		// client ACKs it again; port 40001 is reused with a new ISN
		{3032 * ms, 40000, false, s + 1, c + 202, FIN | ACK, 0, nil},
		{3033 * ms, 40000, true, c + 202, s + 2, ACK, 0, nil},
		{3100 * ms, 40001, true, c + 7777, 0, SYN, 0, nil},
		{3110 * ms, 40001, false, s + 7777, c + 7778, SYN | ACK, 0, nil},
		{3120 * ms, 40001, true, c + 7778, s + 7778, ACK, 0, nil},
	}
}

func TestConnectionsCloseAfterTheirEnd(t *testing.T) {
	pcap := writeSegs(t, closingConversation())
	type closed struct {
		stream int
		atSeg  int // segments handed to Add when OnClose ran
		stats  [2]DirStats
	}
	var closes []closed
	frames := map[int]Frame{}
	n := 0
	a := NewAnalyzer()
	a.OnFrame = func(fr *Frame) { f := *fr; f.Seg, f.Opts = nil, nil; frames[fr.Seg.Frame] = f }
	a.OnClose = func(c *Conn) {
		closes = append(closes, closed{c.Stream, n, [2]DirStats{c.Dir(0).Stats, c.Dir(1).Stats}})
	}
	var s Segment
	if _, err := capture.Scan(bytes.NewReader(pcap), capture.ScanOptions{Dedup: capture.DedupOff}, func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &s) {
			n++
			a.Add(&s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.Finish()

	if len(closes) != 3 {
		t.Fatalf("%d connections closed, want 3: %+v", len(closes), closes)
	}
	// Streams 0 and 1 close when the segment 3 s later comes, before
	// Finish; stream 2 (the reuse of port 40001) at Finish.
	if closes[0].stream != 0 || closes[1].stream != 1 || closes[0].atSeg != 18 || closes[1].atSeg != 18 {
		t.Errorf("closes %+v: want streams 0 and 1 closed when the 18th segment is added", closes)
	}
	if closes[2].stream != 2 || closes[2].atSeg != 22 {
		t.Errorf("last close %+v: want stream 2 at Finish", closes[2])
	}
	// The D-SACK 20 ms after the close counts for its connection.
	cl, sv := closes[0].stats[0], closes[0].stats[1]
	if cl.Packets != 7 || sv.Packets != 3 || cl.DSACKSpurious != 1 || sv.DSACKBlocks != 1 || !cl.FIN || !sv.FIN {
		t.Errorf("stream 0: client %d packets, %d D-SACK-spurious; server %d packets, %d D-SACK blocks; FIN %v/%v; want 7, 1, 3, 1, true/true",
			cl.Packets, cl.DSACKSpurious, sv.Packets, sv.DSACKBlocks, cl.FIN, sv.FIN)
	}
	if f := frames[10]; len(f.SpuriousByDSACK) != 1 || f.SpuriousByDSACK[0] != 6 || f.AfterClose {
		t.Errorf("frame 10: spurious by D-SACK %v, after close %v; want [6], false", f.SpuriousByDSACK, f.AfterClose)
	}
	// The data in flight after the RST counts for its connection too.
	if cl, sv := closes[1].stats[0], closes[1].stats[1]; cl.Packets != 4 || sv.PayloadBytes != 1000 || !cl.RST {
		t.Errorf("stream 1: client %d packets (RST %v), server %d payload bytes; want 4 (true), 1000", cl.Packets, cl.RST, sv.PayloadBytes)
	}
	// The FIN retransmitted after the close: still stream 0, Wireshark's
	// retransmission, counted by no connection.
	for _, n := range []int{18, 19} {
		f := frames[n]
		if !f.AfterClose || f.Conn.Stream != 0 {
			t.Errorf("frame %d: after close %v, stream %d; want true, 0", n, f.AfterClose, f.Conn.Stream)
		}
	}
	if f := frames[18]; f.Flags != FlagRetransmission || f.Dir != 1 || f.RelSeq != 1 {
		t.Errorf("frame 18 (retransmitted FIN): flags %v dir %d seq %d; want retransmission, 1, 1", f.Flags, f.Dir, f.RelSeq)
	}
	// A SYN with a new ISN on a closed connection's ports starts a new one.
	if f := frames[20]; f.Conn.Stream != 2 || f.Flags != FlagReusedPorts || f.AfterClose {
		t.Errorf("frame 20: stream %d flags %v after close %v; want 2, reused_ports, false", f.Conn.Stream, f.Flags, f.AfterClose)
	}
	for i, c := range closes {
		if c.stats[0].Packets+c.stats[1].Packets == 0 {
			t.Errorf("close %d has no packets", i)
		}
	}
}

// After a connection closed, the next segment on its ports that is not a
// new SYN still belongs to it (Wireshark's stream); CountFrame counts it.
func TestCountFrameAfterClose(t *testing.T) {
	var after DirStats
	a := NewAnalyzer()
	a.OnFrame = func(fr *Frame) {
		if fr.AfterClose {
			after.CountFrame(fr)
		}
	}
	var s Segment
	if _, err := capture.Scan(bytes.NewReader(writeSegs(t, closingConversation())), capture.ScanOptions{}, func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &s) {
			a.Add(&s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	if after.Packets != 2 || after.AnyRetransmissions != 1 || !after.FIN || after.PayloadBytes != 0 {
		t.Errorf("after close: %+v; want 2 packets, 1 retransmission, a FIN", after)
	}
}

// testdata/closing.pcap is the conversation, for the comparison with
// tshark and the command's tests; go test -update rewrites it.
func TestClosingPcapUpToDate(t *testing.T) {
	goldie.New(t, goldie.WithNameSuffix(".pcap")).Assert(t, "closing", writeSegs(t, closingConversation()))
}
