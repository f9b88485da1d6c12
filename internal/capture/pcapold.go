package capture

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/gopacket/gopacket/layers"
)

// pcap files of a format version other than 2.4, which gopacket's pcapgo
// refuses ("Unknown minor version") and Wireshark reads
// (wiretap/libpcap.c): old tcpdump, SunOS and AIX writers. Until 2.3 a
// record header held the length on the wire before the length captured;
// 2.3 swapped them to match BPF's header, though some 2.3 writers kept the
// old order (then the "captured" length exceeds the other); DG/UX's
// tcpdump wrote 543.0 with the old order. The magic says whether time
// stamps are micro- or nanoseconds, as for 2.4 (TShark 4.0 reads them
// so), except in AIX's 2.2 files: nanoseconds behind the microsecond
// magic. Versions after 2.4 are read as 2.4.

// oldPcap reads the records of such a file.
type oldPcap struct {
	order    binary.ByteOrder
	swapped  bool // lengths in the old order
	maybe    bool // 2.3: in the old order when the captured one is larger
	nanos    bool // AIX
	fddiPad  bool // AIX writes 3 bytes of padding before an FDDI frame
	hdr      [16]byte
	buf      []byte
	linkType layers.LinkType
}

// newOldPcap returns the reader of a pcap file whose 24-byte header h
// gives a version other than 2.4, or nil for 2.4 (pcapgo reads it). The
// header's magic has been checked.
func newOldPcap(h []byte) (*oldPcap, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if m := binary.BigEndian.Uint32(h); m == magicPcapUs || m == magicPcapNs {
		order = binary.BigEndian
	}
	major, minor := order.Uint16(h[4:]), order.Uint16(h[6:])
	network := order.Uint32(h[20:])
	o := &oldPcap{order: order, nanos: order.Uint32(h) == magicPcapNs}
	switch {
	case major == 2 && minor < 3, major == 543:
		o.swapped = true
	case major == 2 && minor == 3:
		o.maybe = true
	case major < 2:
		return nil, &FormatError{Offset: 4, Msg: fmt.Sprintf("pcap version %d.%d: versions 2.0 and later are read", major, minor)}
	case major == 2 && minor == 4:
		return nil, nil
	}
	// AIX's libpcap wrote 2.2 files with RFC 1573 interface types
	// instead of link types; Wireshark takes these four values for AIX.
	if major == 2 && minor == 2 && order.Uint32(h) == magicPcapUs {
		aix := map[uint32]layers.LinkType{6: layers.LinkTypeEthernet, 9: linkTypeTokenRing, 15: layers.LinkTypeFDDI, 24: layers.LinkTypeNull}
		if lt, ok := aix[network]; ok {
			o.nanos, o.linkType = true, lt
			o.fddiPad = lt == layers.LinkTypeFDDI
			return o, nil
		}
	}
	o.linkType = layers.LinkType(network & 0xffff)
	return o, nil
}

// nextOld reads a record of an old-format pcap file.
func (r *Reader) nextOld(rec *Record, start int64) error {
	o := r.old
	h := o.hdr[:]
	if n, err := io.ReadFull(r.br, h); err != nil {
		if fe := r.failed(start); fe != nil {
			return fe
		}
		if n == 0 && err == io.EOF {
			return io.EOF
		}
		return &FormatError{Offset: start, Msg: "record header ends early", Truncated: true}
	}
	sec, frac := o.order.Uint32(h), o.order.Uint32(h[4:])
	incl, orig := o.order.Uint32(h[8:]), o.order.Uint32(h[12:])
	if o.swapped || (o.maybe && incl > orig) {
		incl, orig = orig, incl
	}
	if incl > maxPcapRecord {
		return &FormatError{Offset: start, Msg: fmt.Sprintf("corrupt record: %d bytes captured, more than the largest frame read (%d bytes)", incl, maxPcapRecord)}
	}
	if cap(o.buf) < int(incl) {
		o.buf = make([]byte, incl)
	}
	data := o.buf[:incl]
	if _, err := io.ReadFull(r.br, data); err != nil {
		if fe := r.failed(start); fe != nil {
			return fe
		}
		return &FormatError{Offset: start, Msg: "record data ends early", Truncated: true}
	}
	if o.fddiPad {
		if incl < 3 {
			return &FormatError{Offset: start, Msg: fmt.Sprintf("AIX FDDI record of %d bytes, shorter than its 3 bytes of padding", incl)}
		}
		data, orig = data[3:], max(orig, 3)-3
	}
	ns := int64(frac) * 1000
	if o.nanos {
		ns = int64(frac)
	}
	r.frame++
	*rec = Record{Frame: r.frame, Offset: start, TimeNs: int64(sec)*1e9 + ns, CapLen: len(data), OrigLen: int(orig), LinkType: o.linkType, Data: data}
	return nil
}
