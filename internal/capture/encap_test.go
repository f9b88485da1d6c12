package capture

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// The packets the tunnels carry.
func inner4(t testing.TB) []byte {
	return serialize(t, ip4("10.1.0.1", "10.1.0.2", layers.IPProtocolTCP), tcpSeg(1000, 80, 1, false), payload(100))
}

func inner6(t testing.TB) []byte {
	return serialize(t, ip6("2001:db8:1::1", "2001:db8:1::2", layers.IPProtocolTCP), tcpSeg(1001, 80, 1, false), payload(60))
}

// ethf is an Ethernet II frame.
func ethf(et uint16, body []byte) []byte {
	return cat([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}, be16(et), body)
}

// outer4 and outer6 are outer IP headers in front of body.
func outer4(t testing.TB, proto layers.IPProtocol, body []byte) []byte {
	return serialize(t, ip4("192.0.2.1", "192.0.2.2", proto), gopacket.Payload(body))
}

func outer6(t testing.TB, next layers.IPProtocol, body []byte) []byte {
	return serialize(t, ip6("2001:db8::a", "2001:db8::b", next), gopacket.Payload(body))
}

// udp4 is an outer IPv4/UDP header in front of body.
func udp4(t testing.TB, sport, dport uint16, body []byte) []byte {
	return serialize(t, ip4("192.0.2.1", "192.0.2.2", layers.IPProtocolUDP),
		&layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}, gopacket.Payload(body))
}

// gre is a GRE header: flags (C, R, K, S bits and version), protocol, and
// the optional fields the flags announce.
func gre(flags, proto uint16, opt ...[]byte) []byte {
	return cat(be16(flags), be16(proto), cat(opt...))
}

const (
	greK = 0x2000
	greS = 0x1000
)

// wlanQoS is an 802.11 QoS data frame header (to the distribution
// system) with LLC/SNAP for an EtherType.
func wlanQoS(amsdu bool, et uint16) []byte {
	h := cat([]byte{0x88, 0x01, 0, 0}, make([]byte, 18), []byte{0x10, 0}, []byte{0, 0})
	if amsdu {
		h[24] |= 0x80
		return h
	}
	return cat(h, snap(et))
}

func snap(et uint16) []byte { return cat([]byte{0xaa, 0xaa, 0x03, 0, 0, 0}, be16(et)) }

// mplsLabel is one label stack entry.
func mplsLabel(label uint32, bottom bool) []byte {
	v := label<<12 | 64
	if bottom {
		v |= 0x100
	}
	return be32(v)
}

func pppoeSession(ppp []byte) []byte {
	return cat([]byte{0x11, 0x00}, be16(0x1234), be16(uint16(len(ppp))), ppp)
}

func vxlanHdr() []byte { return []byte{0x08, 0, 0, 0, 0, 0x12, 0x34, 0} }

type encapCase struct {
	name  string
	lt    layers.LinkType
	frame []byte
	// what the decoder must find: the innermost packet's addresses, TCP
	// payload length (-1: not TCP) and the encapsulations crossed
	src, dst string
	tcpLen   int
	encap    Encap
}

