package irq

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestMain lets this test binary stand in for the command of a watch:
// with LATLAB_IRQ_TEST_EXIT=N it exits N at once instead of testing.
func TestMain(m *testing.M) {
	if s := os.Getenv("LATLAB_IRQ_TEST_EXIT"); s != "" {
		n, _ := strconv.Atoi(s)
		os.Exit(n)
	}
	os.Exit(m.Run())
}

// fakeWatcher gives readings of one second each, every CPU handling one
// network interrupt, and calls after(n) once it has given n readings.
type fakeWatcher struct {
	n      int
	after  func(n int)
	fail   int // the reading that fails (0 = none)
	closed bool
}

func (f *fakeWatcher) Next() (*Interval, error) {
	f.n++
	if f.n == f.fail {
		return nil, errors.New("counters vanished")
	}
	iv := &Interval{StartNs: int64(f.n-1) * 1e9, EndNs: int64(f.n) * 1e9, CPUs: []int{0, 1},
		Rows: []Row{{Source: "interrupts", Name: "38", Role: RoleNet, Unit: UnitCount, PerCPU: Values{1, 1}, Total: 2}}}
	if f.after != nil {
		f.after(f.n)
	}
	return iv, nil
}

func (f *fakeWatcher) Network() *NetInfo { return &NetInfo{Interfaces: []Iface{{Name: "eth0"}}} }
func (f *fakeWatcher) Close()            { f.closed = true }

// A watch ends when its context does, with one last reading, and its
// total sums every reading: the stored ones while they fit MaxStored,
// only the total past it.
func TestRunSumsReadings(t *testing.T) {
	for _, c := range []struct {
		name      string
		maxStored int
		stored    bool
	}{
		{"stored", 1000, true},
		{"total only", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := &fakeWatcher{after: func(n int) {
				if n == 3 {
					cancel()
				}
			}}
			var seen []time.Duration
			r, err := Run(ctx, Options{Interval: time.Millisecond, MaxStored: c.maxStored, Watcher: w,
				OnInterval: func(at time.Duration, iv *Interval) { seen = append(seen, at) }})
			if err != nil {
				t.Fatal(err)
			}
			if !w.closed {
				t.Error("the watcher was not closed")
			}
			if r.Count < 3 || r.Count != w.n || len(seen) != r.Count {
				t.Fatalf("%d readings, %d taken, %d reported", r.Count, w.n, len(seen))
			}
			if c.stored != (len(r.Intervals) == r.Count) || !c.stored && r.Intervals != nil {
				t.Fatalf("%d of %d readings stored with MaxStored %d", len(r.Intervals), r.Count, c.maxStored)
			}
			if r.Total.StartNs != 0 || r.Total.EndNs != int64(r.Count)*1e9 || r.Total.Rows[0].Total != float64(2*r.Count) {
				t.Fatalf("total %d..%d %v over %d readings", r.Total.StartNs, r.Total.EndNs, r.Total.Rows[0].Total, r.Count)
			}
			if r.Network.Iface("eth0") == nil || r.ExitStatus != nil {
				t.Fatalf("network %+v, exit status %v without a command", r.Network, r.ExitStatus)
			}
		})
	}
}

// A reading that fails ends the watch with the error, naming the watch.
func TestRunReadingFails(t *testing.T) {
	w := &fakeWatcher{fail: 2}
	_, err := Run(context.Background(), Options{Interval: time.Millisecond, Watcher: w})
	if err == nil || err.Error() != "irq watch: counters vanished" || !w.closed {
		t.Fatalf("err %v, closed %v", err, w.closed)
	}
}

// With a command the watch lasts as long as it runs and keeps its exit
// status; the interval is longer than any test, so the one reading is
// the one taken when the command ended.
func TestRunCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{0, 3} {
		t.Setenv("LATLAB_IRQ_TEST_EXIT", strconv.Itoa(code))
		w := &fakeWatcher{}
		r, err := Run(context.Background(), Options{Interval: time.Hour, Command: []string{exe}, Watcher: w})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitStatus == nil || *r.ExitStatus != code || r.Count != 1 {
			t.Fatalf("exit %v, %d readings; want exit %d after 1 reading", r.ExitStatus, r.Count, code)
		}
	}
	w := &fakeWatcher{}
	if _, err := Run(context.Background(), Options{Interval: time.Hour, Command: []string{exe + ".missing"}, Watcher: w}); err == nil || !w.closed {
		t.Fatalf("a command that cannot start: err %v, closed %v", err, w.closed)
	}
}

func TestRunNeedsInterval(t *testing.T) {
	w := &fakeWatcher{}
	if _, err := Run(context.Background(), Options{Watcher: w}); err == nil || !w.closed {
		t.Fatalf("zero interval: err %v, closed %v", err, w.closed)
	}
}
