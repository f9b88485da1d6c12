package try

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// tryDoc is the try document of r, analysed.
func tryDoc(t *testing.T, r *Result, by stats.Statistic) *result.Document {
	t.Helper()
	if err := Analyze(r, by, 1); err != nil {
		t.Fatal(err)
	}
	doc, err := Document(host.Facts{}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// inHistograms makes every block of r keep a histogram of its samples
// instead of them, as Document does above result.MaxSamples.
func inHistograms(t *testing.T, r *Result) {
	t.Helper()
	for i := range r.Runs {
		b := &r.Runs[i]
		h, err := result.EncodeHistogram(stats.HistogramOf(b.Samples))
		if err != nil {
			t.Fatal(err)
		}
		b.Histogram, b.Samples = h, nil
	}
	r.SamplesInHistograms = true
}

// An arm of a noise try is a noise document: each CPU's counts, runtime
// and noise summed over the arm's complete blocks, its lengths those the
// blocks kept on it (split from the blocks' samples by what each CPU
// kept), or, when the blocks kept histograms, their histograms merged.
func TestCompareInputsNoise(t *testing.T) {
	for _, c := range []struct {
		name       string
		cpus       []int
		histograms bool
		lengths    bool // the CPUs have lengths to compare
		raw        bool
	}{
		{"one CPU", []int{3}, false, true, true},
		{"two CPUs", []int{2, 3}, false, true, true},
		{"one CPU, histograms", []int{3}, true, true, false},
		// The blocks' one histogram mixes the CPUs: no lengths per CPU,
		// and the input says why.
		{"two CPUs, histograms", []int{2, 3}, true, false, false},
	} {
		per := [][]int64{{50, 20}, {30, 20}}
		r := noiseFixture(8, c.cpus, per)
		if c.histograms {
			inHistograms(t, r)
		}
		// A block cut short is left out, as the try's analysis leaves it.
		r.Runs[0].Complete = false
		skipped := r.Runs[0]
		in, err := CompareInputs("t.json", tryDoc(t, r, stats.Quantile(50)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(in) != 2 || in[0].Label != "t.json[current]" || in[1].Label != "t.json[0]" || !in[0].Arm || !in[1].Arm {
			t.Fatalf("%s: inputs %+v", c.name, in)
		}
		cr, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		notes := strings.Join(cr.Notes, "\n")
		if why := "t.json[0] stores no lengths of its interruptions (its blocks kept one histogram of the lengths on all 2 CPUs"; strings.Contains(notes, why) == c.lengths {
			t.Errorf("%s: notes %q", c.name, notes)
		}
		for a, x := range in {
			d, ok := probe.KindNoise.Of(x.Doc)
			if !ok || len(d.CPUs) != len(c.cpus) || d.Measurement.ThresholdNs != 1000 {
				t.Fatalf("%s: arm %d: %+v", c.name, a, x.Doc)
			}
			if (x.NoLengths != "") == c.lengths {
				t.Errorf("%s: arm %d: no lengths %q", c.name, a, x.NoLengths)
			}
			for ci, cpu := range d.CPUs {
				// Each complete block of the arm counts per[a][ci] plus its round.
				var want, blocks int64
				for _, b := range r.Runs {
					if b.Arm == a && b.Complete {
						want += per[a][ci] + int64(b.Round)
						blocks++
					}
				}
				if skipped.Arm == a && blocks != 7 || cpu.CPU != c.cpus[ci] || cpu.Count != want || cpu.Kept != want || cpu.RuntimeNs != blocks*1e9 {
					t.Errorf("%s: arm %d CPU %d: %d interruptions (%d kept) in %d ns over %d blocks, want %d", c.name, a, cpu.CPU, cpu.Count, cpu.Kept, cpu.RuntimeNs, blocks, want)
				}
				s, raw, err := cpu.Lengths(nil)
				switch {
				case !c.lengths:
					if err == nil {
						t.Errorf("%s: arm %d CPU %d: lengths of a histogram of all CPUs", c.name, a, cpu.CPU)
					}
				case err != nil || int64(len(s)) != want || raw != c.raw:
					t.Errorf("%s: arm %d CPU %d: %d lengths (raw %v), err %v; want %d", c.name, a, cpu.CPU, len(s), raw, err, want)
				case s[0] < 2000 || s[0] >= 5000:
					t.Errorf("%s: arm %d CPU %d: a length of %d ns, the fixture's are 2-5 µs", c.name, a, cpu.CPU, s[0])
				}
			}
		}
	}
}

// What cannot be an arm's noise document is said, not compared: a block
// whose samples do not match what it kept, an arm without a complete
// block, a dpcisr try that recorded no DPC.
func TestCompareInputsRefuses(t *testing.T) {
	r := noiseFixture(8, []int{3}, [][]int64{{50}, {30}})
	doc := tryDoc(t, r, stats.Quantile(50))
	d, _ := Kind.Of(doc)
	d.Runs[2].Samples = d.Runs[2].Samples[1:]
	_, err := CompareInputs("t.json", doc, nil)
	if want := "t.json: block 2 keeps"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "lengths for the") {
		t.Errorf("short samples: %v", err)
	}

	r = noiseFixture(8, []int{3}, [][]int64{{50}, {30}})
	doc = tryDoc(t, r, stats.Quantile(50))
	d, _ = Kind.Of(doc)
	for i := range d.Runs {
		if d.Runs[i].Arm == 1 {
			d.Runs[i].Complete = false
		}
	}
	if _, err := CompareInputs("t.json", doc, nil); err == nil || err.Error() != "t.json: no complete block of 0 to compare" {
		t.Errorf("no complete block: %v", err)
	}

	r = dpcisrFixture()
	doc = tryDoc(t, r, DPCBy)
	d, _ = Kind.Of(doc)
	d.Module = ""
	if _, err := CompareInputs("t.json", doc, nil); err == nil || err.Error() != "t.json: no DPC was recorded in its blocks: nothing to compare" {
		t.Errorf("no DPC: %v", err)
	}
}

// An arm pools its blocks' runtimes: longer than any noise run (48
// hours), as long as latlab try runs an arm, is an arm still; a block
// longer than any block is no measurement.
func TestCompareInputsNoiseRuntimes(t *testing.T) {
	r := noiseFixture(30, []int{3}, [][]int64{{1}, {1}})
	for i := range r.Runs {
		r.Runs[i].Noise.RuntimeNs = int64(2 * time.Hour)
	}
	doc := tryDoc(t, r, stats.Quantile(50))
	in, err := CompareInputs("t.json", doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1}); err != nil {
		t.Errorf("60 hours of an arm: %v", err)
	}
	for i := range in {
		in[i].Arm = false
	}
	if _, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1}); err == nil || !strings.Contains(err.Error(), "a noise run's runtime is above 0 and at most 48 hours") {
		t.Errorf("60 hours of a noise run: %v", err)
	}
	d, _ := Kind.Of(doc)
	d.Runs[4].Noise.RuntimeNs = 1 << 62
	if _, err := CompareInputs("t.json", doc, nil); err == nil || !strings.Contains(err.Error(), "t.json: block 4 spun 4611686018427387904 ns on CPU 3: a block's runtime is above 0 and at most 2h0m0s") {
		t.Errorf("a block of 146 years: %v", err)
	}
}