// encapCases: one frame per encapsulation and link type latlab decodes,
// built as the specifications lay them out.
func encapCases(t testing.TB) []encapCase {
	in4, in6 := inner4(t), inner6(t)
	e4 := ethf(etherTypeIPv4, in4)
	s4, d4, s6, d6 := "10.1.0.1", "10.1.0.2", "2001:db8:1::1", "2001:db8:1::2"
	o4s, o4d := "192.0.2.1", "192.0.2.2"
	eth := layers.LinkTypeEthernet
	ayiya := cat([]byte{0x41, 0x52, 0x11, 41}, be32(0), make([]byte, 16+20))
	gtpExt := cat([]byte{0x34, 0xff}, be16(uint16(4+4+len(in4))), be32(1), be16(7), []byte{0, 0x85}, []byte{1, 0x10, 0, 0})
	nflog := cat([]byte{2, 0}, be16(5),
		binary.LittleEndian.AppendUint16(nil, 8), binary.LittleEndian.AppendUint16(nil, 1), []byte{0x08, 0, 0, 0},
		binary.LittleEndian.AppendUint16(nil, 11), binary.LittleEndian.AppendUint16(nil, 10), []byte("pfx\x00\x00\x00\x00\x00"),
		binary.LittleEndian.AppendUint16(nil, uint16(4+len(in4))), binary.LittleEndian.AppendUint16(nil, 9), in4)
	return []encapCase{
		{"4in4", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolIPv4, in4)), s4, d4, 100, EncapIPinIP},
		{"6in4", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolIPv6, in6)), s6, d6, 60, EncapIPinIP},
		{"4in6", eth, ethf(etherTypeIPv6, outer6(t, layers.IPProtocolIPv4, in4)), s4, d4, 100, EncapIPinIP},
		{"6in6", eth, ethf(etherTypeIPv6, outer6(t, layers.IPProtocolIPv6, in6)), s6, d6, 60, EncapIPinIP},
		// What announces IPv4 announces "IP" to Wireshark: IPv6 too.
		{"ipv6-as-ipv4", eth, ethf(etherTypeIPv4, in6), s6, d6, 60, 0},
		{"ipv6-in-proto-4", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolIPv4, in6)), s6, d6, 60, EncapIPinIP},
		{"gre-ipv6-as-ipv4", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, etherTypeIPv4), in6))), s6, d6, 60, EncapGRE},
		{"gre", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK|greS, etherTypeIPv4, be32(7), be32(1)), in4))), s4, d4, 100, EncapGRE},
		{"gre-ipv6", eth, ethf(etherTypeIPv6, outer6(t, layers.IPProtocolGRE, cat(gre(0, etherTypeIPv6), in6))), s6, d6, 60, EncapGRE},
		{"gre-checksum", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0x8000, etherTypeIPv4, be32(0)), in4))), s4, d4, 100, EncapGRE},
		{"gre-teb", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK, etherTypeTEB, be32(1)), e4))), s4, d4, 100, EncapGRE},
		{"gre-mpls", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, etherTypeMPLS), mplsLabel(16, true), in4))), s4, d4, 100, EncapGRE | EncapMPLS},
		{"gre-cmd", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK, etherTypeCMD, be32(0x28)), be16(etherTypeIPv4), []byte{1, 1, 0, 1, 0, 0}, in4))), s4, d4, 100, EncapGRE | EncapCMD},
		{"erspan-i", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greERSPAN), e4))), s4, d4, 100, EncapGRE | EncapERSPAN},
		{"erspan-ii", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greS, greERSPAN, be32(5)), []byte{0x10, 0x64, 0x00, 0x01, 0, 0, 0, 1}, e4))), s4, d4, 100, EncapGRE | EncapERSPAN},
		{"erspan-iii", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greS, greERSPAN3, be32(5)), []byte{0x20, 0x64, 0x00, 0x01}, be32(0x01020304), []byte{0, 0, 0, 0}, e4))), s4, d4, 100, EncapGRE | EncapERSPAN},
		{"erspan-iii-subheader", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greS, greERSPAN3, be32(5)), []byte{0x20, 0x64, 0x00, 0x01}, be32(0x01020304), []byte{0, 0, 0, 1}, make([]byte, 8), e4))), s4, d4, 100, EncapGRE | EncapERSPAN},
		{"gre-pptp", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK|greS|1, grePPP, be16(uint16(4+len(in4))), be16(9), be32(3)), []byte{0xff, 0x03}, be16(pppIPv4), in4))), s4, d4, 100, EncapGRE | EncapPPP},
		{"gre-pptp-acfc", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK|greS|0x80|1, grePPP, be16(uint16(2+len(in4))), be16(9), be32(3), be32(2)), be16(pppIPv4), in4))), s4, d4, 100, EncapGRE | EncapPPP},
		{"gre-pptp-pfc", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greK|1, grePPP, be16(uint16(1+len(in4))), be16(9)), []byte{0x21}, in4))), s4, d4, 100, EncapGRE | EncapPPP},
		{"gre-wccp", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greWCCP), []byte{0x05, 0x59, 0x00, 0x48}, in4))), s4, d4, 100, EncapGRE},
		{"gre-wccp-bare", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greWCCP), in4))), s4, d4, 100, EncapGRE},
		{"gre-aruba", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greAruba), wlanQoS(false, etherTypeIPv4), in4))), s4, d4, 100, EncapGRE | EncapWLAN | EncapLLC},
		{"gre-aruba-8370", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, 0x8370), wlanQoS(false, etherTypeIPv6), in6))), s6, d6, 60, EncapGRE | EncapWLAN | EncapLLC},
		{"gre-aruba-amsdu", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greAruba), wlanQoS(true, 0), make([]byte, 12), be16(uint16(8+len(in4))), snap(etherTypeIPv4), in4))), s4, d4, 100, EncapGRE | EncapWLAN | EncapLLC},
		{"gre-in-gre", eth, ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, etherTypeIPv4), outer4(t, layers.IPProtocolGRE, cat(gre(0, etherTypeIPv4), in4))))), s4, d4, 100, EncapGRE},
		{"gre-udp", eth, ethf(etherTypeIPv4, udp4(t, 50000, 4754, cat(gre(0, etherTypeIPv4), in4))), s4, d4, 100, EncapGRE},
		{"vxlan", eth, ethf(etherTypeIPv4, udp4(t, 50000, 4789, cat(vxlanHdr(), e4))), s4, d4, 100, EncapVXLAN},
		{"vxlan-source-port", eth, ethf(etherTypeIPv4, udp4(t, 4789, 50000, cat(vxlanHdr(), e4))), s4, d4, 100, EncapVXLAN},
		{"vxlan-vlan-ipv6", eth, ethf(etherTypeIPv4, udp4(t, 50001, 4789, cat(vxlanHdr(), ethf(etherTypeVLAN, cat(be16(5), be16(etherTypeIPv6), in6))))), s6, d6, 60, EncapVXLAN},
		{"vxlan-gpe-ipv4", eth, ethf(etherTypeIPv4, udp4(t, 50000, 4790, cat([]byte{0x0c, 0, 0, 1, 0, 0, 1, 0}, in4))), s4, d4, 100, EncapVXLAN},
		{"vxlan-gpe-ether", eth, ethf(etherTypeIPv4, udp4(t, 50000, 4790, cat([]byte{0x0c, 0, 0, 3, 0, 0, 1, 0}, e4))), s4, d4, 100, EncapVXLAN},
		{"vxlan-gpe-nsh", eth, ethf(etherTypeIPv4, udp4(t, 50000, 4790, cat([]byte{0x0c, 0, 0, 4, 0, 0, 1, 0}, []byte{0x0f, 0xc6, 0x02, 0x01}, be32(0x000001ff), make([]byte, 16), in4))), s4, d4, 100, EncapVXLAN | EncapNSH},
		{"geneve", eth, ethf(etherTypeIPv4, udp4(t, 50000, 6081, cat([]byte{0x02, 0, 0x65, 0x58, 0, 0, 7, 0}, []byte{0x01, 0x02, 0x80, 0x01}, be32(0xdeadbeef), e4))), s4, d4, 100, EncapGeneve},
		{"geneve-ipv6", eth, ethf(etherTypeIPv4, udp4(t, 50000, 6081, cat([]byte{0, 0, 0x86, 0xdd, 0, 0, 7, 0}, in6))), s6, d6, 60, EncapGeneve},
		{"gtp-u", eth, ethf(etherTypeIPv4, udp4(t, 2152, 2152, cat([]byte{0x30, 0xff}, be16(uint16(len(in4))), be32(0x11223344), in4))), s4, d4, 100, EncapGTPU},
		{"gtp-u-extension", eth, ethf(etherTypeIPv4, udp4(t, 2152, 2152, cat(gtpExt, in4))), s4, d4, 100, EncapGTPU},
		{"gtp-u-ipv6", eth, ethf(etherTypeIPv4, udp4(t, 40000, 2152, cat([]byte{0x32, 0xff}, be16(uint16(4+len(in6))), be32(1), []byte{0, 1, 0, 0}, in6))), s6, d6, 60, EncapGTPU},
		{"gtp-v0", eth, ethf(etherTypeIPv4, udp4(t, 3386, 3386, cat([]byte{0x1e, 0xff}, be16(uint16(len(in4))), make([]byte, 16), in4))), s4, d4, 100, EncapGTPU},
		{"teredo", eth, ethf(etherTypeIPv4, udp4(t, 3544, 40000, cat([]byte{0, 0, 0x9c, 0x40, 0x3f, 0xff, 0xfd, 0xfe}, in6))), s6, d6, 60, EncapTeredo},
		{"ayiya", eth, ethf(etherTypeIPv4, udp4(t, 40000, 5072, cat(ayiya, in6))), s6, d6, 60, EncapAYIYA},
		{"mpls-udp", eth, ethf(etherTypeIPv4, udp4(t, 40000, 6635, cat(mplsLabel(100, true), in4))), s4, d4, 100, EncapMPLS},
		{"mpls", eth, ethf(etherTypeMPLS, cat(mplsLabel(100, false), mplsLabel(200, true), in4)), s4, d4, 100, EncapMPLS},
		{"mpls-ipv6", eth, ethf(etherTypeMPLS, cat(mplsLabel(2, true), in6)), s6, d6, 60, EncapMPLS},
		{"vlan-mpls", eth, ethf(etherTypeVLAN, cat(be16(10), be16(etherTypeMPLS), mplsLabel(100, true), in4)), s4, d4, 100, EncapMPLS},
		{"pppoe", eth, ethf(etherTypePPPoES, pppoeSession(cat(be16(pppIPv4), in4))), s4, d4, 100, EncapPPPoE | EncapPPP},
		{"pppoe-ipv6", eth, ethf(etherTypePPPoES, pppoeSession(cat(be16(pppIPv6), in6))), s6, d6, 60, EncapPPPoE | EncapPPP},
		{"pppoe-qinq", eth, ethf(etherTypeQinQ, cat(be16(100), be16(etherTypeVLAN), be16(200), be16(etherTypePPPoES), pppoeSession(cat(be16(pppIPv4), in4)))), s4, d4, 100, EncapPPPoE | EncapPPP},
		{"vlan-9100", eth, ethf(etherTypeQinQOld, cat(be16(100), be16(etherTypeIPv4), in4)), s4, d4, 100, 0},
		{"snap", eth, cat([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}, be16(uint16(8+len(in4))), snap(etherTypeIPv4), in4), s4, d4, 100, EncapLLC},
		{"llc-ip", eth, cat([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}, be16(uint16(3+len(in4))), []byte{0x06, 0x06, 0x03}, in4), s4, d4, 100, EncapLLC},
		// UDP length 0 over IPv4: Wireshark reads nothing after the UDP header.
		{"udp-length-0", eth, ethf(etherTypeIPv4, func() []byte {
			b := udp4(t, 50000, 4789, cat(vxlanHdr(), e4))
			b[24], b[25] = 0, 0
			return b
		}()), o4s, o4d, -1, 0},
		{"ethernet-in-ipv6", eth, ethf(etherTypeIPv6, outer6(t, layers.IPProtocolIPv6Routing, cat([]byte{ipProtoEthernet, 2, 4, 1, 0, 0, 0, 0}, make([]byte, 16), e4))), s4, d4, 100, EncapEthernet},
		{"pim-register", eth, ethf(etherTypeIPv4, outer4(t, ipProtoPIM, cat([]byte{0x21, 0, 0, 0}, be32(0), in4))), s4, d4, 100, EncapPIM},
		{"fabricpath", eth, ethf(etherTypeFabricPath, cat([]byte{0, 0}, e4, make([]byte, 4))), s4, d4, 100, EncapEthernet},
		{"ppp", layers.LinkTypePPP, cat([]byte{0xff, 0x03}, be16(pppIPv4), in4), s4, d4, 100, EncapPPP},
		{"ppp-acfc", layers.LinkTypePPP, cat(be16(pppIPv4), in4), s4, d4, 100, EncapPPP},
		{"ppp-ipv6", layers.LinkTypePPP, cat([]byte{0xff, 0x03}, be16(pppIPv6), in6), s6, d6, 60, EncapPPP},
		{"ppp-mpls", layers.LinkTypePPP, cat([]byte{0xff, 0x03}, be16(pppMPLS), mplsLabel(18, true), in4), s4, d4, 100, EncapPPP | EncapMPLS},
		{"ppp-hdlc", layers.LinkTypePPP_HDLC, cat([]byte{0xff, 0x03}, be16(pppIPv4), in4), s4, d4, 100, EncapPPP},
		{"ppp-ether", layers.LinkTypePPPEthernet, pppoeSession(cat(be16(pppIPv4), in4)), s4, d4, 100, EncapPPPoE | EncapPPP},
		{"cisco-hdlc", layers.LinkTypeC_HDLC, cat([]byte{0x0f, 0}, be16(etherTypeIPv4), in4), s4, d4, 100, 0},
		{"fddi", layers.LinkTypeFDDI, cat([]byte{0x50}, make([]byte, 12), snap(etherTypeIPv4), in4), s4, d4, 100, EncapLLC},
		{"802.11", layers.LinkTypeIEEE802_11, cat(wlanQoS(false, etherTypeIPv4), in4), s4, d4, 100, EncapWLAN | EncapLLC},
		{"802.11-wds", layers.LinkTypeIEEE802_11, cat([]byte{0x08, 0x03, 0, 0}, make([]byte, 26), snap(etherTypeIPv6), in6), s6, d6, 60, EncapWLAN | EncapLLC},
		{"nflog", linkTypeNFLOG, nflog, s4, d4, 100, 0},
		{"radiotap", layers.LinkTypeIEEE80211Radio, cat([]byte{0, 0}, binary.LittleEndian.AppendUint16(nil, 8), be32(0), wlanQoS(false, etherTypeIPv4), in4), s4, d4, 100, EncapWLAN | EncapLLC},
		// TSFT and flags (FCS at the end, header padded to 4 bytes).
		{"radiotap-datapad", layers.LinkTypeIEEE80211Radio, cat([]byte{0, 0}, binary.LittleEndian.AppendUint16(nil, 24), binary.LittleEndian.AppendUint32(nil, 3), make([]byte, 8), []byte{0x30}, make([]byte, 7), wlanQoS(false, 0)[:26], []byte{0, 0}, snap(etherTypeIPv4), in4, make([]byte, 4)), s4, d4, 100, EncapWLAN | EncapLLC},
		{"ipnet", linkTypeIPNET, cat([]byte{1, 26, 0, 0}, be32(uint32(len(in6))), make([]byte, 16), in6), s6, d6, 60, 0},
		{"ipnet-ipv4", linkTypeIPNET, cat([]byte{1, 2, 0, 0}, be32(uint32(len(in4))), make([]byte, 16), in4), s4, d4, 100, 0},
		{"ipoib", linkTypeIPoIB, cat(make([]byte, 40), be16(etherTypeIPv4), []byte{0, 0}, in4), s4, d4, 100, 0},
		{"raw", layers.LinkTypeRaw, in6, s6, d6, 60, 0},
		{"raw-ipv4", layers.LinkTypeIPv4, in4, s4, d4, 100, 0},
		{"raw-ipv6", layers.LinkTypeIPv6, in6, s6, d6, 60, 0},
		{"raw-14", linkTypeRawBSDOS, in4, s4, d4, 100, 0},
	}
}

