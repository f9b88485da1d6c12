package etw

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unsafe"
)

// GUID is a Windows GUID, in the memory layout of windows.GUID.
type GUID struct {
	Data1 uint32
	Data2 uint16
	Data3 uint16
	Data4 [8]byte
}

// String is the registry form, {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}.
func (g GUID) String() string {
	return fmt.Sprintf("{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}", g.Data1, g.Data2, g.Data3,
		g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5], g.Data4[6], g.Data4[7])
}

// Event is one event as a consumer receives it, reduced to what the
// decoders need. The session code fills it from an EVENT_RECORD; tests
// build it from bytes.
type Event struct {
	Provider GUID   // the provider, or for classic kernel events the MOF class
	ID       uint16 // manifest event ID (0 for classic events)
	Version  uint8
	Opcode   uint8 // classic events: the event type
	// PointerSize is 4 or 8: the size of pointer fields in Data, from the
	// header's 32-bit/64-bit flags.
	PointerSize int
	CPU         uint16
	// Timestamp is the header's time stamp in the session's raw clock
	// (QueryPerformanceCounter ticks for latlab's sessions).
	Timestamp int64
	PID, TID  uint32
	Data      []byte

	// record is the EVENT_RECORD during a live session's callback (nil
	// otherwise), for TdhGetEventInformation; it must not be kept.
	record unsafe.Pointer
}

// EVENT_HEADER.Flags bits (evntcons.h). On 64-bit Windows every event
// of a 64-bit provider, the kernel's included, carries
// EVENT_HEADER_FLAG_64_BIT_HEADER. The bit below 32_BIT_HEADER, 0x0010,
// is EVENT_HEADER_FLAG_NO_CPUTIME and says nothing about pointers.
const (
	eventHeaderFlag32BitHeader    = 0x0020 // EVENT_HEADER_FLAG_32_BIT_HEADER
	eventHeaderFlag64BitHeader    = 0x0040 // EVENT_HEADER_FLAG_64_BIT_HEADER
	eventHeaderFlagProcessorIndex = 0x0200 // EVENT_HEADER_FLAG_PROCESSOR_INDEX
)

// headerPointerSize is the size of the pointers in an event's payload as
// its header flags give it: 8, 4, or 0 when neither flag is set (the
// decoders then refuse the event instead of guessing).
func headerPointerSize(flags uint16) int {
	switch {
	case flags&eventHeaderFlag64BitHeader != 0:
		return 8
	case flags&eventHeaderFlag32BitHeader != 0:
		return 4
	}
	return 0
}

// DecodeError says which event could not be decoded and why.
type DecodeError struct {
	Event string // e.g. "PerfInfo DPC (type 68, version 2)"
	Msg   string
}

func (e *DecodeError) Error() string { return e.Event + ": " + e.Msg }

// reader reads little-endian fields from a payload and remembers the
// first field that did not fit, so a decoder checks once at the end.
type reader struct {
	b   []byte
	ptr int
	off int
	bad string
}

func (r *reader) need(n int, field string) bool {
	if r.bad != "" {
		return false
	}
	if n < 0 || r.off > len(r.b)-n {
		r.bad = fmt.Sprintf("%d bytes, %s at offset %d needs %d more", len(r.b), field, r.off, n)
		return false
	}
	return true
}

func (r *reader) u8(field string) uint8 {
	if !r.need(1, field) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16(field string) uint16 {
	if !r.need(2, field) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32(field string) uint32 {
	if !r.need(4, field) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64(field string) uint64 {
	if !r.need(8, field) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *reader) pointer(field string) uint64 {
	if r.ptr == 4 {
		return uint64(r.u32(field))
	}
	return r.u64(field)
}

// utf16z reads a NUL-terminated UTF-16LE string; an unterminated one
// ends with the payload (what is there is still the name).
func (r *reader) utf16z(field string) string {
	if r.bad != "" {
		return ""
	}
	var u []uint16
	for r.off+1 < len(r.b) {
		c := binary.LittleEndian.Uint16(r.b[r.off:])
		r.off += 2
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

func checkPointer(ev *Event, name string) error {
	if ev.PointerSize != 4 && ev.PointerSize != 8 {
		return &DecodeError{Event: name, Msg: fmt.Sprintf("pointer size %d: the header says neither 32-bit nor 64-bit", ev.PointerSize)}
	}
	return nil
}
