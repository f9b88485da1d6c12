package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)

// tcp4 builds an IPv4/TCP packet.
func tcp4(t testing.TB, src, dst string, sport, dport uint16, tos uint8, payload int) []byte {
	t.Helper()
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, TOS: tos,
		SrcIP: netip.MustParseAddr(src).AsSlice(), DstIP: netip.MustParseAddr(dst).AsSlice()}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: 1000, Ack: 1, ACK: true, Window: 500,
		Options: []layers.TCPOption{{OptionType: layers.TCPOptionKindNop}, {OptionType: layers.TCPOptionKindNop},
			{OptionType: layers.TCPOptionKindTimestamps, OptionLength: 10, OptionData: make([]byte, 8)}}}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		ip, tcp, gopacket.Payload(make([]byte, payload))); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

func eth(p []byte, vlans ...uint16) []byte {
	b := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}
	for _, v := range vlans {
		b = binary.BigEndian.AppendUint16(b, 0x8100)
		b = binary.BigEndian.AppendUint16(b, v)
	}
	et := uint16(0x0800)
	if p[0]>>4 == 6 {
		et = 0x86dd
	}
	b = binary.BigEndian.AppendUint16(b, et)
	return append(b, p...)
}

// writePcap writes a classic pcap by hand, in either byte order and
// timestamp resolution.
func writePcap(order binary.AppendByteOrder, nanos bool, lt layers.LinkType, frames [][]byte, snap int) []byte {
	var b []byte
	magic := uint32(0xa1b2c3d4)
	if nanos {
		magic = 0xa1b23c4d
	}
	b = order.AppendUint32(b, magic)
	b = order.AppendUint16(b, 2)
	b = order.AppendUint16(b, 4)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, 65535)
	b = order.AppendUint32(b, uint32(lt))
	for i, f := range frames {
		ts := t0.Add(time.Duration(i) * time.Millisecond)
		b = order.AppendUint32(b, uint32(ts.Unix()))
		frac := ts.Nanosecond()
		if !nanos {
			frac /= 1000
		}
		b = order.AppendUint32(b, uint32(frac))
		cl := len(f)
		if snap > 0 && cl > snap {
			cl = snap
		}
		b = order.AppendUint32(b, uint32(cl))
		b = order.AppendUint32(b, uint32(len(f)))
		b = append(b, f[:cl]...)
	}
	return b
}

type seen struct {
	recs  []Record
	pkts  []Packet
	ipCap []int    // captured bytes of the IP packet
	tcp   [][]byte // the TCP header, when captured
}

