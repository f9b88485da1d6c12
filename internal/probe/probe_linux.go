package probe

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/clock"
)

var sleepMethods = []string{"nanosleep", "abstime"}

// WakeMethod names the wait the wake probe measures.
const WakeMethod = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"

const resolutionNote = "timer slack of the measuring thread (PR_SET_TIMERSLACK); SCHED_FIFO threads have no slack"

// priorityHint ends the note made when the thread obtained a lower priority
// than requested; Linux never does that (it fails instead).
const priorityHint = ""

func validateMethod(SleepOptions) error { return nil }

// The waits below use RawSyscall6: a plain Syscall goes through the
// runtime's entersyscall/exitsyscall, and when the wait outlives sysmon's
// 20 µs grace the P is taken away and has to be won back after the wake,
// which measured ~15 µs of extra latency at p50 against cyclictest. A raw
// call keeps the P; GOMAXPROCS is raised so other goroutines still run.

type linuxSleeper struct {
	abs      bool
	req, rem unix.Timespec
}

func newSleeper(method string) (sleeper, error) {
	switch method {
	case "nanosleep":
		return &linuxSleeper{}, nil
	case "abstime":
		return &linuxSleeper{abs: true}, nil
	}
	return nil, fmt.Errorf("unknown method %q", method)
}

func (s *linuxSleeper) sleep(d int64) (int, error) {
	if s.abs {
		return sleepUntil(&s.req, clock.Now()+d)
	}
	s.req = unix.NsecToTimespec(d)
	n := 0
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, 0,
			uintptr(unsafe.Pointer(&s.req)), uintptr(unsafe.Pointer(&s.rem)), 0, 0)
		switch e {
		case 0:
			return n, nil
		case unix.EINTR:
			n++
			s.req = s.rem
		default:
			return n, fmt.Errorf("clock_nanosleep(CLOCK_MONOTONIC, %d ns): %w", d, e)
		}
	}
}

func (s *linuxSleeper) close() {}

// sleepUntil waits for an absolute CLOCK_MONOTONIC deadline, resuming after
// signals (the deadline does not move, so a resumed wait is still exact).
func sleepUntil(ts *unix.Timespec, deadline int64) (int, error) {
	*ts = unix.NsecToTimespec(deadline)
	n := 0
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
			uintptr(unsafe.Pointer(ts)), 0, 0, 0)
		switch e {
		case 0:
			return n, nil
		case unix.EINTR:
			n++
		default:
			return n, fmt.Errorf("clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): %w", e)
		}
	}
}

type linuxWaiter struct{ ts unix.Timespec }

func NewWaiter() (Waiter, error) { return &linuxWaiter{}, nil }

func (w *linuxWaiter) WaitUntil(deadline int64) (int, error) { return sleepUntil(&w.ts, deadline) }

func (w *linuxWaiter) Close() {}

var _ visibleWaiter = (*linuxWaiter)(nil)

// waitVisible is WaitUntil through the runtime's system call path
// (Syscall6: entersyscall), for a yield (Yielder.WaitUntil): only while
// the thread is not held.
func (w *linuxWaiter) waitVisible(deadline int64) (int, error) {
	w.ts = unix.NsecToTimespec(deadline)
	n := 0
	for {
		_, _, e := unix.Syscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
			uintptr(unsafe.Pointer(&w.ts)), 0, 0, 0)
		switch e {
		case 0:
			return n, nil
		case unix.EINTR:
			n++
		default:
			return n, fmt.Errorf("clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): %w", e)
		}
	}
}

// calibrationGuard sets the thread's timer slack to 1 ns while the overhead
// is calibrated and returns a function restoring it.
func calibrationGuard() func() {
	prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return func() {}
	}
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(prev), 0, 0, 0) }
}

// threadID is the calling thread's id, as sched_switch names it.
func threadID() int { return unix.Gettid() }
