//go:build windows && (amd64 || arm64)

package etw

import (
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
	r.EventHeader.Flags = eventHeaderFlag64BitHeader
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
