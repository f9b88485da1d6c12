//go:build windows && (amd64 || arm64)

package etw

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/winapi"
)

// The structures below are those of evntrace.h, evntcons.h and
// relogger.h for 64-bit Windows; scripts/windows-abi checks every size,
// offset and constant against mingw-w64's headers.

type wnodeHeader struct {
	BufferSize        uint32
	ProviderID        uint32
	HistoricalContext uint64
	TimeStamp         int64
	GUID              windows.GUID
	ClientContext     uint32
	Flags             uint32
}

type eventTraceProperties struct {
	Wnode               wnodeHeader
	BufferSize          uint32
	MinimumBuffers      uint32
	MaximumBuffers      uint32
	MaximumFileSize     uint32
	LogFileMode         uint32
	FlushTimer          uint32
	EnableFlags         uint32
	AgeLimit            int32
	NumberOfBuffers     uint32
	FreeBuffers         uint32
	EventsLost          uint32
	BuffersWritten      uint32
	LogBuffersLost      uint32
	RealTimeBuffersLost uint32
	LoggerThreadID      windows.Handle
	LogFileNameOffset   uint32
	LoggerNameOffset    uint32
}

type eventTraceHeader struct {
	Size          uint16
	FieldTypeFlag uint16
	Version       uint32
	ThreadID      uint32
	ProcessID     uint32
	TimeStamp     int64
	GUID          windows.GUID
	ProcessorTime uint64
}

type eventTrace struct {
	Header           eventTraceHeader
	InstanceID       uint32
	ParentInstanceID uint32
	ParentGUID       windows.GUID
	MofData          uintptr
	MofLength        uint32
	ClientContext    uint32
}

type timeZoneInformation struct {
	Bias         int32
	StandardName [32]uint16
	StandardDate windows.Systemtime
	StandardBias int32
	DaylightName [32]uint16
	DaylightDate windows.Systemtime
	DaylightBias int32
}

type traceLogfileHeader struct {
	BufferSize         uint32
	Version            uint32
	ProviderVersion    uint32
	NumberOfProcessors uint32
	EndTime            int64
	TimerResolution    uint32
	MaximumFileSize    uint32
	LogFileMode        uint32
	BuffersWritten     uint32
	StartBuffers       uint32
	PointerSize        uint32
	EventsLost         uint32
	CPUSpeedInMHz      uint32
	LoggerName         uintptr
	LogFileName        uintptr
	TimeZone           timeZoneInformation
	BootTime           int64
	PerfFreq           int64
	StartTime          int64
	ReservedFlags      uint32
	BuffersLost        uint32
}

type eventTraceLogfile struct {
	LogFileName         *uint16
	LoggerName          *uint16
	CurrentTime         int64
	BuffersRead         uint32
	ProcessTraceMode    uint32
	CurrentEvent        eventTrace
	LogfileHeader       traceLogfileHeader
	BufferCallback      uintptr
	BufferSize          uint32
	Filled              uint32
	EventsLost          uint32
	EventRecordCallback uintptr
	IsKernelTrace       uint32
	Context             uintptr
}

type eventDescriptor struct {
	ID      uint16
	Version uint8
	Channel uint8
	Level   uint8
	Opcode  uint8
	Task    uint16
	Keyword uint64
}

type eventHeader struct {
	Size            uint16
	HeaderType      uint16
	Flags           uint16
	EventProperty   uint16
	ThreadID        uint32
	ProcessID       uint32
	TimeStamp       int64
	ProviderID      windows.GUID
	EventDescriptor eventDescriptor
	ProcessorTime   uint64
	ActivityID      windows.GUID
}

type eventRecord struct {
	EventHeader       eventHeader
	ProcessorNumber   uint8 // ETW_BUFFER_CONTEXT: ProcessorNumber, Alignment (or ProcessorIndex)
	Alignment         uint8
	LoggerID          uint16
	ExtendedDataCount uint16
	UserDataLength    uint16
	ExtendedData      uintptr
	UserData          unsafe.Pointer
	UserContext       uintptr
}

