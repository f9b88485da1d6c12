package result

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// fixed returns a document with every varying field pinned, so the JSON
// layout can be compared with a golden file: the layout is the interface
// compare, report and other tools read.
func fixed() *Document {
	s := stats.Summarize([]int64{1_000_000, 1_100_000, 1_200_000})
	o := stats.Summarize([]int64{0, 100_000, 200_000})
	h, _ := EncodeHistogram(stats.HistogramOf([]int64{1_000_000, 1_100_000, 1_200_000}))
	return &Document{
		Schema:   Schema,
		Kind:     KindSleep,
		Created:  time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Tool:     Tool{Name: "latlab", Version: "test"},
		Host:     host.Facts{OS: "linux", OSVersion: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", Arch: "amd64", CPUModel: "Test CPU", LogicalCPUs: 2, ClockSource: "CLOCK_MONOTONIC (vDSO) over tsc", GoVersion: "go1.26"},
		Settings: map[string]string{"duration": "1ms", "samples": "3"},
		Measurement: &Measurement{
			Method: "nanosleep", RequestedNs: 1_000_000, WarmupNs: 1_050_000, ElapsedNs: 3_300_000,
			ClockSource: "CLOCK_MONOTONIC (vDSO) over tsc", PercentileNote: PercentileDefinition,
		},
		Summary: &s, Overshoot: &o, Histogram: h,
		Samples: []int64{1_000_000, 1_100_000, 1_200_000},
		Notes:   []string{"first sample (1.05ms) discarded as warm-up"},
	}
}

func TestDocumentLayoutGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, fixed()); err != nil {
		t.Fatal(err)
	}
	goldie.New(t).Assert(t, "sleep-document", b.Bytes())
}

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, fixed()); err != nil {
		t.Fatal(err)
	}
	d, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.P50 != 1_100_000 || d.Overshoot.Max != 200_000 || len(d.Samples) != 3 {
		t.Fatalf("round trip: %+v", d.Summary)
	}
	dist, err := d.Distribution()
	if err != nil || len(dist) != 3 {
		t.Fatalf("distribution %v %v", dist, err)
	}
	// Without raw samples the histogram stands in, to its precision.
	d.Samples = nil
	dist, err = d.Distribution()
	if err != nil || len(dist) != 3 || dist[1] < 1_099_000 || dist[1] > 1_101_000 {
		t.Fatalf("histogram distribution %v %v", dist, err)
	}
}

func TestReadRejects(t *testing.T) {
	cases := map[string]string{
		"":                                "empty",
		"{":                               "invalid JSON",
		`{"schema":"other/1","kind":"x"}`: "schema",
		`{"schema":"latlab.result/2","kind":"sleep"}`: "newer major version",
		`{"schema":"latlab.result/1"}`:                "no kind",
		"\x00\x01binary":                              "invalid JSON",
	}
	for in, want := range cases {
		_, err := Read(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%q) = %v, want error containing %q", in, err, want)
		}
	}
}

func TestSetSamplesBound(t *testing.T) {
	d := &Document{}
	d.SetSamples(make([]int64, MaxSamples+1))
	if d.Samples != nil || len(d.Notes) != 1 {
		t.Fatal("oversized samples kept")
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	_ = Write(&b, fixed())
	f.Add(b.Bytes())
	f.Add([]byte(`{"schema":"latlab.result/1","kind":"wake","histogram":{"data":"!!"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data))
		if err == nil {
			_, _ = d.Distribution()
		}
	})
}

// blanks is white space without end: what /dev/zero or a runaway pipe is
// to a reader that has no cap.
type blanks struct{ left int64 }

func (b *blanks) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.left)
	for i := range p[:n] {
		p[i] = ' '
	}
	b.left -= n
	return int(n), nil
}

func TestReadStopsAtTheCap(t *testing.T) {
	defer infile.Reset()
	infile.SetMax(1 << 20)
	src := &blanks{left: 32 << 20}
	_, err := Read(src)
	var tl *infile.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), infile.MaxFlag) {
		t.Fatalf("32 MiB under a 1 MiB cap: %v", err)
	}
	if read := 32<<20 - src.left; read > 2<<20 {
		t.Errorf("read %d bytes for a 1 MiB cap", read)
	}
}

func TestReadFileRefuses(t *testing.T) {
	defer infile.Reset()
	dir := testutil.TempDir(t)
	var b bytes.Buffer
	_ = Write(&b, fixed())
	p := filepath.Join(dir, "sleep.json")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		max        int64
	}{
		{os.DevNull, "not a regular file (--allow-special-files reads it)", 0},
		{dir, "a directory, not a file", 0},
		{p, "more than the 1 KiB cap on input files (--max-input-size raises it)", 1024},
	} {
		infile.SetMax(c.max)
		_, err := ReadFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	infile.Reset()
	if _, err := Read(strings.NewReader(b.String() + b.String())); err == nil || !strings.Contains(err.Error(), "more JSON after the document") {
		t.Errorf("two documents in one: %v", err)
	}
}

// A histogram's counts cannot make Distribution allocate without bound:
// it rebuilds at most the input cap's worth of samples.
func TestDistributionBounded(t *testing.T) {
	defer infile.Reset()
	h := stats.HistogramOf([]int64{1000})
	if err := h.RecordValues(2000, 1<<20); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	d := &Document{Kind: KindWake, Histogram: enc}
	infile.SetMax(4 << 20) // room for 512 Ki samples
	if _, err := d.Distribution(); err == nil || !strings.Contains(err.Error(), "more than 524288 samples") {
		t.Fatalf("1 Mi samples under a 4 MiB cap: %v", err)
	}
	infile.SetMax(16 << 20)
	if v, err := d.Distribution(); err != nil || len(v) != 1<<20+1 {
		t.Fatalf("under a 16 MiB cap: %d samples, %v", len(v), err)
	}
}
