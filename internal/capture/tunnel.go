package capture

import (
	"encoding/binary"
	"strings"

	"github.com/gopacket/gopacket/layers"
)

// Encap is a set of encapsulations a frame's IP packet was found in.
type Encap uint32

// Encapsulations latlab decodes. VLAN tags are not among them: they are
// reported in Packet.VLAN.
const (
	EncapIPinIP   Encap = 1 << iota // IPv4 or IPv6 in IPv4 or IPv6 (4in4, 6in4, 4in6, 6in6)
	EncapGRE                        // GRE over IP, or over UDP (port 4754)
	EncapERSPAN                     // ERSPAN type I, II or III, in GRE
	EncapVXLAN                      // VXLAN (UDP 4789) or VXLAN-GPE (UDP 4790)
	EncapGeneve                     // Geneve (UDP 6081)
	EncapGTPU                       // GTP user data (UDP 2152; 2123 and 3386 too)
	EncapMPLS                       // an MPLS label stack
	EncapPPPoE                      // a PPPoE session
	EncapPPP                        // PPP (link type, PPPoE, PPTP's GRE)
	EncapLLC                        // 802.2 LLC, with or without SNAP
	EncapWLAN                       // 802.11 data frames (link type 105, Aruba's GRE)
	EncapNSH                        // a network service header (RFC 8300)
	EncapTeredo                     // Teredo (UDP 3544)
	EncapAYIYA                      // AYIYA (UDP 5072)
	EncapCMD                        // Cisco MetaData
	EncapMACsec                     // MACsec (802.1AE) with integrity only, not encrypted
	EncapPIM                        // a PIM register
	EncapEthernet                   // Ethernet in IP (protocol 143), Cisco FabricPath
)

var encapNames = [...]string{"ip-in-ip", "gre", "erspan", "vxlan", "geneve", "gtp-u", "mpls", "pppoe", "ppp", "llc", "802.11",
	"nsh", "teredo", "ayiya", "cmd", "pim", "ethernet"}

// String lists the encapsulations, e.g. "gre+erspan".
func (e Encap) String() string {
	var names []string
	for i, n := range encapNames {
		if e&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, "+")
}

// tunnel is an encapsulation that an IP protocol number or a UDP port
// announces.
type tunnel uint8

const (
	tunnelIPIP tunnel = iota + 1
	tunnelGRE
	tunnelGREUDP
	tunnelVXLAN
	tunnelVXLANGPE
	tunnelGeneve
	tunnelGTP
	tunnelMPLSUDP
	tunnelTeredo
	tunnelAYIYA
	tunnelEthernet
	tunnelPIM
)

// IP protocols that carry a packet.
const (
	ipProtoEthernet = 143 // RFC 8986 (segment routing over IPv6)
	ipProtoPIM      = 103 // a PIM register carries a multicast packet
)

// udpPortTunnel is the tunnel Wireshark decodes on a UDP port by default.
func udpPortTunnel(port uint16) tunnel {
	switch port {
	case 4789:
		return tunnelVXLAN
	case 4790:
		return tunnelVXLANGPE
	case 6081:
		return tunnelGeneve
	case 2152, 2123, 3386: // GTP-U, GTP-C, GTPv0
		return tunnelGTP
	case 4754: // RFC 8086
		return tunnelGREUDP
	case 6635: // RFC 7510
		return tunnelMPLSUDP
	case 3544:
		return tunnelTeredo
	case 5072:
		return tunnelAYIYA
	}
	return 0
}

// udpTunnel is the tunnel a UDP datagram carries: Wireshark offers the
// payload to the lower port's protocol first, then the higher one's.
func udpTunnel(sport, dport uint16) tunnel {
	if t := udpPortTunnel(min(sport, dport)); t != 0 {
		return t
	}
	return udpPortTunnel(max(sport, dport))
}

