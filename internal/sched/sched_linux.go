package sched

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// NumCPU is the number of CPUs the kernel knows (not only those in this
// process's affinity mask), so --cpu N names the same CPU as cyclictest -a N.
func NumCPU() int {
	n := runtime.NumCPU()
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil && set.Count() > n {
		n = set.Count()
	}
	return n
}

// applyThread grants what it is asked or fails: Linux has no silent
// downgrade.
func applyThread(p Priority, rtprio int) (Priority, func(), error) {
	switch p {
	case Normal:
		return Normal, func() {}, nil
	case High:
		tid := unix.Gettid()
		old, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			return Normal, nil, fmt.Errorf("getpriority: %w", err)
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, -10); err != nil {
			return Normal, nil, fmt.Errorf("setpriority(nice -10): %w (needs root or CAP_SYS_NICE)", err)
		}
		// getpriority's raw syscall returns 20-nice.
		return High, func() { _ = unix.Setpriority(unix.PRIO_PROCESS, tid, 20-old) }, nil
	default:
		old, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			return Normal, nil, fmt.Errorf("sched_getattr: %w", err)
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(rtprio)}
		if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
			return Normal, nil, fmt.Errorf("SCHED_FIFO priority %d: %w (needs root or CAP_SYS_NICE)", rtprio, err)
		}
		return Realtime, func() { _ = unix.SchedSetAttr(0, old, 0) }, nil
	}
}

func pinThread(cpu int) (func(), error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pin to cpu %d: %w", cpu, err)
	}
	return func() { _ = unix.SchedSetaffinity(0, &old) }, nil
}

func lockMemory() (func(), error) {
	if err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE); err != nil {
		return nil, fmt.Errorf("mlockall: %w (needs root or a large RLIMIT_MEMLOCK)", err)
	}
	return func() { _ = unix.Munlockall() }, nil
}

// holdDMALatency writes the request as a binary s32, the form the PM QoS
// interface documents; the request lasts while the file stays open.
func holdDMALatency(us int) (func(), error) {
	return holdDMALatencyAt("/dev/cpu_dma_latency", us)
}

func holdDMALatencyAt(path string, us int) (func(), error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(int32(us)))
	if _, err := f.Write(b[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
