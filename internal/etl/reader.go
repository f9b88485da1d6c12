package etl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/infile"
)

// Sizes and bounds of the format.
const (
	BufferHeaderSize = 0x48
	// MaxBufferSize bounds one trace buffer: 16 MB, the most ETW gives a
	// session's buffers since Windows 8 (1 MB before), per the
	// BufferSize member of EVENT_TRACE_PROPERTIES in Microsoft's
	// documentation. A larger size is a damaged or crafted header.
	MaxBufferSize = 16 << 20
	// MaxNotes bounds the notes a damaged file can produce; the count of
	// damaged buffers and events is kept past it.
	MaxNotes = 20
)

// Buffer flags (BufferFlag of WMI_BUFFER_HEADER, ETW_BUFFER_FLAG_* of
// NTWMI.H as Chappell lists them).
const (
	bufferFlagEventsLost = 0x0002
	bufferFlagBufferLost = 0x0004
	bufferFlagProcIndex  = 0x0020
	bufferFlagCompressed = 0x0040

	// LogFileMode (evntrace.h's logging mode constants): the file modes
	// whose file may hold fewer buffers than the header's BuffersWritten
	// (a circular file overwrites, appending and new-file modes spread a
	// session over several files or runs), and
	// EVENT_TRACE_COMPRESSED_MODE.
	modeCircular   = 0x00000002
	modeAppend     = 0x00000004
	modeNewFile    = 0x00000008
	modeCompressed = 0x04000000
)

// Trace header types: the third byte of every event (Chappell, "Trace
// Headers").
const (
	typeSystem32   = 0x01
	typeSystem64   = 0x02
	typeCompact32  = 0x03
	typeCompact64  = 0x04
	typeFull32     = 0x0a
	typeInstance32 = 0x0b
	typePerfInfo32 = 0x10
	typePerfInfo64 = 0x11
	typeEvent32    = 0x12
	typeEvent64    = 0x13
	typeFull64     = 0x14
	typeInstance64 = 0x15

	markerTraceHeader = 0x80 // TRACE_HEADER_FLAG: the high bit of the fourth byte
	markerMessage     = 0x10 // TRACE_MESSAGE: with 0x80, a WPP MESSAGE_TRACE_HEADER
)

// EVENT_HEADER flags (evntcons.h).
const (
	EventHeaderFlagExtendedInfo = 0x0001
	EventHeaderFlag32BitHeader  = 0x0020
	EventHeaderFlag64BitHeader  = 0x0040
	EventHeaderFlagClassic      = 0x0100
)

// HeaderKind says which trace header an event had in the file.
type HeaderKind uint8

// Header kinds.
const (
	HeaderSystem   HeaderKind = iota + 1 // SYSTEM_TRACE_HEADER
	HeaderCompact                        // the compact system header (no CPU times)
	HeaderPerfInfo                       // PERFINFO_TRACE_HEADER
	HeaderEvent                          // EVENT_HEADER (manifest and TraceLogging providers)
	HeaderFull                           // EVENT_TRACE_HEADER (classic providers)
	HeaderInstance                       // EVENT_INSTANCE_HEADER
	HeaderMessage                        // MESSAGE_TRACE_HEADER (WPP)
)

func (k HeaderKind) String() string {
	switch k {
	case HeaderSystem:
		return "system"
	case HeaderCompact:
		return "compact"
	case HeaderPerfInfo:
		return "perfinfo"
	case HeaderEvent:
		return "event"
	case HeaderFull:
		return "full"
	case HeaderInstance:
		return "instance"
	case HeaderMessage:
		return "message"
	}
	return fmt.Sprintf("HeaderKind(%d)", uint8(k))
}

// Extended is one item of an EVENT_HEADER's extended data
// (EVENT_HEADER_EXTENDED_DATA_ITEM; types EVENT_HEADER_EXT_TYPE_* of
// evntcons.h).
type Extended struct {
	Type uint16
	Data []byte
}