func scan(t testing.TB, data []byte, opt ScanOptions) (*Stats, *seen) {
	t.Helper()
	s := &seen{}
	st, err := Scan(bytes.NewReader(data), opt, func(rec *Record, p *Packet) {
		r := *rec
		r.Data = nil
		s.recs = append(s.recs, r)
		q := *p
		s.ipCap = append(s.ipCap, len(q.IP))
		s.tcp = append(s.tcp, append([]byte(nil), q.TCPHeader...))
		q.IP, q.TCPHeader = nil, nil
		s.pkts = append(s.pkts, q)
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return st, s
}

func TestPcapByteOrdersAndResolutions(t *testing.T) {
	p := tcp4(t, "10.0.0.1", "10.0.0.2", 1234, 443, 46<<2|2, 100)
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, nanos := range []bool{false, true} {
			st, s := scan(t, writePcap(order, nanos, layers.LinkTypeEthernet, [][]byte{eth(p), eth(p, 7)}, 0), ScanOptions{Dedup: DedupOff})
			if st.Frames != 2 || len(s.pkts) != 2 {
				t.Fatalf("%v nanos=%v: %d frames, %d packets", order, nanos, st.Frames, len(s.pkts))
			}
			want := t0.UnixNano()
			if !nanos {
				want = t0.Truncate(time.Microsecond).UnixNano()
			}
			if s.recs[0].TimeNs != want || s.recs[1].TimeNs != want+1e6 {
				t.Errorf("%v nanos=%v: times %d %d, want %d", order, nanos, s.recs[0].TimeNs, s.recs[1].TimeNs, want)
			}
			q := s.pkts[1]
			if q.Src.String() != "10.0.0.1" || q.DstPort != 443 || q.TOS>>2 != 46 || q.TOS&3 != 2 || !q.HasVLAN || q.VLAN != 7 || q.TCPPayloadLen != 100 {
				t.Errorf("%v nanos=%v: decoded %+v", order, nanos, q)
			}
		}
	}
}

func TestLinkTypes(t *testing.T) {
	p := tcp4(t, "192.0.2.1", "192.0.2.2", 5000, 80, 0, 10)
	sll := append([]byte{0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00}, p...)
	sll2 := append([]byte{0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0}, p...)
	null := append([]byte{2, 0, 0, 0}, p...) // AF_INET in host (little-endian) order
	loop := append([]byte{0, 0, 0, 2}, p...) // network order
	cases := []struct {
		lt    layers.LinkType
		frame []byte
	}{
		{layers.LinkTypeEthernet, eth(p)},
		{layers.LinkTypeEthernet, eth(p, 10, 20)},
		{layers.LinkTypeLinuxSLL, sll},
		{layers.LinkTypeLinuxSLL2, sll2},
		{layers.LinkTypeRaw, p},
		{layers.LinkTypeIPv4, p},
		{layers.LinkTypeNull, null},
		{layers.LinkTypeLoop, loop},
	}
	for _, c := range cases {
		st, s := scan(t, writePcap(binary.LittleEndian, false, c.lt, [][]byte{c.frame}, 0), ScanOptions{})
		if len(s.pkts) != 1 || s.pkts[0].Dst.String() != "192.0.2.2" || s.pkts[0].SrcPort != 5000 {
			t.Errorf("link type %v: %+v (stats %+v)", c.lt, s.pkts, st)
		}
	}
	// non-IP and unknown link types are counted, not decoded
	arp := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1}
	st, s := scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{arp}, 0), ScanOptions{})
	if len(s.pkts) != 0 || st.Skipped["not IP"] != 1 {
		t.Errorf("ARP: %+v", st.Skipped)
	}
	st, _ = scan(t, writePcap(binary.LittleEndian, false, 147, [][]byte{p}, 0), ScanOptions{})
	if st.Skipped["unsupported link type linktype-147"] != 1 {
		t.Errorf("unknown link type: %+v", st.Skipped)
	}
}

// ipv6 builds an IPv6 packet with the given extension headers (each as
// next-header-less bodies: the builder chains them) and a TCP header.
func ipv6(t testing.TB, exts []byte, extProto []uint8, tc uint8) []byte {
	tcp := tcp4(t, "10.0.0.1", "10.0.0.2", 4000, 22, 0, 5)[20:]
	var body []byte
	next := uint8(6)
	// chain from the last extension backwards
	chain := [][]byte{}
	off := 0
	for range extProto {
		l := (int(exts[off+1]) + 1) * 8
		if extProto[len(chain)] == 44 {
			l = 8
		}
		chain = append(chain, append([]byte(nil), exts[off:off+l]...))
		off += l
	}
	for i := len(chain) - 1; i >= 0; i-- {
		chain[i][0] = next
		next = extProto[i]
	}
	for _, c := range chain {
		body = append(body, c...)
	}
	body = append(body, tcp...)
	h := make([]byte, 40)
	h[0] = 6<<4 | tc>>4
	h[1] = tc << 4
	binary.BigEndian.PutUint16(h[4:6], uint16(len(body)))
	h[6] = next
	h[7] = 64
	copy(h[8:24], netip.MustParseAddr("2001:db8::1").AsSlice())
	copy(h[24:40], netip.MustParseAddr("2001:db8::2").AsSlice())
	return append(h, body...)
}

func TestIPv6ExtensionHeaders(t *testing.T) {
	hbh := []byte{0, 0, 1, 4, 0, 0, 0, 0}  // PadN
	dst := []byte{0, 0, 1, 4, 0, 0, 0, 0}  // PadN
	frag := []byte{0, 0, 0, 0, 0, 0, 0, 1} // atomic fragment (offset 0, no M)
	exts := append(append(append([]byte{}, hbh...), dst...), frag...)
	p := ipv6(t, exts, []uint8{0, 60, 44}, 18<<2|1)
	_, s := scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{eth(p)}, 0), ScanOptions{})
	if len(s.pkts) != 1 {
		t.Fatalf("%d packets", len(s.pkts))
	}
	q := s.pkts[0]
	if !q.Src.Is6() || q.Proto != 6 || q.SrcPort != 4000 || q.DstPort != 22 || q.TOS != 18<<2|1 || q.TCPPayloadLen != 5 || q.Fragment {
		t.Errorf("decoded %+v", q)
	}
	// a non-first fragment has no ports
	nf := []byte{0, 0, 0, 8 << 3, 0, 0, 0, 1}
	p2 := ipv6(t, nf, []uint8{44}, 0)
	st, s := scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeRaw, [][]byte{p2}, 0), ScanOptions{})
	if len(s.pkts) != 1 || !s.pkts[0].Fragment || s.pkts[0].HasPorts || st.Fragments != 1 {
		t.Errorf("non-first fragment: %+v", s.pkts)
	}
}

