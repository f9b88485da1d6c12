package clock

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32 = windows.NewLazySystemDLL("kernel32.dll")
	procQPC  = kernel32.NewProc("QueryPerformanceCounter")
	procQPF  = kernel32.NewProc("QueryPerformanceFrequency")
	qpcAddr  uintptr
	qpcFreq  int64
)

func init() {
	// Resolve once so Now never takes the lazy-lookup path (which locks and
	// may allocate) inside a measurement loop.
	if err := procQPC.Find(); err != nil {
		panic(fmt.Sprintf("clock: QueryPerformanceCounter unavailable: %v", err))
	}
	qpcAddr = procQPC.Addr()
	var f int64
	r, _, _ := procQPF.Call(uintptr(unsafe.Pointer(&f)))
	if r == 0 || f <= 0 {
		panic("clock: QueryPerformanceFrequency failed")
	}
	qpcFreq = f
}

// Ticks returns the raw QueryPerformanceCounter value.
func Ticks() int64 {
	var t int64
	syscall.SyscallN(qpcAddr, uintptr(unsafe.Pointer(&t)))
	return t
}

func now() int64 { return ticksToNanos(Ticks(), qpcFreq) }

func source() string {
	return fmt.Sprintf("QueryPerformanceCounter (%d Hz)", qpcFreq)
}