const (
	wnodeFlagTracedGUID = 0x00020000
	// Wnode.ClientContext 1: QueryPerformanceCounter time stamps. No SDK
	// name; learn.microsoft.com/windows/win32/etw/wnode-header gives it.
	clockQPC = 1

	eventTraceRealTimeMode = 0x00000100

	processTraceModeRealTime     = 0x00000100
	processTraceModeRawTimestamp = 0x00001000
	processTraceModeEventRecord  = 0x10000000

	eventTraceControlQuery = 0
	eventTraceControlStop  = 1

	errorNoSystemResources   = windows.Errno(1450) // ERROR_NO_SYSTEM_RESOURCES (winerror.h)
	errorWMIInstanceNotFound = windows.Errno(4201) // ERROR_WMI_INSTANCE_NOT_FOUND: no session of that name
	errorCtxClosePending     = windows.Errno(7007) // ERROR_CTX_CLOSE_PENDING
)

var (
	callbacksOnce      sync.Once
	eventCallback      uintptr
	bufferCallback     uintptr
	consumers          sync.Map // id -> *Session
	nextConsumer       atomic.Uintptr
	errTraceNotStarted = errors.New("session not started")
)

// UnderWine reports whether this is Wine, whose advapi32 has the
// functions but no kernel tracing behind them.
func UnderWine() bool { return winapi.UnderWine() }

// QPC reads QueryPerformanceCounter: the clock of latlab's sessions.
func QPC() int64 {
	var t int64
	_ = winapi.QueryPerformanceCounter(&t) // cannot fail since Windows XP
	return t
}

// QPCFrequency is QueryPerformanceFrequency.
func QPCFrequency() int64 {
	var f int64
	_ = winapi.QueryPerformanceFrequency(&f) // cannot fail since Windows XP
	return f
}

// Session is a real-time kernel trace session that latlab started and
// consumes.
type Session struct {
	Name   string
	handle uint64
	props  []byte

	trace   uint64
	id      uintptr
	handler func(*Event)
	stopped atomic.Bool
	freq    int64

	stopOnce sync.Once
	lost     uint32
	rtLost   uint32
}

func newProperties(name string, guid windows.GUID, mode, flags uint32) []byte {
	n16, _ := windows.UTF16FromString(name)
	size := int(unsafe.Sizeof(eventTraceProperties{}))
	buf := make([]byte, size+2*len(n16)+2*1024) // room for the name and a log file name on queries
	p := (*eventTraceProperties)(unsafe.Pointer(&buf[0]))
	p.Wnode.BufferSize = uint32(len(buf))
	p.Wnode.Flags = wnodeFlagTracedGUID
	p.Wnode.ClientContext = clockQPC
	p.Wnode.GUID = guid
	p.LogFileMode = mode
	p.EnableFlags = flags
	p.BufferSize = 64 // KiB
	p.MinimumBuffers = uint32(4 * runtime.NumCPU())
	p.MaximumBuffers = p.MinimumBuffers + 64
	p.FlushTimer = 1 // s: the live line sees every second's events
	p.LoggerNameOffset = uint32(size)
	p.LogFileNameOffset = 0
	return buf
}

func props(b []byte) *eventTraceProperties { return (*eventTraceProperties)(unsafe.Pointer(&b[0])) }

// StartKernel starts a real-time session of the kernel provider with the
// given flags: a private system-logger session named with this process's
// id where Windows allows several (8 and later), else the NT Kernel
// Logger. Sessions of latlabs that were killed are stopped first; a live
// latlab's session, and the NT Kernel Logger of another tool, are not
// touched: a *HeldError names the holders, a *LimitError says Windows'
// limit is reached. LATLAB_NT_KERNEL_LOGGER=1 skips the private session
// (the path of Windows 7, tested on newer Windows).
func StartKernel(flags uint32) (*Session, error) {
	if UnderWine() {
		return nil, &UnavailableError{Reason: "Wine does not implement Event Tracing for Windows kernel sessions; run latlab on Windows"}
	}
	pid := windows.GetCurrentProcessId()
	name := SessionName(KernelSessionBase, pid)
	var limited bool
	if os.Getenv("LATLAB_NT_KERNEL_LOGGER") != "1" {
		stopStale(KernelSessionBase, pid)
		s, err := start(name, sysGUID(SessionGUID(pid)), eventTraceRealTimeMode|eventTraceSystemLoggerMode, flags)
		switch {
		case err == nil:
			return s, nil
		case errors.Is(err, windows.ERROR_ALREADY_EXISTS):
			return nil, fmt.Errorf("this latlab runs a kernel trace already: %w", err)
		case errors.Is(err, windows.ERROR_ACCESS_DENIED):
			return nil, &AccessError{Op: "starting a kernel trace session"}
		case errors.Is(err, errorNoSystemResources):
			limited = true // every system-logger slot taken: try the NT Kernel Logger's
		case errors.As(err, new(*UnavailableError)):
			return nil, err
		}
	}
	// Before Windows 8, or every system-logger slot taken: the NT Kernel
	// Logger.
	s, err := start(KernelLoggerName, sysGUID(SystemTraceControlGUID), eventTraceRealTimeMode, flags)
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return nil, &AccessError{Op: "starting the NT Kernel Logger"}
	case errors.Is(err, windows.ERROR_ALREADY_EXISTS), errors.Is(err, errorNoSystemResources):
		all, _ := QuerySessions() // unlisted holders: HeldError gives the logman advice instead
		if limited {
			return nil, &LimitError{Session: name, Kernel: true, Holders: KernelHolders(all)}
		}
		return nil, &HeldError{Sessions: KernelHolders(all)}
	}
	return nil, err
}

