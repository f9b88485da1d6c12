package clock

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/latlab/latlab/internal/winapi"
)

var (
	qpcAddr uintptr
	qpcFreq int64
)

func init() {
	// Resolve once so Now never takes the lazy-lookup path (which locks and
	// may allocate) inside a measurement loop.
	a, err := winapi.QueryPerformanceCounterAddr()
	if err != nil {
		panic(fmt.Sprintf("clock: QueryPerformanceCounter unavailable: %v", err))
	}
	qpcAddr = a
	var f int64
	if err := winapi.QueryPerformanceFrequency(&f); err != nil || f <= 0 {
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

func now() int64 { return FromTicks(Ticks()) }

// FromTicks converts a QueryPerformanceCounter value read elsewhere (a
// socket's receive time stamp, which Windows takes with the kernel's
// equivalent of QPC) to Now's nanoseconds: the same frequency and the
// same origin, so the result is comparable with Now's readings.
func FromTicks(ticks int64) int64 { return ticksToNanos(ticks, qpcFreq) }

func source() string {
	return fmt.Sprintf("QueryPerformanceCounter (%d Hz)", qpcFreq)
}
