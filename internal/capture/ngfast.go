package capture

import (
	"encoding/binary"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// ngFast reads the enhanced packet blocks of a pcapng file in place, as
// pcap24 reads pcap records: each block is cut from the read buffer
// (Reader.br) and its packet is a slice of it. pcapgo copied every
// packet through two buffers (the gate's and its own) in reads of its
// header, data, padding and each option: the tables of pcap tcp took
// 38-40 ms for a 30 MB capture as pcapng, 25 ms as pcap, and now take
// 27-30 ms as pcapng (medians of 31 alternating rounds).
//
// Only the common block is read here: an enhanced packet block whose
// interface pcapgo already holds, whole in the buffer, its lengths and
// options as ngGate and pcapgo accept them. Every other block (section
// headers, interfaces, statistics, other packet blocks, anything pcapgo
// or the gate would refuse) is left unread for pcapgo, which reads it as
// before: its records, errors and offsets are pcapgo's. That is sound
// because what pcapgo keeps from one block to the next (the byte order,
// the section's interfaces) changes only at section headers and
// interface blocks, and it reads the next block from wherever the bytes
// it is handed start: at a block boundary, as this reader leaves it
// (the gate's position moved past the blocks read here). What this
// reader computes is what pcapgo computes, in its arithmetic: the time
// stamp from the interface's resolution and offset, the link type of the
// interface, the comments and the last packet id among the options.
type ngFast struct {
	// off: every block goes through pcapgo (tests compare the two).
	off bool
	// broken: pcapgo failed, and may have stopped inside a block: from
	// then on it reads every block, as it did before this reader.
	broken bool
	// win is what the read buffer held when last looked at, of which the
	// blocks read since take used bytes (not yet discarded from it; they
	// are counted in ngGate.pos).
	win  []byte
	used int
	// ifaces are the timing and link type of the interfaces of section
	// (ngGate.sections), filled as packets name them.
	ifaces  []ngIface
	section int
	read    int // blocks read here (tests)
}

// ngIface is what a packet's record takes from its interface, in
// pcapgo's terms: a time stamp ts is ts/second + offset seconds and
// ts%second*up/down nanoseconds.
type ngIface struct {
	known            bool
	second, up, down uint64
	offset           uint64
	linkType         layers.LinkType
}

// newNgIface computes what pcapgo computes from an interface description
// (readInterfaceDescriptor): it refuses resolutions above 2^-63 and
// 10^-63 (and keeps 10^-20 to 10^-63, whose powers wrap in 64 bits).
func newNgIface(in pcapgo.NgInterface) ngIface {
	f := ngIface{known: true, offset: in.TimestampOffset, linkType: in.LinkType, up: 1, down: 1}
	res := in.TimestampResolution
	if res.Binary() {
		f.second = 1 << res.Exponent()
	} else {
		f.second = 1
		for range res.Exponent() {
			f.second *= 10
		}
	}
	if f.second < 1e9 {
		f.up = 1e9 / f.second
	} else {
		f.down = f.second / 1e9
	}
	return f
}

// timeNs is pcapgo's time of time stamp ts as time.Time.UnixNano gives
// it: pcapgo's time.Unix(sec, nsec) carries whole seconds of nsec into sec
// (at 2^-30, nsec reaches 1.07e9), which leaves sec*1e9+nsec as it is,
// wrapping in 64 bits as UnixNano wraps (nsec is never negative).
func (f *ngIface) timeNs(ts uint64) int64 {
	return int64(ts/f.second+f.offset)*1e9 + int64(ts%f.second*f.up/f.down)
}

// ngU32 reads a word in the byte order of the section (big: big-endian).
func ngU32(big bool, b []byte) uint32 {
	if big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func ngU16(big bool, b []byte) uint16 {
	if big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

// EPB option codes that a record keeps (pcapng: opt_comment and
// epb_packetid).
const (
	ngOptComment  = 1
	ngOptPacketID = 5
)

// window returns the unread part of the read buffer if it holds n bytes,
// else nil. It never reads: a read here would take from bufio the error
// that ends the data (Peek returns it once), which pcapgo, reading the
// block through the gate, must meet where it meets it today. pcapgo's
// reading of the block that does not fit fills the buffer again.
func (f *ngFast) window(n int) []byte {
	if w := f.win[f.used:]; len(w) >= n {
		return w
	}
	return nil
}

// refill takes as the window what the read buffer holds after pcapgo has
// read a block (Peek does not fill below what is buffered).
func (f *ngFast) refill(r *Reader) {
	f.win, f.used = nil, 0
	if !f.off && !f.broken {
		f.win, _ = r.br.Peek(r.br.Buffered())
	}
}

// flush discards from the read buffer the blocks read from the window,
// before pcapgo reads from it.
func (f *ngFast) flush(r *Reader) {
	_, _ = r.br.Discard(f.used)
	f.win, f.used = nil, 0
}

// iface returns the interface id of the current section, or nil when
// pcapgo holds no such interface.
func (f *ngFast) iface(r *Reader, id uint32) *ngIface {
	if f.section != r.gate.sections {
		f.ifaces, f.section = f.ifaces[:0], r.gate.sections
	}
	if id >= uint32(len(f.ifaces)) {
		n := r.ng.NInterfaces() // at most maxNgInterfaces
		if id >= uint32(n) {
			return nil
		}
		f.ifaces = append(f.ifaces, make([]ngIface, n-len(f.ifaces))...)
	}
	in := &f.ifaces[id]
	if !in.known {
		d, err := r.ng.Interface(int(id))
		if err != nil {
			return nil
		}
		*in = newNgIface(d)
	}
	return in
}

// nextNgFast reads the block at start into rec if it is an enhanced
// packet block read in place; otherwise it reads nothing and returns
// false.
func (r *Reader) nextNgFast(rec *Record, start int64) bool {
	f, g := r.ngf, r.gate
	if g.pos != g.end || g.buf.Buffered() != 0 {
		return false // pcapgo is inside a block
	}
	w := f.window(8)
	if w == nil {
		return false
	}
	big := r.ngBig
	// pcapgo's block types are of the section's byte order (the section
	// header's reads the same in both). A block longer than the window
	// is pcapgo's (and one longer than the buffer, the gate's).
	blen := ngU32(big, w[4:])
	if ngU32(big, w) != ngTypeEPB || blen < 32 || blen%4 != 0 || blen > uint32(len(w)) {
		return false
	}
	b := w[:blen:blen]
	caplen := ngU32(big, b[20:])
	if ngU32(big, b[blen-4:]) != blen || caplen > blen-32 {
		return false
	}
	ifid := ngU32(big, b[8:])
	in := f.iface(r, ifid)
	if in == nil {
		return false
	}
	// The options, as pcapgo's readOption walks them: rest counts the
	// bytes left in the block, its trailer included; none but the
	// trailer is the end of the options, as an end-of-options option is,
	// whatever follows it. An option that reaches into the trailer or
	// beyond is pcapgo's to read (and refuse).
	var comments []string
	var id uint64
	hasID := false
	o := 28 + (caplen+3)&^3
	for rest := blen - o; rest != 4; {
		code, n := ngU16(big, b[o:]), uint32(ngU16(big, b[o+2:]))
		if code == 0 {
			if n != 0 {
				return false
			}
			break
		}
		pad := (4 - n%4) % 4
		if 4+n+pad > rest-4 {
			return false
		}
		v := b[o+4 : o+4+n]
		switch code {
		case ngOptComment:
			comments = append(comments, string(v))
		case ngOptPacketID:
			// pcapgo reads the id little-endian in either byte order,
			// and skips a shorter one.
			if len(v) >= 8 {
				id, hasID = binary.LittleEndian.Uint64(v), true
			}
		}
		o += 4 + n + pad
		rest -= 4 + n + pad
	}
	f.used += int(blen)
	f.read++
	g.pos += int64(blen)
	g.end = g.pos
	r.frame++
	ts := uint64(ngU32(big, b[12:]))<<32 | uint64(ngU32(big, b[16:]))
	rec.Frame, rec.Offset, rec.TimeNs, rec.CapLen, rec.OrigLen = r.frame, start, in.timeNs(ts), int(caplen), int(ngU32(big, b[24:]))
	rec.LinkType, rec.Iface, rec.Comments, rec.PacketID, rec.HasPacketID = in.linkType, int(ifid), comments, id, hasID
	rec.Data, rec.StartNs = b[28:28+caplen:28+caplen], 0
	return true
}