func TestSnaplenCut(t *testing.T) {
	p := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 1000))
	st, s := scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{p}, 96), ScanOptions{})
	// the TCP header (with a 12-byte timestamps option) whole, the payload cut
	if st.SnaplenCut != 1 || len(s.pkts) != 1 || len(s.tcp[0]) != 32 || s.ipCap[0] != 96-14 || s.pkts[0].TCPPayloadLen != 1000 || s.pkts[0].IPLen != 1052 {
		t.Errorf("cut to 96: stats %+v packet %+v, TCP header %d bytes, IP %d bytes", st, s.pkts, len(s.tcp[0]), s.ipCap[0])
	}
	st, s = scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{p}, 40), ScanOptions{})
	if len(s.pkts) != 1 || !s.pkts[0].L4Cut || s.pkts[0].HasPorts || len(s.tcp[0]) != 0 || st.L4Cut != 1 {
		t.Errorf("cut to 40: stats %+v packet %+v", st, s.pkts)
	}
	st, _ = scan(t, writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{p}, 20), ScanOptions{})
	if st.Skipped[SkipSnaplenLink.String()] != 1 {
		t.Errorf("cut to 20: %+v", st.Skipped)
	}
}

func ngFile(t testing.TB, dup bool) []byte {
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{Name: "eth", LinkType: layers.LinkTypeEthernet, SnapLength: 65535}, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := w.AddInterface(pcapgo.NgInterface{Name: "mbb", LinkType: layers.LinkTypeRaw, SnapLength: 65535})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		p := tcp4(t, "10.1.0.1", "10.1.0.2", 50000, 3074, 46<<2, 20+i)
		ts := t0.Add(time.Duration(i) * time.Millisecond)
		ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(p) + 14, Length: len(p) + 14}
		if err := w.WritePacketWithOptions(ci, eth(p), pcapgo.NgPacketOptions{Comments: []string{"PID=4242 TID=77"}}); err != nil {
			t.Fatal(err)
		}
		if dup { // pktmon: the same packet again from the next component
			ci.Timestamp = ts.Add(3 * time.Microsecond)
			ci.CaptureLength, ci.Length, ci.InterfaceIndex = len(p), len(p), raw
			if err := w.WritePacketWithOptions(ci, p, pcapgo.NgPacketOptions{Comments: []string{"PID=4 TID=1"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPcapNGInterfacesCommentsAndDedup(t *testing.T) {
	data := ngFile(t, true)
	tab := NewFlowTable()
	st, err := Scan(bytes.NewReader(data), ScanOptions{}, func(rec *Record, p *Packet) { tab.Add(rec, p) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != FormatPcapNG || st.Frames != 600 || st.LinkTypes["ethernet"] != 300 || st.LinkTypes["raw-ip"] != 300 {
		t.Fatalf("stats %+v", st)
	}
	// nothing in the file says pktmon: the copies are kept, as frames of
	// the capture, and not looked for
	if st.Dedup || st.Duplicates != 0 || st.Dropped != 0 || strings.Contains(strings.Join(st.Notes(), "\n"), "copies") {
		t.Errorf("auto dedup on a file without pktmon marks: %+v", st)
	}
	fl := tab.Flows()
	if len(fl) != 1 || fl[0].Packets != 600 || fl[0].DSCP[46] != 600 || fl[0].PIDs[4242] != 300 || fl[0].PIDs[4] != 300 {
		t.Errorf("flows %+v", fl[0])
	}
	// on: the copies are dropped and counted
	st, s := scan(t, data, ScanOptions{Dedup: DedupOn})
	if !st.Dedup || len(s.pkts) != 300 || st.Duplicates != 300 || st.Dropped != 300 || st.DedupReason != "--dedup on" {
		t.Errorf("dedup on: %d packets, %+v", len(s.pkts), st)
	}
	// a capture without copies has nothing to report
	st, s = scan(t, ngFile(t, false), ScanOptions{})
	if st.Dedup || st.Duplicates != 0 || len(s.pkts) != 300 {
		t.Errorf("no copies: %+v", st)
	}
}

func TestPID(t *testing.T) {
	for _, c := range []struct {
		in   []string
		pid  int
		want bool
	}{
		{[]string{"PID=1234 TID=5678"}, 1234, true},
		{[]string{"x", "PID=4 TID=8 VlanId=0"}, 4, true},
		{[]string{"PPID=9 PID=10"}, 10, true},
		{[]string{"PID="}, 0, false},
		{nil, 0, false},
	} {
		if p, ok := PID(c.in); p != c.pid || ok != c.want {
			t.Errorf("%q: %d %v", c.in, p, ok)
		}
	}
}

func TestUnreadableAndTruncated(t *testing.T) {
	good := writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10)), eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10))}, 0)
	for _, bad := range [][]byte{nil, []byte("hello world, not a capture at all"), good[:10]} {
		_, err := Scan(bytes.NewReader(bad), ScanOptions{}, func(*Record, *Packet) {})
		var fe *FormatError
		if err == nil || !asFormatError(err, &fe) || fe.Offset != 0 {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// cut inside the second record
	cut := good[:len(good)-5]
	st, s := scan(t, cut, ScanOptions{})
	if len(s.pkts) != 1 || st.ReadError == nil || !st.ReadError.Truncated || st.ReadError.Offset != int64(24+(len(good)-24)/2) {
		t.Errorf("truncated: %d packets, %+v", len(s.pkts), st.ReadError)
	}
	// a record longer than the file format allows is corrupt
	corrupt := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(corrupt[24+8:], 0x7fffffff)
	st, _ = scan(t, corrupt, ScanOptions{})
	if st.ReadError == nil || st.ReadError.Truncated || st.ReadError.Offset != 24 {
		t.Errorf("corrupt: %+v", st.ReadError)
	}
}

func TestPcapNGCorruptBlockLength(t *testing.T) {
	data := ngFile(t, false)
	// find the first EPB (type 6) and break its trailing length
	off := 0
	for off+8 <= len(data) {
		typ := binary.LittleEndian.Uint32(data[off:])
		l := int(binary.LittleEndian.Uint32(data[off+4:]))
		if typ == 6 {
			bad := append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(bad[off+l-4:], uint32(l+4))
			st, s := scan(t, bad, ScanOptions{})
			if len(s.pkts) != 0 || st.ReadError == nil || st.ReadError.Offset != int64(off) || !strings.Contains(st.ReadError.Msg, "length") {
				t.Errorf("broken trailer: %d packets, %+v", len(s.pkts), st.ReadError)
			}
			bad = append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(bad[off+4:], 13)
			st, _ = scan(t, bad, ScanOptions{})
			if st.ReadError == nil || st.ReadError.Offset != int64(off+4) {
				t.Errorf("bad length: %+v", st.ReadError)
			}
			return
		}
		off += l
	}
	t.Fatal("no EPB found")
}

func asFormatError(err error, fe **FormatError) bool {
	e, ok := err.(*FormatError)
	if ok {
		*fe = e
	}
	return ok
}

func TestFixtures(t *testing.T) {
	for _, f := range []string{"ssh.pcap", "accecn_handshake.pcap", "pgm_zmtp1.pcap"} {
		data, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := scan(t, data, ScanOptions{})
		if st.ReadError != nil || st.Frames == 0 || st.IPPackets != st.Frames {
			t.Errorf("%s: %+v", f, st)
		}
	}
}

func TestDSCPNames(t *testing.T) {
	want := map[uint8]string{0: "CS0", 8: "CS1", 56: "CS7", 10: "AF11", 18: "AF21", 38: "AF43", 46: "EF", 44: "VOICE-ADMIT", 1: "LE", 2: "", 40: "CS5", 42: ""}
	for v, n := range want {
		if got := DSCPName(v); got != n {
			t.Errorf("DSCPName(%d) = %q, want %q", v, got, n)
		}
		if n != "" {
			if p, err := ParseDSCP(strings.ToLower(n)); err != nil || p != v {
				t.Errorf("ParseDSCP(%q) = %d, %v", n, p, err)
			}
		}
	}
	for _, bad := range []string{"64", "-1", "AF44", "xx"} {
		if _, err := ParseDSCP(bad); err == nil {
			t.Errorf("ParseDSCP(%q) accepted", bad)
		}
	}
}

func TestFilter(t *testing.T) {
	k := FlowKey{Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.0.1.9"), SrcPort: 3074, DstPort: 443, Proto: 17}
	for expr, want := range map[string]bool{
		"": true, "udp": true, "tcp": false, "host 10.0.0.5": true, "src 10.0.0.5": true, "dst 10.0.0.5": false,
		"net 10.0.1.0/24 port 443": true, "sport 443": false, "dport 443 udp": true, "proto 17": true, "host 10.9.9.9": false,
	} {
		f, err := ParseFilter(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := f.Match(k); got != want {
			t.Errorf("%q: %v, want %v", expr, got, want)
		}
	}
	for _, bad := range []string{"host", "port x", "bogus", "host 300.1.1.1", "(", "(host 10.0.0.1", "host 10.0.0.1)",
		"host 10.0.0.1 and", "not", "port 70000", "portrange 9-3", "portrange 9", "tcp src", "or port 1",
		"ip6 host 10.0.0.1", "host 10.0.0.0/8", "dst port and", strings.Repeat("(", 200) + "tcp" + strings.Repeat(")", 200)} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), "accepted:") {
			t.Errorf("%q: %v does not say what is accepted", bad, err)
		}
	}
}

// FuzzParseFilter: any expression is parsed or refused, never a panic, and
// a parsed one matches without one.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"dst port 7007", "not (host 10.0.0.1 or net fe80::/10) && tcp", "src or dst portrange 1-9", "ip proto 17", "host 1.2.3.4 or 5.6.7.8"} {
		f.Add(s)
	}
	k := FlowKey{Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("fe80::1"), SrcPort: 1, DstPort: 7007, Proto: 6}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err == nil {
			flt.Match(k)
		}
	})
}

