package capture

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// fragment4 splits an IPv4 packet (header without options) into
// fragments of at most chunk payload bytes (a multiple of 8), in order.
func fragment4(pkt []byte, chunk int) [][]byte {
	hdr, body := pkt[:20], pkt[20:]
	var out [][]byte
	for off := 0; off < len(body); off += chunk {
		end := min(off+chunk, len(body))
		h := append([]byte(nil), hdr...)
		fo := uint16(off / 8)
		if end < len(body) {
			fo |= 0x2000
		}
		binary.BigEndian.PutUint16(h[6:8], fo)
		binary.BigEndian.PutUint16(h[2:4], uint16(20+end-off))
		h[10], h[11] = 0, 0
		binary.BigEndian.PutUint16(h[10:12], ipChecksum(h))
		out = append(out, append(h, body[off:end]...))
	}
	return out
}

func ipChecksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

// fragment6 splits an IPv6 packet with no extension headers into
// fragments of at most chunk bytes of its payload (a multiple of 8).
func fragment6(pkt []byte, chunk int, id uint32) [][]byte {
	hdr, next, body := pkt[:40], pkt[6], pkt[40:]
	var out [][]byte
	for off := 0; off < len(body); off += chunk {
		end := min(off+chunk, len(body))
		h := append([]byte(nil), hdr...)
		h[6] = 44
		binary.BigEndian.PutUint16(h[4:6], uint16(8+end-off))
		fo := uint16(off)
		if end < len(body) {
			fo |= 1
		}
		fh := cat([]byte{next, 0}, be16(fo), be32(id))
		out = append(out, cat(h, fh, body[off:end]))
	}
	return out
}

// withVLAN puts an 802.1Q tag in front of an Ethernet frame's EtherType.
func withVLAN(frame []byte, vlan uint16) []byte {
	return cat(frame[:12], be16(etherTypeVLAN), be16(vlan), frame[12:])
}

func eths(pkts [][]byte) []frame {
	var f []frame
	for _, p := range pkts {
		et := uint16(etherTypeIPv4)
		if p[0]>>4 == 6 {
			et = etherTypeIPv6
		}
		f = append(f, whole(ethf(et, p)))
	}
	return f
}

func pick(pkts [][]byte, order ...int) [][]byte {
	var out [][]byte
	for _, i := range order {
		out = append(out, pkts[i])
	}
	return out
}

func tcp4pkt(t testing.TB, src, dst string, id uint16, n int) []byte {
	ip := ip4(src, dst, layers.IPProtocolTCP)
	ip.Id = id
	return serialize(t, ip, tcpSeg(1000, 80, 1, false), payload(n))
}

// fragFrames: fragmented datagrams as they come in captures. want maps
// the frames that complete a datagram to the TCP payload length then
// decoded (-1: not TCP); every other frame is a fragment that does not.
func fragFrames(t testing.TB) (frames []frame, want map[int]int) {
	want = map[int]int{}
	add := func(ps ...frame) { frames = append(frames, ps...) }
	done := func(n int) { want[len(frames)] = n }

	// In order, and out of order (the middle fragment completes it).
	a := fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 1, 100), 64)
	add(eths(a)...)
	done(100)
	b := fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 2, 100), 64)
	add(eths(pick(b, 2, 0, 1))...)
	done(100)
	// IPv6, a destination options header after the fragment header.
	dst := []byte{6, 0, 1, 4, 0, 0, 0, 0}
	tcp := serialize(t, ip4("10.2.0.1", "10.2.0.2", layers.IPProtocolTCP), tcpSeg(1001, 80, 1, false), payload(200))[20:]
	p6 := serialize(t, ip6("2001:db8:2::1", "2001:db8:2::2", layers.IPProtocolIPv6Destination), gopacket.Payload(cat(dst, tcp)))
	add(eths(fragment6(p6, 128, 9))...)
	done(200)
	// TCP fragmented inside a VXLAN tunnel: each fragment in its own
	// UDP datagram.
	for _, f := range fragment4(tcp4pkt(t, "10.2.0.3", "10.2.0.4", 3, 300), 200) {
		add(whole(ethf(etherTypeIPv4, udp4(t, 50000, 4789, cat(vxlanHdr(), ethf(etherTypeIPv4, f))))))
	}
	done(300)
	// The tunnel's own UDP datagram fragmented.
	outer := udp4(t, 50000, 4789, cat(vxlanHdr(), ethf(etherTypeIPv4, tcp4pkt(t, "10.2.0.5", "10.2.0.6", 4, 1000))))
	binary.BigEndian.PutUint16(outer[4:6], 5)
	add(eths(fragment4(outer, 600))...)
	done(1000)
	// A fragment seen twice before the datagram completes.
	c := fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 6, 100), 64)
	add(eths(pick(c, 0, 0, 1, 2))...)
	done(100)
	// A datagram whose other fragments were not captured.
	add(eths(fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 7, 100), 64)[:1])...)
	// Fragments on two VLANs: public addresses are one datagram,
	// private ones two (Wireshark 4.0 keys those by VLAN); IPv6 ones one.
	pub := fragment4(tcp4pkt(t, "198.51.100.1", "198.51.100.2", 8, 100), 64)
	for i, f := range eths(pub) {
		add(whole(withVLAN(f.data, uint16(10+i))))
	}
	done(100)
	for i, f := range eths(fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 9, 100), 64)) {
		add(whole(withVLAN(f.data, uint16(10+i))))
	}
	v6 := serialize(t, ip6("2001:db8:2::1", "2001:db8:2::2", layers.IPProtocolTCP), tcpSeg(1002, 80, 1, false), payload(100))
	for i, f := range eths(fragment6(v6, 64, 10)) {
		add(whole(withVLAN(f.data, uint16(10+i))))
	}
	done(100)
	// Two datagrams with one identification, of two protocols, interleaved.
	udp := ip4("10.2.0.1", "10.2.0.2", layers.IPProtocolUDP)
	udp.Id = 11
	u := fragment4(serialize(t, udp, &layers.UDP{SrcPort: 53, DstPort: 5353}, payload(100)), 64)
	v := fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 11, 100), 64)
	add(eths(cat2(u[0], v[0], u[1]))...)
	done(-1) // the UDP datagram
	add(eths(v[1:])...)
	done(100)
	// A fragment cut by the snap length is not reassembled.
	d := eths(fragment4(tcp4pkt(t, "10.2.0.1", "10.2.0.2", 12, 100), 64))
	d[0] = frame{data: d[0].data[:40], orig: len(d[0].data)}
	add(d...)
	return frames, want
}

