package etl

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/infile"
)

// udpFrame is an Ethernet/IPv4/UDP frame with the given DSCP.
func udpFrame(t testing.TB, dscp uint8, srcPort uint16, payload int) []byte {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, TOS: dscp << 2, Protocol: layers.IPProtocolUDP, SrcIP: net.IP{192, 0, 2, 1}, DstIP: net.IP{192, 0, 2, 2}}
	udp := &layers.UDP{SrcPort: layers.UDPPort(srcPort), DstPort: 3074}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload(bytes.Repeat([]byte{0xab}, payload))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ndisPayload(ifx uint32, frag []byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, ifx)
	b = le.AppendUint32(b, ifx)
	b = le.AppendUint32(b, uint32(len(frag)))
	b = append(b, frag...)
	return append(b, make([]byte, 16)...) // GftFlowEntryId, GftOffloadInformation
}

func pktmonPayload(group uint64, num, comp uint16, frame []byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, group)
	for _, v := range []uint16{num, 1, 1, pktmonTypeEther, comp, 1, 0} { // PktNumber, AppearanceCount, DirTag, PacketType, ComponentId, EdgeId, FilterId
		b = le.AppendUint16(b, v)
	}
	b = le.AppendUint32(b, 0) // DropReason
	b = le.AppendUint32(b, 0) // DropLocation
	b = le.AppendUint16(b, uint16(len(frame)))
	b = le.AppendUint16(b, uint16(len(frame)))
	return append(b, frame...)
}

// netFrame is one frame the packet traces carry, as written.
type netFrame struct {
	dscp uint8
	port uint16
	size int
}

// writeNDIS writes a netsh trace capture=yes trace: UDP frames with DSCP
// 46 (EF) and 0 on interface 7, one of them split over two events, and a
// TCP/IP event between them.
func writeNDIS(t testing.TB) ([]byte, []netFrame) {
	w := newTraceWriter(8, 8192, 4, "NetTrace")
	frames := []netFrame{{46, 50000, 40}, {46, 50000, 60}, {0, 50001, 20}, {46, 50000, 1200}, {0, 50001, 20}, {46, 50000, 33}}
	ts := int64(testStartQPC + 10_000)
	for i, f := range frames {
		b := udpFrame(t, f.dscp, f.port, f.size)
		const start, end = kwPacketStart, kwPacketEnd
		if f.size > 1000 { // split in two events
			w.event(NDISPacketCaptureGUID, ndisFragmentID, 0, 0, start|0x1, 1, 2, ts, ndisPayload(7, b[:600]))
			w.event(NDISPacketCaptureGUID, ndisFragmentID, 0, 0, end|0x1, 1, 2, ts, ndisPayload(7, b[600:]))
		} else {
			w.event(NDISPacketCaptureGUID, ndisFragmentID, 0, 0, start|end|0x1, 1, 2, ts, ndisPayload(7, b))
		}
		if i == 2 { // a TCP connection's events between the packets
			for _, e := range tcpipEvents() {
				w.event(etw.TCPIPGUID, e.id, 0, 0, 0x80, 1, 2, ts+1, e.data)
			}
		}
		ts += 12_345 // 1.2345 ms
	}
	return w.bytes(), frames
}

// writePktMon writes a pktmon log: three frames, each logged at two
// components with one group id.
func writePktMon(t testing.TB) ([]byte, []netFrame) {
	w := newTraceWriter(8, 8192, 4, "PktMon")
	frames := []netFrame{{46, 50000, 40}, {34, 50002, 80}, {0, 50001, 20}}
	ts := int64(testStartQPC + 10_000)
	for i, f := range frames {
		b := udpFrame(t, f.dscp, f.port, f.size)
		for c := uint16(1); c <= 2; c++ {
			w.event(PktMonGUID, pktmonPacketID, 0, 0, 0x10, 1, 2, ts+int64(c), pktmonPayload(uint64(100+i), uint16(i+1), c*10, b))
		}
		ts += 20_000
	}
	return w.bytes(), frames
}

