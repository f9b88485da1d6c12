package explain

import "golang.org/x/sys/unix"

// Policy is a live thread's scheduling policy, "" when it is gone.
func Policy(pid int) string {
	if pid <= 0 {
		return ""
	}
	p, _, e := unix.RawSyscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(pid), 0, 0)
	if e != 0 {
		return ""
	}
	switch p &^ 0x40000000 { // SCHED_RESET_ON_FORK
	case 0:
		return "SCHED_OTHER"
	case 1:
		return "SCHED_FIFO"
	case 2:
		return "SCHED_RR"
	case 3:
		return "SCHED_BATCH"
	case 5:
		return "SCHED_IDLE"
	case 6:
		return "SCHED_DEADLINE"
	}
	return ""
}
