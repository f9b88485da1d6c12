package winapi

// The declarations below are read by mkwinsyscall (see doc.go); each
// becomes a function of the same name in zsyscall_windows.go.

// kernel32: clock, waits, priorities.

//sys	QueryPerformanceCounter(count *int64) (err error) = kernel32.QueryPerformanceCounter
//sys	QueryPerformanceFrequency(freq *int64) (err error) = kernel32.QueryPerformanceFrequency
//sys	Sleep(milliseconds uint32) = kernel32.Sleep
//sys	CreateWaitableTimerEx(attrs *windows.SecurityAttributes, name *uint16, flags uint32, access uint32) (h windows.Handle, err error) = kernel32.CreateWaitableTimerExW?
//sys	SetWaitableTimer(timer windows.Handle, due *int64, period int32, completion uintptr, completionArg uintptr, resume bool) (err error) = kernel32.SetWaitableTimer
//sys	WaitForSingleObject(h windows.Handle, milliseconds uint32) (event uint32, err error) [failretval==0xffffffff] = kernel32.WaitForSingleObject
//sys	GetProcessInformation(process windows.Handle, class uint32, info unsafe.Pointer, size uint32) (err error) = kernel32.GetProcessInformation?
//sys	SetProcessInformation(process windows.Handle, class uint32, info unsafe.Pointer, size uint32) (err error) = kernel32.SetProcessInformation?
//sys	GetThreadTimes(thread windows.Handle, creation *windows.Filetime, exit *windows.Filetime, kernel *windows.Filetime, user *windows.Filetime) (err error) = kernel32.GetThreadTimes
//sys	SetThreadAffinityMask(thread windows.Handle, mask uintptr) (old uintptr, err error) = kernel32.SetThreadAffinityMask
//sys	SetThreadGroupAffinity(thread windows.Handle, affinity *GroupAffinity, previous *GroupAffinity) (err error) = kernel32.SetThreadGroupAffinity
//sys	GetActiveProcessorGroupCount() (groups uint16) = kernel32.GetActiveProcessorGroupCount
//sys	GetActiveProcessorCount(group uint16) (n uint32) = kernel32.GetActiveProcessorCount
//sys	GetNumaProcessorNodeEx(processor *ProcessorNumber, node *uint16) (err error) = kernel32.GetNumaProcessorNodeEx
//sys	SetThreadPriority(thread windows.Handle, priority int32) (err error) = kernel32.SetThreadPriority
//sys	GetThreadPriority(thread windows.Handle) (priority int32, err error) [failretval==0x7fffffff] = kernel32.GetThreadPriority

// ntdll: the timer resolution and the relative wait under Sleep.

//sys	NtDelayExecution(alertable bool, interval *int64) (ntstatus error) = ntdll.NtDelayExecution
//sys	NtQueryTimerResolution(coarsest *uint32, finest *uint32, current *uint32) (ntstatus error) = ntdll.NtQueryTimerResolution?
//sys	NtSetTimerResolution(desired uint32, set bool, current *uint32) (ntstatus error) = ntdll.NtSetTimerResolution?

// winmm: the multimedia timer API most programs raise the resolution with.

//sys	TimeBeginPeriod(period uint32) (mmresult error) = winmm.timeBeginPeriod?
//sys	TimeEndPeriod(period uint32) (mmresult error) = winmm.timeEndPeriod?
//sys	TimeGetTime() (ms uint32) = winmm.timeGetTime

// advapi32: a registry write with the caller's raw bytes and type number
// (golang.org/x/sys/windows/registry keeps its own unexported).

//sys	RegSetValueEx(key windows.Handle, name *uint16, reserved uint32, vtype uint32, data *byte, size uint32) (regerrno error) = advapi32.RegSetValueExW

// advapi32: a key deleted in the registry view every open uses
// (KEY_WOW64_64KEY): registry.DeleteKey calls RegDeleteKeyW, which takes
// no access mask, so a 32-bit latlab would delete in the 32-bit view.

//sys	RegDeleteKeyEx(key windows.Handle, subkey *uint16, access uint32, reserved uint32) (regerrno error) = advapi32.RegDeleteKeyExW

