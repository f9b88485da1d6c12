package compare_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// histFile writes a one-thread cyclictest histogram of counts (per µs)
// and overflows, in cyclictest -h's layout.
func histFile(t *testing.T, dir, name string, counts []int64, overflows int64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# /dev/cpu_dma_latency set to 0us\n# Histogram\n")
	var total int64
	for i, c := range counts {
		fmt.Fprintf(&b, "%06d %06d\n", i, c)
		total += c
	}
	fmt.Fprintf(&b, "# Total: %09d\n# Min Latencies: 00001\n# Avg Latencies: 00001\n# Max Latencies: %05d\n# Histogram Overflows: %05d\n# Histogram Overflow at cycle number:\n# Thread 0:\n",
		total, len(counts)+int(overflows), overflows)
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// bumps returns counts over n buckets: k samples around each centre.
func bumps(n int, k int64, centres ...int) []int64 {
	c := make([]int64, n)
	for _, m := range centres {
		for d := -3; d <= 3; d++ {
			c[m+d] += k / 7
		}
	}
	return c
}

func hasNote(r *compare.Result, parts ...string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool {
		for _, p := range parts {
			if !strings.Contains(n, p) {
				return false
			}
		}
		return true
	})
}

// Two histograms are compared as independent samples: no serial
// analysis, and the text and the document say the order is unknown.
func TestRunCyclictestSides(t *testing.T) {
	dir := testutil.TempDir(t)
	a := histFile(t, dir, "a.txt", bumps(100, 7000, 20), 0)
	b := histFile(t, dir, "b.txt", bumps(100, 7000, 30), 0)
	r, err := run(t, compare.RunOptions{Files: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Quantity != "wake-up latency" || r.CensoredAtNs != 0 {
		t.Errorf("quantity %q, censored at %d", r.Quantity, r.CensoredAtNs)
	}
	for _, run := range r.Runs {
		if run.Serial != nil || !run.OrderUnknown || !run.Reconstructed || run.Source != "cyclictest histogram, 1 thread column" || run.Summary.Count != 7000 {
			t.Errorf("%s: serial %+v, order unknown %v, source %q, count %d", run.Label, run.Serial, run.OrderUnknown, run.Source, run.Summary.Count)
		}
		if !hasNote(r, run.Label+": a cyclictest histogram", "keeps no order of its 7000 wake-ups", "assume independent wake-ups", "may then be too narrow") {
			t.Errorf("no note on %s's order: %q", run.Label, r.Notes)
		}
	}
	// bucket 20 holds [20, 21) µs: its samples stand at 20.5 µs
	if got := r.Pairs[0].Rows[0]; got.A != 20_500 || got.B != 30_500 || got.Diff == nil || got.Unknown != "" {
		t.Errorf("p50 row %+v, want 20.5 µs against 30.5 µs with an interval", got)
	}
	if p := r.Pairs[0]; p.Outcome != compare.Slower || p.Test != "Mann-Whitney U" {
		t.Errorf("outcome %s by %q, want slower by the i.i.d. test", p.Outcome, p.Test)
	}
	if !hasNote(r, "records neither cyclictest's interval (-i)", "whether the runs measured alike is not known") {
		t.Errorf("no note on what the files do not record: %q", r.Notes)
	}
}

// Overflows have no value: a statistic they reach is not given (-1, with
// why), in either run once one histogram overflows, and a verdict by it
// is no verdict.
func TestRunCyclictestOverflows(t *testing.T) {
	dir := testutil.TempDir(t)
	// A: 9800 below 100 µs, 200 (2%) overflowed; B: a range of 200 µs,
	// 2% of it between 100 and 199 µs, known in B but not comparable
	// with A's overflows.
	a := histFile(t, dir, "a.txt", bumps(100, 9800, 20), 200)
	bc := bumps(200, 9800, 20)
	bc[150] = 200
	b := histFile(t, dir, "b.txt", bc, 0)
	for _, by := range []string{"p50", "p99", "mean"} {
		r, err := run(t, compare.RunOptions{Files: []string{a, b}, By: by})
		if err != nil {
			t.Fatal(err)
		}
		if r.CensoredAtNs != 100_000 || r.Runs[0].Censored != 200 || r.Runs[1].Censored != 200 {
			t.Fatalf("censored at %d: %d and %d, want 100 µs, 200 each", r.CensoredAtNs, r.Runs[0].Censored, r.Runs[1].Censored)
		}
		if s := r.Runs[0]; s.Summary.Max != -1 || s.Summary.Mean != -1 || s.Summary.P99 != -1 || !slices.Contains(s.Unknown, "mean_ns") || s.Summary.P90 != 23_500 {
			t.Errorf("A's summary %+v unknown %v: want max, mean, p99 unknown, p90 known", s.Summary, s.Unknown)
		}
		if s := r.Runs[1]; s.Summary.Max != 150_500 || len(s.Unknown) != 0 {
			t.Errorf("B's own summary %+v unknown %v: want all known", s.Summary, s.Unknown)
		}
		p := r.Pairs[0]
		rows := map[string]compare.Row{}
		for _, row := range p.Rows {
			rows[row.Stat] = row
		}
		if row := rows["p50"]; row.Unknown != "" || row.Diff == nil {
			t.Errorf("p50 %+v: want known", row)
		}
		for _, st := range []string{"p99", "p99.9", "mean"} {
			row := rows[st]
			if row.A != -1 || row.B != -1 || row.Diff != nil || !strings.HasPrefix(row.Unknown, st+": not known: a.txt has 200 of 10000 values (2%) at or above 100 µs and b.txt has 200") {
				t.Errorf("%s %+v: want no values, no interval, and why", st, row)
			}
		}
		switch by {
		case "p50":
			if p.Outcome != compare.NoDifference && p.Outcome != compare.Faster && p.Outcome != compare.Slower {
				t.Errorf("by p50: %s", p.Outcome)
			}
		default:
			if p.Outcome != compare.Unknown || p.ByDiff != nil || !strings.Contains(p.Verdict, "no verdict, "+by+": not known") {
				t.Errorf("by %s: outcome %s, verdict %q; want not known", by, p.Outcome, p.Verdict)
			}
			if r.Runs[0].By != -1 || r.Runs[1].By != -1 {
				t.Errorf("by %s: by values %v %v, want -1", by, r.Runs[0].By, r.Runs[1].By)
			}
		}
		if !hasNote(r, "a.txt: 200 of its 10000 wake-ups (2%) overflowed the histogram's range of 100 µs", "the footer's largest latency: 00300"[:30]) {
			t.Errorf("no overflow note: %q", r.Notes)
		}
	}
}

// A histogram measures what a wake result does: compared with one (the
// wake run keeps its serial analysis, the histogram has none, and the
// interval the histogram does not record is said to be unknown), and
// refused against a sleep result.
func TestRunCyclictestAgainstDocuments(t *testing.T) {
	dir := testutil.TempDir(t)
	h := histFile(t, dir, "h.txt", bumps(100, 2000, 20), 0)
	w := wakeFile(t, dir, "w.json", ar1Lateness(rand.New(rand.NewPCG(3, 0)), 2000, 0.8), false)
	r, err := run(t, compare.RunOptions{Files: []string{h, w}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs[1].Settings != "" {
		t.Errorf("the wake run's settings %q listed as what distinguishes it from a histogram, which has none", r.Runs[1].Settings)
	}
	if r.Runs[0].Serial != nil || !r.Runs[0].OrderUnknown || r.Runs[1].Serial == nil || r.Runs[1].OrderUnknown {
		t.Errorf("serial: histogram %+v (order unknown %v), wake %+v", r.Runs[0].Serial, r.Runs[0].OrderUnknown, r.Runs[1].Serial)
	}
	if !hasNote(r, "(h.txt)", "w.json woke every 1ms, and whether the histogram's run woke at the same interval is not known") {
		t.Errorf("no note on the interval: %q", r.Notes)
	}
	_, err = run(t, compare.RunOptions{Files: []string{h, td("a.json")}})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "h.txt is a cyclictest histogram, of wake-up latency, and a.json a sleep result") {
		t.Errorf("against a sleep result: %v", err)
	}
}

// A wake run with values where an overflowing histogram's are unknown
// loses its serial analysis (it would see stand-in values), and says so.
func TestRunCyclictestCensorsAnOrderedRun(t *testing.T) {
	dir := testutil.TempDir(t)
	h := histFile(t, dir, "h.txt", bumps(25, 2000, 20), 10) // range 25 µs, 10 overflows
	w := wakeFile(t, dir, "w.json", ar1Lateness(rand.New(rand.NewPCG(3, 0)), 2000, 0.8), false)
	r, err := run(t, compare.RunOptions{Files: []string{h, w}})
	if err != nil {
		t.Fatal(err)
	}
	wr := r.Runs[1]
	if wr.Censored == 0 || wr.Serial != nil || r.Pairs[0].Test != "Mann-Whitney U" {
		t.Fatalf("wake run: %d censored, serial %+v, test %q; want some censored, no serial analysis, the i.i.d. test", wr.Censored, wr.Serial, r.Pairs[0].Test)
	}
	if !hasNote(r, fmt.Sprintf("w.json: %d of its values are at or above 25 µs and compared as not known, so its serial-dependence analysis cannot run", wr.Censored)) {
		t.Errorf("no note on the lost order: %q", r.Notes)
	}
}

// A wake result against the histogram latlab wake --histfile wrote of
// the same samples: its values are put in the same buckets, so the two
// are the same distribution (without that, the ns of the one against the
// buckets' middles of the other made the Kolmogorov-Smirnov test see a
// difference); and its settings are not listed as what distinguishes it
// from a histogram, which has none.
func TestRunCyclictestAgainstItsOwnHistogram(t *testing.T) {
	dir := testutil.TempDir(t)
	lat := ar1Lateness(rand.New(rand.NewPCG(5, 0)), 3000, 0.5)
	w := wakeFile(t, dir, "w.json", lat, false)
	d, err := result.ReadFile(w)
	if err != nil {
		t.Fatal(err)
	}
	d.Settings = map[string]string{"interval": "1ms", "rtprio": "80"}
	if err := result.WriteFile(w, d); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	wr := &probe.WakeResult{Threads: []probe.WakeThread{{Latencies: lat}}}
	if err := wr.WriteCyclictestHist(&b, 1000, -1); err != nil {
		t.Fatal(err)
	}
	h := filepath.Join(dir, "w.hist")
	if err := os.WriteFile(h, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// the histogram first: against it, every setting of the wake result
	// "differed"
	r, err := run(t, compare.RunOptions{Files: []string{h, w}})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Pairs[0]
	if p.KS.D != 0 || p.MWU.Superiority != 0.5 || p.Outcome != compare.NoDifference {
		t.Errorf("KS %+v, P(A > B) %v, %s; want the same distribution", p.KS, p.MWU.Superiority, p.Outcome)
	}
	for _, row := range p.Rows {
		if row.Stat == "mean" {
			// summed a bucket at a time on the histogram's side
			if math.Abs(row.A-row.B) > 1e-12*row.A {
				t.Errorf("mean: %v against %v", row.A, row.B)
			}
			continue
		}
		if row.A != row.B || row.A != float64(int64(row.A)/1000*1000+500) {
			t.Errorf("%s: %v against %v, want the same bucket middle", row.Stat, row.A, row.B)
		}
	}
	if r.Runs[1].Serial == nil || r.Runs[1].Settings != "" {
		t.Errorf("wake run: serial %+v (want its analysis, on its values in buckets), settings %q (want none)", r.Runs[1].Serial, r.Runs[1].Settings)
	}
	if !hasNote(r, "w.json: its values are compared in the histograms' 1 µs buckets") {
		t.Errorf("no note on the buckets: %q", r.Notes)
	}
}

func TestRunCyclictestBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	neither := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(neither, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("000000 1\n000001 2\n# Total: 5\n# Histogram Overflows: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := histFile(t, dir, "ok.txt", bumps(100, 700, 50), 0)
	for _, c := range []struct {
		name  string
		files []string
		max   int64
		want  string
	}{
		{"neither kind", []string{neither, ok}, 0, "notes.txt is not a latlab result document (JSON), rtla timerlat or osnoise hist output or a cyclictest histogram"},
		{"total disagrees", []string{ok, bad}, 0, "\"# Total:\" says 5 samples in column 1, its rows hold 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			infile.SetMax(c.max)
			defer infile.Reset()
			_, err := run(t, compare.RunOptions{Files: c.files})
			if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want bad input with %q", err, c.want)
			}
		})
	}
}

// Two histograms are compared from their buckets: nothing is rebuilt, so
// a pair far beyond the budget that bounds rebuilt samples is compared.
func TestRunHistogramsBeyondTheBudget(t *testing.T) {
	dir := testutil.TempDir(t)
	a := histFile(t, dir, "a.txt", bumps(100, 7000, 50), 0)
	b := histFile(t, dir, "b.txt", bumps(100, 7000, 52), 0)
	infile.SetMax(128 * 5000)
	defer infile.Reset()
	r, err := run(t, compare.RunOptions{Files: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs[0].Summary.Count != 7000 || r.Pairs[0].Outcome != compare.Slower {
		t.Errorf("runs %+v, outcome %q", r.Runs[0].Summary, r.Pairs[0].Outcome)
	}
}

// hdrOnly rewrites the wake result at path without its raw samples, as
// latlab wake writes one of more than result.MaxSamples: its histogram
// holds the distribution.
func hdrOnly(t *testing.T, path string) string {
	t.Helper()
	d, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d.Data.(*probe.WakeData).Samples = nil
	if err := result.WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
	return path
}

// A histogram is compared with wake results from its buckets too, never
// rebuilt, so one beyond the budget of rebuilt samples is compared (it
// was refused: "big.txt: its histogram holds 700 samples, more than the
// 500 latlab rebuilds"), and so is a wake result without raw samples,
// whose histogram is counted, not rebuilt, either; the wake run with raw
// samples keeps its serial analysis.
func TestRunMixedBeyondTheBudget(t *testing.T) {
	dir := testutil.TempDir(t)
	big := histFile(t, dir, "big.txt", bumps(100, 700, 50), 0)
	big2 := histFile(t, dir, "big2.txt", bumps(100, 700, 51), 0)
	lat := ar1Lateness(rand.New(rand.NewPCG(3, 0)), 300, 0.8)
	w := wakeFile(t, dir, "w.json", lat, false)
	// 600 wake-ups, more than the 500 the test lets latlab rebuild
	hdr := hdrOnly(t, wakeFile(t, dir, "hdr.json", ar1Lateness(rand.New(rand.NewPCG(4, 0)), 600, 0.8), false))
	for _, c := range []struct {
		name  string
		files []string
		// serial: the runs with a serial analysis
		serial []bool
	}{
		{"wake first", []string{w, big}, []bool{true, false}},
		{"histogram first", []string{big, w}, []bool{false, true}},
		{"wake without raw samples", []string{hdr, big}, []bool{false, false}},
		{"three runs", []string{big, w, big2}, []bool{false, true, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			infile.SetMax(128 * 500) // 500 samples rebuilt at most
			defer infile.Reset()
			r, err := run(t, compare.RunOptions{Files: c.files})
			if err != nil {
				t.Fatal(err)
			}
			for i, run := range r.Runs {
				want := map[string]int64{"big.txt": 700, "big2.txt": 700, "w.json": 300, "hdr.json": 600}[run.Label]
				if run.Summary.Count != want || (run.Serial != nil) != c.serial[i] {
					t.Errorf("%s: %d samples, serial %+v; want %d, serial analysis %v", run.Label, run.Summary.Count, run.Serial, want, c.serial[i])
				}
				if strings.HasPrefix(run.Label, "big") && run.Samples() != nil {
					t.Errorf("%s: the histogram was expanded", run.Label)
				}
			}
			if p := r.Pairs[0]; p.Outcome == compare.TooFew || p.Outcome == compare.Unknown || p.ByDiff == nil {
				t.Errorf("outcome %s, interval %+v", p.Outcome, p.ByDiff)
			}
			if !hasNote(r, "its values are compared in the histograms' 1 µs buckets") {
				t.Errorf("no note on the buckets: %q", r.Notes)
			}
		})
	}
}

// The wake-ups of the histograms compared must fit in an int64 together
// (the rank test counts them together), as each histogram's must.
func TestCompareHistogramsBeyondAnInt64(t *testing.T) {
	if math.MaxInt == math.MaxInt32 {
		t.Skip("a 32-bit build refuses each of these first (TestCompareHistogramBeyondAnInt)")
	}
	side := func(label string) compare.Input {
		h := &cyclictest.Histogram{Counts: []int64{1 << 61, 1 << 61}, RangeUs: 2, InRange: 1 << 62, Threads: 1}
		return compare.Input{Label: label, Doc: &result.Document{Kind: compare.CyclictestKind, Data: &compare.Cyclictest{H: h}}}
	}
	_, err := compare.Compare([]compare.Input{side("a"), side("b")}, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 100})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "b: the histograms hold more than 9223372036854775807 wake-ups together") {
		t.Fatalf("got %v", err)
	}
	// A wake result without raw samples is its HdrHistogram's counts,
	// which a few bytes can claim: counted with the histograms'.
	h := stats.NewHistogram()
	if err := h.RecordValues(20_000, 1<<62); err != nil {
		t.Fatal(err)
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	w := compare.Input{Label: "w", Doc: probe.KindWake.New(host.Facts{}, &probe.WakeData{Histogram: *enc})}
	_, err = compare.Compare([]compare.Input{side("a"), w}, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 100})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "w: the histograms hold more than 9223372036854775807 wake-ups together") {
		t.Fatalf("with a wake result: got %v", err)
	}
}

// On a 32-bit build a run's count must fit an int (GOARCH=386 go test
// runs it; a 64-bit build has no such run to refuse).
func TestCompareHistogramBeyondAnInt(t *testing.T) {
	if math.MaxInt > math.MaxInt32 {
		t.Skip("a 64-bit int counts every histogram")
	}
	side := func(label string) compare.Input {
		h := &cyclictest.Histogram{Counts: []int64{1 << 31}, RangeUs: 1, InRange: 1 << 31, Threads: 1}
		return compare.Input{Label: label, Doc: &result.Document{Kind: compare.CyclictestKind, Data: &compare.Cyclictest{H: h}}}
	}
	_, err := compare.Compare([]compare.Input{side("a"), side("b")}, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 100})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "a: a histogram of 2147483648 wake-ups, more than this build of latlab counts in a run (2147483647)") {
		t.Fatalf("got %v", err)
	}
}

