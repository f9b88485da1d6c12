package tcpflow

import (
	"encoding/binary"

	"github.com/latlab/latlab/internal/capture"
)

// FromCapture fills s from a decoded packet; false when the packet is not
// an analysable TCP segment (not TCP, an IP fragment that does not complete
// its datagram, or a TCP header that was not captured whole).
func FromCapture(rec *capture.Record, p *capture.Packet, s *Segment) bool {
	if p.TCPHeader == nil || p.Fragment && !p.Reassembled {
		return false
	}
	h := p.TCPHeader
	*s = Segment{
		Frame: rec.Frame, TimeNs: rec.TimeNs,
		Src: p.Src, Dst: p.Dst, SrcPort: p.SrcPort, DstPort: p.DstPort,
		Seq: binary.BigEndian.Uint32(h[4:8]), Ack: binary.BigEndian.Uint32(h[8:12]),
		Flags:  uint16(h[13]) | uint16(h[12]&1)<<8,
		Window: binary.BigEndian.Uint16(h[14:16]),
		Len:    p.TCPPayloadLen,
	}
	if len(h) > 20 {
		s.Options = h[20:]
	}
	return true
}
