package probe

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/winapi"
)

var sleepMethods = []string{"sleep", "waitable", "ntdelay"}

// WakeMethod names the wait the wake probe measures.
const WakeMethod = "high-resolution waitable timer, relative due time"

const resolutionNote = "NtSetTimerResolution for this process (power-throttling opt-out applied)"

// priorityHint ends the note made when the thread obtained a lower priority
// than requested: Windows lowers a REALTIME class request to HIGH silently.
const priorityHint = `: REALTIME_PRIORITY_CLASS needs the "increase scheduling priority" privilege (run elevated)`

const (
	// CREATE_WAITABLE_TIMER_HIGH_RESOLUTION: not in mingw-w64's
	// synchapi.h; Microsoft's CreateWaitableTimerExW page gives 0x00000002
	// (learn.microsoft.com/windows/win32/api/synchapi/nf-synchapi-createwaitabletimerexw).
	createWaitableTimerHighResolution = 0x00000002
	timerAllAccess                    = 0x001F0003 // TIMER_ALL_ACCESS (winnt.h)
	waitObject0                       = 0x00000000 // WAIT_OBJECT_0
	waitTimeout                       = 0x00000102 // WAIT_TIMEOUT
	waitFailed                        = 0xFFFFFFFF // WAIT_FAILED
)

// timerWaitSlack bounds every wait on a waitable timer: the wait gives up
// this long after the due time and says so, instead of waiting forever on
// a timer that Windows never set.
const timerWaitSlack = 5 * time.Second

func validateMethod(o SleepOptions) error {
	if o.Method != "sleep" {
		return nil
	}
	if o.Duration < time.Millisecond || o.Duration%time.Millisecond != 0 {
		return fmt.Errorf("--method sleep takes whole milliseconds (kernel32 Sleep); %v is not: use --method waitable or ntdelay for sub-millisecond sleeps", o.Duration)
	}
	if o.Gap%time.Millisecond != 0 {
		return fmt.Errorf("--method sleep takes whole milliseconds; --gap %v is not", o.Gap)
	}
	return nil
}

// The sleepers and the waiter resolve their procedures once (winapi's
// ...Addr) and call them with SyscallN directly, without the lookup and
// result conversion of a wrapper inside the timed wait.
type winSleeper struct {
	method string
	fn     uintptr // Sleep or NtDelayExecution
	timer  *hrTimer
	due    int64
}

