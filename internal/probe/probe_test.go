package probe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/sched"
)

func defaultMethod() string { return SleepMethods()[0] }

func TestSleepProbe(t *testing.T) {
	for _, d := range []time.Duration{time.Millisecond, 2 * time.Millisecond} {
		r, err := Sleep(context.Background(), SleepOptions{
			Duration: d, Samples: 20, Gap: time.Millisecond, Method: defaultMethod(),
			Thread: Thread{CPU: -1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Slept) != 20 {
			t.Fatalf("%d samples, want 20", len(r.Slept))
		}
		if r.WarmupNs <= 0 {
			t.Errorf("warm-up sample %d", r.WarmupNs)
		}
		for _, v := range r.Slept {
			if v <= 0 {
				t.Fatalf("non-positive sample %d", v)
			}
		}
		if r.Overhead.ZeroWaitMinNs <= 0 && r.Overhead.ClockReadMinNs < 0 {
			t.Errorf("overhead not measured: %+v", r.Overhead)
		}
	}
}

func TestSleepProbeSkipOverhead(t *testing.T) {
	r, err := Sleep(context.Background(), SleepOptions{
		Duration: time.Millisecond, Samples: 5, Method: defaultMethod(), Thread: Thread{CPU: -1}, SkipOverhead: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Slept) != 5 {
		t.Fatalf("%d samples, want 5", len(r.Slept))
	}
	if r.Overhead != (Overhead{}) {
		t.Errorf("overhead measured although skipped: %+v", r.Overhead)
	}
}

func TestSleepProbeStopsOnCancel(t *testing.T) {
	// Cancel once a few samples arrived: a fixed timeout would race the
	// setup on a loaded machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := make(chan int64, 1024)
	got := make(chan int, 1)
	go func() {
		n := 0
		for range live {
			n++
			if n == 3 {
				cancel()
			}
		}
		got <- n
	}()
	r, err := Sleep(ctx, SleepOptions{Duration: time.Millisecond, Samples: 0, Method: defaultMethod(), Thread: Thread{CPU: -1}, Live: live})
	close(live)
	if err != nil {
		t.Fatal(err)
	}
	n := <-got
	if len(r.Slept) < 3 || n+r.LiveDropped != len(r.Slept) {
		t.Fatalf("%d samples, %d live, %d dropped", len(r.Slept), n, r.LiveDropped)
	}
}

func TestValidateSleep(t *testing.T) {
	bad := []SleepOptions{
		{Duration: time.Millisecond, Method: "busy"},
		{Duration: 0, Method: defaultMethod()},
		{Duration: time.Millisecond, Samples: -1, Method: defaultMethod()},
	}
	for _, o := range bad {
		if err := ValidateSleep(o); err == nil {
			t.Errorf("accepted %+v", o)
		}
	}
}

func TestWakeProbe(t *testing.T) {
	r, err := Wake(context.Background(), WakeOptions{Interval: time.Millisecond, Loops: 200, CPUs: []int{0, -1}, Priority: sched.Normal})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 2 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	for i, th := range r.Threads {
		if len(th.Latencies) != 200 {
			t.Fatalf("thread %d: %d samples", i, len(th.Latencies))
		}
	}
	if r.Threads[0].Setup.CPU != 0 {
		t.Errorf("thread 0 not pinned: %+v", r.Threads[0].Setup)
	}
}

func TestWakeDurationMode(t *testing.T) {
	r, err := Wake(context.Background(), WakeOptions{Interval: 2 * time.Millisecond, Duration: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.Threads[0].Latencies)
	if n < 5 || n > 26 {
		t.Fatalf("%d samples in 50 ms at 2 ms", n)
	}
}

func TestWakeLoopCountsOverruns(t *testing.T) {
	next, interval := int64(1000), int64(100)
	now := int64(1350) // woke 350 late: deadlines 1100, 1200, 1300 passed
	next += interval
	var over int64
	if now >= next {
		missed := (now-next)/interval + 1
		over += missed
		next += missed * interval
	}
	if over != 3 || next != 1400 {
		t.Fatalf("over %d next %d", over, next)
	}
}

type nopSleeper struct{}

func (nopSleeper) sleep(int64) int { return 0 }
func (nopSleeper) close()          {}

func TestSleepLoopDoesNotAllocate(t *testing.T) {
	var stop atomic.Bool
	buf := newSampleBuf(100 * 101)
	o := SleepOptions{Duration: time.Millisecond, Samples: 100}
	allocs := testing.AllocsPerRun(100, func() { sleepLoop(nopSleeper{}, o, buf, &stop) })
	if allocs != 0 {
		t.Fatalf("sleep loop allocates %.1f times per run", allocs)
	}
}

func TestSampleBufChunks(t *testing.T) {
	b := newSampleBuf(0)
	for i := 0; i < chunkSamples*2+5; i++ {
		b.add(int64(i))
	}
	all := b.all()
	if len(all) != chunkSamples*2+5 || all[chunkSamples] != chunkSamples || all[len(all)-1] != int64(len(all)-1) {
		t.Fatal("chunked buffer lost order")
	}
}

func BenchmarkSampleRecord(b *testing.B) {
	// Per-sample cost of the loop's own work: two clock reads and a store
	// (the histogram is built after the run).
	buf := newSampleBuf(b.N + 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := nowForBench()
		t1 := nowForBench()
		buf.add(t1 - t0)
	}
}
