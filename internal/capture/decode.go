package capture

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Skip says why a frame was not decoded down to its IP header.
type Skip uint8

// Reasons a frame is not analysed.
const (
	SkipNone        Skip = iota
	SkipLinkType         // link type latlab does not decode
	SkipNonIP            // ARP, LLDP, IPX, ...: not IPv4 or IPv6
	SkipMalformed        // a header that contradicts itself
	SkipSnaplenLink      // cut (by the snap length) before the IP header ends
)

var skipNames = [...]string{"", "unsupported link type", "not IP", "malformed", "cut before the IP header ends"}

func (s Skip) String() string { return skipNames[s] }

// Packet is what the analyses need from one frame, decoded in place
// (no allocation per packet). Slices point into the record's data.
type Packet struct {
	Src, Dst netip.Addr
	Proto    uint8 // IP protocol of the transport header (after IPv6 extension headers)
	TOS      uint8 // IPv4 TOS / IPv6 traffic class: DSCP<<2 | ECN
	IPLen    int   // IP packet length from the IP header (the bytes on the wire above the link layer)
	VLAN     uint16
	HasVLAN  bool

	// Fragment is set for IP fragments; only the first carries ports.
	Fragment      bool
	FirstFragment bool
	// Reassembled: this fragment completed its datagram, and the
	// transport fields describe the whole datagram, as Wireshark shows it
	// in the frame of the fragment that completes it.
	Reassembled bool

	// Transport: set for TCP and UDP when the header was captured.
	HasPorts         bool
	SrcPort, DstPort uint16
	// TCPHeader is the TCP header with its options (data offset bytes),
	// set when it was captured whole; tcpflow reads its fields in place.
	TCPHeader []byte
	// TCPPayloadLen is the payload length the frame reports: from the IP
	// length, or from the frame's length on the wire when the IP header
	// claims more than the frame has (as Wireshark sizes tcp.len), never
	// from the bytes captured.
	TCPPayloadLen int
	L4Cut         bool // transport header not (fully) captured
	L4Malformed   bool

	// IP is the captured IP packet (header onwards), for duplicate detection.
	IP []byte
}

// Decoder decodes frames. It reuses its layer structs: not safe for
// concurrent use, and a Packet is valid until the next Decode.
type Decoder struct {
	eth  layers.Ethernet
	vlan layers.Dot1Q
	sll  layers.LinuxSLL
	sll2 layers.LinuxSLL2
	loop layers.Loopback
	ip4  layers.IPv4
	ip6  layers.IPv6
	ext  layers.IPv6ExtensionSkipper
	udp  layers.UDP
}

var nofb = gopacket.NilDecodeFeedback

