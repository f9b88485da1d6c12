package probe

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/clock"
)

// A timed loop and the Go scheduler
//
// A measuring goroutine is locked to its thread and waits with a raw
// system call, so it keeps its P (the runtime's scheduler slot) while it
// sleeps. The runtime's sysmon sees that P run the same goroutine for
// 10 ms and asks it to give way: on Linux with a SIGURG that interrupts the
// wait, and with a flag that makes the goroutine's next function call go
// through the scheduler. A goroutine locked to its thread cannot simply be
// resumed there: the scheduler hands its P to another thread, which wakes
// the measuring thread back up (two more thread wake-ups, on another
// thread that must first get a CPU), and runtime.Gosched does exactly the
// same. At normal priority under load that costs the measuring thread what
// it is measured on: it runs more per period than cyclictest's thread,
// which loses it the scheduler's preference for short sleepers, and the
// hand-back itself waits behind the load.
//
// So on Linux a timed loop holds its thread (HoldThread) for the whole run:
// the runtime does not preempt it, and the preemption signal stays pending
// instead of interrupting the wait. Nothing in the process needs the P
// meanwhile (GOMAXPROCS is raised by one for the run and the garbage
// collector is off), except a stop-the-world, which waits for the hold to
// be let go. A loop used to let go and yield once a second, needed or not,
// and under load that yield was what cyclictest's loop does not have: a
// hand-off through another thread that has to get a CPU first, now and
// then for longer than a period (missed wake-ups, and loaded maxima of
// tens of ms). Now it yields only when something waits: a heartbeat
// goroutine notes the time every beatEvery, and a stop-the-world stops it
// with everything else, so a heartbeat older than beatStale means the rest
// of the process is waiting for the measuring thread (or, on a machine so
// busy that the heartbeat got no CPU for that long, might be). The loop
// then yields at most once per Every, and the yield is its next wait
// itself (Yielder.WaitUntil): let go of the hold and made as a system call
// the runtime sees, so the stop-the-world takes the P while the thread
// sleeps, and a yield on a late heartbeat with nothing waiting costs
// nothing: a hand-off through another thread (runtime.Gosched) at the
// moments the process gets the least CPU is what it must not be.

// Yielder decides when a held loop lets go of its thread for a moment:
// when the heartbeat is stale (Linux; on Windows once per yieldEvery, see
// there), once Every has passed since the last time, and only when the
// next deadline is more than Margin away. NewYielder starts it and Stop
// ends it, both outside the hold.
type Yielder struct {
	Every, Margin int64 // ns
	last          int64
	beat          bool // yield only on a stale heartbeat
	pending       bool // Plan found a yield due: the next WaitUntil yields
}

// heartbeat is one goroutine for the process that notes the time every
// beatEvery while some Yielder uses it, and sleeps on wake while none
// does: starting and stopping a loop allocates nothing.
var heartbeat struct {
	once  sync.Once
	users atomic.Int32
	wake  chan struct{} // capacity 1
	last  atomic.Int64  // clock ns of the last beat
}

const (
	beatEvery = 100 * time.Millisecond
	// beatStale is a heartbeat's age at which the loop takes the rest of
	// the process for stopped: ten beats missed, the second a
	// stop-the-world waited before. Shorter, a busy machine that kept the
	// heartbeat's thread off the CPUs that long made the loop yield just
	// when a thread it may need back for its P (a realtime one's, from a
	// normal-priority one) is slowest to come.
	beatStale = time.Second
)

func startHeartbeat() {
	heartbeat.once.Do(func() {
		heartbeat.wake = make(chan struct{}, 1)
		go beat()
	})
	heartbeat.last.Store(clock.Now())
	if heartbeat.users.Add(1) == 1 {
		select {
		case heartbeat.wake <- struct{}{}:
		default:
		}
	}
}

func beat() {
	for {
		if heartbeat.users.Load() == 0 {
			<-heartbeat.wake
		}
		time.Sleep(beatEvery)
		heartbeat.last.Store(clock.Now())
	}
}

// NewYielder starts the period at now, with this OS's yield period, and
// the heartbeat where the OS's loops hold their thread. Call it before
// the hold, and Stop after it.
func NewYielder(now int64) Yielder {
	y := Yielder{Every: int64(yieldEvery), Margin: int64(yieldMargin), last: now, beat: holdsThread}
	if y.beat {
		startHeartbeat()
	}
	return y
}

// Stop lets the heartbeat sleep once no loop uses it.
func (y *Yielder) Stop() {
	if y.beat {
		heartbeat.users.Add(-1)
		y.beat = false
	}
}

// Due says whether to yield now, with the next deadline at next.
func (y *Yielder) Due(now, next int64) bool {
	if now-y.last <= y.Every || next-now <= y.Margin {
		return false
	}
	return !y.beat || now-heartbeat.last.Load() > int64(beatStale)
}

// Yield lets go of h, goes through the scheduler and holds the thread
// again. now is the time to count the next period from.
func (y *Yielder) Yield(h Held, now func() int64) Held {
	h.Release()
	runtime.Gosched()
	h = HoldThread()
	y.last = now()
	return h
}

// Plan notes whether a yield is due (Due), for the loop's next WaitUntil.
func (y *Yielder) Plan(now, next int64) {
	if y.Due(now, next) {
		y.pending = true
	}
}

// visibleWaiter is a Waiter that can also wait through the runtime's
// system call path (entersyscall), where a stop-the-world can take the
// thread's P while it sleeps.
type visibleWaiter interface {
	waitVisible(deadline int64) (interrupted int, err error)
}

// WaitUntil waits for deadline with w, the hold h kept. When Plan found a
// yield due, that wait is the yield: the hold is let go for it and the
// wait made as a system call the runtime sees, so a stop-the-world takes
// the P while the thread sleeps and gives it back (or another idle one)
// when it wakes, with no hand-off through another thread as Yield's
// runtime.Gosched needs; and when nothing waits after all (a heartbeat
// late on a busy machine), the wait costs no more than a raw one. A
// Waiter that cannot (the tests' fakes) yields through Yield first. now
// is the time to count the next period from.
func (y *Yielder) WaitUntil(h *Held, w Waiter, deadline int64, now func() int64) (int, error) {
	if !y.pending {
		return w.WaitUntil(deadline)
	}
	y.pending = false
	vw, ok := w.(visibleWaiter)
	if !ok {
		*h = y.Yield(*h, now)
		return w.WaitUntil(deadline)
	}
	h.Release()
	k, err := vw.waitVisible(deadline)
	*h = HoldThread()
	y.last = now()
	return k, err
}

// yieldMargin is the least time to the next deadline at which a loop
// yields: the scheduler's round trip through another thread takes tens of
// µs on an idle machine.
const yieldMargin = 200 * time.Microsecond
