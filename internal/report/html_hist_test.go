package report

import (
	"context"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

const rtlaHist = "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-000   Thr-000\n0         5         0\n1         0         5\nover:     0         0\n"

// pageText is a page as its reader sees it: each plot as its caption,
// tags dropped, the generation time and version left out, a line per
// paragraph or table row.
func pageText(t *testing.T, page string) string {
	t.Helper()
	s := regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAllString(page, "")
	s = regexp.MustCompile(`(?s)<figure>.*?<figcaption>(.*?)</figcaption></figure>`).ReplaceAllString(s, "[plot: $1]")
	s = regexp.MustCompile(`generated \S+ by latlab \S+;`).ReplaceAllString(s, "generated TIME by latlab VERSION;")
	s = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ")
	var out []string
	for _, l := range strings.Split(html.UnescapeString(s), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// wrapped is text with its lines wrapped to the goldens' 80 columns.
func wrapped(text string) []byte {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		writeProse(&b, l, 2)
	}
	return []byte(b.String())
}

func runPage(t *testing.T, files ...string) (*Result, string) {
	t.Helper()
	out := filepath.Join(testutil.TempDir(t), "r.html")
	res, err := Run(context.Background(), Options{Files: files, Out: out, Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// A cyclictest histogram with overflows beside the wake result it is
// compared with: each side's section (the histogram's from its buckets,
// its overflows' statistics not known), and the comparison compare
// makes, its "?" lines included.
func TestReportHistogramMixedPage(t *testing.T) {
	res, page := runPage(t, fixture("mixed.hist"), fixture("mixed-wake.json"))
	if res.Results != 2 || res.Plots != 6 || strings.Count(page, "<svg") != 6 {
		t.Errorf("%+v, %d plots on the page", res, strings.Count(page, "<svg"))
	}
	// The histogram's buckets in its own CDF and in the overlaid one:
	// compare's runs hold none of its values (nothing is expanded).
	if n := strings.Count(page, "mixed.hist: 5 overflows at or above 40 µs, values not known"); n != 2 {
		t.Errorf("the histogram's overflow mark in %d CDFs, want its own and the overlaid one", n)
	}
	goldie.New(t).Assert(t, "report-hist-mixed", wrapped(pageText(t, page)))
}

// Each kind of histogram compare reads is a side of the page, shown from
// its buckets with what it is.
func TestReportAcceptsHistograms(t *testing.T) {
	dir := testutil.TempDir(t)
	hist, rtla := filepath.Join(dir, "a.hist"), filepath.Join(dir, "a.rtla")
	if err := os.WriteFile(hist, []byte("000000 5\n000001 3\n# Histogram Overflows: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rtla, []byte(rtlaHist), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{hist, []string{"cyclictest histogram, 1 thread column; wake-up latency in 1 µs buckets", "9 wake-ups, 1 overflow at or above the histogram's range of 2 µs",
			"a.hist: a cyclictest histogram (its one thread column"}},
		{rtla, []string{"rtla timerlat histogram, Thr columns of 1 CPU pooled; wake-up latency in 1 µs buckets", "5 wake-ups, all within the histogram's range of",
			"a.rtla: not compared: its IRQ columns"}},
	} {
		res, page := runPage(t, c.file)
		text := pageText(t, page)
		if res.Results != 1 || res.Plots != 2 {
			t.Errorf("%s: %+v", c.file, res)
		}
		for _, w := range append(c.want, "order not known: a histogram keeps no order of its wake-ups, so it has no time series") {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the page lacks %q:\n%s", c.file, w, text)
			}
		}
		// Not a document: no host facts of a host it never named.
		if strings.Contains(text, "host and timer facts") || strings.Contains(text, "0001-01-01") {
			t.Errorf("%s: a document's facts on a histogram's section:\n%s", c.file, text)
		}
	}
	// Both kinds together are compared, as compare does, whichever
	// comes first (an rtla side has a kind of its own).
	for _, files := range [][]string{{hist, rtla}, {rtla, hist}} {
		_, page := runPage(t, files...)
		if !strings.Contains(page, "Comparison of 2 runs of wake-up latency (wake results and histograms)") {
			t.Errorf("%v: no comparison of a cyclictest and an rtla histogram", files)
		}
	}
}

// A histogram's overflows have no value: the statistics they reach are
// "not known" with the reason, and no plot draws them at a latency; a
// histogram that is all overflows has nothing to plot.
func TestReportHistogramOverflows(t *testing.T) {
	dir := testutil.TempDir(t)
	some, all := filepath.Join(dir, "some.hist"), filepath.Join(dir, "all.hist")
	os.WriteFile(some, []byte("000000 0\n000001 0\n000002 0\n000003 0\n000004 0\n000005 0\n000006 0\n000007 0\n000008 0\n000009 990\n# Histogram Overflows: 10\n"), 0o644)
	os.WriteFile(all, []byte("000000 0\n000001 0\n# Histogram Overflows: 4\n"), 0o644)
	_, page := runPage(t, some)
	text := pageText(t, page)
	for _, w := range []string{"p99 9.5µs", "p99.9 not known", "max not known", "mean not known", "stdev not known",
		"not known: p99.9, max, mean, stdev: 10 of its 1000 wake-ups overflowed the histogram's range of 10 µs",
		"1000 wake-ups, 10 overflows at or above the histogram's range of 10 µs (values not known)"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q:\n%s", w, text)
		}
	}
	// The stand-in value compare counts them at (2^50 ns, 13 days) is on
	// no axis: the CDF ends at the range, where its dashed mark stands.
	if strings.Contains(page, "days") || regexp.MustCompile(`>\d+(\.\d+)? (s|ms)<`).MatchString(page) {
		t.Error("a plot's axis reaches past the histogram's range")
	}
	for _, w := range []string{"10 overflows at or above 10 µs, values not known", "10 overflows (values not known) not shown"} {
		if !strings.Contains(page, w) {
			t.Errorf("the plots lack %q", w)
		}
	}
	res, page := runPage(t, all)
	text = pageText(t, page)
	if res.Plots != 0 || !strings.Contains(text, "min not known") || !strings.Contains(text, "not known: min, p50, p90, p99, p99.9, max, mean, stdev: 4 of its 4 wake-ups") ||
		!strings.Contains(text, "every wake-up overflowed: no value is known, and nothing is plotted") {
		t.Errorf("a histogram of overflows only: %+v\n%s", res, text)
	}
}

// A histogram of about 12 million wake-ups, in a few KB of text: the page is
// drawn from its buckets, never from its wake-ups one by one, which would
// pass the samples one command may rebuild (result.MaxRebuilt) and fail;
// and the page stays small, its plots of the buckets' size.
func TestReportLargeHistogramFromBuckets(t *testing.T) {
	dir := testutil.TempDir(t)
	var b strings.Builder
	const per, buckets = 200_000, 100
	for i := range buckets {
		// A bell over the buckets, about 12 million in all.
		fmt.Fprintf(&b, "%06d %d\n", i, int(per*2*math.Exp(-math.Pow(float64(i-40)/14, 2)))+per/10)
	}
	b.WriteString("# Histogram Overflows: 7\n")
	big, other := filepath.Join(dir, "big.hist"), filepath.Join(dir, "other.hist")
	os.WriteFile(big, []byte(b.String()), 0o644)
	os.WriteFile(other, []byte(b.String()), 0o644)
	// Two of them and a wake result: the comparison is drawn from the
	// buckets too.
	res, page := runPage(t, big, other, fixture("mixed-wake.json"))
	text := pageText(t, page)
	m := regexp.MustCompile(`big\.hist\s+cyclictest histogram[^\n]*\n(\d+) wake-ups`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no count of big.hist's wake-ups:\n%s", text)
	}
	var n int64
	fmt.Sscan(m[1], &n)
	if n <= 10_000_000 || n <= result.MaxRebuilt() {
		t.Fatalf("%d wake-ups: not more than 10 million and the %d samples a command may rebuild", n, result.MaxRebuilt())
	}
	if res.Plots != 8 || res.Bytes > 400<<10 {
		t.Errorf("%+v: want 8 plots in at most 400 KiB", res)
	}
}