func newSleeper(method string) (sleeper, error) {
	s := &winSleeper{method: method}
	var err error
	switch method {
	case "sleep":
		s.fn, err = winapi.SleepAddr()
	case "ntdelay":
		s.fn, err = winapi.NtDelayExecutionAddr()
	case "waitable":
		s.timer, err = newHRTimer()
	default:
		err = fmt.Errorf("unknown method %q", method)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *winSleeper) sleep(d int64) (int, error) {
	switch s.method {
	case "sleep":
		syscall.SyscallN(s.fn, uintptr(d/1e6)) // Sleep returns nothing
	case "ntdelay":
		s.due = -(d / 100) // negative: relative, 100 ns units
		r, _, _ := syscall.SyscallN(s.fn, 0, uintptr(unsafe.Pointer(&s.due)))
		if st := windows.NTStatus(uint32(r)); st>>31 != 0 { // NT_WARNING or NT_ERROR
			return 0, fmt.Errorf("NtDelayExecution(%d00 ns): %w", -s.due, st)
		}
	case "waitable":
		return 0, s.timer.waitFor(d)
	}
	return 0, nil
}

func (s *winSleeper) close() {
	if s.timer != nil {
		s.timer.close()
	}
}

// hrTimer is a high-resolution waitable timer. Every wait sets it with a
// relative (negative) due time computed just before SetWaitableTimer, as
// the Go runtime and CPython do: high-resolution timers are documented
// for relative times only. Both calls' results are checked, and the wait
// is bounded by timerWaitSlack past the due time.
type hrTimer struct {
	h   windows.Handle
	due int64 // the SetWaitableTimer argument; a field, so it does not escape per call
	// set and wait are SetWaitableTimer and WaitForSingleObject; tests
	// replace them.
	set  func(h windows.Handle, due *int64) error
	wait func(h windows.Handle, ms uint32) (uint32, error)
}

func newHRTimer() (*hrTimer, error) {
	set, err := winapi.SetWaitableTimerAddr()
	if err != nil {
		return nil, err
	}
	wait, err := winapi.WaitForSingleObjectAddr()
	if err != nil {
		return nil, err
	}
	h, err := createHighResTimer()
	if err != nil {
		return nil, err
	}
	return &hrTimer{
		h: h,
		set: func(h windows.Handle, due *int64) error {
			r, _, e := syscall.SyscallN(set, uintptr(h), uintptr(unsafe.Pointer(due)), 0, 0, 0, 0)
			if r == 0 {
				return errnoOr(e)
			}
			return nil
		},
		wait: func(h windows.Handle, ms uint32) (uint32, error) {
			r, _, e := syscall.SyscallN(wait, uintptr(h), uintptr(ms))
			if uint32(r) == waitFailed {
				return uint32(r), errnoOr(e)
			}
			return uint32(r), nil
		},
	}, nil
}

// errnoOr is e, or ERROR_GEN_FAILURE when a failed call left no error
// code behind (a failure never reads as success).
func errnoOr(e syscall.Errno) error {
	if e == 0 {
		return windows.ERROR_GEN_FAILURE
	}
	return e
}

// relativeDue is the SetWaitableTimer due time for a wait of d ns:
// negative (relative), in 100 ns units, rounded up so that the timer
// never fires before d has passed, and at least one unit.
func relativeDue(d int64) int64 {
	if d <= 100 {
		return -1
	}
	return -((d + 99) / 100)
}

// waitMillis bounds the wait on a timer due in -due*100 ns.
func waitMillis(due int64) uint32 {
	ms := -due/10_000 + 1 + timerWaitSlack.Milliseconds()
	return uint32(min(ms, 0xFFFFFFFE)) // never INFINITE (0xFFFFFFFF)
}

// waitFor sets the timer d ns from now and waits for it.
func (t *hrTimer) waitFor(d int64) error {
	t.due = relativeDue(d)
	if err := t.set(t.h, &t.due); err != nil {
		return fmt.Errorf("SetWaitableTimer(high-resolution timer, relative due time %d00 ns): %w", -t.due, err)
	}
	ms := waitMillis(t.due)
	switch ev, err := t.wait(t.h, ms); {
	case err != nil:
		return fmt.Errorf("WaitForSingleObject(high-resolution timer): %w", err)
	case ev == waitTimeout:
		return fmt.Errorf("WaitForSingleObject(high-resolution timer): not signalled %v after its due time (%d00 ns)", timerWaitSlack, -t.due)
	case ev != waitObject0:
		return fmt.Errorf("WaitForSingleObject(high-resolution timer): unexpected result %#x", ev)
	}
	return nil
}

// waitUntil waits until now() reaches deadline. The relative due time is
// computed from a clock reading taken just before each SetWaitableTimer,
// so it never fires early and errors do not accumulate; should the timer
// fire before the deadline all the same (its clock is not QPC), it is set
// again for what is left.
func (t *hrTimer) waitUntil(deadline int64, now func() int64) error {
	for {
		if err := t.waitFor(deadline - now()); err != nil {
			return err
		}
		if now() >= deadline {
			return nil
		}
	}
}

func (t *hrTimer) close() {
	if t.h != 0 {
		_ = windows.CloseHandle(t.h) // a handle this process opened: closing cannot fail
		t.h = 0
	}
}

func createHighResTimer() (windows.Handle, error) {
	h, err := winapi.CreateWaitableTimerEx(nil, nil, createWaitableTimerHighResolution, timerAllAccess)
	if winapi.Missing(err) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("CreateWaitableTimerExW(CREATE_WAITABLE_TIMER_HIGH_RESOLUTION): %w (needs Windows 10 1803 or later)", err)
	}
	return h, nil
}

// winWaiter waits for a clock.Now deadline on a high-resolution waitable
// timer (hrTimer.waitUntil); latency itself is measured in QPC.
type winWaiter struct{ t *hrTimer }

func NewWaiter() (Waiter, error) {
	t, err := newHRTimer()
	if err != nil {
		return nil, err
	}
	return &winWaiter{t: t}, nil
}

func (w *winWaiter) WaitUntil(deadline int64) (int, error) {
	return 0, w.t.waitUntil(deadline, clock.Now)
}

func (w *winWaiter) Close() { w.t.close() }

func calibrationGuard() func() { return func() {} }

// threadID is the calling thread's id.
func threadID() int { return int(windows.GetCurrentThreadId()) }