// stopStale stops the sessions of base whose latlab is gone. What cannot
// be listed or stopped is left: the start that follows says what is wrong.
func stopStale(base string, self uint32) {
	all, err := QuerySessions()
	if err != nil {
		return
	}
	for _, name := range StaleSessions(all, base, self, processAlive) {
		_ = stopByName(name)
	}
}

// processAlive reports whether process pid runs: OpenProcess finds it and
// GetExitCodeProcess says STILL_ACTIVE. A process latlab may not open
// (another user's, a protected one) exists: alive.
func processAlive(pid uint32) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		// ERROR_INVALID_PARAMETER: no process has that id.
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// stillActive is STILL_ACTIVE (minwinbase.h: STATUS_PENDING, 259), the exit
// code of a process that has not ended.
const stillActive = 259

func sysGUID(g GUID) windows.GUID {
	return windows.GUID{Data1: g.Data1, Data2: g.Data2, Data3: g.Data3, Data4: g.Data4}
}

func start(name string, guid windows.GUID, mode, flags uint32) (*Session, error) {
	s := &Session{Name: name, props: newProperties(name, guid, mode, flags)}
	n16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	if err := winapi.StartTrace(&s.handle, n16, &s.props[0]); err != nil {
		if d := (*windows.DLLError)(nil); errors.As(err, &d) {
			return nil, &UnavailableError{Reason: "advapi32 has no StartTraceW"}
		}
		return nil, fmt.Errorf("starting the session %q (StartTraceW): %w", name, err)
	}
	return s, nil
}

// stopByName stops the session called name; one that is gone already
// is as good as stopped.
func stopByName(name string) error {
	buf := newProperties(name, windows.GUID{}, 0, 0)
	n16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return err
	}
	err = winapi.ControlTrace(0, n16, &buf[0], eventTraceControlStop)
	if err != nil && !errors.Is(err, errorWMIInstanceNotFound) {
		return fmt.Errorf("stopping the session %q left by an earlier run (ControlTraceW): %w", name, err)
	}
	return nil
}

// QuerySessions lists the running sessions (QueryAllTracesW).
func QuerySessions() ([]SessionInfo, error) {
	const max = 64
	bufs := make([][]byte, max)
	ptrs := make([]uintptr, max)
	for i := range bufs {
		bufs[i] = newProperties("", windows.GUID{}, 0, 0)
		p := props(bufs[i])
		p.LoggerNameOffset = uint32(unsafe.Sizeof(eventTraceProperties{}))
		p.LogFileNameOffset = p.LoggerNameOffset + 2*256
		ptrs[i] = uintptr(unsafe.Pointer(&bufs[i][0]))
	}
	var n uint32
	err := winapi.QueryAllTraces(&ptrs[0], max, &n)
	runtime.KeepAlive(bufs)
	if err != nil {
		return nil, fmt.Errorf("listing the trace sessions (QueryAllTracesW): %w", err)
	}
	var out []SessionInfo
	for i := 0; i < int(n) && i < max; i++ {
		p := props(bufs[i])
		name := ""
		if off := int(p.LoggerNameOffset); off > 0 && off+2 <= len(bufs[i]) {
			name = windows.UTF16PtrToString((*uint16)(unsafe.Pointer(&bufs[i][off])))
		}
		out = append(out, SessionInfo{Name: name, LogFileMode: p.LogFileMode, EnableFlags: p.EnableFlags})
	}
	return out, nil
}