// tunnel decodes the inner packet b of a tunnel (rep bytes reported). When
// it is not an IP packet that decodes, p keeps the outer packet: that is
// then also the innermost IP header Wireshark shows.
func (d *Decoder) tunnel(t tunnel, proto layers.IPProtocol, b []byte, rep int, p *Packet) {
	if !d.enter() {
		return
	}
	saved := *p
	var sk Skip
	switch t {
	case tunnelIPIP:
		p.Encap |= EncapIPinIP
		if proto == layers.IPProtocolIPv4 {
			sk = d.ipv4(b, rep, p)
		} else {
			sk = d.ipv6(b, rep, p)
		}
	case tunnelGRE, tunnelGREUDP:
		sk = d.greBody(b, rep, p)
	case tunnelVXLAN:
		sk = d.vxlan(b, rep, p)
	case tunnelVXLANGPE:
		sk = d.vxlanGPE(b, rep, p)
	case tunnelGeneve:
		sk = d.geneve(b, rep, p)
	case tunnelGTP:
		sk = d.gtp(b, rep, p)
	case tunnelMPLSUDP:
		sk = d.mpls(b, rep, p)
	case tunnelTeredo:
		sk = d.teredo(b, rep, p)
	case tunnelAYIYA:
		sk = d.ayiya(b, rep, p)
	case tunnelEthernet:
		p.Encap |= EncapEthernet
		sk = d.ether(b, rep, p)
	case tunnelPIM:
		sk = d.pimRegister(b, rep, p)
	}
	if sk != SkipNone {
		*p = saved
	}
}

// GRE protocol types that are not EtherTypes of what follows.
const (
	greERSPAN  = 0x88be // ERSPAN type I (no sequence number) or II
	greERSPAN3 = 0x22eb
	greWCCP    = 0x883e
	grePPP     = 0x880b // PPTP's enhanced GRE
	greAruba   = 0x8200 // 0x8200-0x8370 in steps of 0x10: Aruba's 802.11 frames
)

// greBody decodes a GRE header and what it carries.
func (d *Decoder) greBody(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapGRE
	if len(b) < 4 {
		return SkipSnaplenLink
	}
	if err := d.gre.DecodeFromBytes(b, nofb); err != nil {
		return SkipMalformed
	}
	hl := len(d.gre.Contents)
	b, rep = b[hl:], rep-hl
	proto := uint16(d.gre.Protocol)
	switch {
	case proto == greERSPAN && !d.gre.SeqPresent: // type I: no header
		p.Encap |= EncapERSPAN
		return d.ether(b, rep, p)
	case proto == greERSPAN, proto == greERSPAN3:
		p.Encap |= EncapERSPAN
		if len(b) < 2 {
			return SkipSnaplenLink
		}
		// The version field says which header follows.
		switch b[0] >> 4 {
		case 1: // type II
			hl = 8
		case 2: // type III, with an optional platform-specific subheader
			if len(b) < 12 {
				return SkipSnaplenLink
			}
			hl = 12
			if b[11]&1 != 0 {
				hl += 8
			}
		default:
			return SkipNonIP
		}
		if len(b) < hl {
			return SkipSnaplenLink
		}
		return d.ether(b[hl:], rep-hl, p)
	case proto == greWCCP:
		// A WCCPv2 redirect header, unless an IPv4 header follows at once.
		if len(b) > 0 && b[0]>>4 != 4 {
			if len(b) < 4 {
				return SkipSnaplenLink
			}
			b, rep = b[4:], rep-4
		}
		return d.ipv4(b, rep, p)
	case proto == grePPP:
		return d.ppp(b, rep, p, true)
	case proto >= greAruba && proto <= 0x8370 && proto&0xf == 0:
		return d.wlan(b, rep, p)
	}
	return d.etherType(proto, b, rep, p)
}

// vxlan decodes a VXLAN header (RFC 7348) and the Ethernet frame after it.
func (d *Decoder) vxlan(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapVXLAN
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	return d.ether(b[8:], rep-8, p)
}

// vxlanGPE decodes a VXLAN-GPE header: its next-protocol field says what
// follows.
func (d *Decoder) vxlanGPE(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapVXLAN
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	switch b[3] {
	case 1:
		return d.ipv4(b[8:], rep-8, p)
	case 2:
		return d.ipv6(b[8:], rep-8, p)
	case 3:
		return d.ether(b[8:], rep-8, p)
	case 4:
		return d.nsh(b[8:], rep-8, p)
	}
	return SkipNonIP
}

// nsh decodes a network service header (RFC 8300) and what its
// next-protocol field announces.
func (d *Decoder) nsh(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapNSH
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	hl := int(b[1]&0x3f) * 4
	if hl < 8 {
		return SkipMalformed
	}
	if len(b) < hl {
		return SkipSnaplenLink
	}
	next := b[3]
	b, rep = b[hl:], rep-hl
	switch next {
	case 1:
		return d.ipv4(b, rep, p)
	case 2:
		return d.ipv6(b, rep, p)
	case 3:
		return d.ether(b, rep, p)
	}
	return SkipNonIP
}

