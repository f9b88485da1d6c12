package probe

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/tracefs"
	"github.com/latlab/latlab/internal/tracefs/tracefstest"
)

// A thread whose first wake-up came after the run's end measured nothing:
// the document says so beside the other threads' figures, and a run where
// no thread measured anything is an error that gives the lateness.
func TestWakeDocumentStarvedThread(t *testing.T) {
	starved := WakeThread{Setup: ThreadSetup{CPU: 1}, WarmupNs: 1_600_000_000}
	wr := &WakeResult{Interval: time.Millisecond, Planned: 1500, Threads: []WakeThread{
		{Setup: ThreadSetup{CPU: 0}, Latencies: []int64{50_000}, WarmupNs: 20_000}, starved}}
	doc, err := WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "thread 1 (CPU 1) measured no wake-up: its first, the warm-up, came 1.60s after its deadline, after the run's end"
	if !slices.Contains(doc.Notes, want) {
		t.Errorf("notes %q lack %q", doc.Notes, want)
	}
	for _, n := range doc.Notes {
		if strings.HasPrefix(n, "thread 0") {
			t.Errorf("a thread that measured is noted: %q", n)
		}
	}

	wr.Threads = []WakeThread{starved}
	_, err = WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil)
	var nw *NoWakeupsError
	if !errors.As(err, &nw) || nw.WarmupNs != starved.WarmupNs ||
		err.Error() != "no wake-ups were measured: the first wake-up, which is discarded as warm-up, came 1.60s after its deadline, after the run's end" {
		t.Errorf("err %v", err)
	}
	// A run stopped before any wake-up says only that.
	wr.Threads = []WakeThread{{Setup: ThreadSetup{CPU: 1}}}
	if _, err = WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil); err == nil || err.Error() != "no wake-ups were measured" {
		t.Errorf("err %v", err)
	}
}

// Known answer: the measuring thread (tid 5) on CPU 0 waits from the
// start at 1 s; a thread "hog" (pid 77) holds the CPU from before it to
// 2.5 s, when the measuring thread is woken, and runs 100 ns later. Its
// warm-up, the only wake-up of a starved thread, is explained as one, and
// names the hog for 1.5 s of the 1.55 s wait.
func TestExplainWarmups(t *testing.T) {
	sw, wk := tracefstest.Format(t, "sched", "sched_sched_switch"), tracefstest.Format(t, "sched", "sched_sched_wakeup")
	const start = int64(time.Second)
	tl := explain.NewTimeline()
	tl.Add(tracefs.Event{CPU: 0, TS: start - 1000, Format: sw, Data: tracefstest.SchedSwitch(t, sw, 77, "hog", 100)})
	tl.Add(tracefs.Event{CPU: 0, TS: start + 1_500_000_000, Format: wk, Data: tracefstest.SchedWakeup(t, wk, 5)})
	tl.Add(tracefs.Event{CPU: 0, TS: start + 1_500_000_100, Format: sw, Data: tracefstest.SchedSwitch(t, sw, 5, "latlab", 100)})
	tl.Add(tracefs.Event{CPU: 0, TS: start + 1_600_000_000, Format: sw, Data: tracefstest.SchedSwitch(t, sw, 0, "swapper/0", 120)})

	r := &WakeResult{Start: start, Threads: []WakeThread{{Setup: ThreadSetup{CPU: 0}, TID: 5, WarmupNs: 1_550_000_000}}}
	ws := explainWarmups(tl, r, warmupSamples(r))
	if len(ws) != 1 {
		t.Fatalf("%d explained", len(ws))
	}
	w := ws[0]
	if !strings.HasPrefix(w.Note, WarmupNote) || w.Cause != "thread hog" || len(w.Ran) == 0 ||
		w.Ran[0].PID != 77 || w.Ran[0].DurationNs != 1_500_000_100 || w.AtS != 0 {
		t.Errorf("%+v", w)
	}
	nw := &NoWakeupsError{WarmupNs: r.Threads[0].WarmupNs, Explained: ws}
	if want := "; thread hog (pid 77) held CPU 0 for 1.50s of that wait"; !strings.HasSuffix(nw.Error(), want) {
		t.Errorf("%q does not end in %q", nw.Error(), want)
	}
	// Threads that measured, or were never pinned, give no warm-up to
	// explain (a trace is per CPU).
	r.Threads = append(r.Threads, WakeThread{Setup: ThreadSetup{CPU: 1}, TID: 6, WarmupNs: 10, Latencies: []int64{1}},
		WakeThread{Setup: ThreadSetup{CPU: -1}, TID: 7, WarmupNs: 2e9})
	if s := warmupSamples(r); len(s) != 1 || s[0].TID != 5 || s[0].Deadline != start || s[0].Latency != 1_550_000_000 {
		t.Errorf("samples %+v", s)
	}
}

// Starved names each thread that measured nothing after a warm-up, and
// the longest such wait: what the check-up and try judge beside the
// samples.
func TestWakeResultStarved(t *testing.T) {
	r := &WakeResult{Threads: []WakeThread{
		{Setup: ThreadSetup{CPU: 0}, WarmupNs: 2e9},
		{Setup: ThreadSetup{CPU: 1}, WarmupNs: 10, Latencies: []int64{5}},
		{Setup: ThreadSetup{CPU: -1}, WarmupNs: 3e9},
		{Setup: ThreadSetup{CPU: 2}}, // stopped before its first wake-up
	}}
	notes, longest := r.Starved()
	want := []string{
		"thread 0 (CPU 0) measured no wake-up: its first, the warm-up, came 2.00s after its deadline, after the run's end",
		"thread 2 measured no wake-up: its first, the warm-up, came 3.00s after its deadline, after the run's end",
	}
	if !slices.Equal(notes, want) || longest != 3e9 {
		t.Errorf("notes %q, longest %d", notes, longest)
	}
}
