package capture

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// pcapng blocks reach pcapgo only through an ngGate, which checks each
// block in the read buffer before its first byte is handed on. pcapgo
// trusts block lengths (a corrupt one would make it read packet bytes as
// block headers) and keeps, per section, every interface description,
// every name resolution record and every decryption secret: a 2.5 MB gzip
// of interface blocks used to end in "fatal error: out of memory". So the
// gate bounds what a section may make pcapgo keep, and keeps from pcapgo
// the blocks latlab has no use for.

// Bounds on one pcapng section (from one section header block to the
// next). Real captures have a handful of interfaces; pktmon's, one per
// component: some hundreds.
const (
	// maxNgInterfaces is the interface description blocks of one section
	// (as many as a 16-bit interface id can name).
	maxNgInterfaces = 1 << 16
	// maxNgInterfaceBytes is their bytes together: pcapgo keeps their
	// names, descriptions, comments, filters and OS, up to this much.
	maxNgInterfaceBytes = 16 << 20
	// maxNgOptions is the bytes of options one packet block may carry
	// (each comment among them is kept with its packet). A block up to
	// bufSize is checked whole; a longer one is read only as a packet
	// whose data, not options, is long.
	maxNgOptions = bufSize - 32
)

const (
	ngTypeISB = 5 // interface statistics
	// Blocks read by neither latlab nor pcapgo pass the gate only as
	// their length: name resolution (4) and decryption secrets (10),
	// which pcapgo would keep for the whole section, custom blocks, and
	// any other type, which pcapgo skips anyway.
)

// ngPassed says whether pcapgo is to read a block of type typ: section
// headers, interface descriptions and statistics (pcapgo checks their
// interface ids), packets.
func ngPassed(typ uint32) bool {
	switch typ {
	case ngTypeSHB, ngTypeIDB, ngTypeISB, ngTypeEPB, ngTypeSPB, ngTypePB:
		return true
	}
	return false
}

type ngGate struct {
	r *Reader
	// buf is what pcapgo reads (it would otherwise wrap the gate in a
	// buffer of its own, out of sight of Reader.Pos).
	buf *bufio.Reader
	// pos is the offset in the (decompressed) file of the next byte read
	// from r.br, past the blocks ngFast has read from its window.
	pos int64
	end int64 // end of the block being handed on
	err error // the *FormatError that stopped the reading

	// This section's interface description blocks, and their bytes.
	ifaces     int
	ifaceBytes int64
	// sections counts the section headers passed on: pcapgo forgets its
	// interfaces at each (ngFast keeps what it took from them).
	sections int
}

func newNgGate(r *Reader) *ngGate {
	g := &ngGate{r: r}
	g.buf = bufio.NewReaderSize(g, 4096)
	return g
}

// Read hands on the bytes of the block being read; at a block boundary it
// checks the next block first, and consumes itself those pcapgo is not to
// read.
func (g *ngGate) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	for g.pos == g.end {
		at := g.pos
		blen, typ, err := g.check()
		if err != nil {
			if _, ok := err.(*FormatError); ok {
				g.err = err
			}
			return 0, err
		}
		if ngPassed(typ) {
			g.end = at + blen
			break
		}
		n, err := g.r.br.Discard(int(blen))
		g.pos += int64(n)
		g.end = g.pos
		if err != nil {
			if fe := g.r.failed(at); fe != nil {
				return 0, fe
			}
			g.err = &FormatError{Offset: at, Msg: fmt.Sprintf("block of %d bytes (type %d) ends early", blen, typ), Truncated: true}
			return 0, g.err
		}
	}
	if left := g.end - g.pos; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := g.r.br.Read(p)
	g.pos += int64(n)
	return n, err
}

