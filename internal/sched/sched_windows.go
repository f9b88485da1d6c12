package sched

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/windows"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procSetThreadAffinityMask = kernel32.NewProc("SetThreadAffinityMask")
	procSetThreadPriority     = kernel32.NewProc("SetThreadPriority")
	procGetThreadPriority     = kernel32.NewProc("GetThreadPriority")
	procGetPriorityClass      = kernel32.NewProc("GetPriorityClass")
)

const (
	highPriorityClass          = 0x80
	realtimePriorityClass      = 0x100
	threadPriorityTimeCritical = 15
	threadPriorityHighest      = 2
)

// NumCPU is the number of logical processors in this process's group.
func NumCPU() int { return runtime.NumCPU() }

// otherThreads: the priority class belongs to the process, so
// REALTIME_PRIORITY_CLASS moves every thread, those the runtime starts
// later included, to base priority 24 (normal relative priority in the
// realtime class) above every normal-class thread of the machine, while
// the measuring thread runs at 31 (TIME_CRITICAL). No thread of the
// process can be held up behind normal-priority load, the inversion a
// lone realtime thread suffers on Linux.
func otherThreads(int) string {
	return "realtime class, base priority 24 (the class applies to every thread of the process)"
}

// applyThread sets the process priority class (Windows priorities are per
// process class plus a per-thread offset) and raises the calling thread.
// REALTIME_PRIORITY_CLASS silently becomes HIGH without the "increase
// scheduling priority" privilege, so the class is read back and what was
// obtained is returned.
func applyThread(p Priority, _ int) (Priority, func(), error) {
	if p == Normal {
		return Normal, func() {}, nil
	}
	proc := windows.CurrentProcess()
	cls, _, _ := procGetPriorityClass.Call(uintptr(proc))
	thread := windows.CurrentThread()
	oldPrio, _, _ := procGetThreadPriority.Call(uintptr(thread))
	want := uint32(highPriorityClass)
	tp := threadPriorityHighest
	if p == Realtime {
		want = realtimePriorityClass
		tp = threadPriorityTimeCritical
	}
	if err := windows.SetPriorityClass(proc, want); err != nil {
		return Normal, nil, fmt.Errorf("SetPriorityClass(0x%x): %w", want, err)
	}
	if r, _, e := procSetThreadPriority.Call(uintptr(thread), uintptr(tp)); r == 0 {
		_ = windows.SetPriorityClass(proc, uint32(cls))
		return Normal, nil, fmt.Errorf("SetThreadPriority(%d): %w", tp, e)
	}
	got, _, e := procGetPriorityClass.Call(uintptr(proc))
	if got == 0 {
		procSetThreadPriority.Call(uintptr(thread), oldPrio)
		_ = windows.SetPriorityClass(proc, uint32(cls))
		return Normal, nil, fmt.Errorf("GetPriorityClass: %w", e)
	}
	return priorityOfClass(uint32(got)), func() {
		procSetThreadPriority.Call(uintptr(thread), oldPrio)
		if cls != 0 {
			_ = windows.SetPriorityClass(proc, uint32(cls))
		}
	}, nil
}

// priorityOfClass maps a process priority class to latlab's levels: the
// classes above normal that latlab does not set (ABOVE_NORMAL) and those
// below it count as normal.
func priorityOfClass(cls uint32) Priority {
	switch cls {
	case realtimePriorityClass:
		return Realtime
	case highPriorityClass:
		return High
	}
	return Normal
}

func pinThread(cpu int) (func(), error) {
	thread := windows.CurrentThread()
	old, _, e := procSetThreadAffinityMask.Call(uintptr(thread), uintptr(1)<<uint(cpu))
	if old == 0 {
		return nil, fmt.Errorf("SetThreadAffinityMask(cpu %d): %w", cpu, e)
	}
	return func() { procSetThreadAffinityMask.Call(uintptr(thread), old) }, nil
}

// lockMemory is not done on Windows: there is no mlockall, and VirtualLock
// covers only the regions named, not the Go runtime's future allocations.
// The working set of a measuring process this small stays resident in
// practice; the caller says that the request was not honoured.
func lockMemory() (func(), error) {
	return nil, fmt.Errorf("--mlock has no effect on Windows (there is no mlockall; a process this small normally stays resident): %w", ErrUnsupported)
}

func holdDMALatency(int) (func(), error) {
	return nil, fmt.Errorf("--dma-latency is Linux-only (/dev/cpu_dma_latency); on Windows limit C-states in the power plan instead: %w", ErrUnsupported)
}