// FuzzScan reads arbitrary bytes as a capture: plain, pcapng with pktmon
// marks, and compressed with gzip, zstd or lz4 (the decompressed bytes
// capped at 1 MiB, as --max-input-size caps them). A pcapng file reads
// the same with its packet blocks read in place and through pcapgo
// alone (FuzzNgFast also in short reads).
func FuzzScan(f *testing.F) {
	for _, name := range []string{"ssh.pcap", "accecn_handshake.pcap", "pgm_zmtp1.pcap", "aoe-oobr-1.pcap",
		"ssh.pcap.gz", "ssh.pcap.zst", "ssh.pcap.lz4"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add(ngFile(f, true)[:2000])
	f.Add(pktmonLog(f, 4, true, true))
	f.Add(writePcap(binary.BigEndian, true, layers.LinkTypeLinuxSLL2, [][]byte{make([]byte, 60)}, 0))
	for _, kind := range compressions {
		f.Add(compress(f, kind, ngFile(f, false)[:3000]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tab := NewFlowTable()
		st, err := Scan(bytes.NewReader(b), ScanOptions{MaxBytes: 1 << 20}, func(rec *Record, p *Packet) { tab.Add(rec, p) })
		if err == nil && st == nil {
			t.Fatal("nil stats without error")
		}
		// pcapng, plain or compressed: the packet blocks read in place
		// as through pcapgo.
		if d, _ := diffNg(b, 1<<20, ngSources[0].src); d != "" {
			t.Fatal(d)
		}
	})
}

// A scan stopped through its context reports what it read until then:
// it looks every interruptCheck records, so a cancel in the handler of
// record 2 stops it after record interruptCheck, before the rest.
func TestScanInterrupted(t *testing.T) {
	p := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10))
	frames := make([][]byte, 3*interruptCheck)
	for i := range frames {
		frames[i] = p
	}
	file := writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, frames, 0)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	st, err := Scan(bytes.NewReader(file), ScanOptions{Dedup: DedupOff, Context: ctx}, func(*Record, *Packet) {
		if n++; n == 2 {
			cancel()
		}
	})
	want := fmt.Sprintf("interrupted after %d frames", interruptCheck)
	if err != nil || !st.Interrupted || st.Frames != interruptCheck || n != interruptCheck || !strings.Contains(strings.Join(st.Notes(), "\n"), want) {
		t.Errorf("stats %+v, %d packets handled, err %v; want %s", st, n, err, want)
	}
}

