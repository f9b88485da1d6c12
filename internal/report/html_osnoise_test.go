package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// osnoise2 is written in rtla osnoise hist's layout (osnoise_hist.c: the
// index "%-6d", each count "%9d ", avg: "%9.2f ", the mean of the
// buckets' bounds over every occurrence, the "over:" row's counted and
// not summed), not taken from a machine: CPUs 0 and 3 of a run with
// -c 0-3 (CPUs 1 and 2 had no noise occurrence, so rtla names no column
// for them), CPU 3 with 2 occurrences in its "over:" row.
const osnoise2 = "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:01:00\n" +
	"Index   CPU-000   CPU-003\n" +
	"5            40         0 \n" +
	"6            20         3 \n" +
	"7            10         9 \n" +
	"8             5        12 \n" +
	"9             2         4 \n" +
	"over:         0         2 \n" +
	"count:       77        30 \n" +
	"min:          5         6 \n" +
	"avg:       5.81      7.10 \n" +
	"max:          9        29 \n"

// osnoisePage is the page of osnoise2 with, when withNoise, a noise
// result of the same CPUs (its creation time fixed for the golden).
func osnoisePage(t *testing.T, withNoise bool) (*Result, string) {
	t.Helper()
	dir := testutil.TempDir(t)
	files := []string{filepath.Join(dir, "a.osnoise")}
	if err := os.WriteFile(files[0], []byte(osnoise2), 0o644); err != nil {
		t.Fatal(err)
	}
	if withNoise {
		d := noiseDoc(noiseRun(0, 10_000_000_000, ramp(80, 5000, 50)), noiseRun(3, 10_000_000_000, ramp(30, 6000, 100)))
		d.Created = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		files = append(files, filepath.Join(dir, "noise.json"))
		if err := result.WriteFile(files[1], d); err != nil {
			t.Fatal(err)
		}
	}
	return runPage(t, files...)
}

// An rtla osnoise histogram is a section of its own: its counts per CPU
// and pooled, its "over:" occurrences, the statistics its buckets give
// ("not known" where those reach them), rtla's min:, avg: and max: as
// written, its distributions from the buckets; no time series and no
// rate, with compare's reason. Beside a noise result, the comparison
// latlab compare makes of them.
func TestReportOsnoisePage(t *testing.T) {
	res, page := osnoisePage(t, false)
	text := pageText(t, page)
	if res.Results != 1 || res.Plots != 2 || strings.Count(page, "<svg") != 2 {
		t.Errorf("%+v, %d plots on the page", res, strings.Count(page, "<svg"))
	}
	for _, w := range []string{
		"107 noise occurrences on CPUs 0,3, each an osnoise:sample_threshold event",
		"2 occurrences at or above the histogram's range of 10 µs (lengths not known)",
		"no rate: rtla osnoise hist records no thread's runtime (its -r of each -p period is not in the file), so its occurrences have no rate",
		"0 77 0 5.5µs 5.5µs 6.318µs 7.5µs 9.5µs 9.5µs 9.5µs 1.06µs 5µs 5.81µs 9µs",
		"3 30 2 6.5µs 8.5µs not known 9.5µs not known not known not known not known 6µs 7.1µs 29µs",
		"all 2 pooled 107 2 5.5µs 6.5µs not known 8.5µs not known not known not known not known - - -",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q:\n%s", w, text)
		}
	}
	// Each CPU a series; CPU 3's overflows at its range's end, at no
	// length.
	if !strings.Contains(page, "CPU 3: 2 overflows at or above 10 µs, values not known") || !strings.Contains(page, ">CPU 0<") {
		t.Error("the CDF lacks a CPU's series or CPU 3's overflow mark")
	}
	if strings.Contains(text, "per s") || strings.Contains(text, "time series of") {
		t.Errorf("a rate or a time series of a histogram:\n%s", text)
	}

	res, page = osnoisePage(t, true)
	if res.Results != 2 || res.Plots != 2 {
		t.Errorf("%+v", res)
	}
	goldie.New(t).Assert(t, "report-osnoise-noise", wrapped(pageText(t, page)))
}

// A hostile osnoise file, a few hundred KB: every CPU latlab reads
// (cyclictest.MaxThreads), counts near 2^40, a row at the last index the
// reader takes (just under a second), and no summary. The page stays small: a row for at
// most maxOsnoiseRows CPUs and every CPU pooled, one series in each plot,
// nothing expanded.
func TestReportOsnoiseBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex")
	const cpus = cyclictest.MaxThreads
	for c := range cpus {
		fmt.Fprintf(&b, " CPU-%03d", c)
	}
	b.WriteString("\n")
	row := func(label string, v func(c int) int64) {
		b.WriteString(label)
		for c := range cpus {
			fmt.Fprintf(&b, " %d", v(c))
		}
		b.WriteString("\n")
	}
	row("1", func(c int) int64 { return 1<<40 + int64(c) })
	row("2", func(c int) int64 { return int64(c % 2) })
	row("999999", func(int) int64 { return 1 })
	row("over:", func(c int) int64 { return 1 - int64(c%2) })
	dir := testutil.TempDir(t)
	f := filepath.Join(dir, "huge.osnoise")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, page := runPage(t, f)
	text := pageText(t, page)
	if res.Plots != 2 || res.Bytes > 200<<10 {
		t.Errorf("%+v: want 2 plots in at most 200 KiB", res)
	}
	// 64 CPU rows and the pooled one, each CPU's shown the ones with the
	// most occurrences (the last ones, their first row's count grows).
	rows := regexp.MustCompile(`(?m)^(\d+|all 4096 pooled) \d+ \d+ `).FindAllString(text, -1)
	if len(rows) != maxOsnoiseRows+1 || !strings.HasPrefix(rows[0], "4032 ") || !strings.HasPrefix(rows[len(rows)-1], "all 4096 pooled ") {
		t.Errorf("%d rows (%q ... %q):\n%.3000s", len(rows), rows[0], rows[len(rows)-1], text)
	}
	for _, w := range []string{"4096 CPUs: the table has a row for the 64 with the most noise occurrences (CPU 4032-4095); the other 4032 are counted in its row of every CPU pooled",
		"every CPU pooled (4096 CPUs, more than a plot tells apart)"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q:\n%.3000s", w, text)
		}
	}
}