// geneve decodes a Geneve header (RFC 8926) with its options, which
// gopacket's layer would copy one allocation each.
func (d *Decoder) geneve(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapGeneve
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	hl := 8 + int(b[0]&0x3f)*4
	if len(b) < hl {
		return SkipSnaplenLink
	}
	return d.etherType(binary.BigEndian.Uint16(b[2:4]), b[hl:], rep-hl, p)
}

// gtp decodes a GTP header and, for user data (a T-PDU), the IP packet
// it carries: GTPv1-U (3GPP TS 29.281) or GTPv0 (TS 09.60, a fixed 20-byte
// header). gopacket's layer reads only version 1, allocates for each
// extension header and refuses a packet cut by the snap length.
func (d *Decoder) gtp(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapGTPU
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	if b[0]&0x10 == 0 || b[1] != 0xff { // GTP' (not GTP), or not user data
		return SkipNonIP
	}
	var hl int
	switch b[0] >> 5 {
	case 0:
		hl = 20
	case 1:
		hl = 8
		if b[0]&0x07 != 0 { // sequence number, N-PDU number or extension headers
			hl = 12
			if len(b) < hl {
				return SkipSnaplenLink
			}
			for next := b[11]; next != 0; {
				if len(b) < hl+1 {
					return SkipSnaplenLink
				}
				n := int(b[hl]) * 4
				if n == 0 {
					return SkipMalformed
				}
				if len(b) < hl+n {
					return SkipSnaplenLink
				}
				next = b[hl+n-1]
				hl += n
			}
		}
	default:
		return SkipNonIP
	}
	if len(b) < hl+1 {
		return SkipSnaplenLink
	}
	b, rep = b[hl:], rep-hl
	// What Wireshark takes for IP: an IPv4 header of 20 to 56 bytes, or
	// anything that starts like IPv6.
	switch {
	case b[0] >= 0x45 && b[0] <= 0x4e:
		return d.ipv4(b, rep, p)
	case b[0]>>4 == 6:
		return d.ipv6(b, rep, p)
	}
	return SkipNonIP
}

// teredo decodes Teredo (RFC 4380): optional authentication and origin
// indication headers, then IPv6.
func (d *Decoder) teredo(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapTeredo
	if len(b) >= 4 && b[0] == 0 && b[1] == 1 { // authentication
		n := 4 + int(b[2]) + int(b[3]) + 9
		if len(b) < n {
			return SkipSnaplenLink
		}
		b, rep = b[n:], rep-n
	}
	if len(b) >= 2 && b[0] == 0 && b[1] == 0 { // origin indication
		if len(b) < 8 {
			return SkipSnaplenLink
		}
		b, rep = b[8:], rep-8
	}
	return d.ipv6(b, rep, p)
}

// ayiya decodes AYIYA ("anything in anything"): a header with an
// identity and a signature, then, for a forwarded packet, what its
// next-header field names.
func (d *Decoder) ayiya(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapAYIYA
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	if b[2]&0x0f != 1 { // not a forwarded packet
		return SkipNonIP
	}
	hl := 8 + 1<<(b[0]>>4) + int(b[1]>>4)*4
	if len(b) < hl {
		return SkipSnaplenLink
	}
	switch layers.IPProtocol(b[3]) {
	case layers.IPProtocolIPv4:
		return d.ipv4(b[hl:], rep-hl, p)
	case layers.IPProtocolIPv6:
		return d.ipv6(b[hl:], rep-hl, p)
	}
	return SkipNonIP
}

// mpls decodes an MPLS label stack and the IP packet after it, told apart
// by its version nibble as Wireshark does.
func (d *Decoder) mpls(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapMPLS
	for i := 0; ; i++ {
		if i == 16 {
			return SkipMalformed
		}
		if len(b) < 4 {
			return SkipSnaplenLink
		}
		bottom := b[2]&1 != 0
		b, rep = b[4:], rep-4
		if bottom {
			break
		}
	}
	return d.ipByVersion(b, rep, p)
}

// pppoe decodes a PPPoE session header (RFC 2516) and the PPP frame in
// it, which ends where the header's length says.
func (d *Decoder) pppoe(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapPPPoE
	if len(b) < 6 {
		return SkipSnaplenLink
	}
	if b[1] != 0 { // a discovery packet, not session data
		return SkipNonIP
	}
	n := int(binary.BigEndian.Uint16(b[4:6]))
	b, rep = b[6:], min(rep-6, n)
	if len(b) > n {
		b = b[:n]
	}
	return d.ppp(b, rep, p, false)
}

