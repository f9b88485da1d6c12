package capture

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Skip says why a frame was not decoded down to its IP header. Its
// String, the reason as reports write it, is each constant's line
// comment (skip_string.go).
type Skip uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Skip -linecomment -output=skip_string.go

// Reasons a frame is not analysed.
const (
	SkipNone Skip = iota //
	// SkipLinkType: a link type latlab does not decode.
	SkipLinkType // unsupported link type
	// SkipNonIP: ARP, LLDP, IPX, ...: not IPv4 or IPv6.
	SkipNonIP // not IP
	// SkipMalformed: a header that contradicts itself.
	SkipMalformed // malformed
	// SkipSnaplenLink: cut (by the snap length) before the IP header ends.
	SkipSnaplenLink // cut before the IP header ends
	// SkipWiFiAsEthernet: not IP as Ethernet (whatever else it would be
	// skipped as), but a Native 802.11 data frame carrying IP
	// (wifiAsEthernet).
	SkipWiFiAsEthernet // 802.11 under an Ethernet label
)

// Packet is what the analyses need from one frame, decoded in place
// (no allocation per packet). Slices point into the record's data.
//
// In a tunnel (Encap says which) the addresses, ports and lengths are the
// innermost IP packet's: Wireshark keys its conversations (tcp.stream) by
// the innermost addresses and ports alone, so the same connection seen in
// two tunnels is one connection for both tools.
type Packet struct {
	Src, Dst netip.Addr
	// SrcDst is the bytes of Src and Dst in the IP header they were read
	// from: 8 (IPv4) or 32 (IPv6). A reader that takes an address as
	// words reads them in place (tcpflow's connection key): through
	// netip.Addr each took a check, a copy and a byte swap.
	SrcDst  []byte
	Proto   uint8 // IP protocol of the transport header (after IPv6 extension headers)
	TOS     uint8 // IPv4 TOS / IPv6 traffic class: DSCP<<2 | ECN
	IPLen   int   // IP packet length from the IP header (the bytes on the wire above the link layer)
	VLAN    uint16
	HasVLAN bool
	// Encap lists the encapsulations crossed to reach the IP header that
	// Src and Dst come from.
	Encap Encap

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

	// IP is the captured outermost IP packet (header onwards), for
	// duplicate detection.
	IP []byte
}

// maxDepth bounds the encapsulations decoded inside one frame (an IP
// tunnel, a GRE or UDP tunnel header, an MPLS stack, ...): real captures
// nest two or three, a hostile one could nest a thousand.
const maxDepth = 8

// Decoder decodes frames. It reuses its layer structs: not safe for
// concurrent use, and a Packet is valid until the next Decode.
type Decoder struct {
	loop  layers.Loopback
	gre   layers.GRE
	depth int
	frag  reassembler
	// lastFrame and now are the frame number and capture time of the
	// frame being decoded.
	lastFrame int
	now       int64
}

var nofb = gopacket.NilDecodeFeedback

// EtherTypes and link types decoded beyond what gopacket names.
const (
	etherTypeIPv4       = 0x0800
	etherTypeIPv6       = 0x86dd
	etherTypeVLAN       = 0x8100
	etherTypeQinQ       = 0x88a8
	etherTypeQinQOld    = 0x9100 // pre-802.1ad stacked tags, still common
	etherTypeMPLS       = 0x8847
	etherTypeMPLSMc     = 0x8848
	etherTypePPPoES     = 0x8864
	etherTypeTEB        = 0x6558 // transparent Ethernet bridging (GRE, Geneve)
	etherTypeNSH        = 0x894f
	etherTypeCMD        = 0x8909 // Cisco MetaData
	linkTypeNFLOG       = 239
	linkTypeIPNET       = 226 // Solaris ipnet
	linkTypeIPoIB       = 242 // IP over InfiniBand
	etherTypeMACsec     = 0x88e5
	etherTypeFabricPath = 0x8903 // Cisco FabricPath: a 2-byte tag, then the frame
	linkTypeRawOpen     = 12     // LINKTYPE_RAW's DLT value on OpenBSD
	linkTypeRawBSDOS    = 14     // and on BSD/OS
	sllProtoLLC         = 0x0004
	minEtherTypeValue   = 0x0600 // smaller: an 802.3 length, LLC follows
)