// Record.StartNs is the first frame's time even when that frame is not IP.
func TestRecordStartNs(t *testing.T) {
	arp := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06}, make([]byte, 28)...)
	p1, p2 := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10)), eth(tcp4(t, "10.0.0.1", "10.0.0.2", 3, 2, 0, 10))
	for _, mode := range []DedupMode{DedupOff, DedupAuto} { // auto holds the first packets back: the copies keep it
		_, s := scan(t, writePcap(binary.LittleEndian, true, layers.LinkTypeEthernet, [][]byte{arp, p1, p2}, 0), ScanOptions{Dedup: mode})
		if len(s.recs) != 2 || s.recs[0].StartNs != t0.UnixNano() || s.recs[1].StartNs != t0.UnixNano() || s.recs[0].TimeNs != t0.UnixNano()+1e6 {
			t.Errorf("%s: records %+v; want StartNs %d on both", mode, s.recs, t0.UnixNano())
		}
	}
}

// failReader returns the bytes of b, then err.
type failReader struct {
	b   []byte
	err error
}

func (f *failReader) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, f.err
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// A read that fails is reported as such, not as an empty or corrupt file:
// a directory opened as a capture, an I/O error half-way.
func TestReadFailure(t *testing.T) {
	dir, err := os.Open("testdata") // not a TempDir: Wine cannot remove a directory once read as a file
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	_, err = Scan(dir, ScanOptions{}, func(*Record, *Packet) {})
	var fe *FormatError
	if !asFormatError(err, &fe) || !fe.Read || fe.Offset != 0 || strings.Contains(fe.Msg, "empty") {
		t.Errorf("directory: %v, want a failed read at byte 0", err)
	}
	good := writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10)), eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10))}, 0)
	ioErr := errors.New("read capture.pcap: input/output error")
	ng := ngFile(t, false)
	for _, c := range []struct {
		name string
		file []byte
		cut  int
	}{{"pcap", good, len(good) - 10}, {"pcapng", ng, len(ng) - 10}} {
		st, err := Scan(&failReader{b: c.file[:c.cut], err: ioErr}, ScanOptions{}, func(*Record, *Packet) {})
		if err != nil || st.ReadError == nil || !st.ReadError.Read || st.ReadError.Truncated || st.ReadError.Msg != ioErr.Error() {
			t.Errorf("%s: I/O error after %d bytes: err %v, read error %+v", c.name, c.cut, err, st.ReadError)
		}
	}
}