// PPP protocol numbers.
const (
	pppIPv4 = 0x0021
	pppIPv6 = 0x0057
	pppMPLS = 0x0281
)

// ppp decodes a PPP frame: with hdlc, the HDLC-like address and control
// bytes (ff 03) that may precede it; then the protocol field, one byte
// long when compressed (odd first byte).
func (d *Decoder) ppp(b []byte, rep int, p *Packet, hdlc bool) Skip {
	p.Encap |= EncapPPP
	if hdlc && len(b) >= 2 && b[0] == 0xff && b[1] == 0x03 {
		b, rep = b[2:], rep-2
	}
	if len(b) < 1 {
		return SkipSnaplenLink
	}
	proto, n := uint16(b[0]), 1
	if b[0]&1 == 0 {
		if len(b) < 2 {
			return SkipSnaplenLink
		}
		proto, n = binary.BigEndian.Uint16(b), 2
	}
	b, rep = b[n:], rep-n
	switch proto {
	case pppIPv4:
		return d.ipv4(b, rep, p)
	case pppIPv6:
		return d.ipv6(b, rep, p)
	case pppMPLS:
		if !d.enter() {
			return SkipNonIP
		}
		return d.mpls(b, rep, p)
	}
	return SkipNonIP
}

// LLC service access points.
const (
	sapSNAP = 0xaa
	sapIP   = 0x06
)

// llc decodes an 802.2 LLC header: SNAP with an EtherType, or the IP SAP.
func (d *Decoder) llc(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapLLC
	if len(b) < 3 {
		return SkipSnaplenLink
	}
	dsap, ssap, ctrl := b[0]&0xfe, b[1]&0xfe, b[2]
	hl := 3
	if ctrl&3 != 3 { // I and S frames have a 2-byte control field
		hl = 4
	}
	if dsap == sapSNAP && ssap == sapSNAP && hl == 3 {
		if len(b) < 8 {
			return SkipSnaplenLink
		}
		// OUI 00-00-00 (RFC 1042) or 00-00-f8 (802.1H): an EtherType.
		if b[3] != 0 || b[4] != 0 || (b[5] != 0 && b[5] != 0xf8) {
			return SkipNonIP
		}
		return d.etherType(binary.BigEndian.Uint16(b[6:8]), b[8:], rep-8, p)
	}
	if dsap == sapIP && ssap == sapIP {
		if len(b) < hl {
			return SkipSnaplenLink
		}
		return d.ipv4(b[hl:], rep-hl, p)
	}
	return SkipNonIP
}

// ciscoHDLC decodes Cisco HDLC (link type 104): address, control and an
// EtherType.
func (d *Decoder) ciscoHDLC(b []byte, rep int, p *Packet) Skip {
	if len(b) < 4 {
		return SkipSnaplenLink
	}
	return d.etherType(binary.BigEndian.Uint16(b[2:4]), b[4:], rep-4, p)
}

// fddi decodes an FDDI frame (link type 10): frame control and two
// addresses, then LLC.
func (d *Decoder) fddi(b []byte, rep int, p *Packet) Skip {
	if len(b) < 13 {
		return SkipSnaplenLink
	}
	return d.llc(b[13:], rep-13, p)
}

// wlan decodes an 802.11 data frame without FCS, as Wireshark reads link
// type 105 and Aruba's GRE, down to its LLC header. Encrypted frames are
// not decoded; of an A-MSDU (several packets in one frame) only the first.
func (d *Decoder) wlan(b []byte, rep int, p *Packet) Skip { return d.wlanFrame(b, rep, p, false) }