// Decode decodes one frame into p.
func (d *Decoder) Decode(rec *Record, p *Packet) Skip {
	*p = Packet{}
	d.depth = 0
	d.frag.next()
	if rec.Frame != 0 {
		// A frame read again (Scan decodes the frames it held back to
		// decide on de-duplication twice) starts the reassembly over, so
		// that the second reading sees what the first did.
		if rec.Frame <= d.lastFrame {
			d.frag.reset()
		}
		d.lastFrame = rec.Frame
	}
	d.now = rec.TimeNs
	b := rec.Data
	// rep is what the frame reports of itself: its length on the wire.
	// Every header decoded takes its bytes off it, so a length field that
	// claims more than the frame has can be capped to what is there.
	rep := max(rec.OrigLen, len(b))
	switch rec.LinkType {
	case layers.LinkTypeEthernet:
		sk := d.ether(b, rep, p)
		if sk != SkipNone && wifiAsEthernet(b) {
			return SkipWiFiAsEthernet
		}
		return sk
	case layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2:
		hl, at := 16, 14 // header length, offset of the protocol field
		if rec.LinkType == layers.LinkTypeLinuxSLL2 {
			hl, at = 20, 0
		}
		if len(b) < hl {
			return SkipSnaplenLink
		}
		et := binary.BigEndian.Uint16(b[at:])
		if et == sllProtoLLC {
			return d.llc(b[hl:], rep-hl, p)
		}
		return d.etherType(et, b[hl:], rep-hl, p)
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, linkTypeRawOpen, linkTypeRawBSDOS:
		return d.ipByVersion(b, rep, p)
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(b) < 4 {
			return SkipSnaplenLink
		}
		if err := d.loop.DecodeFromBytes(b, nofb); err != nil {
			return SkipMalformed
		}
		switch d.loop.Family {
		case layers.ProtocolFamilyIPv4:
			return d.ipv4(b[4:], rep-4, p)
		case layers.ProtocolFamilyIPv6BSD, layers.ProtocolFamilyIPv6FreeBSD, layers.ProtocolFamilyIPv6Darwin, layers.ProtocolFamilyIPv6Linux:
			return d.ipv6(b[4:], rep-4, p)
		}
		return SkipNonIP
	case layers.LinkTypePPP, layers.LinkTypePPP_HDLC:
		return d.ppp(b, rep, p, true)
	case layers.LinkTypePPPEthernet:
		return d.pppoe(b, rep, p)
	case layers.LinkTypeC_HDLC:
		return d.ciscoHDLC(b, rep, p)
	case layers.LinkTypeFDDI:
		return d.fddi(b, rep, p)
	case layers.LinkTypeIEEE802_11:
		return d.wlan(b, rep, p)
	case linkTypeNFLOG:
		return d.nflog(b, rep, p)
	case layers.LinkTypeIEEE80211Radio:
		return d.radiotap(b, rep, p)
	case linkTypeIPNET:
		return d.ipnet(b, rep, p)
	case linkTypeNetMonWLAN:
		return d.netmonWLAN(b, rep, p)
	case linkTypeIPoIB:
		// A 40-byte pseudo-header (the GRH), then the type and 2 reserved bytes.
		if len(b) < 44 {
			return SkipSnaplenLink
		}
		return d.etherType(binary.BigEndian.Uint16(b[40:42]), b[44:], rep-44, p)
	}
	return SkipLinkType
}

// wifiAsEthernet says whether b, a frame of an Ethernet interface that
// does not read as IP over Ethernet (its addresses give a nonsense
// EtherType or 802.3 length), is a Native 802.11 data frame (to or from the
// access point) whose LLC/SNAP header announces IPv4 or IPv6. pktmon logs
// a Wi-Fi adapter's packets so, and `pktmon etl2pcap` writes them under
// its one Ethernet interface all the same (MicrosoftDocs/windowsserverdocs
// issue 6696; a real file of it in testdata/PROVENANCE). tshark reads them
// as Ethernet of an unknown EtherType, not IP, and so does latlab: only
// the reason it gives differs, so that the note says what they are.
func wifiAsEthernet(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	hl := 24
	switch b[0] { // frame control: version 0, type data
	case 0x08: // Data
	case 0x88: // QoS Data: a QoS control field, and HT control when Order is set
		hl += 2
		if b[1]&0x80 != 0 {
			hl += 4
		}
	default:
		return false
	}
	if ds := b[1] & 3; ds != 1 && ds != 2 {
		return false
	}
	if len(b) < hl+8 {
		return false
	}
	s := b[hl:]
	et := binary.BigEndian.Uint16(s[6:8])
	return s[0] == 0xaa && s[1] == 0xaa && s[2] == 0x03 && s[3] == 0 && s[4] == 0 && s[5] == 0 &&
		(et == etherTypeIPv4 || et == etherTypeIPv6)
}

