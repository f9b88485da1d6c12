package probe

import (
	"testing"
	"time"

	"github.com/latlab/latlab/internal/clock"
)

// countingSleeper records what it was asked and returns at once.
type countingSleeper struct{ calls []int64 }

func (s *countingSleeper) sleep(d int64) (int, error) { s.calls = append(s.calls, d); return 0, nil }
func (s *countingSleeper) close()                     {}

func TestSleepBurstFillsTheBuffer(t *testing.T) {
	cs := &countingSleeper{calls: make([]int64, 0, 16)}
	s := &Sleeper{s: cs, method: "test"}
	out := make([]int64, 5)
	n, _, _ := SleepBurst(s, time.Millisecond, clock.Now()+int64(time.Hour), out)
	if n != len(out) || len(cs.calls) != len(out)+1 { // one warm-up
		t.Fatalf("%d samples from %d sleeps, want %d from %d", n, len(cs.calls), len(out), len(out)+1)
	}
	for _, d := range cs.calls {
		if d != int64(time.Millisecond) {
			t.Fatalf("asked for %d ns, want 1ms", d)
		}
	}
	if n, _, _ := SleepBurst(s, time.Millisecond, clock.Now()+int64(time.Hour), nil); n != 0 {
		t.Errorf("%d samples into no buffer", n)
	}
}

// A passed deadline ends the burst before the first sleep.
func TestSleepBurstStopsAtTheDeadline(t *testing.T) {
	cs := &countingSleeper{}
	n, _, _ := SleepBurst(&Sleeper{s: cs}, time.Millisecond, clock.Now()-1, make([]int64, 5))
	if n != 0 || len(cs.calls) != 0 {
		t.Fatalf("%d samples, %d sleeps after the deadline", n, len(cs.calls))
	}
}

func TestBurstsDoNotAllocate(t *testing.T) {
	s := &Sleeper{s: nopSleeper{}}
	out := make([]int64, 100)
	if a := testing.AllocsPerRun(50, func() { SleepBurst(s, time.Millisecond, clock.Now()+int64(time.Hour), out) }); a != 0 {
		t.Errorf("sleep burst allocates %.1f times", a)
	}
	w := &recordingWaiter{late: -1, deadlines: make([]int64, 0, 51*101)}
	if a := testing.AllocsPerRun(50, func() { WakeBurst(w, clock.Now(), time.Millisecond, 0, out) }); a != 0 {
		t.Errorf("wake burst allocates %.1f times", a)
	}
}

// The real primitives on this OS: a short burst measures something (no
// timing is asserted: the machine is shared, and Wine is not Windows).
func TestBurstsOnThisOS(t *testing.T) {
	_, err := OnThread(Thread{CPU: -1}, func(ThreadSetup) error {
		w, err := NewWaiter()
		if err != nil {
			return err
		}
		defer w.Close()
		if o, err := WaiterOverhead(w); err != nil || o.ZeroWaitMinNs <= 0 {
			t.Errorf("waiter overhead %+v, %v", o, err)
		}
		lat := make([]int64, 5)
		n, _, _, err := WakeBurst(w, clock.Now()+int64(time.Millisecond), time.Millisecond, time.Second, lat)
		if n != len(lat) || err != nil {
			t.Errorf("wake burst measured %d of %d: %v", n, len(lat), err)
		}
		s, err := NewSleeper(SleepMethods()[0])
		if err != nil {
			return err
		}
		defer s.Close()
		if o, err := s.Overhead(); err != nil || o.ZeroWaitMethod != s.Method()+"(0)" {
			t.Errorf("sleeper overhead %+v, %v", o, err)
		}
		out := make([]int64, 3)
		n, _, err = SleepBurst(s, time.Millisecond, clock.Now()+int64(time.Minute), out)
		if n != len(out) || err != nil {
			t.Errorf("sleep burst measured %d of %d: %v", n, len(out), err)
		}
		for _, v := range out[:n] {
			if v <= 0 {
				t.Errorf("a 1ms sleep took %d ns", v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSleeper("nope"); err == nil {
		t.Error("an unknown method was accepted")
	}
}
