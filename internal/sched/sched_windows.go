package sched

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/winapi"
)

const (
	highPriorityClass          = 0x80
	realtimePriorityClass      = 0x100
	threadPriorityTimeCritical = 15
	threadPriorityHighest      = 2
)

// NumCPU is the number of active logical processors in every processor
// group of the machine (GetActiveProcessorCount of each group), not only
// in this process's group; never fewer than runtime.NumCPU.
func NumCPU() int {
	n := 0
	for _, c := range processorGroups() {
		n += c
	}
	return max(n, runtime.NumCPU())
}

// ProcessorGroups is the number of active processors in each processor
// group, in group order: what ProcessorOf, CPUOf and GroupOf convert
// latlab's CPU numbers with. runtime.NumCPU counts only the process's own
// group's processors on a machine of more than 64. Should the group count
// be unavailable, the machine is taken as one group of runtime.NumCPU.
func ProcessorGroups() []int { return processorGroups() }

// NUMANodes is the NUMA node of each CPU in latlab's numbering
// (GetNumaProcessorNodeEx), for perGroup as ProcessorGroups returns it.
func NUMANodes(perGroup []int) ([]int, error) {
	var out []int
	for g, n := range perGroup {
		for i := range n {
			p := winapi.ProcessorNumber{Group: uint16(g), Number: uint8(i)}
			var node uint16
			if err := winapi.GetNumaProcessorNodeEx(&p, &node); err != nil {
				return nil, fmt.Errorf("GetNumaProcessorNodeEx(%d,%d): %w", g, i, err)
			}
			out = append(out, int(node))
		}
	}
	return out, nil
}

func processorGroups() []int {
	var out []int
	for g := range int(winapi.GetActiveProcessorGroupCount()) {
		out = append(out, int(winapi.GetActiveProcessorCount(uint16(g))))
	}
	if len(out) == 0 {
		out = []int{runtime.NumCPU()}
	}
	return out
}

// cpuDescription says which CPUs exist, by processor group.
func cpuDescription() string { return DescribeGroups(processorGroups()) }

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
	cls, err := windows.GetPriorityClass(proc)
	if err != nil {
		return Normal, nil, fmt.Errorf("GetPriorityClass: %w", err)
	}
	thread := windows.CurrentThread()
	oldPrio, err := winapi.GetThreadPriority(thread)
	if err != nil {
		return Normal, nil, fmt.Errorf("GetThreadPriority: %w", err)
	}
	want := uint32(highPriorityClass)
	tp := threadPriorityHighest
	if p == Realtime {
		want = realtimePriorityClass
		tp = threadPriorityTimeCritical
	}
	if err := windows.SetPriorityClass(proc, want); err != nil {
		return Normal, nil, fmt.Errorf("SetPriorityClass(0x%x): %w", want, err)
	}
	if err := winapi.SetThreadPriority(thread, int32(tp)); err != nil {
		_ = windows.SetPriorityClass(proc, cls)
		return Normal, nil, fmt.Errorf("SetThreadPriority(%d): %w", tp, err)
	}
	got, err := windows.GetPriorityClass(proc)
	if err != nil {
		_ = winapi.SetThreadPriority(thread, oldPrio)
		_ = windows.SetPriorityClass(proc, cls)
		return Normal, nil, fmt.Errorf("GetPriorityClass: %w", err)
	}
	// The undo cannot report: it gives back what this process set on its
	// own thread and process, which the calls above just proved it may.
	return priorityOfClass(got), func() {
		_ = winapi.SetThreadPriority(thread, oldPrio)
		_ = windows.SetPriorityClass(proc, cls)
	}, nil
}

// applyThreadOnly raises the calling thread within the process's class:
// REALTIME_PRIORITY_CLASS would take every thread along.
func applyThreadOnly(p Priority, _ int) (Priority, func(), error) {
	if p == Normal {
		return Normal, func() {}, nil
	}
	thread := windows.CurrentThread()
	oldPrio, _ := winapi.GetThreadPriority(thread)
	tp := threadPriorityHighest
	if p == Realtime {
		tp = threadPriorityTimeCritical
	}
	if err := winapi.SetThreadPriority(thread, int32(tp)); err != nil {
		return Normal, nil, fmt.Errorf("SetThreadPriority(%d): %w", tp, err)
	}
	return High, func() { _ = winapi.SetThreadPriority(thread, oldPrio) }, nil
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

// pinThread moves the calling thread to cpu's processor group and that
// CPU alone (SetThreadGroupAffinity: SetThreadAffinityMask cannot name a
// CPU beyond the thread's group, and 1<<cpu is no CPU from 64 on).
func pinThread(cpu int) (func(), error) {
	group, mask, err := GroupOf(cpu, processorGroups())
	if err != nil {
		return nil, err
	}
	thread := windows.CurrentThread()
	aff := winapi.GroupAffinity{Mask: uintptr(mask), Group: uint16(group)}
	var old winapi.GroupAffinity
	if err := winapi.SetThreadGroupAffinity(thread, &aff, &old); err != nil {
		return nil, fmt.Errorf("SetThreadGroupAffinity(cpu %d: group %d, mask %#x): %w", cpu, group, mask, err)
	}
	return func() { _ = winapi.SetThreadGroupAffinity(thread, &old, nil) }, nil
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

// RequestSlice does nothing on Windows, whose scheduler has no per-thread
// slice a thread may ask for: it returns 0, no slice in force.
func RequestSlice(time.Duration) (time.Duration, error) { return 0, nil }
