package crossproc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

const ms = int64(time.Millisecond)

// rows builds a baseline and one row per period with the given median
// sleeps, each of 100 sleeps.
func rows(base int64, periods []int64, p50 []int64) []Row {
	r := []Row{{Slept: stats.Summary{Count: 100, P50: base}}}
	for i, p := range periods {
		r = append(r, Row{RequestedNs: p * ms, Slept: stats.Summary{Count: 100, P50: p50[i]}})
	}
	return r
}

func u32(v uint32) *uint32 { return &v }

func TestClassifyWindows(t *testing.T) {
	periods := []int64{1, 2, 3, 4, 5, 8, 10, 15}
	// Dawson's measurements: Sleep(1) at the 15.625 ms default when isolated;
	// about one period of the other process's request when global.
	isolated := []int64{15625000, 15625000, 15625000, 15625000, 15625000, 15625000, 15625000, 15625000}
	global := []int64{1950000, 2000000, 3000000, 4000000, 5000000, 8000000, 10000000, 15625000}
	cases := []struct {
		name  string
		p50   []int64
		facts Facts
		want  Behaviour
		text  string
	}{
		{"post-2004", isolated, Facts{Windows: true, Build: 19045}, Isolated, "post-2004 isolated behaviour"},
		{"pre-2004", global, Facts{Windows: true, Build: 18363}, Global, "old global behaviour"},
		{"restored", global, Facts{Windows: true, Build: 22631, GlobalSetting: u32(1)}, Global, "restored by GlobalTimerResolutionRequests"},
		{"global unexpected", global, Facts{Windows: true, Build: 22631}, Global, "unexpected"},
	}
	for _, c := range cases {
		v := Classify(rows(15625000, periods, c.p50), time.Millisecond, c.facts)
		if v.Behaviour != c.want || !strings.Contains(v.Text, c.text) {
			t.Errorf("%s: %s %q", c.name, v.Behaviour, v.Text)
		}
	}
	// Another program already holds 1 ms: no request can show a difference.
	v := Classify(rows(1950000, []int64{1, 2}, []int64{1950000, 1950000}), time.Millisecond, Facts{Windows: true, Build: 19045})
	if v.Behaviour != Inconclusive || !strings.Contains(v.Text, "already sleeps") {
		t.Errorf("fast baseline: %+v", v)
	}
	// Half followed, half did not.
	v = Classify(rows(15625000, []int64{1, 2, 3, 4}, []int64{1950000, 2000000, 15625000, 15625000}), time.Millisecond, Facts{Windows: true, Build: 19045})
	if v.Behaviour != Inconclusive {
		t.Errorf("mixed: %+v", v)
	}
}

func TestClassifyLinux(t *testing.T) {
	r := rows(1070000, []int64{1, 5, 10}, []int64{1068000, 1071000, 1069000})
	v := Classify(r, time.Millisecond, Facts{})
	if v.Behaviour != Isolated || !strings.Contains(v.Text, "per thread") {
		t.Fatalf("%+v", v)
	}
	if !r[1].Informative || r[1].Tracked || r[1].ExpectedNs != 2*ms {
		t.Errorf("row annotations %+v", r[1])
	}
	v = Classify(rows(1070000, []int64{1, 5, 10}, []int64{2000000, 6000000, 11000000}), time.Millisecond, Facts{})
	if v.Behaviour != Global {
		t.Errorf("followed slack: %+v", v)
	}
}

// A median of a few sleeps is no evidence either way: a 15 ms --hold gave
// 4 sleeps with no request and 5 and 8 with one, and the verdict still
// said isolated. Each row needs MinSleepsPerRow (20).
func TestClassifyTooFewSleeps(t *testing.T) {
	for _, c := range []struct {
		name     string
		counts   []int64 // baseline first
		windows  bool
		want     Behaviour
		text     string
		informed []bool // per request
	}{
		{"few with no request", []int64{4, 5, 8}, false, Inconclusive, "inconclusive: too few sleeps with no request (4): a median needs at least 20", nil},
		{"few with no request, Windows", []int64{19, 100, 100}, true, Inconclusive, "too few sleeps with no request (19)", nil},
		{"every request few", []int64{100, 5, 8}, false, Inconclusive, "inconclusive: too few sleeps while the other process held its request (fewest 5): a median needs at least 20", []bool{false, false}},
		{"one request few", []int64{100, 5, 20}, false, Isolated, "isolated: the other process's timer slack never changed this process's sleeps (0 of 1 informative periods", []bool{false, true}},
		{"enough", []int64{20, 20, 20}, false, Isolated, "(0 of 2 informative periods", []bool{true, true}},
	} {
		r := rows(1083000, []int64{1, 2}, []int64{1084000, 1083000})
		base := int64(1083000)
		if c.windows {
			base = 15625000
			r = rows(base, []int64{1, 2}, []int64{15625000, 15625000})
		}
		for i := range r {
			r[i].Slept.Count = c.counts[i]
		}
		v := Classify(r, time.Millisecond, Facts{Windows: c.windows, Build: 19045})
		if v.Behaviour != c.want || !strings.Contains(v.Text, c.text) {
			t.Errorf("%s: %s %q", c.name, v.Behaviour, v.Text)
		}
		for i, want := range c.informed {
			if r[i+1].Informative != want {
				t.Errorf("%s: request %d informative %v", c.name, i+1, r[i+1].Informative)
			}
		}
	}
}

func TestServeProtocol(t *testing.T) {
	in := strings.NewReader("set 2000000\nrelease\nbogus\nset 3000000\n")
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Serve(in, &out) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		evs = append(evs, e)
	}
	if len(evs) != 4 || evs[0].Event != "set" || evs[0].RequestedNs != 2*ms || evs[0].GrantedNs <= 0 ||
		evs[1].Event != "released" || evs[2].Event != "error" || evs[3].Event != "set" {
		t.Fatalf("events %+v", evs)
	}
}

// The document carries the result as its payload and says how the sleeps
// were measured.
func TestDocument(t *testing.T) {
	r := &Result{Method: "nanosleep", DurationNs: 1_000_000, Rows: []Row{}}
	d, ok := Kind.Of(r.Document(host.Facts{}))
	if !ok || d.Measurement.Method != "nanosleep" || d.Measurement.RequestedNs != 1_000_000 || d.Method != "nanosleep" {
		t.Errorf("payload %+v", d)
	}
}

// The document's timer state is the one Run read after the run: Document
// reads nothing itself, so a result without one gives a document without
// one.
func TestDocumentTimerFromRun(t *testing.T) {
	st := timer.Status{Current100ns: 10_000}
	for _, want := range []*timer.Status{nil, &st} {
		d, _ := Kind.Of((&Result{Rows: []Row{}, timerAfter: want}).Document(host.Facts{}))
		if d.Timer != want {
			t.Errorf("timer %v, want %v", d.Timer, want)
		}
	}
}