// ether decodes an Ethernet II or 802.3 frame.
func (d *Decoder) ether(b []byte, rep int, p *Packet) Skip {
	if len(b) < 14 {
		return SkipSnaplenLink
	}
	et := binary.BigEndian.Uint16(b[12:14])
	if et < minEtherTypeValue {
		// 802.3: the field is the length of what follows, an LLC header.
		n := int(et)
		b, rep = b[14:], min(rep-14, n)
		if len(b) > n {
			b = b[:n]
		}
		return d.llc(b, rep, p)
	}
	return d.etherType(et, b[14:], rep-14, p)
}

// etherType decodes what an EtherType (or a protocol field that takes
// EtherType values: SLL, GRE, Geneve, SNAP) announces.
func (d *Decoder) etherType(et uint16, b []byte, rep int, p *Packet) Skip {
	// 802.1Q and 802.1ad tags, possibly stacked.
	for i := 0; et == etherTypeVLAN || et == etherTypeQinQ || et == etherTypeQinQOld; i++ {
		if i == 4 {
			return SkipMalformed
		}
		if len(b) < 4 {
			return SkipSnaplenLink
		}
		if !p.HasVLAN {
			p.VLAN, p.HasVLAN = binary.BigEndian.Uint16(b)&0x0fff, true
		}
		et, b, rep = binary.BigEndian.Uint16(b[2:4]), b[4:], rep-4
	}
	switch et {
	case etherTypeIPv4:
		return d.ipv4(b, rep, p)
	case etherTypeIPv6:
		return d.ipv6(b, rep, p)
	}
	if !d.enter() {
		return SkipNonIP
	}
	switch et {
	case etherTypeMPLS, etherTypeMPLSMc:
		return d.mpls(b, rep, p)
	case etherTypePPPoES:
		return d.pppoe(b, rep, p)
	case etherTypeTEB:
		return d.ether(b, rep, p)
	case etherTypeNSH:
		return d.nsh(b, rep, p)
	case etherTypeFabricPath:
		// Wireshark takes the frame inside to end with its own FCS.
		p.Encap |= EncapEthernet
		if len(b) < 2 {
			return SkipSnaplenLink
		}
		return d.ether(b[2:], rep-6, p)
	case etherTypeCMD:
		// Cisco MetaData: the EtherType of what follows, then version,
		// length, options and a security group tag.
		p.Encap |= EncapCMD
		if len(b) < 8 {
			return SkipSnaplenLink
		}
		return d.etherType(binary.BigEndian.Uint16(b), b[8:], rep-8, p)
	}
	return SkipNonIP
}

// enter counts one more encapsulation; false when there are too many.
func (d *Decoder) enter() bool {
	if d.depth >= maxDepth {
		return false
	}
	d.depth++
	return true
}

// ipByVersion decodes an IP packet of either version.
func (d *Decoder) ipByVersion(b []byte, rep int, p *Packet) Skip {
	if len(b) < 1 {
		return SkipSnaplenLink
	}
	switch b[0] >> 4 {
	case 4:
		return d.ipv4(b, rep, p)
	case 6:
		return d.ipv6(b, rep, p)
	}
	return SkipNonIP
}