// ExtProvTraits is EVENT_HEADER_EXT_TYPE_PROV_TRAITS: a TraceLogging
// provider's name and traits.
const ExtProvTraits = 12

// Record is one event of the file. Event is what the decoders of package
// etw read: for a classic kernel event Provider is the MOF class of its
// hook id's group and Opcode its event type.
type Record struct {
	etw.Event
	Kind   HeaderKind
	Kernel bool   // a classic kernel event (system, compact or perfinfo header)
	HookID uint16 // kernel events: group << 8 | type
	// Manifest events: the rest of the EVENT_DESCRIPTOR and the header's
	// flags.
	Task    uint16
	Level   uint8
	Channel uint8
	Keyword uint64
	Flags   uint16
	// Extended is the extended data of an EVENT_HEADER event.
	Extended []Extended
	// Offset is the event's offset in the file; in a compressed buffer,
	// the buffer's.
	Offset int64
}

// ProviderTraitsName is the provider name a TraceLogging event carries in
// its extended data ("" when it has none).
func (r *Record) ProviderTraitsName() string {
	for _, x := range r.Extended {
		if x.Type != ExtProvTraits || len(x.Data) < 3 {
			continue
		}
		name := x.Data[2:]
		for i, c := range name {
			if c == 0 {
				return string(name[:i])
			}
		}
	}
	return ""
}

// Buffer is a trace buffer's header as the file holds it.
type Buffer struct {
	Offset      int64 // in the file
	Size        uint32
	SavedOffset uint32
	Filled      uint32 // Offset (0x30): the bytes the buffer holds
	TimeStamp   int64
	Sequence    int64
	ClockType   uint8
	Frequency   uint64
	CPU         uint16
	LoggerID    uint16
	Flags       uint16
	Type        uint16
}

func parseBuffer(b []byte, off int64) Buffer {
	le := binary.LittleEndian
	clock := le.Uint64(b[0x20:])
	bh := Buffer{
		Offset:      off,
		Size:        le.Uint32(b[0:]),
		SavedOffset: le.Uint32(b[4:]),
		Filled:      le.Uint32(b[0x30:]),
		TimeStamp:   int64(le.Uint64(b[0x10:])),
		Sequence:    int64(le.Uint64(b[0x18:])),
		ClockType:   uint8(clock & 7),
		Frequency:   clock >> 3,
		LoggerID:    le.Uint16(b[0x2a:]),
		Flags:       le.Uint16(b[0x34:]),
		Type:        le.Uint16(b[0x36:]),
	}
	// ETW_BUFFER_CONTEXT: ProcessorNumber (UCHAR) and Alignment, or with
	// ETW_BUFFER_FLAG_PROC_INDEX the USHORT ProcessorIndex.
	if bh.Flags&bufferFlagProcIndex != 0 {
		bh.CPU = le.Uint16(b[0x28:])
	} else {
		bh.CPU = uint16(b[0x28])
	}
	return bh
}

// Reader reads an .etl file buffer by buffer from an io.Reader (which the
// caller bounds: infile caps the file).
type Reader struct {
	r   io.Reader
	off int64

	// Context, if set, stops the walk between buffers when it is done
	// (Ctrl-C): Walk then returns nil with Interrupted set, and what was
	// read until then stands.
	Context     context.Context
	Interrupted bool

	// Logfile is the trace's header, known once the first buffer is read.
	Logfile *Logfile
	// Counts of what was read and what was skipped.
	Buffers int
	Damaged int // buffers skipped, and buffers cut short by a damaged event
	// Missing counts the buffers the log file header says the logger
	// wrote that are not in the file: it ends at a buffer boundary before
	// them (a copy of a trace still recording, a file cut short).
	Missing    int
	Compressed int // compressed buffers
	LostFlags  int // buffers flagged as following lost events or buffers
	// inflated counts the bytes of the buffers read, decompressed.
	inflated    int64
	laterEvents int64 // events read after the first buffer
	inFile      int   // buffers whose bytes the file holds, read or skipped
	rec         Record
	inflatedBuf []byte // the last decompressed buffer's array, reused
	firstDamage string
	notes       []string
	dropped     int
}