// A record whose captured length exceeds its length on the wire is read
// whole with a warning, as tshark reads it, in pcap and pcapng alike
// (issue 17, item 6).
func TestCapLenAboveLen(t *testing.T) {
	aoe, err := os.ReadFile("testdata/aoe-oobr-1.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var got []Record
	st, err := Scan(bytes.NewReader(aoe), ScanOptions{}, func(*Record, *Packet) {})
	if err != nil || st.ReadError != nil || st.Frames != 1 || st.LenBelowCap != 1 || st.Skipped["not IP"] != 1 {
		t.Errorf("aoe-oobr-1.pcap: err %v, stats %+v; want 1 frame, read whole, flagged", err, st)
	}
	if !strings.Contains(strings.Join(st.Notes(), "\n"), "1 frames claim fewer bytes on the wire than were captured, which tshark flags as malformed") {
		t.Errorf("no warning in %q", st.Notes())
	}
	// an IP packet in such a record is analysed, and the reading goes on
	p := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 10))
	pc := writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{p, p, p}, 0)
	off := 24 + 16 + len(p)
	binary.LittleEndian.PutUint32(pc[off+12:], uint32(len(p)-4)) // second record: 4 bytes fewer on the wire
	var ng bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&ng, pcapgo.NgInterface{LinkType: layers.LinkTypeEthernet}, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.WritePacket(gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Second), CaptureLength: len(p), Length: len(p)}, p)
	}
	w.Flush()
	ngb := ng.Bytes()
	epb := 0
	for o, n := 0, 0; o < len(ngb); o += int(binary.LittleEndian.Uint32(ngb[o+4:])) {
		if binary.LittleEndian.Uint32(ngb[o:]) == 6 {
			if n++; n == 2 {
				epb = o
			}
		}
	}
	binary.LittleEndian.PutUint32(ngb[epb+24:], uint32(len(p)-4))
	for name, file := range map[string][]byte{"pcap": pc, "pcapng": ngb} {
		got = got[:0]
		st, err := Scan(bytes.NewReader(file), ScanOptions{Dedup: DedupOff}, func(rec *Record, _ *Packet) { got = append(got, *rec) })
		if err != nil || st.ReadError != nil || len(got) != 3 || st.LenBelowCap != 1 || got[1].CapLen != len(p) || got[1].OrigLen != len(p)-4 {
			t.Errorf("%s: err %v, stats %+v, %d packets analysed", name, err, st, len(got))
		}
	}
}