func TestEncapsulations(t *testing.T) {
	for _, c := range encapCases(t) {
		var d Decoder
		var p Packet
		rec := Record{LinkType: c.lt, Data: c.frame, CapLen: len(c.frame), OrigLen: len(c.frame)}
		if sk := d.Decode(&rec, &p); sk != SkipNone {
			t.Errorf("%s: skipped: %v", c.name, sk)
			continue
		}
		tcpLen := -1
		if p.TCPHeader != nil {
			tcpLen = p.TCPPayloadLen
		}
		if p.Src.String() != c.src || p.Dst.String() != c.dst || tcpLen != c.tcpLen || p.Encap != c.encap {
			t.Errorf("%s: %v > %v, TCP payload %d, encapsulations %q; want %s > %s, %d, %q",
				c.name, p.Src, p.Dst, tcpLen, p.Encap, c.src, c.dst, c.tcpLen, c.encap)
		}
	}
}

// fallbackCases: tunnels whose inner packet Wireshark does not decode
// (Ethernet frames).
func fallbackCases(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"vxlan-arp":              ethf(etherTypeIPv4, udp4(t, 50000, 4789, cat(vxlanHdr(), ethf(0x0806, make([]byte, 28))))),
		"vxlan-cut":              ethf(etherTypeIPv4, udp4(t, 50000, 4789, cat(vxlanHdr(), []byte{2, 0, 0}))),
		"gre-unknown":            ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, 0x1234), make([]byte, 20)))),
		"gtp-signalling":         ethf(etherTypeIPv4, udp4(t, 2123, 2123, cat([]byte{0x32, 0x10}, be16(4), be32(0), make([]byte, 4)))),
		"gtp-not-ip":             ethf(etherTypeIPv4, udp4(t, 2152, 2152, cat([]byte{0x30, 0xff}, be16(4), be32(0), []byte{0x7e, 0, 0, 0}))),
		"6in4-carrying-ipv4":     ethf(etherTypeIPv4, outer4(t, layers.IPProtocolIPv6, inner4(t))),
		"gre-ipv6-carrying-ipv4": ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, etherTypeIPv6), inner4(t)))),
		"wlan-protected":         ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(0, greAruba), []byte{0x88, 0x41}, make([]byte, 40)))),
		"teredo-not-ipv6":        ethf(etherTypeIPv4, udp4(t, 3544, 40000, make([]byte, 40))),
		"erspan-version-15":      ethf(etherTypeIPv4, outer4(t, layers.IPProtocolGRE, cat(gre(greS, greERSPAN, be32(5)), []byte{0xf0}, make([]byte, 40)))),
	}
}

