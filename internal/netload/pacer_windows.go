package netload

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
)

const pacerMethod = "high-resolution waitable timer (relative due time from QueryPerformanceCounter)"

var (
	kernel32                   = windows.NewLazySystemDLL("kernel32.dll")
	procCreateWaitableTimerExW = kernel32.NewProc("CreateWaitableTimerExW")
	procSetWaitableTimer       = kernel32.NewProc("SetWaitableTimer")
	procWaitForSingleObject    = kernel32.NewProc("WaitForSingleObject")
)

const (
	createWaitableTimerHighResolution = 0x2
	timerAllAccess                    = 0x1F0003
	infinite                          = 0xFFFFFFFF
)

// winPacer waits on a high-resolution waitable timer (Windows 10 1803+),
// which is not bound to the system timer interval. Older systems get a
// plain waitable timer, which is: the result's send-schedule error shows it.
type winPacer struct {
	h         windows.Handle
	set, wait uintptr
	due       int64
}

func newPacer() (pacer, error) {
	for _, p := range []*windows.LazyProc{procCreateWaitableTimerExW, procSetWaitableTimer, procWaitForSingleObject} {
		if err := p.Find(); err != nil {
			return nil, fmt.Errorf("pacer: %w", err)
		}
	}
	h, _, _ := syscall.SyscallN(procCreateWaitableTimerExW.Addr(), 0, 0, createWaitableTimerHighResolution, timerAllAccess)
	if h == 0 {
		var e error
		h, _, e = syscall.SyscallN(procCreateWaitableTimerExW.Addr(), 0, 0, 0, timerAllAccess)
		if h == 0 {
			return nil, fmt.Errorf("pacer: CreateWaitableTimerExW: %w", e)
		}
	}
	return &winPacer{h: windows.Handle(h), set: procSetWaitableTimer.Addr(), wait: procWaitForSingleObject.Addr()}, nil
}

func (p *winPacer) waitUntil(deadline int64) {
	d := deadline - clock.Now()
	if d <= 0 {
		return
	}
	p.due = -(d / 100) // negative: relative, 100 ns units
	if p.due == 0 {
		return
	}
	syscall.SyscallN(p.set, uintptr(p.h), uintptr(unsafe.Pointer(&p.due)), 0, 0, 0, 0)
	syscall.SyscallN(p.wait, uintptr(p.h), infinite)
}

func (p *winPacer) close() { windows.CloseHandle(p.h) }
