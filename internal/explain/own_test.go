package explain

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/tracefs"
	"github.com/latlab/latlab/internal/tracefs/tracefstest"
)

// latlab's own threads that held a measured CPU are marked: the trace's
// reader and the runtime's threads (as the Tracer found them), and a
// measuring thread on another's CPU. They are named as latlab's, totalled
// apart from another program of the same name, and no next step is made
// of them.
func TestExplainMarksOwnThreads(t *testing.T) {
	sw := tracefstest.Format(t, "sched", "sched_sched_switch")
	wk := tracefstest.Format(t, "sched", "sched_sched_wakeup")
	// CPU 1, deadline 1,000, stamp 3,000 (tid 5 measures): the reader
	// (tid 9, latlab's) 0-1,500, a program also called latlab (tid 40)
	// 1,500-1,800, the other measuring thread (tid 6) 1,800-2,000, then
	// tid 5.
	build := func(withOther bool) *Timeline {
		tl := NewTimeline()
		add := func(ts int64, f *tracefs.Format, data []byte) {
			tl.Add(tracefs.Event{CPU: 1, TS: ts, Format: f, Data: data})
		}
		add(0, sw, tracefstest.SchedSwitch(t, sw, 9, "latlab", 139))
		add(1100, wk, tracefstest.SchedWakeup(t, wk, 5))
		if withOther {
			add(1500, sw, tracefstest.SchedSwitch(t, sw, 40, "latlab", 120))
		}
		add(1800, sw, tracefstest.SchedSwitch(t, sw, 6, "latlab", 120))
		add(2000, sw, tracefstest.SchedSwitch(t, sw, 5, "latlab", 120))
		add(4000, sw, tracefstest.SchedSwitch(t, sw, 0, "swapper/1", 120))
		tl.own = map[int32]bool{9: true}
		return tl
	}
	samples := []Sample{{CPU: 1, TID: 5, Deadline: 1000, Latency: 2000}, {CPU: 0, TID: 6, Deadline: 1000, Latency: 10}}

	ws := build(true).Explain(samples, 0, nil)
	own := map[int]bool{}
	for _, r := range ws[0].Ran {
		own[r.PID] = r.Own
	}
	if !own[9] || !own[6] || own[40] || len(own) != 3 {
		t.Fatalf("own threads %v (ran %+v), want 9 and 6, not 40", own, ws[0].Ran)
	}
	if ws[0].Cause != "thread latlab (latlab's own)" {
		t.Errorf("cause %q", ws[0].Cause)
	}
	tot := Totals(ws[:1])
	var mine, theirs int64
	for _, c := range tot {
		if c.Own {
			mine += c.DurationNs
		} else {
			theirs += c.DurationNs
		}
	}
	if mine != 700 || theirs != 300 {
		t.Errorf("totals %+v: latlab's own 700 ns and the other program's 300 wanted", tot)
	}
	if s := NextStep(ws[:1], tot, 0, false); !strings.HasPrefix(s, "thread latlab held CPU 1") {
		t.Errorf("next step %q: the other program's, not latlab's own", s)
	}
	if got := Name(KindThread, "latlab", 9, true); got != "latlab's own thread latlab (pid 9)" {
		t.Errorf("Name: %q", got)
	}

	// Nothing but latlab's own threads: the tracing's cost, said so.
	ws = build(false).Explain(samples, 0, nil)
	if s := NextStep(ws[:1], Totals(ws[:1]), 50000, false); !strings.Contains(s, "latlab's own threads") || !strings.Contains(s, "without --explain") {
		t.Errorf("next step %q", s)
	}
}

// Recording never copies the events it holds (a measuring thread woken on
// the reader's CPU would wait for the copy), and the timeline sorts them
// all, across chunks and calls, as one list per CPU.
func TestTimelineChunksKeptInPlace(t *testing.T) {
	sw := tracefstest.Format(t, "sched", "sched_sched_switch")
	tl := NewTimeline()
	add := func(ts int64) {
		tl.Add(tracefs.Event{CPU: 3, TS: ts, Format: sw, Data: tracefstest.SchedSwitch(t, sw, 9, "x", 120)})
	}
	const n = 3*chunkEvents + 17
	add(2 * n) // out of order: sorted later
	first := &tl.chunks[3][0][0]
	for i := range n - 1 {
		add(int64(n - i))
	}
	if &tl.chunks[3][0][0] != first {
		t.Fatal("the first chunk moved while recording")
	}
	tl.sorted()
	add(1) // after a first sort, as explainWarmups then Explain sort twice
	tl.sorted()
	evs := tl.cpus[3]
	if len(evs) != n+1 || len(tl.chunks) != 0 {
		t.Fatalf("%d events, %d chunks left; want %d, none", len(evs), len(tl.chunks), n+1)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].ts < evs[i-1].ts {
			t.Fatalf("event %d at %d after %d", i, evs[i].ts, evs[i-1].ts)
		}
	}
	if evs[0].ts != 1 || evs[len(evs)-1].ts != 2*n {
		t.Errorf("first %d, last %d", evs[0].ts, evs[len(evs)-1].ts)
	}
}