// NewReader reads the file from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Notes are what the reader skipped, by file offset.
func (rd *Reader) Notes() []string {
	if rd.dropped > 0 {
		return append(append([]string(nil), rd.notes...), fmt.Sprintf("%d more notes like these", rd.dropped))
	}
	return rd.notes
}

// NotesBesideUnreadable are Notes without the first damaged buffer's,
// which Unreadable already quotes: for a caller that prints both.
func (rd *Reader) NotesBesideUnreadable() []string {
	notes := rd.Notes()
	for i, n := range notes {
		if rd.Damaged > 0 && n == rd.firstDamage {
			return append(notes[:i:i], notes[i+1:]...)
		}
	}
	return notes
}

func (rd *Reader) notef(format string, a ...any) {
	if len(rd.notes) >= MaxNotes {
		rd.dropped++
		return
	}
	rd.notes = append(rd.notes, fmt.Sprintf(format, a...))
}

// errStop ends a walk early without error.
var errStop = errors.New("stop")

// Walk calls fn for every event of the file, in file order. The record
// and the bytes it points to are valid until fn returns (the reader
// reuses its buffer); fn copies what it keeps. An error
// from fn ends the walk and is returned. A file whose first buffer is not
// an ETW trace buffer is bad input (badinput); damage after it is noted
// and skipped, and a trace none of whose event buffers could be read, or
// that holds none of them (cut after the first buffer), is bad input too,
// with the reason: never an empty answer.
func (rd *Reader) Walk(fn func(*Record) error) error {
	err := rd.walk(fn)
	if err != nil || rd.laterEvents > 0 || rd.Interrupted {
		return err
	}
	switch {
	case rd.Damaged > 0:
		return badinput.Errorf("none of its %d event buffers could be read: %s", rd.Damaged, rd.firstDamage)
	case rd.Missing > 0:
		return badinput.Errorf("no event after the trace header: %s", rd.missingWhy())
	}
	return nil
}

// missingWhy says how many buffers the file lacks.
func (rd *Reader) missingWhy() string {
	return fmt.Sprintf("the file holds %d of the %d buffers its header says the logger wrote: it is cut short (copied while the trace was recording?)", rd.inFile, rd.inFile+rd.Missing)
}

// atEnd checks, once the file ends, that it holds every buffer its
// header says the logger wrote (a buffer it cuts short is not held). Modes that leave fewer
// in the file by design, and compressed traces (whose count no trace of
// this repository shows against a real one), are not checked.
func (rd *Reader) atEnd() {
	lf := rd.Logfile
	if lf == nil || lf.LogFileMode&(modeCircular|modeAppend|modeNewFile|modeCompressed) != 0 {
		return
	}
	if n := int64(lf.BuffersWritten) - int64(rd.inFile); n > 0 {
		rd.Missing = int(n) // Unreadable reports it
	}
}

// damaged counts a buffer that could not be read (or was cut short) and
// notes why.
func (rd *Reader) damaged(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if rd.Damaged == 0 {
		rd.firstDamage = msg
	}
	rd.Damaged++
	rd.notef("%s", msg)
}

// Unreadable says how many buffers could not be read, where the first is
// and why, and how many the file lacks ("" when every buffer the logger
// wrote was read).
func (rd *Reader) Unreadable() string {
	var s string
	if rd.Damaged > 0 {
		s = fmt.Sprintf("%d of its buffers could not be read (or were cut short); the first: %s", rd.Damaged, rd.firstDamage)
	}
	if rd.Missing > 0 {
		if s != "" {
			s += "; and "
		}
		s += rd.missingWhy()
	}
	return s
}

