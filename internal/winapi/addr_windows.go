package winapi

import (
	"errors"

	"golang.org/x/sys/windows"
)

// A measurement loop calls its clock and its wait through syscall.SyscallN
// on an address resolved before the loop: the generated wrappers look the
// procedure up and convert its result on every call, work that a timed
// wait would include. These resolve the procedures such loops call; an
// error means the procedure is missing from its DLL.

func addr(p *windows.LazyProc) (uintptr, error) {
	if err := p.Find(); err != nil {
		return 0, err
	}
	return p.Addr(), nil
}

// QueryPerformanceCounterAddr resolves QueryPerformanceCounter(*int64).
func QueryPerformanceCounterAddr() (uintptr, error) { return addr(procQueryPerformanceCounter) }

// SleepAddr resolves Sleep(milliseconds).
func SleepAddr() (uintptr, error) { return addr(procSleep) }

// NtDelayExecutionAddr resolves NtDelayExecution(alertable, *interval).
func NtDelayExecutionAddr() (uintptr, error) { return addr(procNtDelayExecution) }

// SetWaitableTimerAddr resolves SetWaitableTimer(timer, *due, period,
// completion, arg, resume).
func SetWaitableTimerAddr() (uintptr, error) { return addr(procSetWaitableTimer) }

// WaitForSingleObjectAddr resolves WaitForSingleObject(handle, ms).
func WaitForSingleObjectAddr() (uintptr, error) { return addr(procWaitForSingleObject) }

// TimeGetTimeAddr resolves timeGetTime().
func TimeGetTimeAddr() (uintptr, error) { return addr(proctimeGetTime) }

// Missing reports whether err is the lookup error of a procedure marked
// "?" that its DLL does not export.
func Missing(err error) bool {
	var de *windows.DLLError
	return errors.As(err, &de)
}
