package probe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// RunSleep returns the measured result and its document: the payload
// describes the same samples, with the planned count and the notes that a
// short run needs.
func TestRunSleep(t *testing.T) {
	r, doc, err := RunSleep(context.Background(), SleepOptions{
		Duration: time.Millisecond, Samples: 7, Method: defaultMethod(), Thread: Thread{CPU: -1}, SkipOverhead: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := KindSleep.Of(doc)
	if !ok {
		t.Fatalf("document of kind %q", doc.Kind)
	}
	if d.RequestedCount != 7 || d.MeasuredCount != 7 || d.Summary.Count != 7 || len(r.Slept) != 7 || d.Interrupted {
		t.Errorf("requested %d, measured %d, summary %d, samples %d, interrupted %v",
			d.RequestedCount, d.MeasuredCount, d.Summary.Count, len(r.Slept), d.Interrupted)
	}
	if d.Measurement.RequestedNs != time.Millisecond.Nanoseconds() || d.Measurement.Method != defaultMethod() {
		t.Errorf("measurement %+v", d.Measurement)
	}
	for _, want := range []string{SleepWarmupNote(r.WarmupNs), "7 samples: p90 needs at least 10, p99 at least 100 and p99.9 at least 1000 to differ from the maximum"} {
		if !slices.Contains(doc.Notes, want) {
			t.Errorf("notes %q lack %q", doc.Notes, want)
		}
	}
}

// A run with no sample (stopped before the first) has no document.
func TestSleepDocumentNeedsSamples(t *testing.T) {
	if _, err := SleepDocument(host.Facts{}, &SleepResult{Requested: time.Millisecond}, 0, timer.Status{}, nil); !errors.Is(err, ErrNoSamples) {
		t.Errorf("err %v, want ErrNoSamples", err)
	}
}

// The timer state goes into the document when it could be read, and a
// note says why when it could not.
func TestSleepDocumentTimerState(t *testing.T) {
	r := &SleepResult{Requested: time.Millisecond, Slept: []int64{1_100_000}}
	doc, err := SleepDocument(host.Facts{}, r, 1, timer.Status{}, errors.New("denied"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := KindSleep.Of(doc); d.Timer != nil || !slices.Contains(doc.Notes, "timer state unavailable: denied") {
		t.Errorf("timer %+v, notes %q", d.Timer, doc.Notes)
	}
}

// The timer slack in a document is the measuring thread's: the state is
// read on another thread, and a run at --resolution 1us was printed and
// judged with that thread's default 50 µs. A realtime thread (no slack,
// read as 0) and a run that asked for none keep what was read.
func TestDocumentTimerSlackIsTheMeasuringThreads(t *testing.T) {
	asked := ThreadSetup{RequestedNs: 1000, GrantedNs: 1000}
	for _, c := range []struct {
		name  string
		setup ThreadSetup
		read  int64
		want  int64
	}{
		{"asked 1us", asked, 50_000, 1000},
		{"asked nothing", ThreadSetup{}, 50_000, 50_000},
		{"realtime", asked, 0, 0},
	} {
		st := timer.Status{TimerSlackNs: c.read}
		sd, err := SleepDocument(host.Facts{}, &SleepResult{Requested: time.Millisecond, Slept: []int64{1_100_000}, Setup: c.setup}, 1, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		wr := &WakeResult{Interval: time.Millisecond, Planned: 1, Threads: []WakeThread{{Setup: c.setup, Latencies: []int64{20_000}}}}
		wd, err := WakeDocument(host.Facts{}, wr, st, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := KindSleep.Of(sd)
		w, _ := KindWake.Of(wd)
		if s.Timer.TimerSlackNs != c.want || w.Timer.TimerSlackNs != c.want {
			t.Errorf("%s: sleep %d, wake %d, want %d", c.name, s.Timer.TimerSlackNs, w.Timer.TimerSlackNs, c.want)
		}
	}
}

// RunWake pools the threads, counts the planned wake-ups of all of them
// and notes the DMA latency it held.
func TestRunWakeDocument(t *testing.T) {
	_, doc, err := RunWake(context.Background(), WakeOptions{Interval: time.Millisecond, Loops: 5, CPUs: []int{-1, -1}})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := KindWake.Of(doc)
	if !ok {
		t.Fatalf("document of kind %q", doc.Kind)
	}
	if len(d.Threads) != 2 || d.RequestedCount != 10 || d.MeasuredCount != 10 || d.Summary.Count != 10 {
		t.Errorf("threads %d, requested %d, measured %d, pooled %d", len(d.Threads), d.RequestedCount, d.MeasuredCount, d.Summary.Count)
	}
	if d.Measurement.Method != WakeMethod || d.Measurement.IntervalNs != time.Millisecond.Nanoseconds() {
		t.Errorf("measurement %+v", d.Measurement)
	}
	if !slices.Contains(doc.Notes, WakeWarmupNote) {
		t.Errorf("notes %q lack the warm-up note", doc.Notes)
	}
	held := 10
	wr := &WakeResult{Interval: time.Millisecond, Planned: 1, Threads: []WakeThread{{Latencies: []int64{50_000}}}}
	if doc, err = WakeDocument(host.Facts{}, wr, timer.Status{}, nil, &held); err != nil || !slices.Contains(doc.Notes, "/dev/cpu_dma_latency held at 10us during the run") {
		t.Errorf("notes %q, err %v", doc.Notes, err)
	}
}

// The note names every printed percentile that is still the maximum.
func TestMaxPercentilesNote(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "1 samples: p90 needs at least 10, p99 at least 100 and p99.9 at least 1000 to differ from the maximum"},
		{9, "9 samples: p90 needs at least 10, p99 at least 100 and p99.9 at least 1000 to differ from the maximum"},
		{10, "10 samples: p99 needs at least 100 and p99.9 at least 1000 to differ from the maximum"},
		{99, "99 samples: p99 needs at least 100 and p99.9 at least 1000 to differ from the maximum"},
		{100, "100 samples: p99.9 needs at least 1000 to differ from the maximum"},
		{999, "999 samples: p99.9 needs at least 1000 to differ from the maximum"},
		{1000, ""},
	} {
		if got := MaxPercentilesNote(c.n, "samples"); got != c.want {
			t.Errorf("%d: %q, want %q", c.n, got, c.want)
		}
		// The thresholds are where nearest rank leaves the maximum.
		if c.n >= 2 {
			s := make([]int64, c.n)
			for i := range s {
				s[i] = int64(i)
			}
			for _, q := range []struct {
				p    float64
				name string
			}{{90, "p90 "}, {99, "p99 "}, {99.9, "p99.9 "}} {
				atMax := stats.QuantileSorted(s, q.p) == s[c.n-1]
				if said := strings.Contains(c.want, q.name); said != atMax {
					t.Errorf("%d: %s at the maximum %v, note says %v", c.n, q.name, atMax, said)
				}
			}
		}
	}
}
