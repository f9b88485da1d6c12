package sched

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

func TestRealtimeThread(t *testing.T) {
	testutil.NeedRoot(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	got, undo, err := ApplyThread(Realtime, 80)
	if err != nil {
		t.Fatal(err)
	}
	if got != Realtime {
		t.Errorf("obtained %s", got)
	}
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil || a.Policy != unix.SCHED_FIFO || a.Priority != 80 {
		t.Fatalf("attr %+v %v", a, err)
	}
	undo()
	a, _ = unix.SchedGetAttr(0, 0)
	if a.Policy != unix.SCHED_NORMAL {
		t.Fatalf("policy not restored: %d", a.Policy)
	}
}

func TestHoldDMALatencyWritesBinaryS32(t *testing.T) {
	p := filepath.Join(testutil.TempDir(t), "cpu_dma_latency")
	os.WriteFile(p, nil, 0o644)
	release, err := holdDMALatencyAt(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	release()
	b, _ := os.ReadFile(p)
	if len(b) != 4 || b[0] != 7 || b[1]|b[2]|b[3] != 0 {
		t.Fatalf("wrote %v", b)
	}
}

// threadPolicies reads the scheduling attributes of every thread of the
// process.
func threadPolicies(t *testing.T) map[int]*unix.SchedAttr {
	t.Helper()
	pt := processThreads{task: "/proc/self/task"}
	tids, err := pt.tids()
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]*unix.SchedAttr{}
	for _, tid := range tids {
		if a, err := unix.SchedGetAttr(tid, 0); err == nil {
			m[tid] = a
		}
	}
	return m
}

// startThreads parks n goroutines on threads of their own until stop is
// closed, so the process has threads that did not exist before.
func startThreads(n int, stop chan struct{}) {
	ready := make(chan struct{})
	for range n {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready <- struct{}{}
			<-stop
		}()
	}
	for range n {
		<-ready
	}
}

// A realtime run makes every thread of the process FIFO, including those
// the runtime starts during the run, and puts them all back afterwards:
// with only the measuring thread FIFO, the runtime's other threads were
// delayed behind normal-priority load and so was the measuring thread.
func TestRealtimeCoversEveryThread(t *testing.T) {
	testutil.NeedRoot(t)
	stopEarly := make(chan struct{})
	defer close(stopEarly)
	startThreads(3, stopEarly)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := unix.Gettid()
	_, undo, err := ApplyThread(Realtime, 60)
	if err != nil {
		t.Fatal(err)
	}
	stopLate := make(chan struct{})
	startThreads(3, stopLate) // threads created while the run is on

	check := func(when string, want func(tid int) (int, int)) {
		t.Helper()
		pol := threadPolicies(t)
		if len(pol) < 7 {
			t.Fatalf("%s: only %d threads seen", when, len(pol))
		}
		for tid, a := range pol {
			policy, prio := want(tid)
			if int(a.Policy) != policy || int(a.Priority) != prio {
				t.Errorf("%s: thread %d policy %d priority %d, want %d/%d", when, tid, a.Policy, a.Priority, policy, prio)
			}
		}
	}
	check("during the run", func(tid int) (int, int) {
		if tid == self {
			return unix.SCHED_FIFO, 60
		}
		return unix.SCHED_FIFO, 59
	})
	undo()
	check("after the run", func(int) (int, int) { return unix.SCHED_NORMAL, 0 })
	close(stopLate)
}

func TestOtherRTPrio(t *testing.T) {
	for _, c := range []struct{ in, want int }{{80, 79}, {2, 1}, {1, 1}, {99, 98}} {
		if got := otherRTPrio(c.in); got != c.want {
			t.Errorf("otherRTPrio(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// onOwnThread runs fn on a thread of its own, which ends with it (the
// goroutine exits locked), so that what fn changes dies with the thread.
func onOwnThread(fn func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		fn()
	}()
	<-done
}

// A fair thread's slice request is in force once RequestSlice returns, as
// sched_getattr reports it (Linux 6.12 and later; before, the kernel
// reports no slice and the answer is 0), and its nice value is kept. A
// SCHED_FIFO thread is left alone.
func TestRequestSlice(t *testing.T) {
	onOwnThread(func() {
		before, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			t.Error(err)
			return
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 3); err != nil {
			t.Error(err)
			return
		}
		got, err := RequestSlice(100 * time.Microsecond)
		if err != nil {
			t.Error(err)
			return
		}
		want := 100 * time.Microsecond
		if before.Runtime == 0 {
			want = 0 // a kernel before 6.12: no fair slice to report
			t.Logf("this kernel reports no fair slice (before 6.12): checking the request is harmless only")
		}
		if got != want {
			t.Errorf("slice in force %v, want %v", got, want)
		}
		a, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			t.Error(err)
			return
		}
		if a.Nice != 3 || a.Policy != unix.SCHED_NORMAL {
			t.Errorf("after the request: policy %d nice %d, want SCHED_NORMAL (0) nice 3", a.Policy, a.Nice)
		}
	})
	if os.Geteuid() != 0 {
		t.Log("not root: the SCHED_FIFO case needs CAP_SYS_NICE and is not checked")
		return
	}
	onOwnThread(func() {
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1}, 0); err != nil {
			t.Error(err)
			return
		}
		got, err := RequestSlice(100 * time.Microsecond)
		if err != nil || got != 0 {
			t.Errorf("SCHED_FIFO thread: slice %v, %v; want 0, nil", got, err)
		}
		if a, err := unix.SchedGetAttr(0, 0); err != nil || a.Policy != unix.SCHED_FIFO || a.Priority != 1 {
			t.Errorf("SCHED_FIFO thread changed: %+v, %v", a, err)
		}
	})
}
