package compare_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/rtla"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// osnoiseText writes rtla osnoise hist output in its layout
// (osnoise_hist.c: the index "%-6d", each count "%9d ", avg: "%9.2f "):
// a column per CPU of cols, counts[cpu][i] occurrences at i µs, over[cpu]
// in the "over:" row; rows where every column is 0 are left out, as rtla
// leaves them without --with-zeros.
func osnoiseText(cols []int, counts map[int][]int64, over map[int]int64) string {
	var b strings.Builder
	b.WriteString("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:01:00\nIndex")
	n := 0
	for _, c := range cols {
		fmt.Fprintf(&b, "   CPU-%03d", c)
		n = max(n, len(counts[c]))
	}
	b.WriteString("\n")
	count, sum := map[int]int64{}, map[int]int64{}
	lo, hi := map[int]int64{}, map[int]int64{}
	for i := range n {
		var row strings.Builder
		total := int64(0)
		for _, c := range cols {
			k := int64(0)
			if i < len(counts[c]) {
				k = counts[c][i]
			}
			fmt.Fprintf(&row, "%9d ", k)
			total += k
			if k > 0 {
				if count[c] == 0 {
					lo[c] = int64(i)
				}
				hi[c] = int64(i)
			}
			count[c] += k
			sum[c] += k * int64(i)
		}
		if total > 0 {
			fmt.Fprintf(&b, "%-6d%s\n", i, row.String())
		}
	}
	line := func(label string, v func(c int) string) {
		b.WriteString(label)
		for _, c := range cols {
			b.WriteString(v(c))
		}
		b.WriteString("\n")
	}
	line("over: ", func(c int) string { return fmt.Sprintf("%9d ", over[c]) })
	line("count:", func(c int) string { return fmt.Sprintf("%9d ", count[c]+over[c]) })
	line("min:  ", func(c int) string { return fmt.Sprintf("%9d ", lo[c]) })
	line("avg:  ", func(c int) string { return fmt.Sprintf("%9.2f ", float64(sum[c])/float64(count[c]+over[c])) })
	line("max:  ", func(c int) string {
		if over[c] > 0 {
			return fmt.Sprintf("%9d ", n+20)
		}
		return fmt.Sprintf("%9d ", hi[c])
	})
	return b.String()
}

func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// spread is n occurrences over the µs from..to, evenly, one per µs in
// turn.
func spread(n int, from, to int) []int64 {
	out := make([]int64, to+1)
	for i := range n {
		out[from+i%(to-from+1)]++
	}
	return out
}