// inflateLimit is the most bytes a buffer decompresses to: the trace's
// own buffer size (the log file header's BufferSize), or MaxBufferSize
// before the header is known or when it says more.
func (rd *Reader) inflateLimit() int {
	if lf := rd.Logfile; lf != nil && lf.BufferSize >= BufferHeaderSize && lf.BufferSize <= MaxBufferSize {
		return int(lf.BufferSize)
	}
	return MaxBufferSize
}

func (rd *Reader) walk(fn func(*Record) error) error {
	hdr := make([]byte, BufferHeaderSize)
	var buf []byte
	max := infile.Max()
	for {
		if rd.Context != nil && rd.Context.Err() != nil {
			rd.Interrupted = true
			return nil
		}
		start := rd.off
		n, err := io.ReadFull(rd.r, hdr)
		rd.off += int64(n)
		if err == io.EOF {
			if rd.Buffers == 0 {
				return badinput.Errorf("an empty file: an .etl trace starts with a 72-byte trace buffer header")
			}
			rd.atEnd()
			return nil
		}
		if err == io.ErrUnexpectedEOF {
			if rd.Buffers == 0 {
				return badinput.Errorf("%d bytes: an .etl trace starts with a 72-byte trace buffer header", n)
			}
			rd.notef("offset %d: %d bytes after the last buffer, less than a buffer header; ignored", start, n)
			rd.atEnd()
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the buffer at offset %d: %w", start, err)
		}
		bh := parseBuffer(hdr, start)
		size, why := rd.bufferSize(bh)
		if why != "" && rd.Buffers == 0 {
			return badinput.Errorf("not an .etl trace: the first buffer's header %s", why)
		}
		bufSize := int(bh.Size)
		if why != "" && (bh.Size < BufferHeaderSize || bh.Size > MaxBufferSize) {
			// A size that cannot be: the buffer is skipped as one of the
			// trace's size when all its buffers have that size (not in a
			// compressed trace, whose buffers' sizes vary).
			lf := rd.Logfile
			if lf == nil || lf.BufferSize < BufferHeaderSize || lf.BufferSize > MaxBufferSize || lf.LogFileMode&modeCompressed != 0 {
				rd.damaged("buffer at offset %d: %s; the rest of the file is not read", start, why)
				return nil
			}
			why += fmt.Sprintf("; skipped as one buffer of the trace's size %d", lf.BufferSize)
			bufSize = int(lf.BufferSize)
		}
		buf, n, err = readBuffer(rd.r, buf[:0], hdr, bufSize)
		rd.off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if rd.Buffers == 0 {
				return badinput.Errorf("not an .etl trace: the first buffer says %d bytes, the file ends after %d", bh.Size, BufferHeaderSize+n)
			}
			rd.damaged("buffer at offset %d: %d bytes, the file ends after %d", start, bufSize, BufferHeaderSize+n)
			rd.atEnd() // how many more the logger wrote
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the buffer at offset %d: %w", start, err)
		}
		rd.inFile++
		if why != "" {
			if bufSize == int(bh.Size) {
				why += "; skipped"
			}
			rd.damaged("buffer at offset %d: %s", start, why)
			continue
		}
		data, inflated := buf, int64(bh.Size)
		compressed := bh.Flags&bufferFlagCompressed != 0
		if compressed {
			rd.Compressed++
			// The header says the size the buffer decodes to: what it
			// would add to the bytes read is checked before decoding.
			if want := int64(binary.LittleEndian.Uint32(buf[0x30:])); want <= int64(rd.inflateLimit()) && rd.inflated+want > max {
				return fmt.Errorf("its buffers hold %w", &infile.TooLargeError{Size: -1, Max: max})
			}
			d, err := decompressBuffer(rd.inflatedBuf, buf, rd.inflateLimit())
			if err != nil {
				if rd.Buffers == 0 {
					return badinput.Errorf("not a readable .etl trace: the first buffer is compressed and %v", err)
				}
				rd.damaged("compressed buffer at offset %d: %v; skipped", start, err)
				continue
			}
			rd.inflatedBuf = d
			data, size, inflated = d, len(d), int64(len(d))
		}
		// Decompressed bytes count against the cap on input files, as the
		// bytes of an uncompressed trace would.
		rd.inflated += inflated
		if rd.inflated > max {
			return fmt.Errorf("its buffers hold %w", &infile.TooLargeError{Size: -1, Max: max})
		}
		rd.Buffers++
		if bh.Flags&(bufferFlagEventsLost|bufferFlagBufferLost) != 0 {
			rd.LostFlags++
		}
		if err := rd.events(data[:size], bh, compressed, fn); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
		if rd.Logfile == nil {
			// Every later event is read with the header's clock and
			// pointer size: a first buffer without it (no event in it)
			// is not a trace.
			return badinput.Errorf("not an .etl trace: the first buffer (%d bytes) holds no event, where a trace's first event is its log file header", size)
		}
	}
}

