//go:build windows && (amd64 || arm64)

package etw

import (
	"encoding/binary"
	"runtime"
	"testing"
	"unsafe"
)

// The sizes and offsets of the SDK's structures on 64-bit Windows, as
// sizeof and offsetof give them with the MinGW-w64 headers (evntrace.h,
// evntcons.h). A wrong field here would make every call read garbage.
func TestLayout(t *testing.T) {
	var (
		w  wnodeHeader
		p  eventTraceProperties
		h  traceLogfileHeader
		lf eventTraceLogfile
		r  eventRecord
	)
	tests := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(WNODE_HEADER)", unsafe.Sizeof(w), 48},
		{"WNODE_HEADER.Guid", unsafe.Offsetof(w.GUID), 24},
		{"WNODE_HEADER.ClientContext", unsafe.Offsetof(w.ClientContext), 40},
		{"sizeof(EVENT_TRACE_PROPERTIES)", unsafe.Sizeof(p), 120},
		{"EVENT_TRACE_PROPERTIES.LogFileMode", unsafe.Offsetof(p.LogFileMode), 64},
		{"EVENT_TRACE_PROPERTIES.EnableFlags", unsafe.Offsetof(p.EnableFlags), 72},
		{"EVENT_TRACE_PROPERTIES.LoggerThreadId", unsafe.Offsetof(p.LoggerThreadID), 104},
		{"EVENT_TRACE_PROPERTIES.LoggerNameOffset", unsafe.Offsetof(p.LoggerNameOffset), 116},
		{"sizeof(EVENT_TRACE_HEADER)", unsafe.Sizeof(eventTraceHeader{}), 48},
		{"sizeof(EVENT_TRACE)", unsafe.Sizeof(eventTrace{}), 88},
		{"sizeof(TIME_ZONE_INFORMATION)", unsafe.Sizeof(timeZoneInformation{}), 172},
		{"sizeof(TRACE_LOGFILE_HEADER)", unsafe.Sizeof(h), 280},
		{"TRACE_LOGFILE_HEADER.LoggerName", unsafe.Offsetof(h.LoggerName), 56},
		{"TRACE_LOGFILE_HEADER.TimeZone", unsafe.Offsetof(h.TimeZone), 72},
		{"TRACE_LOGFILE_HEADER.BootTime", unsafe.Offsetof(h.BootTime), 248},
		{"TRACE_LOGFILE_HEADER.PerfFreq", unsafe.Offsetof(h.PerfFreq), 256},
		{"TRACE_LOGFILE_HEADER.BuffersLost", unsafe.Offsetof(h.BuffersLost), 276},
		{"sizeof(EVENT_TRACE_LOGFILEW)", unsafe.Sizeof(lf), 448},
		{"EVENT_TRACE_LOGFILEW.LogfileHeader", unsafe.Offsetof(lf.LogfileHeader), 120},
		{"EVENT_TRACE_LOGFILEW.BufferCallback", unsafe.Offsetof(lf.BufferCallback), 400},
		{"EVENT_TRACE_LOGFILEW.EventRecordCallback", unsafe.Offsetof(lf.EventRecordCallback), 424},
		{"EVENT_TRACE_LOGFILEW.Context", unsafe.Offsetof(lf.Context), 440},
		{"sizeof(EVENT_HEADER)", unsafe.Sizeof(eventHeader{}), 80},
		{"sizeof(EVENT_RECORD)", unsafe.Sizeof(r), 112},
		{"EVENT_RECORD.UserDataLength", unsafe.Offsetof(r.UserDataLength), 86},
		{"EVENT_RECORD.UserData", unsafe.Offsetof(r.UserData), 96},
		{"EVENT_RECORD.UserContext", unsafe.Offsetof(r.UserContext), 104},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

// dispatch turns an EVENT_RECORD into an Event: pointer size from the
// header flags, the payload as it lies in memory.
func TestDispatch(t *testing.T) {
	data := dpcPayload(8, 100, 0xfffff80012345678)
	r := eventRecord{UserDataLength: uint16(len(data)), UserData: unsafe.Pointer(&data[0]), ProcessorNumber: 5}
	r.EventHeader.Flags = 0x0040 // EVENT_HEADER_FLAG_64_BIT_HEADER (evntcons.h)
	r.EventHeader.TimeStamp = 150
	r.EventHeader.ProviderID = sysGUID(PerfInfoGUID)
	r.EventHeader.EventDescriptor.Opcode = TypeDPC
	r.EventHeader.EventDescriptor.Version = 2
	var got Execution
	s := &Session{handler: func(ev *Event) {
		x, ok, err := DecodePerfInfo(ev)
		if !ok || err != nil || ev.Provider != PerfInfoGUID {
			t.Errorf("%+v %v %v", ev, ok, err)
		}
		got = x
	}}
	s.dispatch(&r)
	if got.Start != 100 || got.End != 150 || got.CPU != 5 || got.Routine != 0xfffff80012345678 {
		t.Errorf("%+v", got)
	}
}

// A kernel DPC event as 64-bit Windows delivers it, built byte by byte at
// the SDK's offsets (evntcons.h: EVENT_RECORD, EVENT_HEADER,
// ETW_BUFFER_CONTEXT) with the SDK's flag values: the header says
// EVENT_HEADER_FLAG_64_BIT_HEADER | NO_CPUTIME | PROCESSOR_INDEX, as
// every kernel event does there. Nothing here comes from the package's
// constants or field names.
func TestDispatchRaw64BitRecord(t *testing.T) {
	data := dpcPayload(8, 1000, 0xfffff80012345678)
	var rec eventRecord
	b := unsafe.Slice((*byte)(unsafe.Pointer(&rec)), 112) // sizeof(EVENT_RECORD)
	le := binary.LittleEndian
	le.PutUint16(b[0:], 112)                  // EventHeader.Size
	le.PutUint16(b[4:], 0x0040|0x0010|0x0200) // EventHeader.Flags
	le.PutUint32(b[8:], 44)                   // EventHeader.ThreadId
	le.PutUint32(b[12:], 4)                   // EventHeader.ProcessId
	le.PutUint64(b[16:], 1500)                // EventHeader.TimeStamp
	// EventHeader.ProviderId: PerfInfo, {ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}
	le.PutUint32(b[24:], 0xce1dbfb4)
	le.PutUint16(b[28:], 0x137e)
	le.PutUint16(b[30:], 0x4da6)
	copy(b[32:40], []byte{0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc})
	b[42] = 2                                                       // EventDescriptor.Version
	b[45] = 68                                                      // EventDescriptor.Opcode: DPC
	b[80], b[81] = 3, 1                                             // BufferContext.ProcessorIndex: 0x0103
	le.PutUint16(b[86:], uint16(len(data)))                         // UserDataLength
	le.PutUint64(b[96:], uint64(uintptr(unsafe.Pointer(&data[0])))) // UserData
	var got Execution
	var seen int
	s := &Session{handler: func(ev *Event) {
		seen++
		x, ok, err := DecodePerfInfo(ev)
		if !ok || err != nil {
			t.Fatalf("DecodePerfInfo(%+v): ok %v, %v", ev, ok, err)
		}
		got = x
	}}
	s.dispatch(&rec)
	runtime.KeepAlive(data)
	if seen != 1 {
		t.Fatalf("%d events delivered", seen)
	}
	if got.Kind != KindDPC || got.Start != 1000 || got.End != 1500 || got.CPU != 0x103 || got.Routine != 0xfffff80012345678 {
		t.Errorf("decoded %+v", got)
	}
}

// Under Wine the session cannot start: one error that says so, no panic.
func TestStartKernelUnderWine(t *testing.T) {
	if !UnderWine() {
		t.Skip("not Wine")
	}
	s, err := StartKernel(FlagDPC | FlagInterrupt)
	if err == nil {
		s.Stop()
		t.Fatal("a kernel session started under Wine")
	}
	if _, ok := err.(*UnavailableError); !ok {
		t.Errorf("%T %v", err, err)
	}
}
