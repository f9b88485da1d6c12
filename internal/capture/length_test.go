package capture

import (
	"bytes"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// lengthFrames: IP lengths that disagree with the frame, both ways.
func lengthFrames(t testing.TB) []frame {
	full := serialize(t, ethL(layers.EthernetTypeIPv4), ip4("10.0.0.1", "10.0.0.2", layers.IPProtocolTCP), tcpSeg(1000, 80, 1, false), payload(1448))
	small := serialize(t, ethL(layers.EthernetTypeIPv4), ip4("10.0.0.2", "10.0.0.1", layers.IPProtocolTCP), tcpSeg(80, 1000, 1, false), payload(2))
	v6 := serialize(t, ethL(layers.EthernetTypeIPv6), ip6("2001:db8::1", "2001:db8::2", layers.IPProtocolTCP), tcpSeg(1001, 80, 1, false), payload(1000))
	return []frame{
		whole(full),                      // ip.len 1500 in a 1514-byte frame: 1448
		whole(full[:1506]),               // ip.len 1500 in a 1506-byte frame: 1440
		whole(full[:66]),                 // ip.len 1500 in a 66-byte frame: 0
		{data: full[:96], orig: 1506},    // 96 bytes captured of 1506 on the wire: 1440
		{data: full[:96], orig: 1514},    // cut by the snap length: 1448
		whole(append(small, 0, 0, 0, 0)), // Ethernet padding after the IP packet: 2
		whole(v6[:len(v6)-100]),          // IPv6 payload length beyond the frame: 900
	}
}

// The TCP payload is sized from the bytes the frame reports when the IP
// header claims more (tcpdump tests/kday4.pcap frame 10, zeek
// tcp/reassembly.pcap frames 7 and 85).
func TestPayloadLengthFromFrame(t *testing.T) {
	want := []int{1448, 1440, 0, 1440, 1448, 2, 900}
	var got []int
	_, err := Scan(bytes.NewReader(pcapOf(layers.LinkTypeEthernet, lengthFrames(t)...)), ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
		got = append(got, p.TCPPayloadLen)
		if p.IPLen != 1500 && rec.Frame <= 5 {
			t.Errorf("frame %d: IPLen %d, want the header's 1500", rec.Frame, p.IPLen)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d packets, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: TCP payload %d, want %d", i+1, got[i], want[i])
		}
	}
}