func cat2(b ...[]byte) [][]byte { return b }

func TestReassembly(t *testing.T) {
	frames, want := fragFrames(t)
	got := map[int]int{}
	st, err := Scan(bytes.NewReader(pcapOf(layers.LinkTypeEthernet, frames...)), ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
		if !p.Fragment {
			t.Errorf("frame %d: not a fragment", rec.Frame)
		}
		if p.Reassembled {
			got[rec.Frame] = -1
			if p.TCPHeader != nil {
				got[rec.Frame] = p.TCPPayloadLen
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for n, l := range want {
		if got[n] != l {
			t.Errorf("frame %d: reassembled TCP payload %d, want %d", n, got[n], l)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("frame %d reassembled", n)
		}
	}
	if st.Fragments != len(frames) {
		t.Errorf("%d fragments counted, want %d", st.Fragments, len(frames))
	}
}

// With de-duplication on auto, Scan decodes the first frames twice (once
// to decide): the reassembly must come out the same.
func TestReassemblyWithAutoDedup(t *testing.T) {
	frames, want := fragFrames(t)
	got := map[int]int{}
	_, err := Scan(bytes.NewReader(pcapOf(layers.LinkTypeEthernet, frames...)), ScanOptions{}, func(rec *Record, p *Packet) {
		if p.Reassembled {
			got[rec.Frame] = -1
			if p.TCPHeader != nil {
				got[rec.Frame] = p.TCPPayloadLen
			}
		}
	})
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d frames reassembled, want %d (%v)", len(got), len(want), err)
	}
	for n, l := range want {
		if got[n] != l {
			t.Errorf("frame %d: reassembled TCP payload %d, want %d", n, got[n], l)
		}
	}
}

func key(i int) fragKey {
	return fragKey{src: netip.MustParseAddr("192.0.2.1"), dst: netip.MustParseAddr("192.0.2.2"), id: uint32(i), proto: 17}
}

func TestReassemblerOverlapKeepsFirstBytes(t *testing.T) {
	var r reassembler
	r.add(key(1), 8, bytes.Repeat([]byte{1}, 16), false, 0)
	r.add(key(1), 0, bytes.Repeat([]byte{2}, 16), false, 0) // bytes 8-15 overlap
	got, ok := r.add(key(1), 16, bytes.Repeat([]byte{3}, 16), true, 0)
	want := cat(bytes.Repeat([]byte{2}, 8), bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{3}, 8))
	if !ok || !bytes.Equal(got, want) {
		t.Errorf("got %v %v, want %v", ok, got, want)
	}
	r.next()
	if r.bytes != 0 || len(r.m) != 0 || r.incomplete() != 0 {
		t.Errorf("after completion: %d bytes, %d datagrams, %d incomplete", r.bytes, len(r.m), r.incomplete())
	}
}

func TestReassemblerLimits(t *testing.T) {
	chunk := make([]byte, 8)
	t.Run("datagrams", func(t *testing.T) {
		var r reassembler
		for i := range MaxFragDatagrams + 1 {
			r.add(key(i), 0, chunk, false, 0)
		}
		if len(r.m) != MaxFragDatagrams {
			t.Fatalf("%d datagrams held", len(r.m))
		}
		if _, ok := r.add(key(0), 8, chunk, true, 0); ok {
			t.Error("the oldest datagram was not dropped")
		}
		if _, ok := r.add(key(MaxFragDatagrams), 8, chunk, true, 0); !ok {
			t.Error("the newest datagram did not complete")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		var r reassembler
		big := make([]byte, 60000)
		n := MaxFragBytes/60000 + 2
		for i := range n {
			r.add(key(i), 0, big, false, 0)
			if r.bytes > MaxFragBytes {
				t.Fatalf("%d bytes held after %d datagrams", r.bytes, i+1)
			}
		}
		if _, ok := r.add(key(0), 60000, chunk, true, 0); ok {
			t.Error("the oldest datagram was not dropped")
		}
		if _, ok := r.add(key(n-1), 60000, chunk, true, 0); !ok {
			t.Error("the newest datagram did not complete")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		var r reassembler
		r.add(key(1), 0, chunk, false, 0)
		r.add(key(2), 0, chunk, false, 0)
		if _, ok := r.add(key(1), 8, chunk, true, int64(FragTimeout)); !ok {
			t.Error("a datagram completed within the timeout was dropped")
		}
		if _, ok := r.add(key(2), 8, chunk, true, int64(FragTimeout)+1); ok {
			t.Error("a datagram completed after the timeout was reassembled")
		}
	})
	t.Run("length", func(t *testing.T) {
		var r reassembler
		if _, ok := r.add(key(1), 65528, chunk, true, 0); ok || len(r.m) != 0 {
			t.Error("a fragment beyond 65535 bytes was kept")
		}
	})
	t.Run("holes", func(t *testing.T) {
		var r reassembler
		for i := range maxHoles + 1 {
			r.add(key(1), 16*i, chunk, false, 0)
		}
		if len(r.m) != 0 || r.bytes != 0 || r.incomplete() != 1 {
			t.Errorf("a datagram in %d pieces kept: %d datagrams, %d bytes", maxHoles+1, len(r.m), r.bytes)
		}
	})
	t.Run("queue", func(t *testing.T) {
		// One datagram that never completes, and many that do: the queue
		// of datagrams in progress stays small.
		var r reassembler
		r.add(key(-1), 0, chunk, false, 0)
		for i := range 100000 {
			r.add(key(i), 0, chunk, false, 0)
			r.add(key(i), 8, chunk, true, 0)
			r.next()
		}
		if len(r.queue)-r.head > 200 || r.incomplete() != 1 {
			t.Errorf("queue of %d for %d datagrams in progress, %d incomplete", len(r.queue)-r.head, len(r.m), r.incomplete())
		}
	})
}

// FuzzScanFragments scans whole captures of fragments and tunnels, so
// that the reassembly sees sequences of frames.
func FuzzScanFragments(f *testing.F) {
	frames, _ := fragFrames(f)
	f.Add(pcapOf(layers.LinkTypeEthernet, frames...))
	for _, file := range encapFiles(f) {
		f.Add(file)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Scan(bytes.NewReader(b), ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
			if p.Reassembled && !p.Fragment {
				t.Fatalf("frame %d: reassembled but not a fragment", rec.Frame)
			}
		})
		if err == nil && (st.Reassembled > st.Fragments || st.Incomplete < 0) {
			t.Fatalf("%d reassembled of %d fragments, %d incomplete", st.Reassembled, st.Fragments, st.Incomplete)
		}
	})
}

// The notes say what was reassembled and what was not.
func TestReassemblyNotes(t *testing.T) {
	frames, want := fragFrames(t)
	st, err := Scan(bytes.NewReader(pcapOf(layers.LinkTypeEthernet, frames...)), ScanOptions{Dedup: DedupOff}, func(*Record, *Packet) {})
	if err != nil {
		t.Fatal(err)
	}
	// Incomplete: the lone fragment's datagram, the private-address one
	// split over three VLANs (three datagrams), and the one whose first
	// fragment was cut by the snap length.
	note := fmt.Sprintf("%d IP fragments: %d datagrams reassembled, each in the frame of the fragment that completes it; %d incomplete", len(frames), len(want), st.Incomplete)
	if st.Reassembled != len(want) || st.Incomplete != 5 || !strings.Contains(strings.Join(st.Notes(), "\n"), note) {
		t.Errorf("reassembled %d, incomplete %d, notes %q", st.Reassembled, st.Incomplete, st.Notes())
	}
}
