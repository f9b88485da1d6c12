package sched

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

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
