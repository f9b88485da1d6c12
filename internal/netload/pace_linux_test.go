package netload

import (
	"context"
	"runtime"
	"testing"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/unix"
)

// A normal pacing thread asks for 1 ns of timer slack, which the kernel
// grants; a realtime one gets SCHED_FIFO at the asked priority, and the
// kernel gives SCHED_FIFO threads no slack at all. The normal one's time
// slice is paceSlice; a SCHED_FIFO thread has none.
func TestUDPPacingThreadLinux(t *testing.T) {
	echo, _, _, _ := startServer(t, true)
	run := func(th *probe.Thread) *UDPResult {
		t.Helper()
		r, err := RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: 1000, Size: 64, Count: 20, DSCP: -1, Thread: th})
		if err != nil {
			t.Fatal(err)
		}
		if r.Sent != 20 || r.Received != 20 {
			t.Fatalf("sent %d received %d", r.Sent, r.Received)
		}
		return r
	}
	// the time slice: paceSlice where the kernel reports fair slices
	// (6.12 and later: this thread's is not 0), none before
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSlice := int64(paceSlice)
	if a.Runtime == 0 {
		wantSlice = 0
	}
	if r := run(nil); r.Thread.GrantedNs != 1 || r.Thread.Priority != "normal" || r.Thread.SliceNs != wantSlice || r.Thread.SliceNote != "" {
		t.Fatalf("default thread %+v, want 1 ns slack granted and a slice of %d ns", r.Thread, wantSlice)
	}
	testutil.NeedRoot(t)
	r := run(&probe.Thread{CPU: 0, Priority: sched.Realtime, RTPrio: 10})
	if r.Thread.Priority != "realtime" || r.Thread.RTPrio != 10 || r.Thread.CPU != 0 || r.Thread.GrantedNs != 0 || r.Thread.SliceNs != 0 {
		t.Fatalf("thread %+v, want realtime 10 on CPU 0 without slack or slice", r.Thread)
	}
}

// threadSwitches reads the calling thread's involuntary switches, as
// getrusage(RUSAGE_THREAD) through x/sys/unix reports them.
func TestThreadSwitches(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ru threadUsage
	got := threadSwitches(&ru)
	var want unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &want); err != nil {
		t.Fatal(err)
	}
	// the thread may be switched out between the two calls, never back
	if got < 0 || got > int64(want.Nivcsw) {
		t.Fatalf("threadSwitches = %d, getrusage's ru_nivcsw %d", got, want.Nivcsw)
	}
}
