package capture

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// frame is one record of a generated capture: the bytes captured and
// the length on the wire (0: all of them).
type frame struct {
	data []byte
	orig int
}

// pcapOf writes a little-endian, microsecond pcap of one link type.
func pcapOf(lt layers.LinkType, frames ...frame) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = append(b, make([]byte, 8)...)
	b = binary.LittleEndian.AppendUint32(b, 262144)
	b = binary.LittleEndian.AppendUint32(b, uint32(lt))
	for i, f := range frames {
		ts := t0.Add(time.Duration(i) * time.Millisecond)
		b = binary.LittleEndian.AppendUint32(b, uint32(ts.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(ts.Nanosecond()/1000))
		orig := max(f.orig, len(f.data))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f.data)))
		b = binary.LittleEndian.AppendUint32(b, uint32(orig))
		b = append(b, f.data...)
	}
	return b
}

// whole is a frame captured whole.
func whole(b []byte) frame { return frame{data: b} }

// serialize builds a packet from gopacket layers, with lengths and
// checksums filled in.
func serialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	for i, l := range ls {
		var nl gopacket.NetworkLayer
		switch l.(type) {
		case *layers.TCP, *layers.UDP:
			for j := i - 1; j >= 0; j-- {
				if n, ok := ls[j].(gopacket.NetworkLayer); ok {
					nl = n
					break
				}
			}
		}
		switch x := l.(type) {
		case *layers.TCP:
			if err := x.SetNetworkLayerForChecksum(nl); err != nil {
				t.Fatal(err)
			}
		case *layers.UDP:
			if err := x.SetNetworkLayerForChecksum(nl); err != nil {
				t.Fatal(err)
			}
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

func ip4(src, dst string, proto layers.IPProtocol) *layers.IPv4 {
	return &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: proto, Id: 1,
		SrcIP: netip.MustParseAddr(src).AsSlice(), DstIP: netip.MustParseAddr(dst).AsSlice()}
}

func ip6(src, dst string, next layers.IPProtocol) *layers.IPv6 {
	return &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: next,
		SrcIP: netip.MustParseAddr(src).AsSlice(), DstIP: netip.MustParseAddr(dst).AsSlice()}
}

// tcpSeg is a TCP header with the timestamps option (32 bytes).
func tcpSeg(sport, dport uint16, seq uint32, syn bool) *layers.TCP {
	return &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: seq, Ack: 1,
		SYN: syn, ACK: !syn, Window: 1000,
		Options: []layers.TCPOption{{OptionType: layers.TCPOptionKindNop}, {OptionType: layers.TCPOptionKindNop},
			{OptionType: layers.TCPOptionKindTimestamps, OptionLength: 10, OptionData: make([]byte, 8)}}}
}

func ethL(et layers.EthernetType) *layers.Ethernet {
	return &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: et}
}

func payload(n int) gopacket.Payload {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i)
	}
	return p
}