// A tunnel whose inner packet does not decode leaves the outer packet.
func TestTunnelFallsBackToOuter(t *testing.T) {
	for name, frame := range fallbackCases(t) {
		var d Decoder
		var p Packet
		rec := Record{LinkType: layers.LinkTypeEthernet, Data: frame, OrigLen: len(frame)}
		if sk := d.Decode(&rec, &p); sk != SkipNone || p.Src.String() != "192.0.2.1" || p.Encap != 0 || p.TCPHeader != nil {
			t.Errorf("%s: %v, %v > %v, encapsulations %q; want the outer packet", name, sk, p.Src, p.Dst, p.Encap)
		}
	}
}

// Wireshark reads no header past IPv6's mobility header (it carries none)
// nor past HIP's; it does past shim6's.
func TestIPv6TerminalHeaders(t *testing.T) {
	udp := serialize(t, ip4("10.0.0.1", "10.0.0.2", layers.IPProtocolUDP), &layers.UDP{SrcPort: 1, DstPort: 2})[20:]
	for next, want := range map[layers.IPProtocol]uint8{135: 135, 139: 139, 140: 17} {
		frame := ethf(etherTypeIPv6, outer6(t, next, cat([]byte{17, 0, 0, 0, 0, 0, 0, 0}, udp)))
		var d Decoder
		var p Packet
		rec := Record{LinkType: layers.LinkTypeEthernet, Data: frame, OrigLen: len(frame)}
		if sk := d.Decode(&rec, &p); sk != SkipNone || p.Proto != want || p.HasPorts != (want == 17) {
			t.Errorf("next header %d: %v, protocol %d, ports %v; want protocol %d", next, sk, p.Proto, p.HasPorts, want)
		}
	}
}

