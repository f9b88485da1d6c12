package netload

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const pacerMethod = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), raw syscall, timer slack 1ns"

// paceResolution is the pacing thread's timer slack: the default 50 µs
// would defer every send by up to that much.
const paceResolution = time.Nanosecond

// threadSwitches returns how many times the calling thread has been
// switched out involuntarily (getrusage's ru_nivcsw for RUSAGE_THREAD).
// A raw system call: the pacing thread calls it while held
// (probe.HoldThread). -1 if the call fails.
func threadSwitches(ru *threadUsage) int64 {
	const rusageThread = 1 // RUSAGE_THREAD, <linux/resource.h>
	if _, _, e := unix.RawSyscall(unix.SYS_GETRUSAGE, rusageThread, uintptr(unsafe.Pointer(ru)), 0); e != 0 {
		return -1
	}
	return int64(ru.Nivcsw) // int32 on 386
}

// threadUsage is what threadSwitches reads into.
type threadUsage = unix.Rusage
