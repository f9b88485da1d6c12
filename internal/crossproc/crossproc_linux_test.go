package crossproc

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The requester's request is its own thread's slack, given back on release.
func TestRequestSetsAndRestoresSlack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	slack := func() int64 {
		v, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return int64(v)
	}
	before := slack()
	granted, release, err := request(3 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if granted != 3*time.Millisecond || slack() != int64(3*time.Millisecond) {
		t.Errorf("granted %v, thread slack %d", granted, slack())
	}
	release()
	if slack() != before {
		t.Errorf("slack %d after release, want %d", slack(), before)
	}
}