// check validates, in the read buffer, the block at g.pos: its length
// must be a multiple of 4, at least 12, repeated in the trailer, and large
// enough for the packet it carries; a section may not hold more interfaces
// than the bounds above. It returns the block's length and type, or
// io.EOF (or the reading's error) at the end of the data at a block
// boundary.
func (g *ngGate) check() (int64, uint32, error) {
	r, at := g.r, g.pos
	h, err := r.br.Peek(8)
	if err != nil {
		if len(h) == 0 { // the end of the data at a block boundary
			return 0, 0, err
		}
		return 0, 0, &FormatError{Offset: at, Msg: "block header ends early", Truncated: true}
	}
	typ := binary.LittleEndian.Uint32(h[0:4])
	big := r.ngBig
	if typ == ngTypeSHB {
		b, err := r.br.Peek(12)
		if err != nil {
			return 0, 0, &FormatError{Offset: at, Msg: "section header ends early", Truncated: true}
		}
		switch {
		case binary.LittleEndian.Uint32(b[8:]) == ngBOM:
			big = false
		case binary.BigEndian.Uint32(b[8:]) == ngBOM:
			big = true
		default:
			return 0, 0, &FormatError{Offset: at + 8, Msg: "section header byte-order magic is not 1a2b3c4d"}
		}
		r.ngBig = big
		g.ifaces, g.ifaceBytes = 0, 0
		g.sections++
	} else if big {
		typ = binary.BigEndian.Uint32(h[0:4])
	}
	u32 := binary.LittleEndian.Uint32
	if big {
		u32 = binary.BigEndian.Uint32
	}
	blen := u32(h[4:8])
	if blen < ngMinBlockLen || blen%4 != 0 {
		return 0, 0, &FormatError{Offset: at + 4, Msg: fmt.Sprintf("corrupt block length %d (type %d): must be a multiple of 4 and at least 12", blen, typ)}
	}
	if typ == ngTypeIDB {
		g.ifaces++
		g.ifaceBytes += int64(blen)
		switch {
		case g.ifaces > maxNgInterfaces:
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("interface description block: more than %d interfaces in one section, latlab's limit", maxNgInterfaces)}
		case g.ifaceBytes > maxNgInterfaceBytes:
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("interface description block: the interfaces of one section take more than %d MiB, latlab's limit", maxNgInterfaceBytes>>20)}
		}
	}
	whole := blen <= bufSize
	need := int(blen)
	if !whole {
		// Too long to check in place: its fixed header is checked.
		need = 32
	}
	b, err := r.br.Peek(need)
	if err != nil {
		return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("block of %d bytes (type %d) ends early", blen, typ), Truncated: true}
	}
	if whole {
		if tl := u32(b[blen-4:]); tl != blen {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("corrupt block (type %d): length %d at the start, %d at the end", typ, blen, tl)}
		}
	}
	switch typ {
	case ngTypeEPB, ngTypePB:
		if blen < 32 {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("packet block of %d bytes is shorter than its 32-byte header", blen)}
		}
		caplen := uint64(u32(b[20:24]))
		if caplen > uint64(blen-32) {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("corrupt packet block: captured length %d does not fit in block length %d", caplen, blen)}
		}
		if opts := uint64(blen-32) - (caplen+3)&^3; opts > maxNgOptions {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("packet block with %d bytes of options: more than the %d latlab reads", opts, maxNgOptions)}
		}
		if typ == ngTypeEPB {
			if err := g.ifaceFits(at, u32(b[8:12])); err != nil {
				return 0, 0, err
			}
		}
	case ngTypeISB:
		if blen >= 16 {
			if err := g.ifaceFits(at, u32(b[8:12])); err != nil {
				return 0, 0, err
			}
		}
	case ngTypeSPB:
		if blen < 16 {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("simple packet block of %d bytes is shorter than its header", blen)}
		}
	case ngTypeIDB:
		if blen < 20 {
			return 0, 0, &FormatError{Offset: at, Msg: fmt.Sprintf("interface block of %d bytes is shorter than its header", blen)}
		}
	}
	return int64(blen), typ, nil
}

// ifaceFits refuses an interface id of an enhanced packet or statistics
// block that does not fit an int, with the words pcapgo refuses it in on
// a 64-bit platform (no section has that many interfaces). pcapgo takes
// the id as an int: on a 32-bit platform 2^31 and above turn negative,
// pass its check against the interfaces' count, and index its slice of
// interfaces (a panic). There such a block is refused even in a section
// pcapgo would skip (a version it does not read), where a 64-bit build
// passes over it.
func (g *ngGate) ifaceFits(at int64, id uint32) error {
	if strconv.IntSize == 64 || id <= math.MaxInt32 {
		return nil
	}
	return &FormatError{Offset: at, Msg: fmt.Sprintf("corrupt block: Interface id %d not present in section (have only %d interfaces)", id, g.ifaces)}
}