// Nesting is bounded: a frame of GRE in GRE a thousand deep decodes to
// the depth limit, not to the end (and without exhausting the stack).
func TestTunnelDepthBounded(t *testing.T) {
	b := inner4(t)
	for range 1000 {
		b = cat(be32(0x45000000|uint32(20+4+len(b))&0xffff), be32(0), []byte{64, 47, 0, 0}, []byte{192, 0, 2, 1}, []byte{192, 0, 2, 2}, gre(0, etherTypeIPv4), b)
	}
	var d Decoder
	var p Packet
	rec := Record{LinkType: layers.LinkTypeRaw, Data: b, OrigLen: len(b)}
	if sk := d.Decode(&rec, &p); sk != SkipNone || p.Proto != uint8(layers.IPProtocolGRE) || p.TCPHeader != nil {
		t.Errorf("%v: protocol %d; want the GRE packet at the depth limit", sk, p.Proto)
	}
}

// Decoding an encapsulated frame allocates nothing.
func TestDecodeAllocations(t *testing.T) {
	for _, c := range encapCases(t) {
		var d Decoder
		var p Packet
		rec := Record{LinkType: c.lt, Data: c.frame, OrigLen: len(c.frame)}
		if n := testing.AllocsPerRun(50, func() { d.Decode(&rec, &p) }); n != 0 {
			t.Errorf("%s: %.0f allocations per frame", c.name, n)
		}
	}
}