func initCallbacks() {
	callbacksOnce.Do(func() {
		eventCallback = windows.NewCallback(func(r *eventRecord) uintptr {
			if v, ok := consumers.Load(r.UserContext); ok {
				v.(*Session).dispatch(r)
			}
			return 0
		})
		bufferCallback = windows.NewCallback(func(l *eventTraceLogfile) uintptr {
			return 1 // TRUE: go on; the end comes from Stop or Close
		})
	})
}

func (s *Session) dispatch(r *eventRecord) {
	ev := Event{
		Provider:  GUID{r.EventHeader.ProviderID.Data1, r.EventHeader.ProviderID.Data2, r.EventHeader.ProviderID.Data3, r.EventHeader.ProviderID.Data4},
		ID:        r.EventHeader.EventDescriptor.ID,
		Version:   r.EventHeader.EventDescriptor.Version,
		Opcode:    r.EventHeader.EventDescriptor.Opcode,
		CPU:       uint16(r.ProcessorNumber),
		Timestamp: r.EventHeader.TimeStamp,
		PID:       r.EventHeader.ProcessID,
		TID:       r.EventHeader.ThreadID,
		record:    unsafe.Pointer(r),
	}
	ev.PointerSize = headerPointerSize(r.EventHeader.Flags)
	if r.EventHeader.Flags&eventHeaderFlagProcessorIndex != 0 {
		ev.CPU = uint16(r.ProcessorNumber) | uint16(r.Alignment)<<8
	}
	if r.UserDataLength > 0 && r.UserData != nil {
		ev.Data = unsafe.Slice((*byte)(r.UserData), r.UserDataLength)
	}
	s.handler(&ev)
}

// Frequency is the session clock's ticks per second.
func (s *Session) Frequency() int64 { return s.freq }

// Open prepares consumption; handle is called for every event, on the
// thread that runs Process, and must not keep ev.Data.
func (s *Session) Open(handle func(ev *Event)) error {
	initCallbacks()
	s.handler = handle
	s.id = nextConsumer.Add(1)
	consumers.Store(s.id, s)
	n16, err := windows.UTF16PtrFromString(s.Name)
	if err != nil {
		return err
	}
	lf := eventTraceLogfile{
		LoggerName:          n16,
		ProcessTraceMode:    processTraceModeRealTime | processTraceModeEventRecord | processTraceModeRawTimestamp,
		EventRecordCallback: eventCallback,
		BufferCallback:      bufferCallback,
		Context:             s.id,
	}
	h, err := winapi.OpenTrace(unsafe.Pointer(&lf))
	if err != nil {
		consumers.Delete(s.id)
		return fmt.Errorf("opening the session %q for reading (OpenTraceW): %w", s.Name, err)
	}
	s.trace = h
	s.freq = lf.LogfileHeader.PerfFreq
	if s.freq <= 0 {
		s.freq = QPCFrequency()
	}
	return nil
}

// Process delivers events until Stop; it blocks, on a thread of its own.
func (s *Session) Process() error {
	if s.trace == 0 {
		return errTraceNotStarted
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := s.trace
	err := winapi.ProcessTrace(&h, 1, nil, nil)
	if err != nil && !s.stopped.Load() && !errors.Is(err, errorCtxClosePending) {
		return fmt.Errorf("reading the session %q (ProcessTrace): %w", s.Name, err)
	}
	return nil
}

// Stop ends the session; the events it still holds are delivered, then
// Process returns. It is safe to call twice.
func (s *Session) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		s.stopped.Store(true)
		n16, _ := windows.UTF16PtrFromString(s.Name)
		if e := winapi.ControlTrace(s.handle, n16, &s.props[0], eventTraceControlStop); e != nil {
			err = fmt.Errorf("stopping the session %q (ControlTraceW): %w", s.Name, e)
			return
		}
		p := props(s.props)
		s.lost, s.rtLost = p.EventsLost, p.RealTimeBuffersLost
	})
	return err
}

// Close ends the consumption (CloseTrace): Process returns after the
// buffer at hand. Call it after Stop, or when Process does not return.
func (s *Session) Close() {
	if s.trace != 0 {
		_ = winapi.CloseTrace(s.trace) // ERROR_CTX_CLOSE_PENDING: it ends after the buffer at hand
	}
}

