package etw

import (
	"fmt"
	"path"
	"strings"
)

// Classic kernel event classes (the MOF class GUIDs of the documentation).
var (
	// PerfInfoGUID is the class of DPC, ISR and timer-DPC events.
	PerfInfoGUID = GUID{0xce1dbfb4, 0x137e, 0x4da6, [8]byte{0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}}
	// ImageGUID is the class of image (module) load events.
	ImageGUID = GUID{0x2cb15d1d, 0x5fc1, 0x11d2, [8]byte{0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18}}
	// SystemTraceControlGUID names the NT Kernel Logger session.
	SystemTraceControlGUID = GUID{0x9e814aad, 0x3204, 0x11d2, [8]byte{0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39}}
)

// PerfInfo event types (EventType of the DPC and ISR classes). The SDK
// headers do not have them: Microsoft's class pages
// (learn.microsoft.com/windows/win32/etw/dpc and .../etw/isr) and
// perfview's TraceEvent KernelTraceEventParser give these numbers.
// scripts/windows-abi lists them with those sources.
const (
	TypeISRMSI      = 50
	TypeThreadedDPC = 66
	TypeISR         = 67
	TypeDPC         = 68
	TypeTimerDPC    = 69
)

// Image event types (learn.microsoft.com/windows/win32/etw/image-load:
// the Image_Load class).
const (
	TypeImageUnload  = 2
	TypeImageDCStart = 3
	TypeImageDCEnd   = 4
	TypeImageLoad    = 10
)

// Kind is what ran at raised IRQL.
type Kind uint8

// Kinds of routine execution.
const (
	KindDPC Kind = iota
	KindTimerDPC
	KindThreadedDPC
	KindISR
)

func (k Kind) String() string {
	switch k {
	case KindDPC:
		return "DPC"
	case KindTimerDPC:
		return "TimerDPC"
	case KindThreadedDPC:
		return "ThreadedDPC"
	case KindISR:
		return "ISR"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// IsISR reports whether the kind is an interrupt service routine.
func (k Kind) IsISR() bool { return k == KindISR }

// Execution is one DPC or ISR: its routine and when it ran, in ticks of
// the session clock.
type Execution struct {
	Kind    Kind
	CPU     uint16
	Start   int64 // InitialTime: entry
	End     int64 // the event's time stamp: exit
	Routine uint64
	// ISR only.
	Vector  uint8
	Claimed bool   // ReturnValue: the ISR claimed the interrupt
	Message uint32 // MSI message number (type 50), else 0
}

// Ticks is the execution time in clock ticks.
func (e Execution) Ticks() int64 { return e.End - e.Start }

// DecodePerfInfo decodes a PerfInfo DPC or ISR event. ok is false for the
// class's other event types (sampled profile, system calls, ...), which a
// DPC watch ignores.
func DecodePerfInfo(ev *Event) (x Execution, ok bool, err error) {
	var name string
	switch ev.Opcode {
	case TypeDPC:
		x.Kind, name = KindDPC, "DPC"
	case TypeTimerDPC:
		x.Kind, name = KindTimerDPC, "TimerDPC"
	case TypeThreadedDPC:
		x.Kind, name = KindThreadedDPC, "ThreadedDPC"
	case TypeISR, TypeISRMSI:
		x.Kind, name = KindISR, "ISR"
	default:
		return Execution{}, false, nil
	}
	what := fmt.Sprintf("PerfInfo %s (type %d, version %d)", name, ev.Opcode, ev.Version)
	if err := checkPointer(ev, what); err != nil {
		return Execution{}, true, err
	}
	r := reader{b: ev.Data, ptr: ev.PointerSize}
	start := r.u64("InitialTime")
	x.Routine = r.pointer("Routine")
	if x.Kind == KindISR {
		x.Claimed = r.u8("ReturnValue") != 0
		x.Vector = r.u8("Vector")
		r.u16("Reserved")
		if ev.Opcode == TypeISRMSI && len(ev.Data) >= r.off+4 {
			x.Message = r.u32("MessageNumber")
		}
	}
	if r.bad != "" {
		return Execution{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	x.Start, x.End, x.CPU = int64(start), ev.Timestamp, ev.CPU
	if start > 1<<62 || x.End < x.Start {
		return Execution{}, true, &DecodeError{Event: what, Msg: fmt.Sprintf("entry time %d is after the event's time stamp %d: not the session clock", start, ev.Timestamp)}
	}
	return x, true, nil
}

// Image is a loaded module as an Image event describes it.
type Image struct {
	Base, Size    uint64
	PID           uint32 // 0 for kernel-mode modules (drivers)
	Checksum      uint32
	TimeDateStamp uint32
	FileName      string // as the kernel spells it: \SystemRoot\System32\drivers\ndis.sys
	// Unload: the module is gone. DCEnd is not one: Microsoft's Image
	// class page says it "Enumerates all loaded images at the end of the
	// trace", and a trace may keep no other list of its drivers (the
	// merged trace TraceLoggingTester.etl of ETWAnalyzer's test data:
	// 23,367 Image DCEnd events, no DCStart).
	Unload bool
}

// Name is the file name without its folder, as xperf names modules.
func (im Image) Name() string { return ModuleName(im.FileName) }

// ModuleName is the last element of a Windows or NT path.
func ModuleName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return path.Base(p)
}

// DecodeImage decodes an Image event (version 2 and later: every Windows
// from Vista). ok is false for the class's other event types.
func DecodeImage(ev *Event) (im Image, ok bool, err error) {
	switch ev.Opcode {
	case TypeImageLoad, TypeImageDCStart, TypeImageDCEnd:
	case TypeImageUnload:
		im.Unload = true
	default:
		return Image{}, false, nil
	}
	what := fmt.Sprintf("Image (type %d, version %d)", ev.Opcode, ev.Version)
	if ev.Version < 2 {
		return Image{}, true, &DecodeError{Event: what, Msg: "versions before 2 (Windows XP) are not read"}
	}
	if err := checkPointer(ev, what); err != nil {
		return Image{}, true, err
	}
	r := reader{b: ev.Data, ptr: ev.PointerSize}
	im.Base = r.pointer("ImageBase")
	im.Size = r.pointer("ImageSize")
	im.PID = r.u32("ProcessId")
	im.Checksum = r.u32("ImageCheckSum")
	im.TimeDateStamp = r.u32("TimeDateStamp")
	r.u32("Reserved0")
	r.pointer("DefaultBase")
	for _, f := range []string{"Reserved1", "Reserved2", "Reserved3", "Reserved4"} {
		r.u32(f)
	}
	if r.bad == "" && r.off >= len(r.b) {
		r.bad = fmt.Sprintf("%d bytes, FileName at offset %d is missing", len(r.b), r.off)
	}
	im.FileName = r.utf16z("FileName")
	if r.bad != "" {
		return Image{}, true, &DecodeError{Event: what, Msg: r.bad}
	}
	return im, true, nil
}
