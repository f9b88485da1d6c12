package etl

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/latlab/latlab/internal/etw"
)

// The test-trace writer: no public trace holds DPC/ISR or NDIS packet
// events, so these tests write traces in the layout the real fixtures
// have (the layout doc.go describes), scripts/verify-etl proves that
// dissect.etl and etl-parser read them as meant, and the tests prove
// latlab's reader on them. -update rewrites testdata/written-*.etl.

var update = flag.Bool("update", false, "rewrite the written traces in testdata")

// traceWriter accumulates events into buffers of one size.
type traceWriter struct {
	ptr     int
	bufSize int
	cpu     uint16
	bufs    [][]byte
	cur     []byte
	seq     int64
	// compress writes the event buffers compressed (plain LZXpress), in
	// the layout of Windows' compressed buffers (compressed.go).
	compress bool
}

const (
	testPerfFreq  = 10_000_000
	testStartFT   = 132273602277445790 // 2020-02-28 10:43:47.744579 UTC
	testStartQPC  = 1_000_000_000
	headerBufType = 4 // ETW_BUFFER_TYPE_HEADER
)

// newTraceWriter starts a trace whose first buffer holds the log file
// header event alone, as Windows writes it.
func newTraceWriter(ptr, bufSize int, cpus uint32, logger string) *traceWriter {
	w := &traceWriter{ptr: ptr, bufSize: bufSize}
	w.cur = w.newBuffer()
	w.system(0x0000, 2, 4, 4, testStartQPC, logfilePayload(ptr, uint32(bufSize), cpus, logger))
	w.flush(headerBufType, 0x21)
	return w
}

func (w *traceWriter) newBuffer() []byte { return make([]byte, BufferHeaderSize, w.bufSize) }

// flush closes the current buffer: the header, then 0xFF up to its size.
func (w *traceWriter) flush(typ, flags uint16) {
	b := w.cur
	saved := len(b)
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(w.bufSize))
	le.PutUint32(b[4:], uint32(saved))
	le.PutUint32(b[8:], uint32(saved))
	le.PutUint64(b[0x10:], uint64(testStartQPC+w.seq))
	le.PutUint64(b[0x18:], uint64(w.seq))
	le.PutUint16(b[0x28:], w.cpu) // ProcessorIndex (flag 0x20)
	le.PutUint16(b[0x2a:], 0x1c)  // LoggerId
	le.PutUint32(b[0x30:], uint32(saved))
	le.PutUint16(b[0x34:], flags)
	le.PutUint16(b[0x36:], typ)
	for len(b) < w.bufSize {
		b = append(b, 0xff)
	}
	if w.compress && typ != headerBufType {
		// As Windows writes them: the header as it was, BufferSize the
		// compressed buffer's size in the file, Offset and SavedOffset its
		// size before compression, then the plain LZXpress bytes.
		c := lz77Compress(b[BufferHeaderSize:saved])
		h := append([]byte(nil), b[:BufferHeaderSize]...)
		le.PutUint32(h[0:], uint32(BufferHeaderSize+len(c)))
		le.PutUint16(h[0x34:], flags|bufferFlagCompressed)
		b = append(h, c...)
	}
	w.bufs = append(w.bufs, b)
	w.seq++
	w.cur = w.newBuffer()
}

// add appends one event, starting a new buffer when it does not fit.
func (w *traceWriter) add(ev []byte) {
	n := (len(ev) + 7) &^ 7
	if len(w.cur)+n > w.bufSize {
		w.flush(0, 0x20)
	}
	w.cur = append(w.cur, ev...)
	for len(w.cur)%8 != 0 {
		w.cur = append(w.cur, 0)
	}
}

// setCPU starts a buffer of another processor.
func (w *traceWriter) setCPU(cpu uint16) {
	if len(w.cur) > BufferHeaderSize {
		w.flush(0, 0x20)
	}
	w.cpu = cpu
}