// encapFiles writes the cases to one capture per link type.
func encapFiles(t testing.TB) map[layers.LinkType][]byte {
	byLT := map[layers.LinkType][]frame{}
	var order []layers.LinkType
	for _, c := range encapCases(t) {
		if byLT[c.lt] == nil {
			order = append(order, c.lt)
		}
		byLT[c.lt] = append(byLT[c.lt], whole(c.frame))
	}
	files := map[layers.LinkType][]byte{}
	for _, lt := range order {
		files[lt] = pcapOf(lt, byLT[lt]...)
	}
	return files
}

// The same connection through two tunnels is one connection, as for
// Wireshark (tcp.stream): the key is the innermost addresses and ports.
func TestTunnelFlowKey(t *testing.T) {
	file := tunnelFlowFile(t)
	var keys []FlowKey
	_, err := Scan(bytes.NewReader(file), ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
		keys = append(keys, FlowKey{Src: p.Src, Dst: p.Dst, SrcPort: p.SrcPort, DstPort: p.DstPort, Proto: p.Proto})
	})
	if err != nil || len(keys) != 3 || keys[0] != keys[1] || keys[1] != keys[2] {
		t.Errorf("keys %v, %v; want the inner connection's three times", keys, err)
	}
}

func tunnelFlowFile(t testing.TB) []byte {
	in := serialize(t, ip4("10.1.0.1", "10.1.0.2", layers.IPProtocolTCP), tcpSeg(1000, 80, 1, false), payload(100))
	via := func(outerSrc string, vni byte) []byte {
		b := serialize(t, ethL(layers.EthernetTypeIPv4), ip4(outerSrc, "192.0.2.100", layers.IPProtocolUDP),
			&layers.UDP{SrcPort: 50000, DstPort: 4789}, gopacket.Payload(cat([]byte{8, 0, 0, 0, 0, 0, vni, 0}, ethf(etherTypeIPv4, in))))
		return b
	}
	return pcapOf(layers.LinkTypeEthernet, whole(via("192.0.2.1", 1)), whole(via("192.0.2.2", 1)), whole(via("192.0.2.1", 2)))
}

