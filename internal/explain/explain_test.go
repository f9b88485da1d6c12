package explain

import (
	"encoding/binary"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/tracefs"
	"github.com/latlab/latlab/internal/tracefs/tracefstest"
)

// A hand-made timeline with a known answer: the deadline at 1,000 ns, a
// thread "hog" (pid 77, nice 0) on the CPU since before it, the timer
// expiring at 1,100, the measuring thread (tid 5) woken at 1,110, IRQ 24
// from 1,200 to 1,300, the switch to tid 5 at 2,000, its stamp at 2,050.
func TestExplainKnownTimeline(t *testing.T) {
	sw, wk := tracefstest.Format(t, "sched", "sched_sched_switch"), tracefstest.Format(t, "sched", "sched_sched_wakeup")
	tm, hin := tracefstest.Format(t, "timer", "timer_hrtimer_expire_entry"), tracefstest.Format(t, "irq", "irq_irq_handler_entry")
	hout := &tracefs.Format{System: "irq", Name: "irq_handler_exit", ID: 226, Fields: []tracefs.Field{{Name: "irq", Offset: 8, Size: 4, Signed: true}}}
	rec := func(f *tracefs.Format, n int) []byte {
		b := make([]byte, n)
		binary.LittleEndian.PutUint16(b, f.ID)
		return b
	}
	switchTo := func(pid int32, comm string, prio int32) []byte {
		return tracefstest.SchedSwitch(t, sw, pid, comm, prio)
	}
	wake := func(pid int32) []byte { return tracefstest.SchedWakeup(t, wk, pid) }
	irq := func(f *tracefs.Format, n uint32, name string) []byte {
		b := rec(f, 16)
		binary.LittleEndian.PutUint32(b[8:], n)
		if name != "" {
			binary.LittleEndian.PutUint32(b[12:], uint32(len(name)+1)<<16|16)
			b = append(b, name+"\x00"...)
		}
		return b
	}
	tl := NewTimeline()
	for _, e := range []struct {
		ts   int64
		f    *tracefs.Format
		data []byte
	}{
		{0, sw, switchTo(77, "hog", 120)},
		{1100, tm, rec(tm, 32)},
		{1110, wk, wake(5)},
		{1200, hin, irq(hin, 24, "eth0")},
		{1300, hout, irq(hout, 24, "")},
		{2000, sw, switchTo(5, "latlab", 120)},
		{3000, sw, switchTo(0, "swapper/1", 120)},
	} {
		tl.Add(tracefs.Event{CPU: 1, TS: e.ts, Format: e.f, Data: e.data})
	}
	ws := tl.Explain([]Sample{{CPU: 1, TID: 5, Deadline: 1000, Latency: 1050}}, 0, nil)
	if len(ws) != 1 {
		t.Fatal(ws)
	}
	w := ws[0]
	if w.TimerLatencyNs != 100 || w.WakeToRunNs != 890 || w.SwitchToStampNs != 50 || w.Cause != "thread hog" {
		t.Errorf("%+v", w)
	}
	want := []Ran{{Kind: KindThread, Name: "hog", PID: 77, Prio: 120, Count: 1, DurationNs: 900},
		{Kind: KindIRQ, Name: "eth0 (IRQ 24)", Count: 1, DurationNs: 100}}
	if len(w.Ran) != 2 || w.Ran[0] != want[0] || w.Ran[1] != want[1] {
		t.Errorf("ran %+v, want %+v", w.Ran, want)
	}
	tot := Totals(ws)
	if len(tot) != 2 || tot[0].Name != "hog" || tot[0].DurationNs != 900 {
		t.Errorf("%+v", tot)
	}
	if s := NextStep(ws, tot, 50000, false); !strings.Contains(s, "--rtprio") || !strings.Contains(s, "isolation") {
		t.Errorf("%s", s)
	}
	// A wake-up the trace has nothing after says so.
	ws = tl.Explain([]Sample{{CPU: 0, TID: 5, Deadline: 1000, Latency: 10}}, 0, nil)
	if ws[0].Cause != "unknown" || ws[0].Note == "" {
		t.Errorf("%+v", ws[0])
	}
}

