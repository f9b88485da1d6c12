package sched

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// NumCPU is the number of CPUs the kernel knows (not only those in this
// process's affinity mask), so --cpus N names the same CPU as cyclictest -a N.
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
		// A realtime measuring thread alone is not enough: it sometimes
		// needs another of the runtime's threads (to hand over a P, to
		// run sysmon's retake, to finish a syscall exit), and a
		// SCHED_OTHER thread behind normal-priority load delays it for
		// milliseconds, a priority inversion measured at 3.6x
		// cyclictest's p99 under load. So every other thread runs FIFO
		// one level below.
		others, err := realtimeOthers(unix.Gettid(), otherRTPrio(rtprio), old)
		if err != nil {
			return Normal, nil, err // realtimeOthers put every thread back
		}
		return Realtime, others.restore, nil
	}
}

func applyThreadOnly(p Priority, rtprio int) (Priority, func(), error) {
	if p != Realtime {
		return applyThread(p, rtprio)
	}
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return Normal, nil, fmt.Errorf("sched_getattr: %w", err)
	}
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(rtprio),
		Flags: schedFlagResetOnFork}
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		return Normal, nil, fmt.Errorf("SCHED_FIFO priority %d: %w (needs root or CAP_SYS_NICE)", rtprio, err)
	}
	return Realtime, func() { _ = unix.SchedSetAttr(0, old, 0) }, nil
}

// schedFlagResetOnFork is SCHED_FLAG_RESET_ON_FORK (linux/sched/types.h):
// threads the caller starts get the normal policy, not its own.
const schedFlagResetOnFork = 0x01

func otherThreads(rtprio int) string {
	return fmt.Sprintf("SCHED_FIFO %d (every other thread of the process, including those started during the run)", otherRTPrio(rtprio))
}

// otherRTPrio is the SCHED_FIFO priority of the process's other threads
// when the measuring thread runs at rtprio: one level below, so the
// measuring thread always preempts them, and never below 1.
func otherRTPrio(rtprio int) int { return max(rtprio-1, MinRTPrio) }

// processThreads is what realtimeOthers changed: each thread's attributes
// before, and what the measuring thread (self) and a thread that did not
// exist then are restored to.
type processThreads struct {
	task   string // /proc/self/task
	self   int
	before map[int]*unix.SchedAttr
	dflt   *unix.SchedAttr
}

// realtimeOthers makes every thread of the process but self SCHED_FIFO
// at prio. Threads the runtime creates later inherit the policy of the
// thread that creates them (clone keeps it unless SCHED_RESET_ON_FORK),
// and all of them are FIFO now, so they start FIFO too. The task list is
// read until passes change no thread (settling), since the runtime may
// start a thread between the listing and the change.
func realtimeOthers(self, prio int, dflt *unix.SchedAttr) (*processThreads, error) {
	pt := &processThreads{task: "/proc/self/task", self: self, before: map[int]*unix.SchedAttr{}, dflt: dflt}
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	var settled settling
	for pass := 0; pass < 20; pass++ {
		tids, err := pt.tids()
		if err != nil {
			return nil, err
		}
		changed := 0
		for _, tid := range tids {
			if tid == self || pt.before[tid] != nil {
				continue
			}
			old, err := unix.SchedGetAttr(tid, 0)
			if err == unix.ESRCH {
				continue // the thread ended meanwhile
			}
			if err != nil {
				pt.restore()
				return nil, fmt.Errorf("sched_getattr(thread %d): %w", tid, err)
			}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil && err != unix.ESRCH {
				pt.restore()
				return nil, fmt.Errorf("SCHED_FIFO priority %d for thread %d: %w (needs root or CAP_SYS_NICE)", prio, tid, err)
			}
			if old.Policy == attr.Policy && old.Priority == attr.Priority {
				// Born of a thread already changed: FIFO by inheritance,
				// so what it had before is the process's normal policy.
				old = dflt
			}
			pt.before[tid] = old
			changed++
		}
		if settled.done(changed) {
			return pt, nil
		}
	}
	return pt, nil
}

