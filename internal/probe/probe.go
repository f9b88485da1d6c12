// Package probe runs latlab's measurement loops and returns raw samples. It
// never prints and never summarises: callers hand the samples to stats.
//
// Every loop runs on a goroutine locked to its own OS thread, with the
// garbage collector off, memory for the samples allocated up front, and the
// OS wait primitive called directly. Timestamps come from package clock.
package probe

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/timer"
)

// Thread describes how a measuring thread is set up.
type Thread struct {
	Priority   sched.Priority
	RTPrio     int           // SCHED_FIFO priority for Realtime (Linux)
	CPU        int           // -1: not pinned
	Resolution time.Duration // 0: no request; Windows timer resolution / Linux timer slack
	// ThreadOnly raises this thread alone (sched.ApplyThreadOnly), not
	// the process's other threads with it.
	ThreadOnly bool
}

// Overhead is what the tool itself adds to each sample: the cost of a clock
// reading and of a wait that is already due when it is requested. A wake-up
// latency cannot be measured below the zero-wait cost.
type Overhead struct {
	ClockReadMinNs int64  `json:"clock_read_min_ns"`
	ClockReadP50Ns int64  `json:"clock_read_p50_ns"`
	ZeroWaitMinNs  int64  `json:"zero_wait_min_ns"`
	ZeroWaitP50Ns  int64  `json:"zero_wait_p50_ns"`
	ZeroWaitMethod string `json:"zero_wait_method"`
}

// ThreadSetup is what a measuring thread actually got.
type ThreadSetup struct {
	CPU            int    `json:"cpu"`                     // -1 when not pinned
	Priority       string `json:"priority"`                // what the thread obtained
	PriorityNote   string `json:"priority_note,omitempty"` // set when that is not what was requested
	RTPrio         int    `json:"rtprio,omitempty"`
	OtherThreads   string `json:"other_threads,omitempty"` // how the process's other threads were scheduled, for a realtime run
	RequestedNs    int64  `json:"resolution_requested_ns,omitempty"`
	GrantedNs      int64  `json:"resolution_granted_ns,omitempty"`
	ResolutionNote string `json:"resolution_note,omitempty"`
	// SliceNs: the fair scheduler's time slice the thread asked for and
	// got (Linux 6.12 and later; net udp's pacing thread), 0 for the
	// kernel's default; SliceNote says why a request failed.
	SliceNs   int64  `json:"slice_ns,omitempty"`
	SliceNote string `json:"slice_note,omitempty"`
}

// sampleBuf stores samples without allocating per sample: a bounded run
// gets one chunk of the exact size up front; an unbounded run (until Ctrl-C)
// adds a 64 Ki-sample chunk when one fills, outside the timed window.
type sampleBuf struct {
	full [][]int64
	cur  []int64
}

const chunkSamples = 1 << 16

func newSampleBuf(n int) *sampleBuf {
	if n <= 0 {
		n = chunkSamples
	}
	cur := make([]int64, n)
	prefault(cur)
	return &sampleBuf{cur: cur[:0]}
}

// prefault writes one word in each page of s. A large buffer fresh from the
// OS has its pages mapped at their first write: without a memory lock a
// wake run at 1 ms took one minor page fault on its measuring thread every
// 512 samples (6 in 3 s), inside the timed loop. Written before the run,
// they are mapped before it. The values are overwritten by the loop.
func prefault(s []int64) {
	step := os.Getpagesize() / 8
	for i := 0; i < len(s); i += step {
		s[i] = -1
	}
	if len(s) > 0 {
		s[len(s)-1] = -1
	}
}

func (b *sampleBuf) add(v int64) {
	if len(b.cur) == cap(b.cur) {
		b.full = append(b.full, b.cur)
		b.cur = make([]int64, 0, chunkSamples)
	}
	b.cur = append(b.cur, v)
}

func (b *sampleBuf) all() []int64 {
	if len(b.full) == 0 {
		return b.cur
	}
	n := len(b.cur)
	for _, c := range b.full {
		n += len(c)
	}
	out := make([]int64, 0, n)
	for _, c := range b.full {
		out = append(out, c...)
	}
	return append(out, b.cur...)
}