// ipv4 decodes the IP packet b, of which the frame reports rep bytes
// (len(b) were captured). What announces IPv4 announces "IP" to
// Wireshark, which reads an IPv6 header there too: so does ipv4. The
// header is read by hand, with Wireshark's checks: gopacket's layer also
// refuses malformed options, which Wireshark reports and reads past.
func (d *Decoder) ipv4(b []byte, rep int, p *Packet) Skip {
	if len(b) > 0 && b[0]>>4 == 6 {
		return d.ipv6(b, rep, p)
	}
	if len(b) < 20 {
		return SkipSnaplenLink
	}
	if b[0]>>4 != 4 {
		return SkipMalformed
	}
	ihl := int(b[0]&0x0f) * 4
	ipLen := int(binary.BigEndian.Uint16(b[2:4]))
	if ipLen == 0 { // TSO: length not filled in
		ipLen = rep
	}
	if ihl < 20 || ipLen < ihl {
		return SkipMalformed
	}
	if len(b) < ihl {
		return SkipSnaplenLink
	}
	if p.IP == nil {
		p.IP = b[:min(len(b), ipLen)]
	}
	p.Src = netip.AddrFrom4([4]byte(b[12:16]))
	p.Dst = netip.AddrFrom4([4]byte(b[16:20]))
	p.SrcDst = b[12:20]
	p.Proto = b[9]
	p.TOS = b[1]
	p.IPLen = ipLen
	proto := layers.IPProtocol(b[9])
	payload, l4 := b[ihl:min(len(b), ipLen)], min(ipLen, rep)-ihl
	frag := binary.BigEndian.Uint16(b[6:8])
	if mf, off := frag&0x2000 != 0, int(frag&0x1fff)*8; mf || off != 0 {
		p.Fragment = true
		p.FirstFragment = off == 0
		p.Reassembled = false // an outer datagram's, if any, is not this one
		// Reassembled, as by Wireshark, when the fragment was captured
		// whole.
		if ipLen > ihl && len(payload) >= ipLen-ihl {
			k := fragKey{src: p.Src, dst: p.Dst, id: uint32(binary.BigEndian.Uint16(b[4:6])), proto: p.Proto}
			if local(p.Src) || local(p.Dst) {
				// Private addresses repeat across VLANs: Wireshark
				// (4.0) keys their fragments by VLAN too.
				k.vlan = p.VLAN
			}
			if data, ok := d.frag.add(k, off, payload, !mf, d.now); ok {
				p.Reassembled = true
				d.transport(proto, data, len(data), p)
				return SkipNone
			}
		}
		if p.FirstFragment {
			d.decodeL4(payload, l4, p)
		}
		return SkipNone
	}
	d.transport(proto, payload, l4, p)
	return SkipNone
}

// local reports an RFC 1918 private or a link-local IPv4 address.
func local(a netip.Addr) bool { return a.IsPrivate() || a.IsLinkLocalUnicast() }

