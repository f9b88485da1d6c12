package probe

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// While held, the thread blocks SIGURG, the runtime's preemption signal,
// which would otherwise end a wait early; Release gives the thread its
// mask back.
func TestHoldThreadBlocksPreemptionSignal(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	blocked := func() bool {
		var cur unix.Sigset_t
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, nil, &cur); err != nil {
			t.Fatal(err)
		}
		return cur.Val[0]&(1<<(unix.SIGURG-1)) != 0
	}
	if blocked() {
		t.Fatal("SIGURG is blocked before the hold")
	}
	h := HoldThread()
	during := blocked()
	h.Release()
	if !during {
		t.Error("SIGURG is not blocked during the hold")
	}
	if blocked() {
		t.Error("SIGURG is still blocked after Release")
	}
}