// Two osnoise hist runs: CPU by CPU, by CPU number; the lengths
// compared, the rate not (the files record no runtime); a CPU one file
// does not name has its lengths not compared, and says why.
func TestRunOsnoise(t *testing.T) {
	dir := testutil.TempDir(t)
	a := writeFile(t, dir, "before.rtla", osnoiseText([]int{0, 2}, map[int][]int64{0: spread(400, 5, 14), 2: spread(50, 5, 8)}, nil))
	b := writeFile(t, dir, "after.rtla", osnoiseText([]int{0}, map[int][]int64{0: spread(300, 1, 6)}, nil))
	r, err := run(t, compare.RunOptions{Files: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Noise) != 2 || r.Noise[0].CPU != 0 || r.Noise[1].CPU != 2 {
		t.Fatalf("CPUs: %+v", r.Noise)
	}
	p := r.Noise[0].Pairs[0]
	if p.RateOutcome != compare.NotCompared || !strings.Contains(p.RateNote, "records no thread's runtime") || p.Rate.NA != 400 || p.Rate.NB != 300 {
		t.Errorf("rate: %+v", p)
	}
	if p.Lengths == nil || p.Lengths.Outcome != compare.Faster {
		t.Fatalf("CPU 0's lengths: %+v (%s)", p.Lengths, p.Verdict)
	}
	if !strings.Contains(p.Verdict, "CPU 0: after.rtla vs before.rtla: 300 interruptions and 400 interruptions, their rate not compared") || !strings.Contains(p.Verdict, "shorter at p50") {
		t.Errorf("verdict: %s", p.Verdict)
	}
	run0 := r.Noise[0].Runs[0]
	if !run0.RTLA || run0.Lengths.P50 != 9500 || run0.MaxNs != 14000 || run0.Count != 400 {
		t.Errorf("before, CPU 0: %+v %+v", run0, run0.Lengths)
	}
	p2 := r.Noise[1].Pairs[0]
	if !r.Noise[1].Runs[1].Absent || p2.Lengths != nil || !strings.Contains(p2.LengthsNote, "after.rtla has no column for CPU 2") {
		t.Errorf("CPU 2: %+v", p2)
	}
	if !hasNote(r, "before.rtla: rtla osnoise hist records neither its threshold (-T") || !hasNote(r, "after.rtla: no column for CPU 2") || hasNote(r, "Poisson") {
		t.Errorf("notes: %q", r.Notes)
	}
}

// A noise result against an osnoise hist: matched by CPU number, its
// lengths put at their 1 µs bucket's middle as the histogram's are, so
// that the resolution alone makes no difference.
func TestOsnoiseAgainstNoise(t *testing.T) {
	h, err := rtla.Read(strings.NewReader(osnoiseText([]int{1}, map[int][]int64{1: spread(2000, 2, 5)}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var lengths []int64 // 100 ns into each of the same buckets, in turn
	for i := range 2000 {
		lengths = append(lengths, int64(2+i%4)*1000+100)
	}
	doc := noiseDoc(1000, noiseCPU(1, 10e9, lengths))
	in := []compare.Input{{Label: "a.json", Doc: doc}, {Label: "b.rtla", Doc: &result.Document{Kind: compare.OsnoiseKind, Data: &compare.Osnoise{File: h}}}}
	r, err := compare.Compare(in, compare.Options{By: stats.Mean, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Noise[0].Pairs[0]
	if p.Lengths == nil || p.Lengths.Outcome != compare.NoDifference || p.RateOutcome != compare.NotCompared {
		t.Fatalf("lengths in the histogram's buckets: %+v", p)
	}
	if m := r.Noise[0].Runs[0].Lengths.Mean; m < 3599.99 || m > 3600.01 { // the run's own figures stay exact
		t.Errorf("the noise result's mean %v", r.Noise[0].Runs[0].Lengths.Mean)
	}
	if r.NoiseThresholdNs != 1000 {
		t.Errorf("threshold %d", r.NoiseThresholdNs)
	}
}

// Occurrences in the "over:" row are not known: every run's lengths at or
// above that range are compared as not known, and the mean is not given.
func TestOsnoiseOver(t *testing.T) {
	dir := testutil.TempDir(t)
	a := writeFile(t, dir, "a.rtla", osnoiseText([]int{0}, map[int][]int64{0: spread(100, 1, 9)}, map[int]int64{0: 3}))
	b := writeFile(t, dir, "b.rtla", osnoiseText([]int{0}, map[int][]int64{0: spread(100, 1, 19)}, nil))
	r, err := run(t, compare.RunOptions{Files: []string{a, b}, By: "mean"})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Noise[0]
	if c.CensoredAtNs != 10000 || c.Runs[0].Censored != 3 || c.Runs[1].Censored != 50 {
		t.Fatalf("censored at %d: %d and %d", c.CensoredAtNs, c.Runs[0].Censored, c.Runs[1].Censored)
	}
	if c.Runs[0].Lengths.Mean != -1 || c.Pairs[0].Lengths.Outcome != compare.Unknown || !strings.Contains(c.Pairs[0].Verdict, "their lengths at mean: not known") {
		t.Errorf("mean: %+v; %s", c.Runs[0].Lengths, c.Pairs[0].Verdict)
	}
}

// Bad osnoise hist input is bad input, in one line that says what is
// taken.
func TestRunOsnoiseBad(t *testing.T) {
	dir := testutil.TempDir(t)
	ok := writeFile(t, dir, "ok.rtla", osnoiseText([]int{0}, map[int][]int64{0: spread(50, 1, 5)}, nil))
	none := "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n"
	cases := []struct{ name, in, other, err string }{
		{"wide.rtla", "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex   CPU-000\n0        430 \n10        88 \nover:      0 \ncount:   518 \nmin:       0 \navg:    1.70 \nmax:      10 \n", ok,
			"its rows are all at multiples of 10 µs: the bucket size (rtla -b) is not written in the file"},
		{"cut.rtla", "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex   CPU-000\n1        430 \n", ok, "no \"over:\" row"},
		{"thr.rtla", "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex   Thr-000\n1        430 \nover: 0\n", ok, "column \"Thr-000\" (want CPU-NNN"},
		{"none.rtla", none, writeFile(t, dir, "none2.rtla", none), "no CPU had a noise occurrence in any of the rtla osnoise histograms"},
		{"timerlat.rtla", "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-000   Thr-000\n1         5         3\nover:     0         0\n", ok,
			"ok.rtla is an rtla osnoise histogram, of operating-system noise, and timerlat.rtla an rtla timerlat histogram"},
	}
	for _, c := range cases {
		_, err := run(t, compare.RunOptions{Files: []string{writeFile(t, dir, c.name, c.in), c.other}})
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line of bad input with %q", c.name, err, c.err)
		}
	}
}

// FuzzCompareOsnoise: any rtla osnoise hist output the reader takes is
// compared with a fixed one, or refused with an error, never a panic.
func FuzzCompareOsnoise(f *testing.F) {
	f.Add(osnoiseText([]int{0, 2}, map[int][]int64{0: spread(40, 1, 9), 2: spread(5, 5, 8)}, map[int]int64{2: 1}))
	f.Add("# RTLA osnoise histogram\n# Time unit is nanoseconds (ns)\nIndex   CPU-000\n1500 3\nover: 1\ncount: 4\nmin: 1500\navg: 1600.00\nmax: 9000\n")
	f.Add("# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex\nover:\ncount:\nmin:\navg:\nmax:\n")
	fixed, err := rtla.Read(strings.NewReader(osnoiseText([]int{0, 1}, map[int][]int64{0: spread(30, 1, 6), 1: spread(30, 2, 4)}, nil)))
	if err != nil {
		f.Fatal(err)
	}
	side := func(label string, h *rtla.Histogram) compare.Input {
		return compare.Input{Label: label, Doc: &result.Document{Kind: compare.OsnoiseKind, Data: &compare.Osnoise{File: h}}}
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := rtla.Read(strings.NewReader(in))
		if err != nil || !h.Osnoise {
			return
		}
		r, err := compare.Compare([]compare.Input{side("a", fixed), side("b", h)}, compare.Options{By: stats.Quantile(90), Seed: 1, Replicates: 50})
		if err != nil {
			return
		}
		for _, c := range r.Noise {
			if len(c.Runs) != 2 || len(c.Pairs) != 1 || c.Pairs[0].RateOutcome != compare.NotCompared {
				t.Fatalf("CPU %d: %+v", c.CPU, c)
			}
		}
	})
}

// A few rows far apart on many CPUs: the comparison's work is the rows,
// not CPUs x range. Converted densely, 512 CPUs of a range of a million
// µs allocated 8 GB (4,096 CPUs, 50 KB of input: 28 s); sparse, a few MB.
func TestOsnoiseWideRangeBounded(t *testing.T) {
	const cpus = 512
	var b strings.Builder
	b.WriteString("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex")
	for c := range cpus {
		fmt.Fprintf(&b, "   CPU-%03d", c)
	}
	row := func(label string) {
		b.WriteString("\n" + label)
		for range cpus {
			b.WriteString("        1 ")
		}
	}
	row("1     ")
	row("999999")
	b.WriteString("\nover: ")
	for range cpus {
		b.WriteString("        0 ")
	}
	b.WriteString("\n")
	f := writeFile(t, testutil.TempDir(t), "wide.rtla", b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := run(t, compare.RunOptions{Files: []string{f, f}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Noise) != cpus || r.Noise[cpus-1].Runs[0].Count != 2 || r.Noise[cpus-1].Runs[0].Lengths.Max != 999999500 {
		t.Fatalf("%d CPUs; the last: %+v", len(r.Noise), r.Noise[len(r.Noise)-1].Runs[0])
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 512<<20 {
		t.Errorf("allocated %d MB for %d CPUs of 2 rows each", got>>20, cpus)
	}
}
