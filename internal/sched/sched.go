// Package sched sets the scheduling conditions of a measuring thread:
// priority, CPU affinity, locked memory and (Linux) the CPU idle-state
// latency request. Every setter returns an undo function so a run leaves
// the process as it found it.
package sched

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
)

// Priority is latlab's portable priority level.
type Priority int

const (
	Normal Priority = iota
	High
	Realtime
)

func (p Priority) String() string {
	switch p {
	case High:
		return "high"
	case Realtime:
		return "realtime"
	}
	return "normal"
}

// ParsePriority accepts normal, high and realtime.
func ParsePriority(s string) (Priority, error) {
	switch strings.ToLower(s) {
	case "normal", "":
		return Normal, nil
	case "high":
		return High, nil
	case "realtime", "rt":
		return Realtime, nil
	}
	return Normal, fmt.Errorf("unknown priority %q: accepted normal, high, realtime", s)
}

// ErrUnsupported marks a request this OS cannot honour.
var ErrUnsupported = errors.New("not supported on this OS")

// RTPrioRange is the accepted --rtprio range (SCHED_FIFO priorities).
const (
	MinRTPrio = 1
	MaxRTPrio = 99
)

// ApplyThread applies p to the calling thread, which must be locked to its
// goroutine. rtprio is the SCHED_FIFO priority for Realtime on Linux. It
// returns the priority the thread obtained, read back from the OS: Linux
// grants what it is asked or fails, but Windows silently turns
// REALTIME_PRIORITY_CLASS into HIGH without the "increase scheduling
// priority" privilege.
func ApplyThread(p Priority, rtprio int) (got Priority, undo func(), err error) {
	if p == Realtime && (rtprio < MinRTPrio || rtprio > MaxRTPrio) {
		return Normal, nil, fmt.Errorf("rtprio %d out of range %d-%d", rtprio, MinRTPrio, MaxRTPrio)
	}
	return applyThread(p, rtprio)
}

// ApplyThreadOnly is ApplyThread for a thread that must be the only one
// raised: the exporter's probe, beside an HTTP server that parses (and
// bcrypt-checks) whatever anyone sends, which must not run realtime. On
// Linux the calling thread alone becomes SCHED_FIFO rtprio, with
// SCHED_RESET_ON_FORK so a thread it starts does not inherit it; on
// Windows the process's class is left as it is (the class applies to
// every thread) and the thread gets THREAD_PRIORITY_TIME_CRITICAL, the
// top of its class, and High is returned.
func ApplyThreadOnly(p Priority, rtprio int) (got Priority, undo func(), err error) {
	if p == Realtime && (rtprio < MinRTPrio || rtprio > MaxRTPrio) {
		return Normal, nil, fmt.Errorf("rtprio %d out of range %d-%d", rtprio, MinRTPrio, MaxRTPrio)
	}
	return applyThreadOnly(p, rtprio)
}

// OtherThreads says how the process's other threads are scheduled while
// the calling thread holds p, for the result document ("" when p is not
// Realtime).
func OtherThreads(p Priority, rtprio int) string {
	if p != Realtime {
		return ""
	}
	return otherThreads(rtprio)
}

// PinThread restricts the calling (locked) thread to one CPU.
func PinThread(cpu int) (undo func(), err error) {
	if cpu < 0 || cpu >= NumCPU() {
		return nil, fmt.Errorf("cpu %d does not exist: %s", cpu, cpuDescription())
	}
	return pinThread(cpu)
}

// LockMemory locks current and future pages in RAM so a page fault cannot
// add to a measured wake-up (cyclictest's -m). Linux only: elsewhere it
// returns an error wrapping ErrUnsupported.
func LockMemory() (undo func(), err error) { return lockMemory() }

// HoldDMALatency asks the OS to keep CPU idle states with an exit latency
// above us microseconds off while held (Linux /dev/cpu_dma_latency).
func HoldDMALatency(us int) (release func(), err error) {
	if us < 0 {
		return nil, fmt.Errorf("dma latency %d µs is negative", us)
	}
	return holdDMALatency(us)
}

// ParseCPUList parses a CPU list such as "0,2-3" (the /proc and taskset
// syntax) and checks each CPU exists on this machine (ncpu of them). On
// Windows CPUs are numbered across processor groups, counting each
// group's active processors in turn (ProcessorOf), and each is pinned in
// its own group; the errors say which numbers exist.
func ParseCPUList(s string, ncpu int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty CPU list: accepted a list like 0,2-3 of CPUs 0-%d", ncpu-1)
	}
	cpus, err := cpuset.ParseList(s)
	if err != nil {
		return nil, err
	}
	for _, c := range cpus {
		if c >= ncpu {
			return nil, fmt.Errorf("cpu %d does not exist: accepted CPUs 0-%d; %s", c, ncpu-1, cpuDescription())
		}
	}
	return cpus, nil
}