// Decode decodes one frame into p.
func (d *Decoder) Decode(rec *Record, p *Packet) Skip {
	*p = Packet{}
	lt, data := rec.LinkType, rec.Data
	// rep is what the frame reports of itself: its length on the wire.
	// Every header decoded takes its bytes off it, so a length field that
	// claims more than the frame has can be capped to what is there.
	rep := max(rec.OrigLen, len(data))
	var et layers.EthernetType
	var rest []byte
	switch lt {
	case layers.LinkTypeEthernet:
		if len(data) < 14 {
			return SkipSnaplenLink
		}
		if err := d.eth.DecodeFromBytes(data, nofb); err != nil {
			return SkipMalformed
		}
		et, rest = d.eth.EthernetType, d.eth.Payload
	case layers.LinkTypeLinuxSLL:
		if len(data) < 16 {
			return SkipSnaplenLink
		}
		if err := d.sll.DecodeFromBytes(data, nofb); err != nil {
			return SkipMalformed
		}
		et, rest = d.sll.EthernetType, d.sll.Payload
	case layers.LinkTypeLinuxSLL2:
		if len(data) < 20 {
			return SkipSnaplenLink
		}
		if err := d.sll2.DecodeFromBytes(data, nofb); err != nil {
			return SkipMalformed
		}
		et, rest = d.sll2.ProtocolType, d.sll2.Payload
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12, 14:
		if len(data) < 1 {
			return SkipSnaplenLink
		}
		switch data[0] >> 4 {
		case 4:
			et = layers.EthernetTypeIPv4
		case 6:
			et = layers.EthernetTypeIPv6
		default:
			return SkipNonIP
		}
		rest = data
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(data) < 4 {
			return SkipSnaplenLink
		}
		if err := d.loop.DecodeFromBytes(data, nofb); err != nil {
			return SkipMalformed
		}
		switch d.loop.Family {
		case layers.ProtocolFamilyIPv4:
			et = layers.EthernetTypeIPv4
		case layers.ProtocolFamilyIPv6BSD, layers.ProtocolFamilyIPv6FreeBSD, layers.ProtocolFamilyIPv6Darwin, layers.ProtocolFamilyIPv6Linux:
			et = layers.EthernetTypeIPv6
		default:
			return SkipNonIP
		}
		rest = d.loop.Payload
	default:
		return SkipLinkType
	}
	rep -= len(data) - len(rest)
	// 802.1Q and 802.1ad tags, possibly stacked.
	for i := 0; i < 4 && (et == layers.EthernetTypeDot1Q || et == layers.EthernetTypeQinQ); i++ {
		if len(rest) < 4 {
			return SkipSnaplenLink
		}
		if err := d.vlan.DecodeFromBytes(rest, nofb); err != nil {
			return SkipMalformed
		}
		if !p.HasVLAN {
			p.VLAN, p.HasVLAN = d.vlan.VLANIdentifier, true
		}
		et, rest, rep = d.vlan.Type, d.vlan.Payload, rep-4
	}
	switch et {
	case layers.EthernetTypeIPv4:
		return d.decodeIPv4(rest, rep, p)
	case layers.EthernetTypeIPv6:
		return d.decodeIPv6(rest, rep, p)
	}
	return SkipNonIP
}

// decodeIPv4 decodes the IPv4 packet b, of which the frame reports rep
// bytes (len(b) were captured).
func (d *Decoder) decodeIPv4(b []byte, rep int, p *Packet) Skip {
	if len(b) < 20 {
		return SkipSnaplenLink
	}
	if b[0]>>4 != 4 {
		return SkipMalformed
	}
	ihl := int(b[0]&0x0f) * 4
	if len(b) < ihl {
		return SkipSnaplenLink
	}
	if err := d.ip4.DecodeFromBytes(b, nofb); err != nil {
		return SkipMalformed
	}
	p.Src = netip.AddrFrom4([4]byte(b[12:16]))
	p.Dst = netip.AddrFrom4([4]byte(b[16:20]))
	p.Proto = uint8(d.ip4.Protocol)
	p.TOS = d.ip4.TOS
	p.IPLen = int(d.ip4.Length)
	if p.IPLen == 0 || binary.BigEndian.Uint16(b[2:4]) == 0 { // TSO: length not filled in
		p.IPLen = rep
	}
	p.IP = b
	if len(p.IP) > p.IPLen {
		p.IP = p.IP[:p.IPLen]
	}
	if d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0 {
		p.Fragment = true
		p.FirstFragment = d.ip4.FragOffset == 0
		if !p.FirstFragment {
			return SkipNone
		}
	}
	d.decodeL4(d.ip4.Payload, min(p.IPLen, rep)-ihl, p)
	return SkipNone
}

