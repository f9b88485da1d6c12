package compare_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/timer"
)

// wakeFile writes a wake document of one pinned thread's lateness to
// dir/name, stopped by --stop-above at its last wake-up when stop.
func wakeFile(t *testing.T, dir, name string, lat []int64, stop bool) string {
	t.Helper()
	wr := &probe.WakeResult{Interval: time.Millisecond, Planned: 10_000,
		Threads: []probe.WakeThread{{Setup: probe.ThreadSetup{CPU: 1}, Latencies: lat, Stopped: stop}}}
	if stop {
		wr.StoppedAbove = &probe.StoppedAbove{ThresholdNs: 500_000,
			Sample: probe.StopSample{ValueNs: lat[len(lat)-1], AtNs: int64(len(lat)) * 1e6, CPU: 1, Index: int64(len(lat) - 1)}}
	}
	doc, err := probe.WakeDocument(host.Facts{}, wr, timer.Status{}, errors.New("not read"), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, name)
	if err := result.WriteFile(f, doc); err != nil {
		t.Fatal(err)
	}
	return f
}

// A wake run stopped by --stop-above is a shorter run: compared on what
// it measured, read back from its file, and said to be one, as an
// interrupted run is; a complete run is not.
func TestRunNotesAStoppedWakeRun(t *testing.T) {
	dir := testutil.TempDir(t)
	short := ramp(400, 20_000, 50)
	short = append(short, 900_000)
	stopped := wakeFile(t, dir, "stopped.json", short, true)
	full := wakeFile(t, dir, "full.json", ramp(2000, 20_000, 40), false)
	r, err := run(t, compare.RunOptions{Files: []string{stopped, full}, Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	want := "stopped.json was stopped by --stop-above 500µs at 401ms: 401 of 10000 planned measured; its statistics cover those, up to the sample above the limit"
	if !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
	if len(r.Runs) != 2 || r.Runs[0].Summary.Count != 401 || len(r.Pairs) != 1 {
		t.Errorf("runs %+v", r.Runs)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "interrupted") || strings.HasPrefix(n, "full.json was") {
			t.Errorf("noted: %q", n)
		}
	}
}

// A noise run stopped by --stop-above is compared on the time it
// measured, with a note, as an interrupted one.
func TestCompareNotesAStoppedNoiseRun(t *testing.T) {
	a := noiseDoc(1000, noiseCPU(1, 10e9, ramp(400, 1500, 10)))
	b := noiseDoc(1000, noiseCPU(1, 2e9, ramp(80, 1500, 10)))
	b.Data.(*probe.NoiseData).StoppedAbove = &probe.StoppedAbove{ThresholdNs: 5000, Sample: probe.StopSample{ValueNs: 5490, AtNs: 2e9, CPU: 1, Index: 79}}
	r := compareNoise(t, a, b)
	want := "b.json was stopped by --stop-above 5µs at 2.00s (CPU 1): its figures cover the time measured until then"
	if !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
	if len(r.Noise) != 1 || (r.Noise[0].Pairs[0].RateOutcome == compare.Fewer || r.Noise[0].Pairs[0].RateOutcome == compare.More) {
		t.Errorf("the same rate over a shorter runtime: %+v", r.Noise)
	}
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "a.json was") {
			t.Errorf("noted: %q", n)
		}
	}
}