// user32: the display paths and the scaling each one uses.

//sys	GetDisplayConfigBufferSizes(flags uint32, numPaths *uint32, numModes *uint32) (rc error) = user32.GetDisplayConfigBufferSizes?
//sys	QueryDisplayConfig(flags uint32, numPaths *uint32, paths *byte, numModes *uint32, modes *byte, topologyID uintptr) (rc error) = user32.QueryDisplayConfig?

// pdh: per-processor interrupt and DPC counters.

//sys	PdhOpenQuery(source *uint16, userData uintptr, query *uintptr) (pdhstatus error) = pdh.PdhOpenQueryW?
//sys	PdhAddEnglishCounter(query uintptr, path *uint16, userData uintptr, counter *uintptr) (pdhstatus error) = pdh.PdhAddEnglishCounterW
//sys	PdhCollectQueryData(query uintptr) (pdhstatus error) = pdh.PdhCollectQueryData
//sys	PdhGetFormattedCounterArray(counter uintptr, format uint32, size *uint32, count *uint32, items *byte) (pdhstatus error) = pdh.PdhGetFormattedCounterArrayW
//sys	PdhCloseQuery(query uintptr) (pdhstatus error) = pdh.PdhCloseQuery

// advapi32: Event Tracing for Windows sessions. A TRACEHANDLE is 64 bits
// on every architecture; the structures (EVENT_TRACE_PROPERTIES with its
// trailing names, EVENT_TRACE_LOGFILEW) are laid out by package etw.

//sys	StartTrace(handle *uint64, name *uint16, properties *byte) (winerr error) = advapi32.StartTraceW?
//sys	ControlTrace(handle uint64, name *uint16, properties *byte, control uint32) (winerr error) = advapi32.ControlTraceW
//sys	OpenTrace(logfile unsafe.Pointer) (handle uint64, err error) [failretval==0xffffffffffffffff] = advapi32.OpenTraceW
//sys	ProcessTrace(handles *uint64, count uint32, start *windows.Filetime, end *windows.Filetime) (winerr error) = advapi32.ProcessTrace
//sys	CloseTrace(handle uint64) (winerr error) = advapi32.CloseTrace
//sys	QueryAllTraces(properties *uintptr, count uint32, found *uint32) (winerr error) = advapi32.QueryAllTracesW
//sys	EnableTraceEx2(handle uint64, provider *windows.GUID, control uint32, level uint8, matchAny uint64, matchAll uint64, timeout uint32, params uintptr) (winerr error) = advapi32.EnableTraceEx2

// ntdll: the kernel module list and the per-processor counters, and
// Wine's own export, which tells Wine from Windows. The Ex form takes an
// input (for the per-processor classes, the USHORT processor group: the
// plain form answers for the caller's group only); mingw-w64 declares it
// nowhere (phnt ntexapi.h: NTSTATUS NtQuerySystemInformationEx(
// SYSTEM_INFORMATION_CLASS, PVOID InputBuffer, ULONG InputBufferLength,
// PVOID SystemInformation, ULONG SystemInformationLength, PULONG
// ReturnLength)).

//sys	NtQuerySystemInformation(class uint32, info unsafe.Pointer, size uint32, needed *uint32) (ntstatus error) = ntdll.NtQuerySystemInformation
//sys	NtQuerySystemInformationEx(class uint32, input unsafe.Pointer, inputSize uint32, info unsafe.Pointer, size uint32, needed *uint32) (ntstatus error) = ntdll.NtQuerySystemInformationEx
//sys	wineGetVersion() (version uintptr, err error) = ntdll.wine_get_version?

// tdh: an event's template from its provider's manifest
// (TdhGetEventInformation, tdh.h). event is the EVENT_RECORD the trace
// callback got; buffer receives a TRACE_EVENT_INFO, laid out and read by
// package etw. It returns its status (ERROR_INSUFFICIENT_BUFFER with the
// size needed in bufferSize).

//sys	TdhGetEventInformation(event unsafe.Pointer, contextCount uint32, context uintptr, buffer *byte, bufferSize *uint32) (tdherr error) = tdh.TdhGetEventInformation?