// Two runs of operating-system noise, before and after a change, get the
// comparison latlab compare makes of them: two noise results, and two
// rtla osnoise histograms, as a noise result beside a histogram does.
func TestReportNoisePairCompared(t *testing.T) {
	dir := testutil.TempDir(t)
	before := noiseDoc(noiseRun(0, 10_000_000_000, ramp(80, 5000, 50)))
	after := noiseDoc(noiseRun(0, 10_000_000_000, ramp(40, 2000, 20)))
	a, b := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	for f, d := range map[string]*result.Document{a: before, b: after} {
		if err := result.WriteFile(f, d); err != nil {
			t.Fatal(err)
		}
	}
	x, y := filepath.Join(dir, "a.osnoise"), filepath.Join(dir, "b.osnoise")
	for _, f := range []string{x, y} {
		if err := os.WriteFile(f, []byte(osnoise2), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{a, b}, "CPU 0: after.json has fewer interruptions (4.00/s vs 8.00/s"},
		{[]string{x, y}, "CPU 0: b.osnoise vs a.osnoise: 77 interruptions and 77 interruptions, their rate not compared"},
	} {
		_, page := runPage(t, tc.files...)
		text := strings.Join(strings.Fields(pageText(t, page)), " ")
		if !strings.Contains(text, "Comparison of 2 runs of operating-system noise") || !strings.Contains(text, tc.want) {
			t.Errorf("%v: the page lacks the comparison (%q):\n%s", tc.files, tc.want, text)
		}
	}
	// One run alone has nothing to be compared with.
	_, page := runPage(t, a)
	if strings.Contains(page, "Comparison of") {
		t.Error("a comparison of one noise result")
	}
}

// In ns the range may end inside its last µs, whose occurrences count
// with the overflows; the table's over: column is still rtla's "over:"
// row, and the line says which is which.
func TestReportOsnoiseNsOver(t *testing.T) {
	const ns = "# RTLA osnoise histogram\n# Time unit is nanoseconds (ns)\n# Duration:   0 00:00:10\n" +
		"Index   CPU-000\n" +
		"1500          4 \n" +
		"2000          3 \n" +
		"2500          2 \n" +
		"over:         5 \n" +
		"count:       14 \n" +
		"min:       1500 \n" +
		"avg:    4000.00 \n" +
		"max:      20000 \n"
	f := filepath.Join(testutil.TempDir(t), "ns.osnoise")
	if err := os.WriteFile(f, []byte(ns), 0o644); err != nil {
		t.Fatal(err)
	}
	_, page := runPage(t, f)
	text := strings.Join(strings.Fields(pageText(t, page)), " ")
	for _, w := range []string{
		`10 occurrences at or above 2 µs (lengths not known): 5 in rtla's "over:" row and 5 in the last µs`, // the rows at 2000 and 2500 ns
		"0 14 5 ",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q:\n%s", w, text)
		}
	}
}

// A comparison of many CPUs is bounded as a section's rows are: a
// verdict and a table for each of the 64 CPUs with the most occurrences,
// and a note naming them (two copies of a 4,096-CPU file made a page of
// 3.6 MB, six of 10 MB).
func TestReportNoiseComparisonBounded(t *testing.T) {
	const cpus = 200
	var b strings.Builder
	b.WriteString("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex")
	for c := range cpus {
		fmt.Fprintf(&b, "   CPU-%03d", c)
	}
	for _, r := range []int{3, 7} {
		fmt.Fprintf(&b, "\n%-6d", r)
		for c := range cpus {
			fmt.Fprintf(&b, "%9d ", 1+c/10) // the last CPUs have the most
		}
	}
	b.WriteString("\nover: ")
	for range cpus {
		b.WriteString("        0 ")
	}
	b.WriteString("\n")
	dir := testutil.TempDir(t)
	x, y := filepath.Join(dir, "a.osnoise"), filepath.Join(dir, "b.osnoise")
	for _, f := range []string{x, y} {
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, page := runPage(t, x, y)
	text := strings.Join(strings.Fields(pageText(t, page)), " ")
	if n := strings.Count(text, ": interruptions over"); n != maxOsnoiseRows {
		t.Errorf("%d CPU tables in the comparison, want %d", n, maxOsnoiseRows)
	}
	if w := "200 CPUs compared: the page shows the 64 with the most occurrences over the runs (CPU 130-133,140-199)"; !strings.Contains(text, w) {
		t.Errorf("the page lacks %q:\n%.3000s", w, text)
	}
}

// rtla's max: and avg: are the file's word: one beyond what a duration holds is
// said so, not wrapped to a negative time.
func TestReportOsnoiseHugeMax(t *testing.T) {
	const huge = "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\n" +
		"Index   CPU-000\n1             2 \nover:         1 \ncount:        3 \nmin:          1 \navg:   4611686018427387904.00 \nmax:   9223372036854775807 \n"
	f := filepath.Join(testutil.TempDir(t), "huge.osnoise")
	if err := os.WriteFile(f, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	_, page := runPage(t, f)
	text := pageText(t, page)
	if strings.Count(text, "beyond 292 years") != 2 || strings.Contains(text, "-9223372036") {
		t.Errorf("rtla max: beyond a duration:\n%s", text)
	}
}
