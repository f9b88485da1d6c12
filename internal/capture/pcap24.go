package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/gopacket/gopacket/layers"
)

// pcap24 reads the records of a pcap file of format version 2.4 (the
// one every current writer produces) in place: each record's data is a
// slice of the read buffer (Reader.br), not a copy. pcapgo reads the file
// header (and refuses what it does not accept); its record reader copied
// every record from the buffer into one of its own, which cost a tenth of
// the analysis of a long capture. The checks are pcapgo's, with the same
// words: a captured length above the snap length (or libpcap's largest,
// whichever is larger) is corrupt, and a record that claims fewer bytes
// on the wire than it holds is read whole, as tshark reads it, up to
// maxPcapRecord.
type pcap24 struct {
	// big: the file's words are big-endian. A flag, not a
	// binary.ByteOrder: four calls through the interface for each
	// record were 2% of all of pcap tcp's instructions.
	big    bool
	factor uint32 // to nanoseconds: 1000 (µs magic) or 1 (ns magic)
	// win is what the read buffer held when last looked at, of which the
	// records read since take used bytes (not yet discarded from it):
	// records are cut from it with no call into bufio, whose Peek, Peek
	// and Discard for each record were a tenth of pcap tcp's
	// instructions. Reader.Pos counts used.
	win      []byte
	used     int
	snaplen  uint32
	linkType layers.LinkType
}

// newPcap24 reads what pcap24 needs from the 24-byte file header h, whose
// magic has been checked (pcapgo checks the rest, and sets linkType).
func newPcap24(h []byte) *pcap24 {
	p := &pcap24{factor: 1000}
	if m := binary.BigEndian.Uint32(h); m == magicPcapUs || m == magicPcapNs {
		p.big = true
	}
	if p.u32(h) == magicPcapNs {
		p.factor = 1
	}
	p.snaplen = p.u32(h[16:])
	return p
}

// u32 reads a word of the file's byte order.
func (p *pcap24) u32(b []byte) uint32 {
	v := binary.LittleEndian.Uint32(b)
	if p.big {
		v = bits.ReverseBytes32(v)
	}
	return v
}

// maxCapLen is the longest record taken (pcapgo's rule): the snap length,
// or libpcap's largest snap length if the file's is smaller, since
// writers that do not truncate to the length they declare exist.
func (p *pcap24) maxCapLen() uint32 { return max(p.snaplen, maxPcapRecord) }

// nextPcap24 reads the record at start.
func (r *Reader) nextPcap24(rec *Record, start int64) error {
	p := r.fast
	if w := p.win[p.used:]; len(w) >= 16 {
		incl, orig := p.u32(w[8:]), p.u32(w[12:])
		if n := 16 + int(incl); incl <= p.maxCapLen() && (incl <= orig || incl <= maxPcapRecord) && n <= len(w) {
			p.used += n
			r.record(rec, start, p.u32(w), p.u32(w[4:]), incl, orig, w[16:n:n])
			return nil
		}
	}
	// Past the window, or a record it does not hold whole (or a corrupt
	// one, which the checks below report): from the buffer.
	_, _ = r.br.Discard(p.used)
	p.win, p.used = nil, 0
	if err := r.nextPcap24Buffered(rec, start); err != nil {
		return err
	}
	// The bytes buffered now, without reading more (Peek does not fill
	// below what is buffered), cut the next records.
	p.win, _ = r.br.Peek(r.br.Buffered())
	return nil
}

// nextPcap24Buffered reads the record at start through the read buffer.
func (r *Reader) nextPcap24Buffered(rec *Record, start int64) error {
	p := r.fast
	h, err := r.br.Peek(16)
	if err != nil {
		if fe := r.failed(start); fe != nil {
			return fe
		}
		if len(h) == 0 && err == io.EOF {
			return io.EOF
		}
		return &FormatError{Offset: start, Msg: "record header or data ends early", Truncated: true}
	}
	sec, frac := p.u32(h), p.u32(h[4:])
	incl, orig := p.u32(h[8:]), p.u32(h[12:])
	if incl > p.maxCapLen() {
		return &FormatError{Offset: start, Msg: fmt.Sprintf("corrupt record: capture length exceeds snap length: %d > %d", incl, p.snaplen)}
	}
	if incl > orig && incl > maxPcapRecord {
		return &FormatError{Offset: start, Msg: fmt.Sprintf("corrupt record: capture length exceeds original packet length: %d > %d", incl, orig)}
	}
	var data []byte
	if n := 16 + int(incl); n <= r.br.Size() {
		b, err := r.br.Peek(n)
		if err != nil {
			if fe := r.failed(start); fe != nil {
				return fe
			}
			return &FormatError{Offset: start, Msg: "record header or data ends early", Truncated: true}
		}
		data = b[16:n:n]
		_, _ = r.br.Discard(n)
	} else {
		// Above the buffer (a snap length beyond libpcap's): read in
		// chunks, the slice growing with the bytes that are really
		// there, so that a length in a small file cannot make the
		// reader allocate gigabytes.
		_, _ = r.br.Discard(16)
		var buf bytes.Buffer
		buf.Grow(maxPcapRecord)
		if m, err := io.CopyN(&buf, r.br, int64(incl)); err != nil || m < int64(incl) {
			if fe := r.failed(start); fe != nil {
				return fe
			}
			return &FormatError{Offset: start, Msg: "record header or data ends early", Truncated: true}
		}
		r.long = buf.Bytes()
		data = r.long
	}
	r.record(rec, start, sec, frac, incl, orig, data)
	return nil
}

// record fills rec with the record at start whose header holds sec,
// frac, incl and orig, and whose bytes are data.
func (r *Reader) record(rec *Record, start int64, sec, frac, incl, orig uint32, data []byte) {
	p := r.fast
	r.frame++
	// pcapgo's arithmetic: the fraction times the factor in 32 bits.
	ns := int64(sec)*1e9 + int64(frac*p.factor)
	// Field by field, not *rec = Record{...}: the literal was built on
	// the stack in small stores and copied in 16-byte moves, where the
	// profile of a long capture put a fifth of its samples (the measured
	// gain is smaller: about 3% of the wall time of latlab pcap tcp).
	rec.Frame, rec.Offset, rec.TimeNs, rec.CapLen, rec.OrigLen = r.frame, start, ns, int(incl), int(orig)
	rec.LinkType, rec.Data, rec.StartNs = p.linkType, data, 0
	rec.Iface, rec.Comments, rec.PacketID, rec.HasPacketID = 0, nil, 0, false
}