// settling ends the passes over the task list: two in a row that change
// no thread, a little apart. A thread being created copies its creator's
// policy at the start of clone but joins the task list only at its end,
// so a pass that finds nothing to change can miss a thread cloned from a
// creator changed just before; the pause lets such a clone finish (a
// test under the race detector, which makes clones slower, caught one).
type settling struct{ clean int }

// settlingPause is how long settling waits before its second look.
const settlingPause = 2 * time.Millisecond

func (s *settling) done(changed int) bool {
	if changed > 0 {
		s.clean = 0
		return false
	}
	s.clean++
	if s.clean >= 2 {
		return true
	}
	time.Sleep(settlingPause)
	return false
}

func (pt *processThreads) tids() ([]int, error) {
	ents, err := os.ReadDir(pt.task)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, n)
		}
	}
	return tids, nil
}

// restore gives every thread its attributes from before; a thread started
// since (FIFO by inheritance) gets those of the measuring thread before
// it was raised, the process's normal policy. The measuring thread goes
// back first, so that a thread the runtime starts from it after that
// starts normal. Like realtimeOthers it then reads the task list until
// passes change no thread (settling): a thread still FIFO can start one
// while the others are put back, and the new one, FIFO by inheritance,
// is not in the list the pass read.
func (pt *processThreads) restore() {
	_ = unix.SchedSetAttr(pt.self, pt.dflt, 0)
	var settled settling
	for pass := 0; pass < 20; pass++ {
		tids, err := pt.tids()
		if err != nil {
			return
		}
		changed := 0
		for _, tid := range tids {
			if tid == pt.self {
				continue
			}
			want := pt.before[tid]
			if want == nil {
				want = pt.dflt
			}
			cur, err := unix.SchedGetAttr(tid, 0)
			if err != nil {
				continue // the thread ended meanwhile
			}
			if cur.Policy == want.Policy && cur.Priority == want.Priority && cur.Nice == want.Nice {
				continue
			}
			_ = unix.SchedSetAttr(tid, want, 0)
			changed++
		}
		if settled.done(changed) {
			return
		}
	}
}

// cpuDescription says which CPUs exist.
func cpuDescription() string { return fmt.Sprintf("this machine has CPUs 0-%d", NumCPU()-1) }

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

// RequestSlice asks the kernel for a time slice of d for the calling
// thread, scheduled by the fair class at its own nice value, and returns
// the slice then in force, 0 if the kernel has no slice to report (before
// Linux 6.12) or the thread is not in the fair class (SCHED_FIFO, RR,
// DEADLINE, IDLE: a slice means nothing there).
//
// Why: under EEVDF (Linux 6.6 and later) a thread woken beside a CPU hog
// preempts it only if its deadline, its eligible time plus its slice, comes
// first; at the default slice it often does not, and then waits for the
// hog's slice to end (2.6-3.9 ms on a 2-CPU guest). Since 6.12 the
// sched_runtime of sched_setattr(2) sets a fair thread's slice, clamped by
// the kernel to 0.1-100 ms, with no privilege needed; a shorter slice than
// the running thread's lets the woken one preempt at once. It changes no
// priority and no share of the CPU: a thread that uses its short slice up
// is put back sooner, not given more.
func RequestSlice(d time.Duration) (time.Duration, error) {
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return 0, fmt.Errorf("sched_getattr: %w", err)
	}
	if a.Policy != unix.SCHED_NORMAL && a.Policy != unix.SCHED_BATCH {
		return 0, nil
	}
	a.Runtime = uint64(d)
	if err := unix.SchedSetAttr(0, a, 0); err != nil {
		return 0, fmt.Errorf("sched_setattr(slice %s): %w", d, err)
	}
	if a, err = unix.SchedGetAttr(0, 0); err != nil {
		return 0, fmt.Errorf("sched_getattr: %w", err)
	}
	return time.Duration(a.Runtime), nil
}
