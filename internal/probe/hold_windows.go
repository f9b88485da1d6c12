package probe

import "time"

// HoldThread does nothing on Windows: the waits there are system calls the
// runtime tracks, during which it does not preempt the goroutine, and a
// pin would be unsafe across them (a wait that returns to find its P
// taken must go through the scheduler).
func HoldThread() Held { return Held{} }

// Release does nothing on Windows.
func (Held) Release() {}

// Held is a thread held by HoldThread; Release lets it go.
type Held struct{}

// yieldEvery bounds how long a measuring goroutine runs without entering
// the scheduler: one that keeps its scheduler slot for 10 ms is preempted
// by the runtime's sysmon at its next function call, wherever that falls;
// yielding a little sooner, at a point the loop chooses (between samples,
// with time to spare before the next deadline), avoids that.
const yieldEvery = 8 * time.Millisecond

// holdsThread: nothing is held on Windows, and a Yielder yields once per
// yieldEvery without a heartbeat.
const holdsThread = false