func TestNextStep(t *testing.T) {
	ws := []Wakeup{{CPU: 2}}
	for _, tt := range []struct {
		top  Cause
		want string
	}{
		{Cause{Kind: KindSoftIRQ, Name: "NET_RX"}, "rps"},
		{Cause{Kind: KindSoftIRQ, Name: "RCU"}, "isolation"},
		{Cause{Kind: KindIRQ, Name: "eth0 (IRQ 24)"}, "irq-affinity"},
		{Cause{Kind: KindIRQ, Name: "LOC (local_timer)"}, "nohz_full"},
		{Cause{Kind: KindIdle, Name: "idle"}, "timer slack"},
	} {
		if s := NextStep(ws, []Cause{tt.top}, 50000, false); !strings.Contains(s, tt.want) {
			t.Errorf("%+v: %s", tt.top, s)
		}
	}
	if s := NextStep(ws, []Cause{{Kind: KindThread, Name: "x"}}, 0, true); !strings.Contains(s, "rt-throttling") {
		t.Errorf("%s", s)
	}
}

// A thread preempted before its wait began is never woken: the wake-up
// of its previous wait (before the deadline) is not taken for this one.
func TestExplainNeverSlept(t *testing.T) {
	sw, wk := tracefstest.Format(t, "sched", "sched_sched_switch"), tracefstest.Format(t, "sched", "sched_sched_wakeup")
	wake := tracefstest.SchedWakeup(t, wk, 5)
	toHog := tracefstest.SchedSwitch(t, sw, 77, "hog", 120)
	toMe := tracefstest.SchedSwitch(t, sw, 5, "", 0)
	tl := NewTimeline()
	tl.Add(tracefs.Event{CPU: 0, TS: 500, Format: wk, Data: wake}) // the previous wait's
	tl.Add(tracefs.Event{CPU: 0, TS: 600, Format: sw, Data: toHog})
	tl.Add(tracefs.Event{CPU: 0, TS: 3000, Format: sw, Data: toMe})
	w := tl.Explain([]Sample{{CPU: 0, TID: 5, Deadline: 1000, Latency: 2100}}, 0, nil)[0]
	if w.TimerLatencyNs != -1 || w.WakeToRunNs != -1 || !strings.Contains(w.Note, "did not sleep") || w.Cause != "thread hog" {
		t.Errorf("%+v", w)
	}
}

// On other kernels' layouts (testdata/real of tracefs: 32-bit ARM with
// common_padding, 32-bit ARM, 64-bit ARM), the timeline takes the
// switched-to thread's pid, priority and name and the woken pid from
// where each format puts them; and every event a trace must find is on
// each of those kernels' lists of events (irq_vectors, x86's own, is
// optional).
func TestTimelineRealFormats(t *testing.T) {
	for _, k := range []string{"android_hammerhead_MRA59G_3.4.0", "android_seed_N2F62_3.10.49", "android_raven_AOSP.MASTER_5.10.43"} {
		sw := tracefstest.RealFormat(t, "perfetto/"+k+"/events/sched/sched_switch/format")
		wk := tracefstest.RealFormat(t, "perfetto/"+k+"/events/sched/sched_wakeup/format")
		tl := NewTimeline()
		tl.Add(tracefs.Event{CPU: 2, TS: 10, Format: sw, Data: tracefstest.SchedSwitch(t, sw, 4242, "rt-thread", 49)})
		tl.Add(tracefs.Event{CPU: 2, TS: 20, Format: wk, Data: tracefstest.SchedWakeup(t, wk, 77)})
		tl.sorted()
		evs := tl.cpus[2]
		if len(evs) != 2 || evs[0].kind != evSwitch || evs[0].pid != 4242 || evs[0].prio != 49 || evs[0].name != "rt-thread" ||
			evs[1].kind != evWakeup || evs[1].pid != 77 {
			t.Errorf("%s: %+v", k, evs)
		}
		b, err := os.ReadFile("../tracefs/testdata/real/perfetto/" + k + "/available_events")
		if err != nil {
			t.Fatal(err)
		}
		for _, pat := range Events {
			found := false
			for _, e := range strings.Fields(strings.ReplaceAll(string(b), ":", "/")) {
				if m, _ := path.Match(pat, e); m {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no event %s", k, pat)
			}
		}
	}
}
