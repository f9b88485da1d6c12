package capture

import (
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// capwapHdr is a CAPWAP header (preamble type 0) with the given flags and
// wireless binding, and the optional fields after the fixed 8 bytes
// (radio MAC, wireless information: each a length byte, the data and
// padding to 4 bytes), which HLEN covers.
func capwapHdr(wbid uint32, flags uint32, opt ...[]byte) []byte {
	var rest []byte
	for _, o := range opt {
		f := cat([]byte{byte(len(o))}, o)
		for len(f)%4 != 0 {
			f = append(f, 0)
		}
		rest = append(rest, f...)
	}
	hl := uint32(8+len(rest)) / 4
	v := hl<<19 | 1<<14 | wbid<<9 | flags
	return cat([]byte{0, byte(v >> 16), byte(v >> 8), byte(v)}, be16(0x1234), be16(0), rest)
}

// swapFC swaps the frame control bytes of an 802.11 frame, as the access
// points that Wireshark's default expects send them.
func swapFC(f []byte) []byte {
	f = cat(f)
	f[0], f[1] = f[1], f[0]
	return f
}

type capwapCase struct {
	name  string
	frame []byte
	src   string // "" : the outer packet (not decoded)
	encap Encap
}

func capwapCases(t testing.TB) []capwapCase {
	in4, in6 := inner4(t), inner6(t)
	e4 := ethf(etherTypeIPv4, in4)
	const wlanEnc = EncapCAPWAP | EncapWLAN | EncapLLC
	wlan4 := swapFC(cat(wlanQoS(false, etherTypeIPv4), in4))
	return []capwapCase{
		{"802.3", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, 0), e4))), "10.1.0.1", EncapCAPWAP},
		{"802.3-from-5247", ethf(etherTypeIPv4, udp4(t, 5247, 40000, cat(capwapHdr(0, 0), e4))), "10.1.0.1", EncapCAPWAP},
		{"802.3-vlan-ipv6", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, 0), ethf(etherTypeVLAN, cat(be16(7), be16(etherTypeIPv6), in6))))), "2001:db8:1::1", EncapCAPWAP},
		{"802.11", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagT), wlan4))), "10.1.0.1", wlanEnc},
		{"802.11-ipv6", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagT), swapFC(cat(wlanQoS(false, etherTypeIPv6), in6))))), "2001:db8:1::1", wlanEnc},
		// W: wireless information (RSSI, SNR, data rate), M: the radio MAC.
		{"802.11-wireless-info", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagT|0x20, []byte{0xc8, 30, 0, 54}), wlan4))), "10.1.0.1", wlanEnc},
		{"802.11-radio-mac", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagT|0x10, []byte{2, 0, 0, 0, 0, 9}), wlan4))), "10.1.0.1", wlanEnc},
		{"802.3-both-fields", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, 0x30, []byte{2, 0, 0, 0, 0, 9}, []byte{0xc8, 30, 0, 54}), e4))), "10.1.0.1", EncapCAPWAP},
		{"over-ipv6", ethf(etherTypeIPv6, serialize(t, ip6("2001:db8::a", "2001:db8::b", layers.IPProtocolUDP), &layers.UDP{SrcPort: 40000, DstPort: 5247}, gopacket.Payload(cat(capwapHdr(1, 0), e4)))), "10.1.0.1", EncapCAPWAP},
		// Not decoded: the outer packet.
		{"dtls", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat([]byte{0x01, 0, 0, 0}, make([]byte, 60)))), "", 0},
		{"keep-alive", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagK), be16(8), make([]byte, 6)))), "", 0},
		{"fragment", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagF), e4[:40]))), "", 0},
		{"native-not-802.11", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(3, capwapFlagT), e4))), "", 0},
		{"802.11-fc-not-swapped", ethf(etherTypeIPv4, udp4(t, 40000, 5247, cat(capwapHdr(1, capwapFlagT), cat(wlanQoS(false, etherTypeIPv4), in4)))), "", 0},
		{"802.3-cut", ethf(etherTypeIPv4, udp4(t, 40000, 5247, capwapHdr(1, 0)[:6])), "", 0},
	}
}

func TestCAPWAP(t *testing.T) {
	for _, c := range capwapCases(t) {
		var d Decoder
		var p Packet
		rec := Record{LinkType: layers.LinkTypeEthernet, Data: c.frame, OrigLen: len(c.frame)}
		sk := d.Decode(&rec, &p)
		want := c.src
		if want == "" {
			want = "192.0.2.1" // udp4's outer source
		}
		if sk != SkipNone || p.Src.String() != want || p.Encap != c.encap {
			t.Errorf("%s: %v, %v, encapsulations %q; want %s, %q", c.name, sk, p.Src, p.Encap, want, c.encap)
		}
	}
}

// Every encapsulation has a name of its own: the hand-kept list these
// names replaced had none for MACsec, so PIM printed as "ethernet" and
// Ethernet as nothing.
func TestEncapNames(t *testing.T) {
	seen := map[string]encapBit{}
	for b := range encapBits {
		n := Encap(1 << b).String()
		if n == "" || strings.ContainsAny(n, "+() ") {
			t.Errorf("bit %d: name %q", b, n)
		}
		if prev, ok := seen[n]; ok {
			t.Errorf("bits %d and %d are both %q", prev, b, n)
		}
		seen[n] = b
	}
	for e, want := range map[Encap]string{EncapPIM: "pim", EncapMACsec: "macsec", EncapEthernet: "ethernet", EncapCAPWAP: "capwap",
		EncapGRE | EncapERSPAN: "gre+erspan", 0: ""} {
		if got := e.String(); got != want {
			t.Errorf("%#x: %q, want %q", uint32(e), got, want)
		}
	}
}

// The CAPWAP frames as tshark decodes them, with its default preferences.
func capwapFile(t testing.TB) []byte {
	var frames []frame
	for _, c := range capwapCases(t) {
		frames = append(frames, whole(c.frame))
	}
	return pcapOf(layers.LinkTypeEthernet, frames...)
}

// Decoding a CAPWAP frame allocates nothing.
func TestCAPWAPAllocations(t *testing.T) {
	for _, c := range capwapCases(t) {
		var d Decoder
		var p Packet
		rec := Record{LinkType: layers.LinkTypeEthernet, Data: c.frame, OrigLen: len(c.frame)}
		if n := testing.AllocsPerRun(20, func() { d.Decode(&rec, &p) }); n != 0 {
			t.Errorf("%s: %.0f allocations per frame", c.name, n)
		}
	}
}