// readBuffer reads the rest of a buffer of size bytes after its header
// into buf. It grows buf as the bytes arrive, so a header that claims a
// large buffer at the end of a small file costs no large allocation.
func readBuffer(r io.Reader, buf, hdr []byte, size int) ([]byte, int, error) {
	const step = 1 << 20
	buf = append(buf, hdr...)
	read := 0
	for len(buf) < size {
		want := min(size-len(buf), step)
		if cap(buf)-len(buf) < want {
			buf = append(buf[:len(buf):len(buf)], make([]byte, want)...)[:len(buf)]
		}
		n, err := io.ReadFull(r, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+n]
		read += n
		if err != nil {
			return buf, read, err
		}
	}
	return buf, read, nil
}

// bufferSize checks a buffer header and returns where its events end, or
// why it cannot be read.
//
// The events end at Offset (0x30), the bytes the buffer holds. SavedOffset
// is the same in every buffer but the first: there, in Windows 10 and 11
// traces, SavedOffset ends after the log file header and Offset after one
// or two more events of the logger's own EventTrace class (hook 0x0050,
// and in some a PerfInfo event), well-formed and time-stamped after the
// header; in Windows 7 traces SavedOffset is 0 while Offset ends after the
// header. Offset is then the buffer's fill, as in every other buffer, and
// the events up to it are the trace's: dissect.etl reads to Offset too,
// and the corpus (testdata/corpus.tsv) agrees with it so. SavedOffset is
// taken only when Offset is out of the buffer's bounds.
func (rd *Reader) bufferSize(bh Buffer) (int, string) {
	switch {
	case bh.Size < BufferHeaderSize:
		return 0, fmt.Sprintf("says the buffer is %d bytes, less than its own 72-byte header", bh.Size)
	case bh.Size > MaxBufferSize:
		return 0, fmt.Sprintf("says the buffer is %d bytes, more than the %d a trace buffer can be", bh.Size, MaxBufferSize)
	case bh.Flags&bufferFlagCompressed != 0:
		return 0, "" // decompressBuffer checks Offset
	case bh.Filled >= BufferHeaderSize && bh.Filled <= bh.Size:
		return int(bh.Filled), ""
	case bh.SavedOffset >= BufferHeaderSize && bh.SavedOffset <= bh.Size:
		return int(bh.SavedOffset), ""
	}
	return 0, fmt.Sprintf("says its events end at %d (Offset) or %d (SavedOffset), outside its %d bytes", bh.Filled, bh.SavedOffset, bh.Size)
}