func (w *traceWriter) bytes() []byte {
	if len(w.cur) > BufferHeaderSize {
		w.flush(0, 0x20)
	}
	// BuffersWritten of the log file header (the header event's payload
	// starts after the buffer header and the 0x20-byte system header)
	binary.LittleEndian.PutUint32(w.bufs[0][BufferHeaderSize+0x20+36:], uint32(len(w.bufs)))
	if w.compress { // LogFileMode: EVENT_TRACE_COMPRESSED_MODE
		m := w.bufs[0][BufferHeaderSize+0x20+32:]
		binary.LittleEndian.PutUint32(m, binary.LittleEndian.Uint32(m)|0x04000000)
	}
	return bytes.Join(w.bufs, nil)
}

func marker(version uint16, typ uint8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, version)
	return append(b, typ, 0xc0)
}

// system writes a SYSTEM_TRACE_HEADER event.
func (w *traceWriter) system(hook, version uint16, tid, pid uint32, ts int64, data []byte) {
	typ := uint8(typeSystem64)
	if w.ptr == 4 {
		typ = typeSystem32
	}
	le := binary.LittleEndian
	b := marker(version, typ)
	b = le.AppendUint16(b, uint16(0x20+len(data)))
	b = le.AppendUint16(b, hook)
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(ts))
	b = le.AppendUint32(b, 10) // KernelTime
	b = le.AppendUint32(b, 20) // UserTime
	w.add(append(b, data...))
}

// compact writes a compact system header event (no CPU times).
func (w *traceWriter) compact(hook, version uint16, tid, pid uint32, ts int64, data []byte) {
	typ := uint8(typeCompact64)
	if w.ptr == 4 {
		typ = typeCompact32
	}
	le := binary.LittleEndian
	b := marker(version, typ)
	b = le.AppendUint16(b, uint16(0x18+len(data)))
	b = le.AppendUint16(b, hook)
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(ts))
	w.add(append(b, data...))
}

// perfinfo writes a PERFINFO_TRACE_HEADER event, as the kernel logs DPCs
// and interrupts.
func (w *traceWriter) perfinfo(hook, version uint16, ts int64, data []byte) {
	typ := uint8(typePerfInfo64)
	if w.ptr == 4 {
		typ = typePerfInfo32
	}
	le := binary.LittleEndian
	b := marker(version, typ)
	b = le.AppendUint16(b, uint16(0x10+len(data)))
	b = le.AppendUint16(b, hook)
	b = le.AppendUint64(b, uint64(ts))
	w.add(append(b, data...))
}

// event writes an EVENT_HEADER event with optional extended data.
func (w *traceWriter) event(provider etw.GUID, id uint16, version, opcode uint8, keyword uint64, tid, pid uint32, ts int64, data []byte, ext ...Extended) {
	le := binary.LittleEndian
	flags := uint16(EventHeaderFlag64BitHeader)
	typ := uint8(typeEvent64)
	if w.ptr == 4 {
		flags, typ = EventHeaderFlag32BitHeader, typeEvent32
	}
	var x []byte
	for i, e := range ext {
		flags |= EventHeaderFlagExtendedInfo
		link := uint16(0)
		if i < len(ext)-1 {
			link = 1
		}
		x = le.AppendUint16(x, 0)
		x = le.AppendUint16(x, e.Type)
		x = le.AppendUint16(x, link)
		x = le.AppendUint16(x, uint16(len(e.Data)))
		x = append(x, e.Data...)
		for len(x)%8 != 0 {
			x = append(x, 0)
		}
	}
	size := 0x50 + len(x) + len(data)
	b := le.AppendUint16(nil, uint16(size))
	b = append(b, typ, 0xc0)
	b = le.AppendUint16(b, flags)
	b = le.AppendUint16(b, 0) // EventProperty
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(ts))
	b = appendGUID(b, provider)
	b = le.AppendUint16(b, id)
	b = append(b, version, 0x10, 4, opcode) // version, channel, level, opcode
	b = le.AppendUint16(b, 0)               // task
	b = le.AppendUint64(b, keyword)
	b = le.AppendUint64(b, 0)          // ProcessorTime
	b = append(b, make([]byte, 16)...) // ActivityId
	w.add(append(append(b, x...), data...))
}

