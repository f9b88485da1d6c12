package probe

import (
	"runtime"
	"time"
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
// be let go: the loop lets go and yields once per Yielder period, at a
// point with time to spare before the next deadline.

// Yielder decides when a held loop lets go of its thread for a moment:
// once Every has passed since the last time, and only when the next
// deadline is more than Margin away.
type Yielder struct {
	Every, Margin int64 // ns
	last          int64
}

// NewYielder starts the period at now, with this OS's yield period.
func NewYielder(now int64) Yielder {
	return Yielder{Every: int64(yieldEvery), Margin: int64(yieldMargin), last: now}
}

// Due says whether to yield now, with the next deadline at next.
func (y *Yielder) Due(now, next int64) bool {
	return now-y.last > y.Every && next-now > y.Margin
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

// yieldMargin is the least time to the next deadline at which a loop
// yields: the scheduler's round trip through another thread takes tens of
// µs on an idle machine.
const yieldMargin = 200 * time.Microsecond