// events walks the events of one buffer.
func (rd *Reader) events(b []byte, bh Buffer, compressed bool, fn func(*Record) error) error {
	end := len(b)
	first := rd.Buffers == 1 && rd.Logfile == nil
	for pos := BufferHeaderSize; pos+4 <= end; {
		marker := binary.LittleEndian.Uint32(b[pos:])
		if marker == 0 || marker == 0xffffffff {
			break // the unused rest of the buffer
		}
		// One record serves every event: fn may keep it only until it
		// returns (see Walk).
		rec := &rd.rec
		*rec = Record{Offset: bh.Offset + int64(pos)}
		if compressed {
			rec.Offset = bh.Offset // no file offset of its own
		}
		rec.CPU = bh.CPU
		size, err := parseRecord(b[pos:end], rec)
		if err != nil {
			if first {
				return badinput.Errorf("not an .etl trace: the first event (offset %d) %v", rec.Offset, err)
			}
			if compressed {
				rd.damaged("event %d bytes into the compressed buffer at offset %d: %v; the rest of the buffer is skipped", pos, bh.Offset, err)
			} else {
				rd.damaged("event at offset %d: %v; the rest of its buffer (offset %d) is skipped", rec.Offset, err, bh.Offset)
			}
			return nil
		}
		if first {
			first = false
			lf, err := parseLogfile(rec)
			if err != nil {
				return badinput.Errorf("not an .etl trace: the first event (offset %d) is not the log file header: %v", rec.Offset, err)
			}
			rd.Logfile = lf
		}
		if rec.PointerSize == 0 && rd.Logfile != nil {
			rec.PointerSize = int(rd.Logfile.PointerSize)
		}
		if rd.Buffers > 1 {
			rd.laterEvents++
		}
		if err := fn(rec); err != nil {
			return err
		}
		pos += (size + 7) &^ 7
	}
	return nil
}