// Lost is what the session dropped, as it said when stopped: events it
// could not buffer and real-time buffers the consumer did not take in time.
func (s *Session) Lost() (events, buffers uint32) { return s.lost, s.rtLost }

// Release forgets the consumer once Process has returned.
func (s *Session) Release() { consumers.Delete(s.id) }

// LoadedModules lists the kernel modules with their bases and sizes
// (NtQuerySystemInformation, SystemModuleInformation). The debug
// privilege is enabled first: Windows 11 24H2 gives the addresses only to
// callers that hold it.
func LoadedModules() ([]Module, error) {
	privErr := enableDebugPrivilege()
	size := uint32(256 << 10)
	for range 4 {
		buf := make([]byte, size)
		var need uint32
		err := winapi.NtQuerySystemInformation(SystemModuleInformation, unsafe.Pointer(&buf[0]), size, &need)
		if errors.Is(err, windows.STATUS_INFO_LENGTH_MISMATCH) {
			size = max(need, 2*size)
			if size > 64<<20 {
				break
			}
			continue
		}
		if err != nil {
			if privErr != nil {
				return nil, fmt.Errorf("listing the kernel modules (NtQuerySystemInformation): %w (and %v)", err, privErr)
			}
			return nil, fmt.Errorf("listing the kernel modules (NtQuerySystemInformation): %w", err)
		}
		return ParseSystemModules(buf, int(unsafe.Sizeof(uintptr(0))))
	}
	return nil, errors.New("listing the kernel modules (NtQuerySystemInformation): the list keeps growing")
}

// enableDebugPrivilege enables SeDebugPrivilege in the process token.
// Its failure does not stop the listing (older Windows gives the
// addresses without it); it is named when the listing fails too.
func enableDebugPrivilege() error {
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_ADJUST_PRIVILEGES|windows.TOKEN_QUERY, &tok); err != nil {
		return fmt.Errorf("OpenProcessToken: %w", err)
	}
	defer tok.Close()
	var luid windows.LUID
	name, err := windows.UTF16PtrFromString("SeDebugPrivilege")
	if err != nil {
		return err
	}
	if err := windows.LookupPrivilegeValue(nil, name, &luid); err != nil {
		return fmt.Errorf("LookupPrivilegeValueW(SeDebugPrivilege): %w", err)
	}
	tp := windows.Tokenprivileges{PrivilegeCount: 1}
	tp.Privileges[0] = windows.LUIDAndAttributes{Luid: luid, Attributes: windows.SE_PRIVILEGE_ENABLED}
	// ERROR_NOT_ALL_ASSIGNED (the token lacks the privilege) is a failure
	// too, though the call itself succeeds.
	if err := winapi.AdjustTokenPrivileges(tok, &tp); err != nil {
		return fmt.Errorf("AdjustTokenPrivileges(SeDebugPrivilege): %w", err)
	}
	return nil
}

// Elevated reports whether the process token is elevated.
func Elevated() bool { return windows.GetCurrentProcessToken().IsElevated() }

const eventControlCodeEnableProvider = 1

// StartProvider starts a real-time session of base and this process's id
// that records one manifest provider at level with the keywords matchAny
// (EnableTraceEx2). Sessions of base left by latlabs that were killed are
// stopped first; a live latlab's is not touched.
func StartProvider(base string, provider GUID, level uint8, matchAny uint64) (*Session, error) {
	if UnderWine() {
		return nil, &UnavailableError{Reason: "Wine does not implement Event Tracing for Windows sessions; run latlab on Windows"}
	}
	pid := windows.GetCurrentProcessId()
	name := SessionName(base, pid)
	stopStale(base, pid)
	s, err := start(name, windows.GUID{}, eventTraceRealTimeMode, 0)
	switch {
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return nil, &AccessError{Op: "starting a trace session"}
	case errors.Is(err, errorNoSystemResources):
		return nil, &LimitError{Session: name}
	case errors.Is(err, windows.ERROR_ALREADY_EXISTS):
		return nil, fmt.Errorf("this latlab runs the session %q already: %w", name, err)
	case err != nil:
		return nil, err
	}
	g := sysGUID(provider)
	if err := winapi.EnableTraceEx2(s.handle, &g, eventControlCodeEnableProvider, level, matchAny, 0, 0, 0); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("enabling %s in %q (EnableTraceEx2): %w", provider, name, err)
	}
	return s, nil
}