// The DPC/ISR reports of a dpcisr try's blocks are the document's to
// claim, as a report latlab dpcisr compare reads is: a negative count,
// buckets that overlap or counts whose pooled sum would overflow into a
// plausible figure are refused, not compared.
func TestCompareInputsDPCISRChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(h *dpcisr.Histogram)
		want string
	}{
		{"negative count", func(h *dpcisr.Histogram) { h.Buckets[0].Count = -1000 }, "count -1000 out of range 0 to 2^53"},
		{"overlapping buckets", func(h *dpcisr.Histogram) { h.Buckets[1].GtUs, h.Buckets[1].LeUs = 1, ptr(int64(64)) }, "overlaps or precedes"},
		// 2^52 in every block: more than 2^53 in the arm, where 2^62 would
		// wrap to a plausible sum
		{"pooled sum overflows", func(h *dpcisr.Histogram) { h.Buckets[0].Count = 1 << 52 }, "more than 2^53 executions"},
	} {
		r := dpcisrFixture()
		doc := tryDoc(t, r, DPCBy)
		d, _ := Kind.Of(doc)
		for i := range d.Runs {
			for j := range d.Runs[i].DPCISR.Sections {
				s := &d.Runs[i].DPCISR.Sections[j]
				for k := range s.Modules {
					if s.Modules[k].Module == d.Module {
						c.edit(&s.Modules[k])
					}
				}
			}
		}
		if _, err := CompareInputs("t.json", doc, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// A block's noise is time lost within its runtime: more of it than
// runtime is refused, so that the arm's sum cannot overflow (three
// blocks of 2^63-1 ns wrap to 2^63-3) into a figure compared.
func TestCompareInputsNoiseWithinRuntime(t *testing.T) {
	r := noiseFixture(8, []int{3}, [][]int64{{50}, {30}})
	doc := tryDoc(t, r, stats.Quantile(50))
	d, _ := Kind.Of(doc)
	for i := range d.Runs {
		d.Runs[i].Noise.NoiseNs = math.MaxInt64
	}
	if _, err := CompareInputs("t.json", doc, nil); err == nil || !strings.Contains(err.Error(), "lost 9223372036854775807 ns to noise in 1000000000 ns on CPU 3: noise is at most the runtime") {
		t.Errorf("noise over the runtime: %v", err)
	}
}

// An arm's sums are bounded by its blocks' runtimes only as long as the
// number of blocks is: more complete blocks than latlab try runs per arm
// (1000) are refused, not summed.
func TestCompareInputsNoiseBlocksBounded(t *testing.T) {
	r := noiseFixture(1000, []int{3}, [][]int64{{1}, {1}})
	// Each block keeps the first of its lengths: the bound is on blocks,
	// and the fixture's 1,001,000 lengths (the round's index grows the
	// count) only made Document keep a histogram per block, which cost
	// twenty times as much under -race.
	for i := range r.Runs {
		b := &r.Runs[i]
		b.Samples, b.Count, b.Noise.Kept = b.Samples[:1], 1, 1
	}
	doc := tryDoc(t, r, stats.Quantile(50))
	if d, _ := Kind.Of(doc); d.SamplesInHistograms {
		t.Fatal("the blocks kept histograms, not their lengths")
	}
	if _, err := CompareInputs("t.json", doc, nil); err != nil {
		t.Fatalf("1000 blocks an arm: %v", err)
	}
	d, _ := Kind.Of(doc)
	extra := d.Runs[0]
	extra.Index = len(d.Runs)
	d.Runs = append(d.Runs, extra)
	if _, err := CompareInputs("t.json", doc, nil); err == nil || !strings.Contains(err.Error(), "has more than 1000 complete blocks") {
		t.Errorf("1001 blocks an arm: %v", err)
	}
}
