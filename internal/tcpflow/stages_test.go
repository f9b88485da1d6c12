package tcpflow

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/latlab/latlab/internal/capture"
)

// The analysis stage sees every segment the scan produced, in capture
// order, over many batches, with the options parsed as Add would.
func TestStagesKeepEverySegmentInOrder(t *testing.T) {
	g := generated{n: 3000, open: 40, payload: func(i int) int { return 1 + i*37%1400 }}
	var want []Segment
	var wantOpts [][]byte
	if _, err := g.scan(context.Background(), func(rec *capture.Record, p *capture.Packet) {
		var s Segment
		if FromCapture(rec, p, &s) {
			wantOpts = append(wantOpts, append([]byte(nil), s.Options...))
			s.Options = nil
			want = append(want, s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) < 4*stageBatch {
		t.Fatalf("only %d segments: too few to cross batches", len(want))
	}
	var got []Segment
	var gotOpts [][]byte
	batches := 0
	tab := newConnTable()
	st, err := scanInStages(context.Background(), g.scan, false, tab.seed, nil, func(b *segBatch) {
		batches++
		for i := range b.segs {
			e := &b.segs[i]
			var s Segment
			e.segment(&s, true)
			if k, fromB := keyOf(&s); e.key != k || e.rev != fromB || e.hash != tab.hashKey(&k) {
				t.Errorf("segment %d: key %v hash %x, want %v %x", i, e.key, e.hash, k, tab.hashKey(&k))
			}
			got = append(got, s)
			gotOpts = append(gotOpts, append([]byte(nil), e.opt[:e.nopt]...))
		}
	})
	if err != nil || st.Stats == nil {
		t.Fatalf("scan: %v, stats %v", err, st.Stats)
	}
	if batches < 4 {
		t.Errorf("%d batches", batches)
	}
	if len(got) != len(want) {
		t.Fatalf("%d segments, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Options != nil || g.Frame != w.Frame || g.TimeNs != w.TimeNs || g.Src != w.Src || g.Dst != w.Dst ||
			g.SrcPort != w.SrcPort || g.DstPort != w.DstPort || g.Seq != w.Seq || g.Ack != w.Ack ||
			g.Flags != w.Flags || g.Window != w.Window || g.Len != w.Len {
			t.Fatalf("segment %d: %+v, want %+v", i, got[i], want[i])
		}
		if !bytes.Equal(gotOpts[i], wantOpts[i]) {
			t.Fatalf("segment %d: options %x, want %x", i, gotOpts[i], wantOpts[i])
		}
	}
}

// A panic in the scan's goroutine is raised in the caller's, where the
// command's own recovery can see it, not in a goroutine that kills the
// process.
func TestStagesRaiseAScanPanicInTheCaller(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "bad frame") {
			t.Fatalf("recovered %v", p)
		}
	}()
	tab := newConnTable()
	scanInStages(context.Background(), func(context.Context, capture.Handler) (*capture.Stats, error) {
		panic("bad frame")
	}, false, tab.seed, nil, func(*segBatch) {})
	t.Fatal("no panic")
}

// A key made from the addresses' bytes in their IP header (the scan
// stage's way, from what the decoder gives) is the key made from the
// addresses (Add's way), both ways round, for IPv4, IPv6 and
// IPv4-mapped IPv6 packets.
func TestKeyFromHeaderBytes(t *testing.T) {
	addrs := [][2]string{
		{"10.0.1.2", "10.0.1.3"}, {"10.0.1.3", "10.0.1.2"}, {"10.9.9.9", "10.9.9.9"}, {"255.0.0.1", "0.255.0.1"},
		{"2001:db8::1", "2001:db8::2"}, {"2001:db8::2", "2001:db8::1"}, {"ff02::1", "::1"},
		{"::ffff:10.0.1.2", "::ffff:10.0.1.3"}, {"::ffff:10.0.1.3", "::ffff:10.0.1.2"},
	}
	var d capture.Decoder
	for _, a := range addrs {
		for _, ports := range [][2]uint16{{80, 443}, {443, 80}, {7, 7}} {
			src, dst := netip.MustParseAddr(a[0]), netip.MustParseAddr(a[1])
			tcp := &layers.TCP{SrcPort: layers.TCPPort(ports[0]), DstPort: layers.TCPPort(ports[1]), ACK: true, Window: 1}
			var ip gopacket.SerializableLayer
			if src.Is4() {
				v4 := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
				_ = tcp.SetNetworkLayerForChecksum(v4)
				ip = v4
			} else {
				v6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
				_ = tcp.SetNetworkLayerForChecksum(v6)
				ip = v6
			}
			buf := gopacket.NewSerializeBuffer()
			if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp); err != nil {
				t.Fatal(err)
			}
			rec := capture.Record{Frame: 1, LinkType: layers.LinkTypeRaw, Data: buf.Bytes(), CapLen: len(buf.Bytes()), OrigLen: len(buf.Bytes())}
			var p capture.Packet
			if sk := d.Decode(&rec, &p); sk != 0 || p.TCPHeader == nil {
				t.Fatalf("%v -> %v: not decoded (%v)", src, dst, sk)
			}
			var fromAddrs, fromHeader connKey
			wantRev := fromAddrs.set(p.Src, p.Dst, p.SrcPort, p.DstPort)
			rev := fromHeader.setHeader(p.SrcDst, p.SrcPort, p.DstPort)
			if fromHeader != fromAddrs || rev != wantRev {
				t.Errorf("%v:%d -> %v:%d: from the header %+v %v, from the addresses %+v %v",
					src, ports[0], dst, ports[1], fromHeader, rev, fromAddrs, wantRev)
			}
		}
	}
}

// Options.inline really runs the scan in the caller's goroutine, beside
// the analysis, and without it the scan runs in a goroutine of its own:
// TestStagesEqualSequentialAnalysis compares the two, which proves
// nothing if both ran staged.
func TestInlineRunsTheScanInTheCallersGoroutine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ssh.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{true, false} {
		var scanG, closeG []uint64
		scan := func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			return capture.Scan(bytes.NewReader(data), capture.ScanOptions{Context: ctx}, func(rec *capture.Record, p *capture.Packet) {
				scanG = append(scanG, goroutineID())
				h(rec, p)
			})
		}
		_, err := Run(context.Background(), Options{Scan: scan, Stream: -1, Top: 1, inline: inline,
			OnConn: func(*Connection) error {
				closeG = append(closeG, goroutineID())
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if len(scanG) == 0 || len(closeG) == 0 {
			t.Fatalf("inline %v: %d frames scanned, %d connections closed", inline, len(scanG), len(closeG))
		}
		caller := goroutineID()
		for _, g := range scanG {
			if (g == caller) != inline {
				t.Errorf("inline %v: a frame was scanned in goroutine %d, the caller's is %d", inline, g, caller)
				break
			}
		}
		for _, g := range closeG {
			if g != caller {
				t.Errorf("inline %v: a connection was closed in goroutine %d, not the caller's %d", inline, g, caller)
				break
			}
		}
	}
}

// goroutineID is the running goroutine's number, from the first line of
// its stack ("goroutine 7 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	id, err := strconv.ParseUint(s[:strings.IndexByte(s, ' ')], 10, 64)
	if err != nil {
		panic("goroutine id: " + err.Error())
	}
	return id
}
