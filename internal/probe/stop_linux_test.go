package probe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/sched"
)

// On Linux every wake-up comes after its deadline by at least the clock
// read (clock_nanosleep returns after it), and every interruption the
// noise loop counts is at least its threshold: a threshold of 1 ns stops
// a run at its first sample, deterministically.

// A real run with a threshold of 1 ns stops at its first measured
// wake-up: every wake-up comes after its deadline. The document says so,
// and not that the run was interrupted.
func TestRunWakeStopsAtTheFirstAbove(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	var frozenCalls atomic.Int32
	o := WakeOptions{Interval: time.Millisecond, Loops: 1000, CPUs: []int{-1, -1}, StopAbove: time.Nanosecond, OnStopAbove: func() { frozenCalls.Add(1) }}
	r, doc, err := RunWake(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Data.(*WakeData)
	s := d.StoppedAbove
	if s == nil || r.StoppedAbove == nil {
		t.Fatal("a run at --stop-above 1ns has no stop")
	}
	th := r.Threads[s.Sample.Thread]
	if s.Sample.Index != 0 || len(th.Latencies) != 1 || th.Latencies[0] != s.Sample.ValueNs || s.ThresholdNs != 1 || s.Sample.CPU != -1 {
		t.Errorf("stop %+v; the thread measured %v", s, th.Latencies)
	}
	if d.Interrupted || d.MeasuredCount >= d.RequestedCount || s.TraceFrozen {
		t.Errorf("interrupted %v, %d of %d measured, trace frozen %v", d.Interrupted, d.MeasuredCount, d.RequestedCount, s.TraceFrozen)
	}
	if n := frozenCalls.Load(); n != 1 {
		t.Errorf("OnStopAbove called %d times, want once", n)
	}
}

// The same for noise: its first interruption, of at least the
// threshold, is above 1 ns.
func TestRunNoiseStopsAtTheFirstAbove(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a CPU")
	}
	cpu := sched.NumCPU() - 1
	r, doc, err := RunNoise(context.Background(), NoiseOptions{Duration: 5 * time.Second, Threshold: time.Microsecond, CPUs: []int{cpu}, StopAbove: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Data.(*NoiseData)
	s := d.StoppedAbove
	if s == nil {
		t.Fatal("a run at --stop-above 1ns has no stop")
	}
	th := r.Threads[0]
	if s.Sample.Index != 0 || th.Count != 1 || th.Lengths[0] != s.Sample.ValueNs || s.Sample.CPU != cpu || r.Start+s.Sample.AtNs != th.Starts[0] {
		t.Errorf("stop %+v; the thread kept %v at %v (start %d)", s, th.Lengths, th.Starts, r.Start)
	}
	if d.Interrupted || th.EndNs != th.Starts[0]+th.Lengths[0] {
		t.Errorf("interrupted %v; the window ends at %d, the interruption at %d", d.Interrupted, th.EndNs, th.Starts[0]+th.Lengths[0])
	}
}