// decodeIPv6 is decodeIPv4 for IPv6.
func (d *Decoder) decodeIPv6(b []byte, rep int, p *Packet) Skip {
	if len(b) < 40 {
		return SkipSnaplenLink
	}
	if b[0]>>4 != 6 {
		return SkipMalformed
	}
	if err := d.ip6.DecodeFromBytes(b, nofb); err != nil {
		return SkipMalformed
	}
	p.Src = netip.AddrFrom16([16]byte(b[8:24]))
	p.Dst = netip.AddrFrom16([16]byte(b[24:40]))
	p.TOS = d.ip6.TrafficClass
	p.IPLen = 40 + int(d.ip6.Length)
	if d.ip6.Length == 0 { // jumbogram or TSO
		p.IPLen = rep
	}
	p.IP = b
	if len(p.IP) > p.IPLen {
		p.IP = p.IP[:p.IPLen]
	}
	next := d.ip6.NextHeader
	rest := d.ip6.Payload
	remaining := min(p.IPLen, rep) - 40 // reported bytes after the fixed header
	if d.ip6.HopByHop != nil {
		next = d.ip6.HopByHop.NextHeader
		remaining -= d.ip6.HopByHop.ActualLength
	}
	for i := 0; i < 8; i++ {
		switch next {
		case layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Routing, layers.IPProtocolIPv6Destination,
			135, 139, 140: // mobility, HIP, shim6: same TLV length layout
			if len(rest) < 2 {
				p.L4Cut = true
				p.Proto = uint8(next)
				return SkipNone
			}
			if err := d.ext.DecodeFromBytes(rest, nofb); err != nil {
				p.L4Cut = true
				p.Proto = uint8(next)
				return SkipNone
			}
			n := len(d.ext.Contents)
			next, rest, remaining = d.ext.NextHeader, rest[n:], remaining-n
			continue
		case layers.IPProtocolIPv6Fragment:
			if len(rest) < 8 {
				p.L4Cut = true
				p.Proto = uint8(next)
				return SkipNone
			}
			off := binary.BigEndian.Uint16(rest[2:4])
			p.Fragment = true
			p.FirstFragment = off>>3 == 0
			if off>>3 == 0 && off&1 == 0 { // atomic fragment: the whole packet
				p.Fragment, p.FirstFragment = false, false
			}
			next, rest, remaining = layers.IPProtocol(rest[0]), rest[8:], remaining-8
			if p.Fragment && !p.FirstFragment {
				p.Proto = uint8(next)
				return SkipNone
			}
			continue
		case layers.IPProtocolAH:
			if len(rest) < 2 {
				p.L4Cut = true
				p.Proto = uint8(next)
				return SkipNone
			}
			n := (int(rest[1]) + 2) * 4
			if len(rest) < n {
				p.L4Cut = true
				p.Proto = uint8(next)
				return SkipNone
			}
			next, rest, remaining = layers.IPProtocol(rest[0]), rest[n:], remaining-n
			continue
		}
		break
	}
	p.Proto = uint8(next)
	d.decodeL4(rest, remaining, p)
	return SkipNone
}

// decodeL4 decodes TCP or UDP; l4len is the transport length the IP header
// reports, capped to what the frame reports (captured bytes may be fewer).
func (d *Decoder) decodeL4(b []byte, l4len int, p *Packet) {
	switch layers.IPProtocol(p.Proto) {
	case layers.IPProtocolTCP:
		// The header is checked here and read in place by tcpflow (its
		// options by tcpflow.ParseOptions): decoding it with gopacket too
		// would parse it twice.
		if len(b) < 20 {
			p.L4Cut = true
			return
		}
		hl := int(b[12]>>4) * 4
		if hl < 20 || hl > l4len {
			p.L4Malformed = true
			return
		}
		if len(b) < hl {
			p.L4Cut = true
			return
		}
		p.TCPHeader = b[:hl]
		p.TCPPayloadLen = l4len - hl
		p.HasPorts, p.SrcPort, p.DstPort = true, binary.BigEndian.Uint16(b[0:2]), binary.BigEndian.Uint16(b[2:4])
	case layers.IPProtocolUDP, layers.IPProtocolUDPLite:
		if len(b) < 8 {
			p.L4Cut = true
			return
		}
		if err := d.udp.DecodeFromBytes(b, nofb); err != nil {
			p.L4Malformed = true
			return
		}
		p.HasPorts, p.SrcPort, p.DstPort = true, uint16(d.udp.SrcPort), uint16(d.udp.DstPort)
	case layers.IPProtocolSCTP:
		if len(b) < 4 {
			p.L4Cut = true
			return
		}
		p.HasPorts, p.SrcPort, p.DstPort = true, binary.BigEndian.Uint16(b[0:2]), binary.BigEndian.Uint16(b[2:4])
	}
}

// ProtoName names an IP protocol number.
func ProtoName(p uint8) string {
	switch p {
	case 6:
		return "tcp"
	case 17:
		return "udp"
	case 1:
		return "icmp"
	case 58:
		return "icmpv6"
	case 132:
		return "sctp"
	case 113:
		return "pgm"
	case 2:
		return "igmp"
	case 47:
		return "gre"
	case 50:
		return "esp"
	}
	return fmt.Sprint(p)
}
