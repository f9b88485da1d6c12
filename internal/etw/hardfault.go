package etw

import "fmt"

// The kernel classes a hard page fault is attributed through (the MOF
// class GUIDs of learn.microsoft.com/windows/win32/etw/pagefault-v2,
// .../thread-v2 and .../process).
var (
	// PageFaultGUID is the class of page fault events; HardFault is its
	// event type 32.
	PageFaultGUID = GUID{0x3d6fa8d3, 0xfe05, 0x11d0, [8]byte{0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}
	// ThreadGUID is the class of thread start and end events.
	ThreadGUID = GUID{0x3d6fa8d1, 0xfe05, 0x11d0, [8]byte{0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}
	// ProcessGUID is the class of process start and end events.
	ProcessGUID = GUID{0x3d6fa8d0, 0xfe05, 0x11d0, [8]byte{0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}
)

// Event types of those classes: PageFault_HardFault (EventType 32),
// Thread_V2_TypeGroup1 and Process_V4_TypeGroup1 (Start 1, End 2,
// DCStart 3, DCEnd 4), as the class pages of
// learn.microsoft.com/windows/win32/etw give them.
const (
	TypeHardFault = 32
	TypeStart     = 1
	TypeEnd       = 2
	TypeDCStart   = 3
	TypeDCEnd     = 4
)

// HardFault is one hard page fault: a thread waited for the page to be
// read from a file (or the paging file). Times are in ticks of the
// trace's clock.
type HardFault struct {
	Start int64 // InitialTime: when the fault occurred
	End   int64 // the event's time stamp: when the read completed
	// ReadOffset is the file offset read to satisfy the fault.
	ReadOffset     uint64
	VirtualAddress uint64 // the faulting address
	FileObject     uint64 // matches a FileIo_Name event's FileObject
	TID            uint32 // TThreadId: the thread that faulted
	Bytes          uint32 // ByteCount: the data read
}

// Ticks is the time the fault took, in clock ticks.
func (f HardFault) Ticks() int64 { return f.End - f.Start }

// DecodeHardFault decodes a PageFault HardFault event (the class
// PageFault_HardFault of learn.microsoft.com/windows/win32/etw/
// pagefault-hardfault: InitialTime, ReadOffset, VirtualAddress and
// FileObject (pointers), TThreadId, ByteCount). ok is false for the
// class's other event types (soft faults, virtual allocations).
func DecodeHardFault(ev *Event) (f HardFault, ok bool, err error) {
	if ev.Opcode != TypeHardFault {
		return HardFault{}, false, nil
	}
	what := fmt.Sprintf("PageFault HardFault (type %d, version %d)", ev.Opcode, ev.Version)
	if err := checkPointer(ev, what); err != nil {
		return HardFault{}, true, err
	}
	r := reader{b: ev.Data, ptr: ev.PointerSize}
	start := r.u64("InitialTime")
	f.ReadOffset = r.u64("ReadOffset")
	f.VirtualAddress = r.pointer("VirtualAddress")
	f.FileObject = r.pointer("FileObject")
	f.TID = r.u32("TThreadId")
	f.Bytes = r.u32("ByteCount")
	if r.bad != "" {
		return HardFault{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	f.Start, f.End = int64(start), ev.Timestamp
	if start > 1<<62 || f.End < f.Start {
		return HardFault{}, true, &DecodeError{Event: what, Msg: fmt.Sprintf("fault time %d is after the event's time stamp %d: not the trace's clock", start, ev.Timestamp)}
	}
	return f, true, nil
}

// Thread is a thread start or end (or the rundown's list of running
// threads) as a Thread event gives it.
type Thread struct {
	PID, TID uint32
}

// DecodeThread decodes the process and thread ids of a Thread event of
// types 1-4. Every version from 1 (Windows XP) on starts with ProcessId
// and TThreadId (Thread_V1_TypeGroup1, Thread_V2_TypeGroup1,
// Thread_TypeGroup1 of learn.microsoft.com/windows/win32/etw); version 0
// (Windows 2000) is refused. ok is false for the class's other types
// (context switches, ready thread, ...).
func DecodeThread(ev *Event) (t Thread, ok bool, err error) {
	switch ev.Opcode {
	case TypeStart, TypeEnd, TypeDCStart, TypeDCEnd:
	default:
		return Thread{}, false, nil
	}
	what := fmt.Sprintf("Thread (type %d, version %d)", ev.Opcode, ev.Version)
	if ev.Version < 1 {
		return Thread{}, true, &DecodeError{Event: what, Msg: "version 0 (Windows 2000) is not read"}
	}
	r := reader{b: ev.Data}
	t.PID = r.u32("ProcessId")
	t.TID = r.u32("TThreadId")
	if r.bad != "" {
		return Thread{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	return t, true, nil
}

// MaxImageFileName bounds the image name kept from a Process event (the
// kernel writes the 15 characters of EPROCESS.ImageFileName; a longer
// one is cut here).
const MaxImageFileName = 260

// Process is a process as a Process event of types 1-4 names it.
type Process struct {
	PID, ParentPID uint32
	// ImageFileName is the executable's file name as the kernel keeps it
	// (ANSI, at most 15 characters: "svchost.exe").
	ImageFileName string
}

// DecodeProcess decodes a Process event of versions 1 to 4:
// UniqueProcessKey (a pointer), ProcessId, ParentId, SessionId,
// ExitStatus, from version 3 DirectoryTableBase (a pointer), from
// version 4 Flags, then UserSID and ImageFileName (Process_V1_TypeGroup1
// to Process_V4_TypeGroup1 of learn.microsoft.com/windows/win32/etw).
// UserSID is the kernel's TOKEN_USER (a SID pointer and its attributes,
// two pointers wide) followed by the SID itself (8 bytes and 4 per sub-
// authority): the length etl-parser's Process_V4_TypeGroup1 (Apache-2.0),
// dissect.etl and perfview's TraceEvent (SkipSID) compute. A TOKEN_USER
// whose first 4 bytes are zero is taken as no SID, 4 bytes long, as
// TraceEvent does (its comment says it is unconfirmed; etl-parser and
// dissect.etl do not handle the case; no real trace at hand has one). Other versions are refused: their layout is not
// documented. ok is false for the class's other types (performance
// counters; Defunct, type 39, which Windows 10 writes in version 5 and
// which names a process its other events name already).
func DecodeProcess(ev *Event) (p Process, ok bool, err error) {
	switch ev.Opcode {
	case TypeStart, TypeEnd, TypeDCStart, TypeDCEnd:
	default:
		return Process{}, false, nil
	}
	what := fmt.Sprintf("Process (type %d, version %d)", ev.Opcode, ev.Version)
	if ev.Version < 1 || ev.Version > 4 {
		return Process{}, true, &DecodeError{Event: what, Msg: "only versions 1 to 4 (Windows XP to 11) are read"}
	}
	if err := checkPointer(ev, what); err != nil {
		return Process{}, true, err
	}
	r := reader{b: ev.Data, ptr: ev.PointerSize}
	r.pointer("UniqueProcessKey")
	p.PID = r.u32("ProcessId")
	p.ParentPID = r.u32("ParentId")
	r.u32("SessionId")
	r.u32("ExitStatus")
	if ev.Version >= 3 {
		r.pointer("DirectoryTableBase")
	}
	if ev.Version >= 4 {
		r.u32("Flags")
	}
	r.sid("UserSID")
	p.ImageFileName = r.cstring("ImageFileName", MaxImageFileName)
	if r.bad != "" {
		return Process{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	return p, true, nil
}

// sid skips a kernel event's SID field (see DecodeProcess).
func (r *reader) sid(field string) {
	if !r.need(4, field) {
		return
	}
	if r.b[r.off] == 0 && r.b[r.off+1] == 0 && r.b[r.off+2] == 0 && r.b[r.off+3] == 0 {
		r.off += 4 // no SID: TraceEvent skips 4 bytes (unconfirmed there too)
		return
	}
	if !r.need(2*r.ptr+8, field) {
		return
	}
	r.off += 2 * r.ptr
	n := int(r.b[r.off+1]) // SubAuthorityCount
	if !r.need(8+4*n, field) {
		return
	}
	r.off += 8 + 4*n
}

// cstring reads a NUL-terminated 8-bit string, keeping at most max bytes
// of it; an unterminated one ends with the payload. Bytes outside ASCII
// (the kernel writes the ANSI code page) become U+FFFD.
func (r *reader) cstring(field string, max int) string {
	if r.bad != "" {
		return ""
	}
	if r.off >= len(r.b) {
		r.bad = fmt.Sprintf("%d bytes, %s at offset %d is missing", len(r.b), field, r.off)
		return ""
	}
	var s []rune
	for r.off < len(r.b) {
		c := r.b[r.off]
		r.off++
		if c == 0 {
			break
		}
		if len(s) < max {
			if c >= 0x80 {
				s = append(s, '\uFFFD')
			} else {
				s = append(s, rune(c))
			}
		}
	}
	return string(s)
}