// parseRecord reads the event at the start of b into rec and returns its
// size in bytes (before the 8-byte alignment).
func parseRecord(b []byte, rec *Record) (int, error) {
	le := binary.LittleEndian
	if len(b) < 4 {
		return 0, fmt.Errorf("%d bytes left, less than a trace header's 4-byte marker", len(b))
	}
	typ, flags := b[2], b[3]
	if flags&markerTraceHeader == 0 {
		return 0, fmt.Errorf("marker %08x has no trace header flag", le.Uint32(b))
	}
	need := func(size, hdr int, what string) error {
		if size < hdr {
			return fmt.Errorf("%s says %d bytes, less than its %d-byte header", what, size, hdr)
		}
		if size > len(b) {
			return fmt.Errorf("%s says %d bytes, only %d are left in the buffer", what, size, len(b))
		}
		return nil
	}
	if flags&markerMessage != 0 && flags&0x40 == 0 {
		return parseMessage(b, rec)
	}
	switch typ {
	case typeSystem32, typeSystem64, typeCompact32, typeCompact64:
		hdr, kind := 0x20, HeaderSystem
		if typ == typeCompact32 || typ == typeCompact64 {
			hdr, kind = 0x18, HeaderCompact
		}
		if len(b) < 8 {
			return 0, fmt.Errorf("%d bytes left, less than a system header", len(b))
		}
		size := int(le.Uint16(b[4:]))
		if err := need(size, hdr, "system trace header"); err != nil {
			return 0, err
		}
		rec.Kind, rec.Kernel = kind, true
		rec.Version = uint8(le.Uint16(b[0:]))
		rec.HookID = le.Uint16(b[6:])
		rec.TID, rec.PID = le.Uint32(b[8:]), le.Uint32(b[12:])
		rec.Timestamp = int64(le.Uint64(b[16:]))
		rec.PointerSize = 4
		if typ == typeSystem64 || typ == typeCompact64 {
			rec.PointerSize = 8
		}
		rec.setKernel()
		rec.Data = b[hdr:size]
		return size, nil
	case typePerfInfo32, typePerfInfo64:
		if len(b) < 8 {
			return 0, fmt.Errorf("%d bytes left, less than a perfinfo header", len(b))
		}
		size := int(le.Uint16(b[4:]))
		if err := need(size, 0x10, "perfinfo trace header"); err != nil {
			return 0, err
		}
		rec.Kind, rec.Kernel = HeaderPerfInfo, true
		rec.Version = uint8(le.Uint16(b[0:]))
		rec.HookID = le.Uint16(b[6:])
		rec.Timestamp = int64(le.Uint64(b[8:]))
		rec.PointerSize = 4
		if typ == typePerfInfo64 {
			rec.PointerSize = 8
		}
		rec.setKernel()
		rec.Data = b[0x10:size]
		return size, nil
	case typeEvent32, typeEvent64:
		size := int(le.Uint16(b[0:]))
		if err := need(size, 0x50, "event header"); err != nil {
			return 0, err
		}
		rec.Kind = HeaderEvent
		rec.Flags = le.Uint16(b[4:])
		rec.TID, rec.PID = le.Uint32(b[8:]), le.Uint32(b[12:])
		rec.Timestamp = int64(le.Uint64(b[16:]))
		rec.Provider = readGUID(b[0x18:])
		rec.ID = le.Uint16(b[0x28:])
		rec.Version, rec.Channel, rec.Level, rec.Opcode = b[0x2a], b[0x2b], b[0x2c], b[0x2d]
		rec.Task = le.Uint16(b[0x2e:])
		rec.Keyword = le.Uint64(b[0x30:])
		switch {
		case rec.Flags&EventHeaderFlag64BitHeader != 0:
			rec.PointerSize = 8
		case rec.Flags&EventHeaderFlag32BitHeader != 0:
			rec.PointerSize = 4
		case typ == typeEvent64:
			rec.PointerSize = 8
		default:
			rec.PointerSize = 4
		}
		pos := 0x50
		if rec.Flags&EventHeaderFlagExtendedInfo != 0 {
			for more := true; more; {
				if pos+8 > size {
					return 0, fmt.Errorf("event of %d bytes: extended data item at %d runs past it", size, pos)
				}
				typ := le.Uint16(b[pos+2:])
				linkage := le.Uint16(b[pos+4:])
				n := int(le.Uint16(b[pos+6:]))
				if pos+8+n > size {
					return 0, fmt.Errorf("event of %d bytes: extended data item at %d says %d bytes, past the event", size, pos, n)
				}
				rec.Extended = append(rec.Extended, Extended{Type: typ, Data: b[pos+8 : pos+8+n]})
				pos = (pos + 8 + n + 7) &^ 7
				more = linkage&1 != 0
				if pos > size {
					return 0, fmt.Errorf("event of %d bytes: its extended data ends at %d", size, pos)
				}
			}
		}
		rec.Data = b[pos:size]
		return size, nil
	case typeFull32, typeFull64:
		size := int(le.Uint16(b[0:]))
		if err := need(size, 0x30, "event trace header"); err != nil {
			return 0, err
		}
		rec.Kind = HeaderFull
		rec.Opcode, rec.Level = b[4], b[5]
		rec.Version = uint8(le.Uint16(b[6:]))
		rec.TID, rec.PID = le.Uint32(b[8:]), le.Uint32(b[12:])
		rec.Timestamp = int64(le.Uint64(b[16:]))
		rec.Provider = readGUID(b[0x18:])
		rec.PointerSize = 4
		if typ == typeFull64 {
			rec.PointerSize = 8
		}
		rec.Data = b[0x30:size]
		return size, nil
	case typeInstance32, typeInstance64:
		// EVENT_INSTANCE_HEADER: Size, types, Class, TID, PID, TimeStamp,
		// RegHandle (a pointer to the registration, as a ULONGLONG),
		// InstanceId, ParentInstanceId, ProcessorTime, ParentRegHandle.
		// The GUID is not in the event: it stays zero.
		size := int(le.Uint16(b[0:]))
		if err := need(size, 0x38, "event instance header"); err != nil {
			return 0, err
		}
		rec.Kind = HeaderInstance
		rec.Opcode, rec.Level = b[4], b[5]
		rec.Version = uint8(le.Uint16(b[6:]))
		rec.TID, rec.PID = le.Uint32(b[8:]), le.Uint32(b[12:])
		rec.Timestamp = int64(le.Uint64(b[16:]))
		rec.PointerSize = 4
		if typ == typeInstance64 {
			rec.PointerSize = 8
		}
		rec.Data = b[0x38:size]
		return size, nil
	}
	return 0, fmt.Errorf("marker %08x: trace header type 0x%02x is not one latlab reads", le.Uint32(b), typ)
}