// FuzzDecode feeds frames of every link type straight to the decoder,
// seeded with each encapsulation.
func FuzzDecode(f *testing.F) {
	for _, c := range encapCases(f) {
		f.Add(uint16(c.lt), c.frame, len(c.frame))
	}
	// pktmon's Wi-Fi copy under an Ethernet label (wifiAsEthernet)
	w := wifiCopy(eth(tcp4(f, "10.5.0.1", "10.5.0.2", 1, 2, 0, 0)), false, 1)
	f.Add(uint16(layers.LinkTypeEthernet), w, len(w))
	f.Fuzz(func(t *testing.T, lt uint16, data []byte, orig int) {
		var d Decoder
		var p Packet
		rec := Record{Frame: 1, LinkType: layers.LinkType(lt), Data: data, OrigLen: orig}
		if sk := d.Decode(&rec, &p); sk == SkipNone {
			if !p.Src.IsValid() || !p.Dst.IsValid() || p.Src.BitLen() != p.Dst.BitLen() {
				t.Fatalf("decoded without addresses: %+v", p)
			}
			if p.TCPHeader != nil && p.TCPPayloadLen < 0 {
				t.Fatalf("negative TCP payload length %d", p.TCPPayloadLen)
			}
		}
	})
}

// BenchmarkDecode: one frame of each encapsulation and link type.
func BenchmarkDecode(b *testing.B) {
	for _, c := range encapCases(b) {
		b.Run(c.name, func(b *testing.B) {
			var d Decoder
			var p Packet
			rec := Record{LinkType: c.lt, Data: c.frame, OrigLen: len(c.frame)}
			b.ReportAllocs()
			for b.Loop() {
				d.Decode(&rec, &p)
			}
		})
	}
}
