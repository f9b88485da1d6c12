package netload

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const pacerMethod = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), raw syscall, timer slack 1ns"

// linuxPacer waits with an absolute clock_nanosleep issued as a raw system
// call: as the wake probe measured, the runtime's syscall bookkeeping adds
// ~15 µs to each wake-up, and the thread's timer slack (50 µs by default)
// would defer every send by up to that much.
type linuxPacer struct {
	ts        unix.Timespec
	prevSlack int
}

func newPacer() (pacer, error) {
	p := &linuxPacer{prevSlack: -1}
	if prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
		p.prevSlack = prev
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	return p, nil
}

func (p *linuxPacer) waitUntil(deadline int64) {
	p.ts = unix.NsecToTimespec(deadline)
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
			uintptr(unsafe.Pointer(&p.ts)), 0, 0, 0)
		if e != unix.EINTR {
			return
		}
	}
}

func (p *linuxPacer) close() {
	if p.prevSlack > 0 {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(p.prevSlack), 0, 0, 0)
	}
}