// full writes a classic provider's EVENT_TRACE_HEADER event.
func (w *traceWriter) full(provider etw.GUID, typ8, level uint8, version uint16, tid, pid uint32, ts int64, data []byte) {
	le := binary.LittleEndian
	typ := uint8(typeFull64)
	if w.ptr == 4 {
		typ = typeFull32
	}
	b := le.AppendUint16(nil, uint16(0x30+len(data)))
	b = append(b, typ, 0xc0, typ8, level)
	b = le.AppendUint16(b, version)
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(ts))
	b = appendGUID(b, provider)
	b = le.AppendUint64(b, 0)
	w.add(append(b, data...))
}

func appendGUID(b []byte, g etw.GUID) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, g.Data1)
	b = le.AppendUint16(b, g.Data2)
	b = le.AppendUint16(b, g.Data3)
	return append(b, g.Data4[:]...)
}

func appendPtr(b []byte, ptr int, v uint64) []byte {
	if ptr == 4 {
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(b, v)
}

func appendUTF16z(b []byte, s string) []byte {
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return append(b, 0, 0)
}

// logfilePayload is a TRACE_LOGFILE_HEADER for Windows 10.0.19045.
func logfilePayload(ptr int, bufSize, cpus uint32, logger string) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, bufSize)
	b = append(b, 10, 0, 1, 5) // 10.0
	b = le.AppendUint32(b, 19045)
	b = le.AppendUint32(b, cpus)
	b = le.AppendUint64(b, testStartFT+600_000_000) // EndTime: a minute later
	b = le.AppendUint32(b, 156250)                  // TimerResolution
	b = le.AppendUint32(b, 0)                       // MaximumFileSize
	b = le.AppendUint32(b, 0x01)                    // LogFileMode: sequential
	b = le.AppendUint32(b, 0)                       // BuffersWritten
	b = le.AppendUint32(b, 1)                       // StartBuffers
	b = le.AppendUint32(b, uint32(ptr))
	b = le.AppendUint32(b, 0)    // EventsLost
	b = le.AppendUint32(b, 3000) // CpuSpeedInMHz
	b = appendPtr(b, ptr, 0)     // LoggerName
	b = appendPtr(b, ptr, 0)     // LogFileName
	b = append(b, make([]byte, timeZoneSize)...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	b = le.AppendUint64(b, testStartFT-36_000_000_000) // BootTime
	b = le.AppendUint64(b, testPerfFreq)
	b = le.AppendUint64(b, testStartFT)
	b = le.AppendUint32(b, 1) // ReservedFlags: QueryPerformanceCounter
	b = le.AppendUint32(b, 0) // BuffersLost
	b = appendUTF16z(b, logger)
	return appendUTF16z(b, `C:\trace\`+logger+".etl")
}

// imagePayload is an Image_Load event, version 3.
func imagePayload(ptr int, base, size uint64, pid uint32, name string) []byte {
	le := binary.LittleEndian
	b := appendPtr(nil, ptr, base)
	b = appendPtr(b, ptr, size)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint32(b, 0x1234)     // ImageChecksum
	b = le.AppendUint32(b, 0x5f000000) // TimeDateStamp
	b = le.AppendUint32(b, 0)          // SignatureLevel, SignatureType, Reserved0
	b = appendPtr(b, ptr, base)        // DefaultBase
	b = append(b, make([]byte, 16)...) // Reserved1-4
	return appendUTF16z(b, name)
}

// dpcPayload is a PerfInfo DPC event: InitialTime, Routine.
func dpcPayload(ptr int, initial int64, routine uint64) []byte {
	return appendPtr(binary.LittleEndian.AppendUint64(nil, uint64(initial)), ptr, routine)
}

// isrPayload is a PerfInfo ISR event; msg >= 0 appends the MSI message.
func isrPayload(ptr int, initial int64, routine uint64, vector uint8, msg int) []byte {
	b := dpcPayload(ptr, initial, routine)
	b = append(b, 1, vector, 0, 0)
	if msg >= 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(msg))
	}
	return b
}

// writtenTrace compares a written trace with its file in testdata, or
// writes it there with -update.
func writtenTrace(t *testing.T, name string, b []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/etl -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(old, b) {
		t.Fatalf("%s differs from what the writer writes now (-update rewrites it; then run scripts/verify-etl)", path)
	}
}
