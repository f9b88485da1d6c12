package tracefs

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Ring-buffer record types (include/linux/ring_buffer.h): a type_len of 1
// to 28 is a data record of type_len·4 bytes, 0 one whose length follows.
const (
	typePadding    = 29
	typeTimeExtend = 30
	typeTimeStamp  = 31
	tsShift        = 27
	// The commit word's flags (kernel/trace/ring_buffer.c): events were
	// lost before this page, and their number is stored after its data.
	missedEvents = 1 << 31
	missedStored = 1 << 30
	commitMask   = (1 << 27) - 1
	// An absolute time stamp lacks the 5 top bits; they come from the
	// page's (libtraceevent's TS_MSB).
	tsMSB = uint64(0xf8) << 56
)

// Record is one event record of a page: its time stamp (ns on the
// session's clock) and its bytes (common fields first).
type Record struct {
	TS   int64
	Data []byte
}

// PageError says which byte of a page was wrong.
type PageError struct {
	Offset int
	Msg    string
}

func (e *PageError) Error() string {
	return fmt.Sprintf("ring-buffer page, byte %d: %s", e.Offset, e.Msg)
}

// littleEndian refuses a machine of byte order o other than little-endian:
// the kernel writes its ring buffer in its own byte order, and ParsePage,
// Type and Field.Int read little-endian, as x86 and arm64 write. On a
// big-endian kernel (s390x, ppc64) every time stamp and field would read
// as garbage, and no page of one was tested.
func littleEndian(o binary.ByteOrder) error {
	b := make([]byte, 2)
	o.PutUint16(b, 1)
	if b[0] != 1 {
		return errors.New("kernel tracing: this machine is big-endian; latlab reads the ring buffer little-endian only")
	}
	return nil
}

// ParsePage walks one page as trace_pipe_raw hands it out, calling fn for
// each data record in order (Data aliases b). lost is the number of
// events the kernel dropped before this page (-1: some, number unknown).
// Little-endian only, as on x86 and arm64. It reads no byte outside b.
func ParsePage(b []byte, l PageLayout, fn func(Record)) (lost int64, err error) {
	if len(b) < l.DataOffset {
		return 0, &PageError{0, fmt.Sprintf("%d bytes, shorter than the page header (%d)", len(b), l.DataOffset)}
	}
	ts := binary.LittleEndian.Uint64(b)
	var commit uint64
	if l.CommitSize == 8 {
		commit = binary.LittleEndian.Uint64(b[8:])
	} else {
		commit = uint64(binary.LittleEndian.Uint32(b[8:]))
	}
	size := int(commit & commitMask)
	end := l.DataOffset + size
	if end > len(b) {
		return 0, &PageError{8, fmt.Sprintf("commit says %d bytes of events, the page holds %d", size, len(b)-l.DataOffset)}
	}
	if commit&missedEvents != 0 {
		lost = -1
		if commit&missedStored != 0 && end+l.CommitSize <= len(b) {
			if l.CommitSize == 8 {
				lost = int64(binary.LittleEndian.Uint64(b[end:]) & (1<<62 - 1))
			} else {
				lost = int64(binary.LittleEndian.Uint32(b[end:]))
			}
		}
	}
	p := l.DataOffset
	for p+4 <= end {
		h := binary.LittleEndian.Uint32(b[p:])
		typ, delta := h&0x1f, uint64(h>>5)
		at := p
		p += 4
		switch {
		case typ == typePadding:
			if delta == 0 {
				return lost, nil // the rest of the page is unused
			}
			if p+4 > end {
				return lost, &PageError{at, "padding without its length"}
			}
			n := int(binary.LittleEndian.Uint32(b[p:]))
			if n < 4 || n > end-p {
				return lost, &PageError{at, fmt.Sprintf("padding of %d bytes past the end", n)}
			}
			p += n
			ts += delta
		case typ == typeTimeExtend, typ == typeTimeStamp:
			if p+4 > end {
				return lost, &PageError{at, "time stamp without its upper bits"}
			}
			v := uint64(binary.LittleEndian.Uint32(b[p:]))<<tsShift | delta
			p += 4
			if typ == typeTimeExtend {
				ts += v
			} else {
				ts = ts&tsMSB | v
			}
		default:
			n := int(typ) * 4
			if typ == 0 {
				if p+4 > end {
					return lost, &PageError{at, "record without its length"}
				}
				n = int(binary.LittleEndian.Uint32(b[p:]))
				if n < 4 || n > end-p {
					return lost, &PageError{at, fmt.Sprintf("record of %d bytes past the end", n)}
				}
				n = (n - 4 + 3) &^ 3
				p += 4
			}
			if n > end-p {
				return lost, &PageError{at, fmt.Sprintf("record of %d bytes past the end", n)}
			}
			ts += delta
			fn(Record{TS: int64(ts), Data: b[p : p+n : p+n]})
			p += n
		}
	}
	return lost, nil
}