// A 5% change of a percentile of a few µs is less than the histograms'
// 1 µs buckets, in which the percentile moves: more samples do not
// detect it, and the verdict says so instead of counting samples. At
// 60 µs the 5% is 3 buckets, and the sample count is given.
func TestRunHistogramsChangeBelowBucket(t *testing.T) {
	dir := testutil.TempDir(t)
	// flat is 10 wake-ups in each bucket of [lo, hi), b's one bucket on.
	flat := func(lo, hi, shift int) []int64 {
		c := make([]int64, 100)
		for k := lo; k < hi; k++ {
			c[k+shift] = 10
		}
		return c
	}
	for _, c := range []struct {
		lo, hi     int
		below      bool
		wantPhrase string
	}{
		{1, 10, true, "no detectable difference at the histograms' resolution"},
		{40, 80, false, "no detectable difference at this sample size"},
	} {
		a := histFile(t, dir, fmt.Sprint("a", c.lo), flat(c.lo, c.hi, 0), 0)
		b := histFile(t, dir, fmt.Sprint("b", c.lo), flat(c.lo, c.hi, 1), 0)
		r, err := run(t, compare.RunOptions{Files: []string{a, b}})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Pairs[0]
		if p.Outcome != compare.NoDifference || !strings.Contains(p.Verdict, c.wantPhrase) {
			t.Fatalf("buckets %d-%d: outcome %s, verdict %q", c.lo, c.hi, p.Outcome, p.Verdict)
		}
		says := strings.Contains(p.Verdict, "is less than the histograms' 1.00 µs buckets, in which p50 moves: no number of samples detects it")
		if says != c.below || (p.SamplesNeeded == 0) != c.below {
			t.Errorf("buckets %d-%d: samples needed %d, verdict %q", c.lo, c.hi, p.SamplesNeeded, p.Verdict)
		}
	}
}
