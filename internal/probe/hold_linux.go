package probe

import (
	"time"

	"golang.org/x/sys/unix"
)

// HoldThread keeps the calling goroutine, locked to its thread, running
// there without the Go scheduler until Release: the runtime does
// not preempt it, and SIGURG (the runtime's preemption signal) is blocked
// for the thread, so it stays pending instead of interrupting a wait.
// Between the two the goroutine must not block in the runtime or make a
// system call through package syscall (those may need the scheduler): raw
// system calls, as the waits are (both of these are), and plain code
// only. Other signals are delivered as usual.
func HoldThread() Held {
	var h Held
	procPin() // first: the mask is the thread's, and a pinned goroutine stays on it
	var set unix.Sigset_t
	set.Val[0] = 1 << (unix.SIGURG - 1)
	h.masked = unix.PthreadSigmask(unix.SIG_BLOCK, &set, &h.old) == nil
	return h
}

// Release lets the thread go: the runtime may preempt it again, and a
// preemption signal that came meanwhile is delivered now.
func (h Held) Release() {
	if h.masked {
		_ = unix.PthreadSigmask(unix.SIG_SETMASK, &h.old, nil)
	}
	procUnpin()
}

// Held is a thread held by HoldThread; Release lets it go. It is a value,
// so holding allocates nothing. It keeps what Release restores: the
// thread's signal mask.
type Held struct {
	old    unix.Sigset_t
	masked bool
}

// yieldEvery is the least time between two yields of a held loop (see
// Yielder), which yields only when the heartbeat says the rest of the
// process waits: rarely, as only a stop-the-world needs it, and a run has
// none of its own (its garbage collector is off).
const yieldEvery = time.Second

// holdsThread: the loops hold their thread, so a Yielder keeps a
// heartbeat to know when to let go.
const holdsThread = true
