package capture

// CAPWAP data channel (RFC 5415 section 4.3, UDP port 5247): the frames a
// wireless access point tunnels to its controller. The header starts
// with a preamble byte (version, and type 1 for DTLS-encrypted
// messages), then three bytes of HLEN (the header length in 4-byte words,
// preamble included), radio id, wireless binding id (WBID) and flags: T
// (the payload is in the binding's native format; else an 802.3 frame),
// F (a fragment), L (the last fragment), W and M (optional wireless and
// radio MAC fields, which HLEN covers) and K (a keep-alive); then the
// fragment id and offset.
//
// As Wireshark decodes it by default (packet-capwap.c): native frames of
// binding 1 are 802.11 with the two frame control bytes swapped, as some
// access points send them (its "Swap Frame Control" preference, on by
// default); native frames of other bindings are not decoded; keep-alives
// and DTLS carry no packet. Wireshark reassembles fragments and decodes
// the whole payload in the frame of the last one; latlab does not
// reassemble CAPWAP fragments and counts each as its outer UDP packet.

// CAPWAP header fields.
const (
	capwapTypeDTLS  = 1
	capwapFlagT     = 0x100
	capwapFlagF     = 0x080
	capwapFlagK     = 0x008
	capwapWBID80211 = 1
	capwapMinHeader = 8
)

func (d *Decoder) capwap(b []byte, rep int, p *Packet) Skip {
	p.Encap |= EncapCAPWAP
	if len(b) < 1 {
		return SkipSnaplenLink
	}
	if b[0]&0x0f == capwapTypeDTLS {
		return SkipNonIP
	}
	if len(b) < capwapMinHeader {
		return SkipSnaplenLink
	}
	h := uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	hl := int(h>>19) * 4
	wbid := (h >> 9) & 0x1f
	if hl == 0 {
		return SkipMalformed
	}
	if len(b) < hl {
		return SkipSnaplenLink
	}
	if h&(capwapFlagF|capwapFlagK) != 0 {
		return SkipNonIP
	}
	b, rep = b[hl:], rep-hl
	switch {
	case h&capwapFlagT == 0:
		return d.ether(b, rep, p)
	case wbid == capwapWBID80211:
		return d.wlanFrame(b, rep, p, false, true)
	}
	return SkipNonIP
}