// classic reports whether the event is a classic one, whose event type
// (Opcode) says what it is: a kernel class event or an EVENT_TRACE_HEADER
// or instance event of a classic provider.
func (r *Record) classic() bool {
	return r.Kernel || r.Kind == HeaderFull || r.Kind == HeaderInstance
}

// setKernel fills the provider and opcode of a classic kernel event from
// its hook id.
func (r *Record) setKernel() {
	r.Provider = kernelClassGUID(r.HookID)
	r.Opcode = uint8(r.HookID)
}

// parseMessage reads a WPP MESSAGE_TRACE_HEADER: Size, the marker, then
// MessageNumber and OptionFlags (USHORT each), then the optional fields in
// the order TraceMessage writes them (evntrace.h, TRACE_MESSAGE_*):
// sequence number, GUID or component id, time stamp, performance
// counters' system information (thread and process id).
func parseMessage(b []byte, rec *Record) (int, error) {
	le := binary.LittleEndian
	if len(b) < 8 {
		return 0, fmt.Errorf("%d bytes left, less than a message header", len(b))
	}
	size := int(le.Uint16(b[0:]))
	if size < 8 || size > len(b) {
		return 0, fmt.Errorf("message header says %d bytes, %d are left in the buffer", size, len(b))
	}
	rec.Kind = HeaderMessage
	rec.ID = le.Uint16(b[4:])
	opts := le.Uint16(b[6:])
	pos := 8
	take := func(n int) []byte {
		if pos+n > size {
			pos = size + 1
			return nil
		}
		p := b[pos : pos+n]
		pos += n
		return p
	}
	if opts&0x01 != 0 { // TRACE_MESSAGE_SEQUENCE
		take(4)
	}
	if opts&0x02 != 0 { // TRACE_MESSAGE_GUID
		if g := take(16); g != nil {
			rec.Provider = readGUID(g)
		}
	} else if opts&0x04 != 0 { // TRACE_MESSAGE_COMPONENTID
		take(4)
	}
	if opts&0x08 != 0 { // TRACE_MESSAGE_TIMESTAMP
		if t := take(8); t != nil {
			rec.Timestamp = int64(le.Uint64(t))
		}
	}
	if opts&0x10 != 0 { // TRACE_MESSAGE_PERFORMANCE_TIMESTAMP: same field
	}
	if opts&0x20 != 0 { // TRACE_MESSAGE_SYSTEMINFO
		if t := take(8); t != nil {
			rec.TID, rec.PID = le.Uint32(t), le.Uint32(t[4:])
		}
	}
	if pos > size {
		return 0, fmt.Errorf("message of %d bytes: its option flags 0x%x ask for more", size, opts)
	}
	rec.Data = b[pos:size]
	return size, nil
}

func readGUID(b []byte) etw.GUID {
	le := binary.LittleEndian
	g := etw.GUID{Data1: le.Uint32(b), Data2: le.Uint16(b[4:]), Data3: le.Uint16(b[6:])}
	copy(g.Data4[:], b[8:16])
	return g
}

// SniffSize is how many bytes Sniff needs.
const SniffSize = BufferHeaderSize + 8

// Sniff reports whether head, the start of a file, looks like an .etl
// trace: a buffer header with a plausible size whose first event is the
// log file header (a system trace header with hook id 0).
func Sniff(head []byte) bool {
	if len(head) < SniffSize {
		return false
	}
	bh := parseBuffer(head, 0)
	m := head[BufferHeaderSize:]
	return bh.Size >= BufferHeaderSize && bh.Size <= MaxBufferSize &&
		(m[2] == typeSystem32 || m[2] == typeSystem64) && m[3]&markerTraceHeader != 0 &&
		binary.LittleEndian.Uint16(m[6:]) == 0
}
