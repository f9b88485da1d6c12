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
const WakeMethod = "high-resolution waitable timer, absolute due time"

const resolutionNote = "NtSetTimerResolution for this process (power-throttling opt-out applied)"

// priorityHint ends the note made when the thread obtained a lower priority
// than requested: Windows lowers a REALTIME class request to HIGH silently.
const priorityHint = `: REALTIME_PRIORITY_CLASS needs the "increase scheduling priority" privilege (run elevated)`

const (
	createWaitableTimerHighResolution = 0x2
	timerAllAccess                    = 0x1F0003
	infinite                          = 0xFFFFFFFF
)

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
	set    uintptr
	wait   uintptr
	h      windows.Handle
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
		s.h, err = createHighResTimer()
		if err == nil {
			if s.set, err = winapi.SetWaitableTimerAddr(); err == nil {
				s.wait, err = winapi.WaitForSingleObjectAddr()
			}
		}
	default:
		err = fmt.Errorf("unknown method %q", method)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
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

func (s *winSleeper) sleep(d int64) int {
	switch s.method {
	case "sleep":
		syscall.SyscallN(s.fn, uintptr(d/1e6))
	case "ntdelay":
		s.due = -(d / 100) // negative: relative, 100 ns units
		syscall.SyscallN(s.fn, 0, uintptr(unsafe.Pointer(&s.due)))
	case "waitable":
		s.due = -(d / 100)
		syscall.SyscallN(s.set, uintptr(s.h), uintptr(unsafe.Pointer(&s.due)), 0, 0, 0, 0)
		syscall.SyscallN(s.wait, uintptr(s.h), infinite)
	}
	return 0
}

func (s *winSleeper) close() {
	if s.h != 0 {
		windows.CloseHandle(s.h)
	}
}

// winWaiter waits on a high-resolution waitable timer with an absolute due
// time. Due times are in system time (FILETIME), so a QPC deadline is mapped
// through an offset measured at start and refreshed every second, keeping
// clock slewing out of the schedule; latency itself is measured in QPC.
type winWaiter struct {
	h             windows.Handle
	set, wait, ft uintptr
	offset100ns   int64 // FILETIME - QPC/100
	refreshed     int64
	due           int64
}

func NewWaiter() (Waiter, error) {
	h, err := createHighResTimer()
	if err != nil {
		return nil, err
	}
	w := &winWaiter{h: h}
	if w.set, err = winapi.SetWaitableTimerAddr(); err != nil {
		return nil, err
	}
	if w.wait, err = winapi.WaitForSingleObjectAddr(); err != nil {
		return nil, err
	}
	if w.ft, err = winapi.GetSystemTimePreciseAsFileTimeAddr(); err != nil {
		return nil, err
	}
	w.calibrate()
	return w, nil
}

// calibrate maps QPC to FILETIME using the tightest of a few bracketed
// readings.
func (w *winWaiter) calibrate() {
	best := int64(1 << 62)
	for i := 0; i < 5; i++ {
		var ft int64
		a := clock.Now()
		syscall.SyscallN(w.ft, uintptr(unsafe.Pointer(&ft)))
		b := clock.Now()
		if b-a < best {
			best = b - a
			w.offset100ns = ft - (a+b)/2/100
		}
	}
	w.refreshed = clock.Now()
}

func (w *winWaiter) WaitUntil(deadline int64) int {
	if clock.Now()-w.refreshed > int64(time.Second) {
		w.calibrate()
	}
	w.due = w.offset100ns + (deadline+99)/100 // positive: absolute; round up so it never fires early
	syscall.SyscallN(w.set, uintptr(w.h), uintptr(unsafe.Pointer(&w.due)), 0, 0, 0, 0)
	syscall.SyscallN(w.wait, uintptr(w.h), infinite)
	return 0
}

func (w *winWaiter) Close() { windows.CloseHandle(w.h) }

func calibrationGuard() func() { return func() {} }
