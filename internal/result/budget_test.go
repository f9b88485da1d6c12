package result_test

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// claimDoc is a sleep document without raw samples whose histogram says
// it holds n samples: a few hundred bytes whatever n is.
func claimDoc(t testing.TB, n int64) []byte {
	t.Helper()
	h := stats.NewHistogram()
	if err := h.RecordValues(1_000_000, n-1); err != nil {
		t.Fatal(err)
	}
	_ = h.RecordValue(1_100_000)
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	d := probe.KindSleep.New(host.Facts{}, &probe.SleepData{Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1_000_000}, Histogram: *enc})
	var b bytes.Buffer
	if err := result.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 1.5 KB document claiming 10 million samples took 413 MiB to read:
// the claim is refused before anything is rebuilt, with the limit named.
func TestTinyDocumentClaimingMillions(t *testing.T) {
	defer infile.Reset()
	infile.Reset() // the default cap: 1 GiB, 8,388,608 samples
	b := claimDoc(t, 10_000_000)
	if len(b) > 4096 {
		t.Fatalf("the document is %d bytes, want a tiny one", len(b))
	}
	d, err := result.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sp := d.Data.(result.Sampled)
	var verr error
	n := allocated(func() { _, _, verr = sp.Values(nil) })
	var be *result.BudgetError
	if !errors.As(verr, &be) || !badinput.Is(verr) || !strings.Contains(verr.Error(), "10000000 samples, more than the 8388608") || !strings.Contains(verr.Error(), infile.MaxFlag) {
		t.Errorf("err %v, want bad input naming the limit of 8388608 samples and %s", verr, infile.MaxFlag)
	}
	if n > 32<<20 {
		t.Errorf("reading the claim allocated %d MiB", n>>20)
	}
	// Within the limit it is rebuilt, and charged.
	bud := result.NewBudget()
	small, err := result.Read(bytes.NewReader(claimDoc(t, 100_000)))
	if err != nil {
		t.Fatal(err)
	}
	if v, raw, err := small.Data.(result.Sampled).Values(bud); err != nil || raw || len(v) != 100_000 || bud.Used() != 100_000 {
		t.Errorf("100,000 samples: %d values, raw %v, %d charged, %v", len(v), raw, bud.Used(), err)
	}
}

// The budget is one for every input: documents each well under the limit
// hit it together, and a histogram read twice is rebuilt and charged once.
func TestBudgetSharedAcrossInputs(t *testing.T) {
	defer infile.Reset()
	infile.SetMax(16 << 20) // 131,072 samples
	bud := result.NewBudget()
	var docs []*result.Document
	for i := 0; i < 4; i++ {
		d, err := result.Read(bytes.NewReader(claimDoc(t, 40_000)))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	for i, d := range docs[:3] {
		if _, _, err := d.Data.(result.Sampled).Values(bud); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if _, _, err := d.Data.(result.Sampled).Values(bud); err != nil || bud.Used() != int64(i+1)*40_000 {
			t.Fatalf("document %d read again: %d charged, %v", i, bud.Used(), err)
		}
	}
	_, _, err := docs[3].Data.(result.Sampled).Values(bud)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "had 120000 rebuilt already") || !strings.Contains(err.Error(), "more than the 131072") {
		t.Errorf("the fourth document: %v, want the shared limit named", err)
	}
	// Each alone is within the limit.
	if _, _, err := docs[3].Data.(result.Sampled).Values(nil); err != nil {
		t.Errorf("the fourth document alone: %v", err)
	}
}

// Binned is the values Values rebuilds, counted: the same values, and
// nothing charged; a histogram of a billion samples is counted in a few
// KiB.
func TestBinnedIsRebuilt(t *testing.T) {
	h := stats.NewHistogram()
	for i, v := range []int64{1, 999, 1000, 20_517, 20_518, 1_234_567, 80_000_000} {
		if err := h.RecordValues(v, int64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	b := result.NewBudget()
	want, _, err := result.Values(nil, enc, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := result.Binned(enc)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Expand(); !slices.Equal(e, want) {
		t.Fatalf("binned %v, rebuilt %v", e, want)
	}
	big := stats.NewHistogram()
	if err := big.RecordValues(1_000_000, 1e9); err != nil {
		t.Fatal(err)
	}
	enc, err = result.EncodeHistogram(big)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if a := allocated(func() {
		bb, err := result.Binned(enc)
		if err != nil {
			t.Fatal(err)
		}
		n = bb.N()
	}); n != 1e9 || a > 4<<20 {
		t.Errorf("a billion samples: %d counted, %d bytes allocated", n, a)
	}
}
