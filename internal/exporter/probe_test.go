package exporter

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Probe runs the probes alone and hands every burst to Observe: wake-up
// latencies and slept times, each burst of about duty x cycle / interval
// samples; it returns nil once ctx ends.
func TestProbeObserves(t *testing.T) {
	o := Defaults()
	o.Listen = "" // Probe opens no listener
	o.Cycle = 100 * time.Millisecond
	o.Duty = 0.1 // a 10 ms burst of 1 ms periods
	var mu sync.Mutex
	got := map[string][]int{}
	ctx, cancel := context.WithCancel(context.Background())
	o.Observe = func(probe string, samples []int64, overruns int64) {
		mu.Lock()
		defer mu.Unlock()
		got[probe] = append(got[probe], len(samples))
		for _, v := range samples {
			if v <= 0 {
				t.Errorf("%s sample %d", probe, v)
			}
		}
		if len(got[ProbeWake]) >= 2 && len(got[ProbeSleep]) >= 2 {
			cancel()
		}
	}
	done := make(chan error, 1)
	go func() { done <- Probe(ctx, o) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		t.Fatalf("bursts after 30 s: %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	// A wake burst on a loaded machine can miss every period (counted as
	// overruns), so a burst may be empty, but not every one.
	for _, p := range []string{ProbeWake, ProbeSleep} {
		total := 0
		for _, n := range got[p] {
			total += n
			if n > 12 {
				t.Errorf("%s burst of %d samples, want at most 12 (10 ms of 1 ms)", p, n)
			}
		}
		if total == 0 {
			t.Errorf("%s: no sample in %d bursts", p, len(got[p]))
		}
	}
}