// ipv6 is ipv4 for IPv6. Its header is read by hand: gopacket's layer
// refuses a payload length of 0 without a jumbo option, which Wireshark
// reads as an empty payload (a TSO capture).
func (d *Decoder) ipv6(b []byte, rep int, p *Packet) Skip {
	if len(b) < 40 {
		return SkipSnaplenLink
	}
	if b[0]>>4 != 6 {
		return SkipMalformed
	}
	next := layers.IPProtocol(b[6])
	ipLen := 40 + int(binary.BigEndian.Uint16(b[4:6]))
	if ipLen == 40 && next == layers.IPProtocolIPv6HopByHop {
		if j, ok := jumboLength(b[40:]); ok {
			ipLen = 40 + j
		}
	}
	if p.IP == nil {
		p.IP = b[:min(len(b), ipLen)]
	}
	p.Src = netip.AddrFrom16([16]byte(b[8:24]))
	p.Dst = netip.AddrFrom16([16]byte(b[24:40]))
	p.SrcDst = b[8:40]
	p.TOS = uint8(binary.BigEndian.Uint16(b[0:2]) >> 4)
	p.IPLen = ipLen
	rest := b[40:min(len(b), ipLen)]
	remaining := min(ipLen, rep) - 40 // reported bytes after the fixed header
	cut := func() Skip {
		p.L4Cut = true
		p.Proto = uint8(next)
		return SkipNone
	}
	reassembled := false
	for range 8 {
		switch next {
		case layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Routing, layers.IPProtocolIPv6Destination,
			140: // shim6: same length layout; Wireshark reads past it, not past mobility (135) or HIP (139)
			if len(rest) < 2 {
				return cut()
			}
			n := (int(rest[1]) + 1) * 8
			if len(rest) < n {
				return cut()
			}
			next, rest, remaining = layers.IPProtocol(rest[0]), rest[n:], remaining-n
			continue
		case layers.IPProtocolIPv6Fragment:
			if len(rest) < 8 {
				return cut()
			}
			off, id := binary.BigEndian.Uint16(rest[2:4]), binary.BigEndian.Uint32(rest[4:8])
			next, rest, remaining = layers.IPProtocol(rest[0]), rest[8:], remaining-8
			if off>>3 == 0 && off&1 == 0 { // atomic fragment: the whole packet
				continue
			}
			if reassembled { // a fragment header in the reassembled payload
				p.Proto, p.L4Malformed = uint8(layers.IPProtocolIPv6Fragment), true
				return SkipNone
			}
			p.Fragment = true
			p.FirstFragment = off>>3 == 0
			p.Reassembled = false // an outer datagram's, if any, is not this one
			if remaining > 0 && ipLen <= rep && len(rest) >= remaining {
				k := fragKey{src: p.Src, dst: p.Dst, id: id, v6: true}
				if data, ok := d.frag.add(k, int(off>>3)*8, rest[:remaining], off&1 == 0, d.now); ok {
					// The headers after the fragment header are in the
					// reassembled payload.
					p.Reassembled, reassembled = true, true
					rest, remaining = data, len(data)
					continue
				}
			}
			p.Proto = uint8(next)
			if p.FirstFragment {
				d.decodeL4(rest, remaining, p)
			}
			return SkipNone
		case layers.IPProtocolAH:
			if len(rest) < 2 {
				return cut()
			}
			n := (int(rest[1]) + 2) * 4
			if len(rest) < n {
				return cut()
			}
			next, rest, remaining = layers.IPProtocol(rest[0]), rest[n:], remaining-n
			continue
		}
		break
	}
	d.transport(next, rest, remaining, p)
	return SkipNone
}

// jumboLength reads the jumbo payload option (RFC 2675) of the
// hop-by-hop header h.
func jumboLength(h []byte) (int, bool) {
	if len(h) < 2 {
		return 0, false
	}
	end := min(len(h), (int(h[1])+1)*8)
	for i := 2; i < end; {
		switch h[i] {
		case 0: // Pad1
			i++
			continue
		case 0xc2:
			if i+6 <= end && h[i+1] == 4 {
				return int(binary.BigEndian.Uint32(h[i+2:])), true
			}
			return 0, false
		}
		if i+1 >= end {
			break
		}
		i += 2 + int(h[i+1])
	}
	return 0, false
}

// transport decodes what follows the IP header(s): a tunnel when the
// protocol or UDP port names one and its inner packet decodes, the
// transport header otherwise. l4len is the length the IP header reports,
// capped to what the frame reports.
func (d *Decoder) transport(proto layers.IPProtocol, b []byte, l4len int, p *Packet) {
	p.Proto = uint8(proto)
	d.decodeL4(b, l4len, p)
	var t tunnel
	switch proto {
	case layers.IPProtocolIPv4:
		t = tunnelIPIP
	case layers.IPProtocolIPv6:
		t = tunnelIPIP
	case layers.IPProtocolGRE:
		t = tunnelGRE
	case ipProtoEthernet:
		t = tunnelEthernet
	case ipProtoPIM:
		t = tunnelPIM
	case layers.IPProtocolUDP:
		if !p.HasPorts || len(b) < 8 {
			return
		}
		t = udpTunnel(p.SrcPort, p.DstPort)
		if t == 0 {
			return
		}
		// The inner packet ends where the UDP length says, if sooner.
		// Wireshark reads no further than a length below 8, but takes a
		// length of 0 over IPv6 for a jumbogram's (RFC 2675).
		ulen := int(binary.BigEndian.Uint16(b[4:6]))
		if ulen == 0 && p.Src.Is6() {
			ulen = l4len
		}
		if ulen < 8 {
			return
		}
		b, l4len = b[8:], min(l4len, ulen)-8
		if len(b) > ulen-8 {
			b = b[:ulen-8]
		}
	default:
		return
	}
	d.tunnel(t, proto, b, l4len, p)
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
		p.HasPorts, p.SrcPort, p.DstPort = true, binary.BigEndian.Uint16(b[0:2]), binary.BigEndian.Uint16(b[2:4])
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