// wlanFrame is wlan; pad: the header is padded to a multiple of 4 bytes.
func (d *Decoder) wlanFrame(b []byte, rep int, p *Packet, pad bool) Skip {
	p.Encap |= EncapWLAN
	if len(b) < 24 {
		return SkipSnaplenLink
	}
	fc0, fc1 := b[0], b[1]
	if fc0&3 != 0 {
		return SkipMalformed // protocol version 0 is the only one
	}
	if (fc0>>2)&3 != 2 { // management or control frame
		return SkipNonIP
	}
	sub := fc0 >> 4
	if sub&4 != 0 || fc1&0x40 != 0 { // no data (null function), or protected
		return SkipNonIP
	}
	hl := 24
	if fc1&3 == 3 { // to and from the distribution system: a fourth address
		hl += 6
	}
	amsdu := false
	if sub&8 != 0 { // QoS data: a QoS control field
		hl += 2
		if len(b) < hl {
			return SkipSnaplenLink
		}
		amsdu = b[hl-2]&0x80 != 0
		if fc1&0x80 != 0 { // +HTC: an HT control field
			hl += 4
		}
	}
	if pad {
		hl = (hl + 3) &^ 3
	}
	if len(b) < hl {
		return SkipSnaplenLink
	}
	b, rep = b[hl:], rep-hl
	if amsdu { // the first subframe: two addresses and its length
		if len(b) < 14 {
			return SkipSnaplenLink
		}
		n := int(binary.BigEndian.Uint16(b[12:14]))
		b, rep = b[14:], min(rep-14, n)
		if len(b) > n {
			b = b[:n]
		}
	}
	return d.llc(b, rep, p)
}

// NFLOG (link type 239): a 4-byte header, then type-length-value
// attributes in the byte order of the machine that logged them (Wireshark
// reads them little-endian, as on the machines that write these files).
const (
	nflogPayload = 9 // NFULA_PAYLOAD: the packet
	afInet       = 2
	afInet6      = 10
)

func (d *Decoder) nflog(b []byte, rep int, p *Packet) Skip {
	if len(b) < 4 {
		return SkipSnaplenLink
	}
	family := b[0]
	for off := 4; ; {
		if len(b) < off+4 {
			return SkipSnaplenLink
		}
		n := int(binary.LittleEndian.Uint16(b[off:]))
		typ := binary.LittleEndian.Uint16(b[off+2:]) & 0x7fff
		if n < 4 {
			return SkipMalformed
		}
		if typ == nflogPayload {
			data := b[off+4 : min(off+n, len(b))]
			rep = min(rep-off, n) - 4
			switch family {
			case afInet:
				return d.ipv4(data, rep, p)
			case afInet6:
				return d.ipv6(data, rep, p)
			}
			return SkipNonIP
		}
		off += (n + 3) &^ 3
	}
}

// pimRegister decodes a PIM register message (RFC 7761): the multicast
// packet a router tunnels to the rendezvous point.
func (d *Decoder) pimRegister(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapPIM
	if len(b) < 9 {
		return SkipSnaplenLink
	}
	if b[0] != 0x21 { // version 2, type 1 (register)
		return SkipNonIP
	}
	return d.ipByVersion(b[8:], rep-8, p)
}

// radiotap decodes a radiotap header (link type 127) and the 802.11
// frame after it. Its flags field says whether the 802.11 header is padded
// to a multiple of 4 bytes.
func (d *Decoder) radiotap(b []byte, rep int, p *Packet) Skip {
	if len(b) < 8 {
		return SkipSnaplenLink
	}
	hl := int(binary.LittleEndian.Uint16(b[2:4]))
	if hl < 8 {
		return SkipMalformed
	}
	if len(b) < hl {
		return SkipSnaplenLink
	}
	present := binary.LittleEndian.Uint32(b[4:8])
	off := 8
	for w := present; w&(1<<31) != 0; off += 4 { // more present words
		if off+4 > hl {
			return SkipMalformed
		}
		w = binary.LittleEndian.Uint32(b[off:])
	}
	pad := false
	if present&2 != 0 { // the flags field, after the TSFT's 8 aligned bytes
		if present&1 != 0 {
			off = (off+7)&^7 + 8
		}
		if off >= hl {
			return SkipMalformed
		}
		pad = b[off]&0x20 != 0
	}
	return d.wlanFrame(b[hl:], rep-hl, p, pad)
}

// ipnet decodes Solaris ipnet (link type 226): a 24-byte header with the
// address family and the length of the packet after it.
func (d *Decoder) ipnet(b []byte, rep int, p *Packet) Skip {
	if len(b) < 24 {
		return SkipSnaplenLink
	}
	family, n := b[1], binary.BigEndian.Uint32(b[4:8])
	b, rep = b[24:], rep-24
	if uint64(rep) > uint64(n) {
		rep = int(n)
	}
	if len(b) > rep {
		b = b[:rep]
	}
	switch family {
	case 2:
		return d.ipv4(b, rep, p)
	case 26:
		return d.ipv6(b, rep, p)
	}
	return SkipNonIP
}
