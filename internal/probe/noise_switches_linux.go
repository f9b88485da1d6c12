package probe

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// involuntarySwitches is how many times the calling thread has been
// switched out involuntarily (getrusage's ru_nivcsw for RUSAGE_THREAD;
// /proc/PID/task/TID/status calls it nonvoluntary_ctxt_switches), or -1.
// A raw system call: the noise thread calls it while held (HoldThread),
// before and after its loop.
func involuntarySwitches() int64 {
	const rusageThread = 1 // RUSAGE_THREAD, <linux/resource.h>
	var ru unix.Rusage
	if _, _, e := unix.RawSyscall(unix.SYS_GETRUSAGE, rusageThread, uintptr(unsafe.Pointer(&ru)), 0); e != 0 {
		return -1
	}
	return int64(ru.Nivcsw) // int32 on 386
}
