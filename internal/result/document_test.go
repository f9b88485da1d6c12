package result_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// fixedSleep returns a sleep document with every varying field pinned, so
// the JSON layout can be compared with a golden file: the layout is the
// interface compare, report and other tools read.
func fixedSleep() *result.Document {
	slept := []int64{1_000_000, 1_100_000, 1_200_000}
	h, _ := result.EncodeHistogram(stats.HistogramOf(slept))
	data := &probe.SleepData{
		Measurement: probe.Measurement{
			Method: "nanosleep", RequestedNs: 1_000_000, WarmupNs: 1_050_000, ElapsedNs: 3_300_000,
			ClockSource: "CLOCK_MONOTONIC (vDSO) over tsc", PercentileNote: result.PercentileDefinition,
		},
		Summary:   stats.Summarize(slept),
		Overshoot: stats.Summarize([]int64{0, 100_000, 200_000}),
		Histogram: *h,
		Samples:   slept,
	}
	data.SetCounts(3, 3, false)
	d := probe.KindSleep.New(host.Facts{}, data)
	d.Created = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	d.Tool = result.Tool{Name: "latlab", Version: "test"}
	d.Host = host.Facts{OS: "linux", OSVersion: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", Arch: "amd64", CPUModel: "Test CPU", LogicalCPUs: 2, ClockSource: "CLOCK_MONOTONIC (vDSO) over tsc", GoVersion: "go1.26"}
	d.Settings = map[string]string{"duration": "1ms", "samples": "3"}
	d.Notes = []string{"first sample (1.05ms) discarded as warm-up"}
	return d
}

func TestSleepDocumentGolden(t *testing.T) {
	var b bytes.Buffer
	if err := result.Write(&b, fixedSleep()); err != nil {
		t.Fatal(err)
	}
	goldie.New(t).Assert(t, "sleep-document", b.Bytes())
}

func TestSleepRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := result.Write(&b, fixedSleep()); err != nil {
		t.Fatal(err)
	}
	d, err := result.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := probe.KindSleep.Of(d)
	if !ok || s.Summary.P50 != 1_100_000 || s.Overshoot.Max != 200_000 || len(s.Samples) != 3 || s.MeasuredCount != 3 {
		t.Fatalf("round trip: %+v", d.Data)
	}
	v, raw, err := s.Values(nil)
	if err != nil || !raw || len(v) != 3 {
		t.Fatalf("values %v %v %v", v, raw, err)
	}
	// Without raw samples the histogram stands in, to its precision.
	s.Samples = nil
	v, raw, err = s.Values(nil)
	if err != nil || raw || len(v) != 3 || v[1] < 1_099_000 || v[1] > 1_101_000 {
		t.Fatalf("histogram values %v %v", v, err)
	}
}

// Documents an earlier latlab wrote (testdata/earlier, see its README)
// are read: sleep and wake with their payload at the top level, and a
// dpcisr report of schema latlab.dpcisr/1. A latlab.knob/1 document is
// refused with one line saying what to do.
func TestReadEarlierDocuments(t *testing.T) {
	dir := filepath.Join("testdata", "earlier")
	d, err := result.ReadFile(filepath.Join(dir, "sleep.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := probe.KindSleep.Of(d)
	if !ok || s.Summary.Count != 20 || len(s.Samples) != 20 || s.MeasuredCount != 20 || s.RequestedCount != 20 ||
		s.Measurement.RequestedNs != 1_000_000 || s.Measurement.Thread == nil || s.Overhead.ZeroWaitMethod == "" ||
		s.Timer == nil || s.Histogram.Data == "" || s.Overshoot.Count != 20 || len(d.Notes) == 0 || d.Settings["samples"] != "20" {
		t.Errorf("sleep: %+v %+v", d, d.Data)
	}
	d, err = result.ReadFile(filepath.Join(dir, "wake.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := probe.KindWake.Of(d)
	if !ok || w.Summary.Count != 20 || len(w.Threads) != 1 || w.CorrectedHistogram.Data == "" || w.Measurement.IntervalNs != 1_000_000 {
		t.Errorf("wake: %+v", d.Data)
	}
	if v, raw, err := w.Values(nil); err != nil || !raw || len(v) != 20 {
		t.Errorf("wake values: %d %v %v", len(v), raw, err)
	}
	d, err = result.ReadFile(filepath.Join(dir, "dpcisr.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := dpcisr.Kind.Of(d)
	if !ok || d.Schema != "latlab.dpcisr/1" || v.File != "xperf-dpcisr-im-off.txt" || len(v.Sections) != 2 || v.Report == nil || v.Lines != 113 ||
		v.Sections[0].Overall == nil || v.Sections[0].Overall.Summary.Count == 0 {
		t.Errorf("dpcisr: %+v", d)
	}
	_, err = result.ReadFile(filepath.Join(dir, "knob.json"))
	if !errors.Is(err, result.ErrNotResult) || !strings.Contains(err.Error(), "schema latlab.knob/1 is a layout of earlier latlab versions that this one does not read: it reads latlab.result/1 (and the older latlab.dpcisr/1") ||
		!strings.HasSuffix(err.Error(), "; run the command that wrote it again") {
		t.Errorf("knob: %v", err)
	}
}
