package etl

import (
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf16"
)

// Logfile is the trace's own header: the TRACE_LOGFILE_HEADER (evntrace.h)
// that is the payload of the first event.
type Logfile struct {
	BufferSize      uint32
	OSMajor         uint8 // VersionDetail.MajorVersion
	OSMinor         uint8
	Build           uint32 // ProviderVersion: the Windows build number
	CPUs            uint32
	EndTime         time.Time
	TimerResolution uint32 // in 100 ns units
	MaxFileSize     uint32 // MB
	LogFileMode     uint32
	BuffersWritten  uint32
	StartBuffers    uint32
	PointerSize     uint32
	EventsLost      uint32
	CPUSpeedMHz     uint32
	BootTime        time.Time
	PerfFreq        int64
	StartTime       time.Time
	// ClockType is ReservedFlags: 1 QueryPerformanceCounter, 2 system
	// time, 3 CPU cycle counter (WNODE_HEADER.ClientContext of
	// EVENT_TRACE_PROPERTIES).
	ClockType   uint32
	BuffersLost uint32
	LoggerName  string
	LogFileName string
}

// ClockName names the clock type.
func (l *Logfile) ClockName() string {
	switch l.ClockType {
	case 1:
		return "QueryPerformanceCounter"
	case 2:
		return "system time"
	case 3:
		return "CPU cycle counter"
	}
	return fmt.Sprintf("clock type %d", l.ClockType)
}

// Frequency is the ticks per second of the event time stamps (0 when the
// header does not say).
func (l *Logfile) Frequency() int64 {
	switch l.ClockType {
	case 2:
		return 10_000_000
	case 3:
		return int64(l.CPUSpeedMHz) * 1_000_000
	}
	return l.PerfFreq
}

// timeZoneSize is RTL_TIME_ZONE_INFORMATION: Bias, StandardName[32],
// StandardDate (SYSTEMTIME), StandardBias, DaylightName[32],
// DaylightDate, DaylightBias.
const timeZoneSize = 4 + 64 + 16 + 4 + 64 + 16 + 4

// fileTime converts a FILETIME (100 ns since 1601); 0 is the zero time.
func fileTime(v int64) time.Time {
	if v <= 0 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
	return time.Unix(0, 0).UTC().Add(time.Duration(v-epochDiff) * 100)
}

// parseLogfile reads the header event: the EventTrace class, type 0.
func parseLogfile(rec *Record) (*Logfile, error) {
	if !rec.Kernel || rec.HookID != 0 {
		return nil, fmt.Errorf("it is a %s event with hook id 0x%04x, want the EventTrace header (0x0000)", rec.Kind, rec.HookID)
	}
	ptr := rec.PointerSize
	b := rec.Data
	fixed := 56 + 2*ptr
	tail := (fixed + timeZoneSize + 7) &^ 7
	if len(b) < tail+32 {
		return nil, fmt.Errorf("its payload is %d bytes, a TRACE_LOGFILE_HEADER with %d-byte pointers needs %d", len(b), ptr, tail+32)
	}
	le := binary.LittleEndian
	l := &Logfile{
		BufferSize:      le.Uint32(b[0:]),
		OSMajor:         b[4],
		OSMinor:         b[5],
		Build:           le.Uint32(b[8:]),
		CPUs:            le.Uint32(b[12:]),
		EndTime:         fileTime(int64(le.Uint64(b[16:]))),
		TimerResolution: le.Uint32(b[24:]),
		MaxFileSize:     le.Uint32(b[28:]),
		LogFileMode:     le.Uint32(b[32:]),
		BuffersWritten:  le.Uint32(b[36:]),
		StartBuffers:    le.Uint32(b[40:]),
		PointerSize:     le.Uint32(b[44:]),
		EventsLost:      le.Uint32(b[48:]),
		CPUSpeedMHz:     le.Uint32(b[52:]),
		BootTime:        fileTime(int64(le.Uint64(b[tail:]))),
		PerfFreq:        int64(le.Uint64(b[tail+8:])),
		StartTime:       fileTime(int64(le.Uint64(b[tail+16:]))),
		ClockType:       le.Uint32(b[tail+24:]),
		BuffersLost:     le.Uint32(b[tail+28:]),
	}
	if l.PointerSize != 4 && l.PointerSize != 8 {
		l.PointerSize = uint32(ptr)
	}
	rest := b[tail+32:]
	l.LoggerName, rest = utf16z(rest)
	l.LogFileName, _ = utf16z(rest)
	return l, nil
}

// utf16z reads a NUL-terminated UTF-16LE string and returns the rest.
func utf16z(b []byte) (string, []byte) {
	var u []uint16
	for len(b) >= 2 {
		c := binary.LittleEndian.Uint16(b)
		b = b[2:]
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u)), b
}
