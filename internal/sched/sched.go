// Package sched sets the scheduling conditions of a measuring thread:
// priority, CPU affinity, locked memory and (Linux) the CPU idle-state
// latency request. Every setter returns an undo function so a run leaves
// the process as it found it.
package sched

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
// goroutine. rtprio is the SCHED_FIFO priority for Realtime on Linux.
func ApplyThread(p Priority, rtprio int) (undo func(), err error) {
	if p == Realtime && (rtprio < MinRTPrio || rtprio > MaxRTPrio) {
		return nil, fmt.Errorf("rtprio %d out of range %d-%d", rtprio, MinRTPrio, MaxRTPrio)
	}
	return applyThread(p, rtprio)
}

// PinThread restricts the calling (locked) thread to one CPU.
func PinThread(cpu int) (undo func(), err error) {
	if cpu < 0 || cpu >= NumCPU() {
		return nil, fmt.Errorf("cpu %d does not exist: this machine has CPUs 0-%d", cpu, NumCPU()-1)
	}
	return pinThread(cpu)
}

// LockMemory locks current and future pages in RAM so a page fault cannot
// add to a measured wake-up (cyclictest's -m).
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
// syntax) and checks each CPU exists on this machine.
func ParseCPUList(s string, ncpu int) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty CPU list: accepted a list like 0,2-3")
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU %q in list %q: accepted a list like 0,2-3", part, s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU range %q in list %q: accepted a list like 0,2-3", part, s)
			}
		}
		for c := a; c <= b; c++ {
			if c >= ncpu {
				return nil, fmt.Errorf("cpu %d does not exist: this machine has CPUs 0-%d", c, ncpu-1)
			}
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}