// quiet turns the garbage collector off for a run and restores it after.
func quiet() (restore func()) {
	runtime.GC()
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// stopFlag turns ctx cancellation into an atomic flag a loop can poll
// without locking or allocating.
func stopFlag(ctx context.Context) (*atomic.Bool, func() bool) {
	var f atomic.Bool
	stop := context.AfterFunc(ctx, func() { f.Store(true) })
	if ctx.Err() != nil {
		f.Store(true)
	}
	return &f, stop
}

// OnThread runs fn on a fresh goroutine locked to its OS thread with the
// thread set up as t asks. The goroutine exits still locked, so the thread
// (with its changed priority, affinity and slack) is discarded, not reused.
func OnThread(t Thread, fn func(setup ThreadSetup) error) (ThreadSetup, error) {
	type res struct {
		setup preparedThread
		err   error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		setup, err := prepareThread(t)
		if err != nil {
			ch <- res{setup, err}
			return
		}
		err = fn(setup.ThreadSetup)
		setup.release() // before reporting: a Windows request is process-wide
		ch <- res{setup, err}
	}()
	r := <-ch
	return r.setup.ThreadSetup, r.err
}

type preparedThread struct {
	ThreadSetup
	undo []func()
	req  *timer.Request
}

func (p preparedThread) release() {
	if p.req != nil {
		_ = p.req.Release()
	}
	for i := len(p.undo) - 1; i >= 0; i-- {
		p.undo[i]()
	}
}

func prepareThread(t Thread) (preparedThread, error) {
	p := preparedThread{ThreadSetup: ThreadSetup{CPU: t.CPU, Priority: t.Priority.String()}}
	if t.Priority == sched.Realtime {
		p.RTPrio = t.RTPrio
	}
	if t.CPU >= 0 {
		undo, err := sched.PinThread(t.CPU)
		if err != nil {
			return p, err
		}
		p.undo = append(p.undo, undo)
	}
	apply := sched.ApplyThread
	if t.ThreadOnly {
		apply = sched.ApplyThreadOnly
	}
	got, undo, err := apply(t.Priority, t.RTPrio)
	if err != nil {
		p.release()
		return p, err
	}
	p.undo = append(p.undo, undo)
	if t.ThreadOnly && t.Priority == sched.Realtime && got == sched.High {
		// Windows: by design, not a refusal (sched.ApplyThreadOnly).
		p.Priority, p.RTPrio = got.String(), 0
		p.PriorityNote = "realtime for this thread alone: Windows' realtime class would raise every thread of the process, so it runs at THREAD_PRIORITY_TIME_CRITICAL in its class"
	} else {
		p.obtained(t.Priority, got)
	}
	if !t.ThreadOnly {
		p.OtherThreads = sched.OtherThreads(got, t.RTPrio)
	}
	if t.Resolution > 0 {
		req, err := timer.Set(t.Resolution)
		if err != nil {
			p.release()
			return p, fmt.Errorf("request timer %v: %w", t.Resolution, err)
		}
		p.req = req
		p.RequestedNs, p.GrantedNs = req.Requested.Nanoseconds(), req.Granted.Nanoseconds()
		p.ResolutionNote = resolutionNote
	}
	return p, nil
}

// obtained records the priority the thread got when it is not the one
// requested, with a note saying so.
func (s *ThreadSetup) obtained(requested, got sched.Priority) {
	if got == requested {
		return
	}
	s.Priority = got.String()
	s.PriorityNote = fmt.Sprintf("priority %s was requested, the OS gave %s%s", requested, got, priorityHint)
	if got != sched.Realtime {
		s.RTPrio = 0
	}
}

// measureOverhead times n zero-length waits and n clock reads.
func measureOverhead(n int, zeroWait func(), method string) Overhead {
	// The zero-length wait is timed without timer slack (Linux), which
	// would otherwise defer even an already-expired wait by the slack.
	defer calibrationGuard()()
	var o Overhead
	o.ClockReadMinNs, o.ClockReadP50Ns = clock.ReadCost(n)
	d := make([]int64, n)
	for i := range d {
		t0 := clock.Now()
		zeroWait()
		d[i] = clock.Now() - t0
	}
	o.ZeroWaitMinNs, o.ZeroWaitP50Ns = clock.MinMedian(d)
	o.ZeroWaitMethod = method
	return o
}