func TestWrittenPacketTraces(t *testing.T) {
	for _, c := range []struct {
		name   string
		write  func(testing.TB) ([]byte, []netFrame)
		copies int
		iface  string
		first  time.Duration // after the header event
	}{
		{"written-ndis.etl", writeNDIS, 1, "ndis if 7", time.Millisecond},
		{"written-pktmon.etl", writePktMon, 2, "pktmon component 10", time.Millisecond + 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, frames := c.write(t)
			writtenTrace(t, c.name, b)
			// the sidecar tells scripts/verify-etl the frames as written, in
			// file order (each pktmon frame once per component)
			var hexes []string
			for i := range len(frames) * c.copies {
				f := frames[i/c.copies]
				hexes = append(hexes, hex.EncodeToString(udpFrame(t, f.dscp, f.port, f.size)))
			}
			js, _ := json.MarshalIndent(map[string]any{"frames": hexes}, "", " ")
			writtenTrace(t, c.name+".expect.json", append(js, '\n'))
			var out bytes.Buffer
			pc, err := WritePcapng(bytes.NewReader(b), &out)
			if err != nil {
				t.Fatal(err)
			}
			if pc.NDIS+pc.PktMon != len(frames)*c.copies || pc.Skipped != 0 {
				t.Fatalf("counts %+v for %d frames", pc, len(frames))
			}
			ng, err := pcapgo.NewNgReader(&out, pcapgo.DefaultNgReaderOptions)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Date(2020, 2, 28, 10, 43, 47, 744579000, time.UTC) // testStartFT
			for i := 0; ; i++ {
				data, ci, err := ng.ReadPacketData()
				if err != nil {
					if i != len(frames)*c.copies {
						t.Errorf("%d packets, want %d (%v)", i, len(frames)*c.copies, err)
					}
					break
				}
				f := frames[i/c.copies]
				pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
				ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
				udp, _ := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
				if ip == nil || udp == nil || ip.TOS>>2 != f.dscp || uint16(udp.SrcPort) != f.port || len(udp.Payload) != f.size {
					t.Errorf("packet %d: %v, want %+v", i, pkt, f)
				}
				if i == 0 {
					// 10,000 ticks of 100 ns after the header event
					if want := start.Add(c.first); !ci.Timestamp.Equal(want) {
						t.Errorf("first packet at %v, want %v", ci.Timestamp.UTC(), want)
					}
					if name, _ := ng.Interface(ci.InterfaceIndex); name.Name != c.iface {
						t.Errorf("interface %q, want %q", name.Name, c.iface)
					}
				}
			}
		})
	}
}

func FuzzPackets(f *testing.F) {
	b, _ := writeNDIS(f)
	f.Add(b)
	b, _ = writePktMon(f)
	f.Add(b)
	comp, _, _ := writeDPCISRWith(8, true, false)
	f.Add(comp)
	// a real pktmon capture: compressed buffers, 114 packet events
	f.Add(fixture(f, "corpus/microsoft_demikernel__PktMon-db9cd717.etl"))
	defer infile.Reset()
	infile.SetMax(4 << 20) // as FuzzReader
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		_, _ = WritePcapng(bytes.NewReader(b), &out)
	})
}

type tcpipEvent struct {
	id   uint16
	data []byte
}

func sockaddrIn(ip [4]byte, port uint16) []byte {
	b := binary.LittleEndian.AppendUint16(nil, 2) // AF_INET
	b = binary.BigEndian.AppendUint16(b, port)
	b = append(b, ip[:]...)
	return append(b, make([]byte, 8)...)
}

// tcpipEvents are a connection's events in the provider's templates
// (internal/etw/tcpip.go): TcpConnectTcbComplete, two retransmission
// rounds and a TcpRack, of Tcb 0xffffa0001234, and one retransmission
// round of another Tcb.
func tcpipEvents() []tcpipEvent {
	le := binary.LittleEndian
	const tcb = 0xffffa0001234
	loc, rem := sockaddrIn([4]byte{192, 0, 2, 1}, 50010), sockaddrIn([4]byte{192, 0, 2, 2}, 9)
	c := le.AppendUint32(nil, uint32(len(loc)))
	c = append(c, loc...)
	c = le.AppendUint32(c, uint32(len(rem)))
	c = append(c, rem...)
	c = le.AppendUint32(c, 0)    // Status
	c = le.AppendUint32(c, 4321) // ProcessId
	c = le.AppendUint32(c, 1)    // Compartment
	c = le.AppendUint64(c, tcb)
	rexmit := func(tcb uint64, round uint32) []byte {
		b := le.AppendUint64(nil, tcb)
		for _, v := range []uint32{1000, round, 20, 300} { // SndUna, RexmitCount, SRTT, RTO
			b = le.AppendUint32(b, v)
		}
		return b
	}
	rack := le.AppendUint64(nil, tcb)
	for _, v := range []uint32{1, 10, 5, 1, 1000, 77, 12} {
		rack = le.AppendUint32(rack, v)
	}
	return []tcpipEvent{{1033, c}, {1351, rexmit(tcb, 1)}, {1351, rexmit(tcb, 2)}, {1387, rack}, {1351, rexmit(0xffffa0009999, 1)}}
}
