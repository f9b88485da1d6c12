package rtla

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// hist is a histogram to write in rtla timerlat hist's layout.
type hist struct {
	osnoise bool // rtla osnoise hist's layout: CPU-NNN columns, avg: with decimals
	nano    bool
	cols    []string  // "IRQ-000", "Thr-000", ...
	rows    [][]int64 // index, then a count per column
	over    []int64
	summary bool // count:, min:, avg:, max:
	all     bool // the ALL: section (newer rtla)
	tail    string
}

// text writes h as rtla does (timerlat_hist.c: the index "%-6d", each
// value "%9d ", the summary's labels "count:", "min:  ", ...), its
// summary computed from the rows, as rtla's from the samples: min and
// max at their rows' indexes (buckets of one unit), avg the rows' mean.
func (h hist) text() string {
	var b strings.Builder
	unit := "microseconds (us)"
	if h.nano {
		unit = "nanoseconds (ns)"
	}
	tool := "timerlat"
	if h.osnoise {
		tool = "osnoise"
	}
	fmt.Fprintf(&b, "# RTLA %s histogram\n# Time unit is %s\n# Duration:   0 00:00:10\nIndex", tool, unit)
	for _, c := range h.cols {
		fmt.Fprintf(&b, "   %s", c)
	}
	b.WriteString("\n")
	n := len(h.cols)
	count, sum := make([]int64, n), make([]int64, n)
	lo, hi := slices.Repeat([]int64{-1}, n), make([]int64, n)
	for _, r := range h.rows {
		fmt.Fprintf(&b, "%-6d", r[0])
		for j, c := range r[1:] {
			fmt.Fprintf(&b, "%9d ", c)
			count[j] += c
			sum[j] += c * r[0]
			if c > 0 {
				if lo[j] < 0 {
					lo[j] = r[0]
				}
				hi[j] = r[0]
			}
		}
		b.WriteString("\n")
	}
	over := h.over
	if over == nil {
		over = make([]int64, n)
	}
	b.WriteString("over: ")
	for j, o := range over {
		fmt.Fprintf(&b, "%9d ", o)
		count[j] += o
	}
	b.WriteString("\n")
	line := func(label string, v []int64) {
		b.WriteString(label)
		for _, x := range v {
			if x < 0 {
				fmt.Fprintf(&b, "%9c ", '-')
			} else {
				fmt.Fprintf(&b, "%9d ", x)
			}
		}
		b.WriteString("\n")
	}
	if h.summary {
		avg := make([]int64, n)
		for j := range avg {
			avg[j] = -1
			if count[j] > 0 {
				avg[j] = sum[j] / count[j]
			}
		}
		line("count:", count)
		line("min:  ", lo)
		if h.osnoise { // osnoise_print_summary: "%9.2f "
			b.WriteString("avg:  ")
			for j := range count {
				fmt.Fprintf(&b, "%9.2f ", float64(sum[j])/float64(count[j]))
			}
			b.WriteString("\n")
		} else {
			line("avg:  ", avg)
		}
		line("max:  ", hi)
	}
	if h.all {
		b.WriteString("ALL:  ")
		var names []string
		for _, k := range []string{"IRQ", "Thr", "Usr"} {
			if slices.ContainsFunc(h.cols, func(c string) bool { return strings.HasPrefix(c, k) }) {
				names = append(names, k)
				fmt.Fprintf(&b, "%10s", k)
			}
		}
		b.WriteString("\n")
		tot := make([]int64, len(names))
		for i, k := range names {
			for j, c := range h.cols {
				if strings.HasPrefix(c, k) {
					tot[i] += count[j]
				}
			}
		}
		line("count:", tot)
		line("min:  ", tot)
		line("avg:  ", tot)
		line("max:  ", tot)
	}
	b.WriteString(h.tail)
	return b.String()
}

// twoCPUs is rtla -c 0-1's default layout before user-space threads.
var twoCPUs = hist{cols: []string{"IRQ-000", "Thr-000", "IRQ-001", "Thr-001"},
	rows: [][]int64{{0, 90, 0, 80, 0}, {1, 10, 5, 20, 1}, {2, 0, 60, 0, 40}, {3, 0, 30, 0, 59}, {7, 0, 5, 0, 0}},
	over: []int64{0, 0, 0, 1}, summary: true, all: true}

func TestRead(t *testing.T) {
	user := hist{cols: []string{"IRQ-002", "Thr-002", "Usr-002"},
		rows: [][]int64{{1, 5, 0, 0}, {4, 0, 3, 0}, {5, 0, 2, 1}, {6, 0, 0, 4}}, summary: true, all: true,
		tail: "timerlat hit stop tracing\n## CPU 2 hit stop tracing, analyzing it ##\n  IRQ handler delay:   1.50 us (0.56 %)\n"}
	noSummary := twoCPUs
	noSummary.summary, noSummary.all = false, false
	old := twoCPUs // an older rtla: no ALL:
	old.all = false
	nano := hist{nano: true, cols: []string{"IRQ-000", "Thr-000"},
		rows: [][]int64{{1500, 2, 0}, {2000, 0, 3}, {2250, 0, 1}, {3750, 0, 4}}, over: []int64{0, 2}, summary: true, all: true}
	cases := []struct {
		name    string
		in      string
		thr     []int64 // the Thr columns' 1 µs buckets
		over    int64
		rangeUs int64
		missed  int64
		stopped bool
	}{
		{"two CPUs, ALL section", twoCPUs.text(), []int64{0, 6, 100, 89, 0, 0, 0, 5}, 1, 8, 0, false},
		{"older rtla: no ALL section", old.text(), []int64{0, 6, 100, 89, 0, 0, 0, 5}, 1, 8, 0, false},
		{"--no-summary", noSummary.text(), []int64{0, 6, 100, 89, 0, 0, 0, 5}, 1, 8, 0, false},
		{"user threads, auto-analysis after", user.text(), []int64{0, 0, 0, 0, 3, 2, 0}, 0, 7, 0, true},
		// 1500 ns..: bucket 1 holds 0 Thr; 2000 and 2250 ns fall in µs 2;
		// 3750 ns in µs 3, which rtla's range (its 3750 ns row's end, or
		// further) may end inside: counted with the 2 overflows.
		{"ns buckets summed into µs", nano.text(), []int64{0, 0, 4}, 6, 3, 0, false},
		{"missed events, CRLF, messages before", "Saving trace to timerlat_trace.txt\r\n" + strings.ReplaceAll(twoCPUs.text(), "\n", "\r\n") + "12 (0.01%) events missed, results might not be accurate\r\n",
			[]int64{0, 6, 100, 89, 0, 0, 0, 5}, 1, 8, 12, false},
		{"unknown missed events", twoCPUs.text() + "unknown number of events missed, results might not be accurate\n", []int64{0, 6, 100, 89, 0, 0, 0, 5}, 1, 8, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			ct, err := h.Cyclictest(Thread)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ct.Counts, c.thr) || ct.Overflows != c.over || ct.RangeUs != c.rangeUs || h.Missed != c.missed || h.Stopped != c.stopped {
				t.Errorf("got counts %v over %d range %d missed %d stopped %v, want %v %d %d %d %v",
					ct.Counts, ct.Overflows, ct.RangeUs, h.Missed, h.Stopped, c.thr, c.over, c.rangeUs, c.missed, c.stopped)
			}
			var sum int64
			for _, k := range c.thr {
				sum += k
			}
			if ct.InRange != sum || ct.Samples() != h.Samples(Thread) || ct.Threads != len(h.CPUs(Thread)) {
				t.Errorf("in range %d samples %d threads %d; want %d, %d, %d", ct.InRange, ct.Samples(), ct.Threads, sum, h.Samples(Thread), len(h.CPUs(Thread)))
			}
		})
	}
}

// The bucket size is not written: it is found from the rows, or the
// summary, or the file is refused.
func TestBucketSize(t *testing.T) {
	// rtla -b 10: rows at 0, 10, 20 (arcaflow-plugin-rtla's example of
	// rtla -u -b 10 has this shape); its min: and max: are latencies
	// inside them.
	wide := "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-001   Thr-001\n0          1000       944\n10            0        55\n20            0         1\nover:         0         0\ncount:     1000      1000\nmin:          0         3\navg:          1         7\nmax:          7        21\n"
	sparse := hist{cols: []string{"IRQ-000", "Thr-000"}, rows: [][]int64{{6, 1, 0}, {21, 0, 1}}, summary: true, all: true}
	sparseNoSummary := sparse
	sparseNoSummary.summary, sparseNoSummary.all = false, false
	nanoOdd := hist{nano: true, cols: []string{"Thr-000"}, rows: [][]int64{{0, 1}, {3, 1}, {6, 2}}}
	cases := []struct {
		name, in, err string
	}{
		{"-b 10", wide, "buckets are wider than 1 µs (rtla -b)"},
		{"sparse rows, the summary agrees", sparse.text(), ""},
		{"sparse rows, no summary", sparseNoSummary.text(), "multiples of 3 µs and it has no summary"},
		{"ns buckets of 3 ns", nanoOdd.text(), "multiples of 3 ns and it has no summary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Cyclictest(Thread)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("got %v, want %q", err, c.err)
			}
			if err != nil && !strings.Contains(err.Error(), "compare takes rtla histograms of 1 µs buckets") {
				t.Errorf("%v: does not say what is accepted", err)
			}
		})
	}
}

func TestReadBad(t *testing.T) {
	good := twoCPUs.text()
	lines := strings.SplitAfter(good, "\n")
	cut := func(n int) string { return strings.Join(lines[:n], "") } // the first n lines
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q is not in the file", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	cases := []struct{ name, in, err string }{
		{"not rtla's", "000000 000001\n# Histogram Overflows: 00000\n", ErrNotRTLA.Error()},
		{"--no-header", strings.Join(lines[4:], ""), "no \"# RTLA timerlat histogram\" or \"# RTLA osnoise histogram\" header"},
		{"a CPU column in timerlat's", replace("IRQ-001", "CPU-001"), "column \"CPU-001\" (want IRQ-NNN, Thr-NNN or Usr-NNN"},
		{"no time unit", strings.Replace(good, "# Time unit is microseconds (us)\n", "", 1), "no \"# Time unit is ...\" line"},
		{"another unit", replace("microseconds (us)", "milliseconds (ms)"), "a time unit other than"},
		{"--no-index", replace("Index   IRQ-000", "   IRQ-000"), "without an Index column (rtla --no-index)"},
		{"cut in the header", cut(2), "no Index line"},
		{"cut in the rows", cut(6), "no \"over:\" row"},
		{"cut in the summary", cut(12), "ends before the summary's \"avg:\""},
		{"cut in the ALL section", cut(16), "ends before the \"ALL:\" section's \"min:\""},
		{"count disagrees with the rows", replace("count:      100", "count:      101"), "\"count:\" says 101 samples in column IRQ-000, its rows and \"over:\" hold 100"},
		{"ALL count disagrees", replace("count:      200", "count:      201"), "\"ALL:\" counts 201 IRQ samples, the IRQ columns' \"count:\" 200"},
		{"a row short of a column", replace("\n7             0         5         0         0 ", "\n7             0         5         0"), "3 values for 4 columns"},
		{"a row with a column more", replace("\n7             0         5         0         0 ", "\n7             0         5         0         0 1"), "5 values for 4 columns"},
		{"over: short", replace("over:         0         0         0         1 ", "over:         0         0         0"), "\"over:\": 3 values for 4 columns"},
		{"rows not increasing", replace("\n3 ", "\n1 "), "index 1 after 2"},
		{"negative count (rtla's int wrapped)", replace("\n7             0         5", "\n7             0        -5"), "\"-5\" is negative"},
		{"a count beyond 64 bits", replace("\n7             0         5", "\n7             0 99999999999999999999"), "more than a 64-bit count"},
		{"counts summing beyond 64 bits", replace("\n7             0         5", "\n7             0 9223372036854775807"), "more than a 64-bit count"},
		{"an index beyond a second", replace("\n7 ", "\n1000000 "), "at or above the 1000000"},
		{"a column twice", replace("IRQ-001", "IRQ-000"), "column IRQ-000 twice"},
		{"an unknown column", replace("IRQ-001", "Foo-001"), "column \"Foo-001\""},
		{"no column", "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex\nover:\n", "rtla recorded no sample on any CPU"},
		{"ALL names disagree", replace("ALL:         IRQ       Thr", "ALL:         IRQ       Usr"), "\"ALL:\" names [IRQ Usr], the columns [IRQ Thr]"},
		{"a second histogram", good + good, "a second histogram"},
		{"garbage in the rows", replace("\n7 ", "\nseven "), "neither a row"},
		{"count: missing", strings.Replace(good, "count:      100       100       100       101 \n", "", 1), "\"min:\" where rtla writes \"count:\""},
		{"min beyond 64 bits", replace("min:          0", "min:   99999999999999999999"), "more than a 64-bit count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want %q", err, c.err)
			}
		})
	}
}

// What rtla prints to stdout around the histogram (tools/tracing/rtla/src:
// common.c, run_tool: the --on-threshold actions during hist_main_loop,
// then print_stats, then actions_perform(&params->end_actions), then
// printf("%s hit stop tracing\n", ops->tracer) and ops->analyze, which is
// timerlat_auto_analysis in timerlat_aa.c; older timerlat_hist_main and
// osnoise_hist_main: printf("rtla timerlat hit stop tracing\n") and
// printf("  Saving trace to %s\n", ...) after the histogram; trace.c,
// trace_event_save_hist: "  Saving event %s:%s hist to %s\n" last). An
// action's shell,command= writes to the same stdout at once, while rtla's
// own output waits in stdio's buffer when stdout is a file or a pipe, so
// an --on-end action's output can land before the header or anywhere
// inside the histogram, even inside a line. The files are written here in
// rtla's layout (hist.text), the actions' output being "done" (an
// `echo done`, with its newline, or `printf done`, without).
func TestActionOutput(t *testing.T) {
	good := twoCPUs.text()
	noSummary := twoCPUs
	noSummary.summary, noSummary.all = false, false
	insert := func(s, after, what string) string {
		t.Helper()
		i := strings.Index(s, after)
		if i < 0 {
			t.Fatalf("%q is not in the file", after)
		}
		return s[:i+len(after)] + what + s[i+len(after):]
	}
	read := []struct {
		name, in string
		stopped  bool
	}{
		{"--on-threshold output before the header", "done\ndone\n" + good, false},
		// printf done, then rtla's "# RTLA timerlat histogram": one line
		{"action output without its newline, on the header's line", "done" + good, false},
		{"--on-end output, the stop and the auto-analysis after", good + "done\ntimerlat hit stop tracing\n## CPU 1 hit stop tracing, analyzing it ##\n  IRQ handler delay:                     1.30 us (0.11 %)\n  Saving event osnoise:sample_threshold hist to osnoise_sample_threshold_hist.txt\n", true},
		{"--on-end output without its newline, on the stop's line", good + "donetimerlat hit stop tracing\n", true},
		{"older rtla: the stop and the trace saved after", good + "rtla timerlat hit stop tracing\n  Saving trace to timerlat_trace.txt\n", true},
		{"--no-summary, --on-end output after", noSummary.text() + "done\n", false},
	}
	for _, c := range read {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			ct, err := h.Cyclictest(Thread)
			if err != nil || !slices.Equal(ct.Counts, []int64{0, 6, 100, 89, 0, 0, 0, 5}) || ct.Overflows != 1 || h.Stopped != c.stopped {
				t.Errorf("read %+v %v, stopped %v", ct, err, h.Stopped)
			}
		})
	}
	const hint = "an --on-end or --on-threshold action's output"
	refused := []struct{ name, in, err string }{
		{"a line inside the header", insert(good, "(us)\n", "done\n"), "\"done\", neither a \"#\" header line nor the Index line"},
		{"a line among the rows", insert(good, "20         1 \n", "done\n"), "\"done\", neither a row"},
		// rtla's row "1    10    5    20    1 " cut after its last
		// digit, "3\n" written there, then the row's " \n": without the
		// summary, nothing else would tell Thr-001's 1 from 13.
		{"a number joined to a row's last value, --no-summary", insert(noSummary.text(), "       20         1", "3\n"), "line 6: ends without the space that rtla writes after each value, which line 5 ends with"},
		{"a number joined to a row's last value", insert(good, "       20         1", "3\n"), "ends without the space"},
		// printf 3 at the start of rtla's last row "7    0    5 ...":
		// its index, 37, still after the row before; its Thr-000 max:,
		// 7, tells (timerlat_hist_update puts a latency in the row of
		// its bucket, whose index is at most the latency).
		{"a number joined to the last row's index", insert(good, "3             0        30         0        59 \n", "3"), "column Thr-000's \"max:\" 7 is below its last row with a sample, 37"},
		{"a line between over: and count:", insert(good, "over:         0         0         0         1 \n", "done\n"), "rtla's \"count:\" line after lines it does not write"},
		{"a line between max: and ALL:", insert(good, "max:          1         7         1         3 \n", "done\n"), "rtla's \"ALL:\" line after lines it does not write"},
		{"a line inside ALL:", insert(good, "ALL:         IRQ       Thr\n", "done\n"), "\"done\" where rtla writes the \"ALL:\" section's \"count:\""},
		{"a line inside the summary", insert(good, "count:      100       100       100       101 \n", "done\n"), "where rtla writes \"min:\""},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want %q", err, c.err)
			}
			if !strings.Contains(err.Error(), hint) {
				t.Errorf("%v: does not say what may have put it there", err)
			}
		})
	}
}

// rtla osnoise hist writes no "ALL:" section (osnoise_hist.c,
// osnoise_print_summary: count:, min:, avg:, max: per CPU; osnoise_print_stats
// calls it and osnoise_report_missed_events, nothing else, in the versions
// read: an early one (osnoise_hist_params, an integer avg:), one with
// "Better report when histogram is empty", and those of the common_params
// and for_each_monitored_cpu rewrites), unlike timerlat hist
// (timerlat_print_stats_all): one is refused, with or without the summary
// before it. The section is written here in timerlat's layout with a CPU
// column.
func TestOsnoiseAllRefused(t *testing.T) {
	all := "ALL:        CPU\ncount:       54 \nmin:          1 \navg:       2.00 \nmax:         17 \n"
	noSummary := quietCPUs
	noSummary.summary = false
	for _, in := range []string{quietCPUs.text() + all, noSummary.text() + all, quietCPUs.text() + "done\n" + all} {
		_, err := Read(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "an \"ALL:\" section, which rtla osnoise hist does not write") {
			t.Errorf("got %v", err)
		}
	}
}

// Older rtla wrote a column with no sample's min: as ~0 (John
// Kacur's fix, "rtla/timerlat: Fix histogram report when a cpu count is
// 0", quotes one): it is read as "-" is.
func TestNoSampleMin(t *testing.T) {
	in := "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-001   Thr-001   Usr-001\n2             1         0         0\n33            0         1         0\nover:         0         0         0\ncount:        1         1         0\nmin:          2        33 18446744073709551615\navg:          2        33         -\nmax:          2        33         0\n"
	h, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if h.Min[2] != -1 || h.Avg[2] != -1 || h.Samples(User) != 0 {
		t.Errorf("min %v avg %v", h.Min, h.Avg)
	}
	if _, err := h.Cyclictest(User); err == nil || !strings.Contains(err.Error(), "its Usr columns hold no sample") {
		t.Errorf("got %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := testutil.TempDir(t)
	bad := filepath.Join(dir, "bad.txt")
	other := filepath.Join(dir, "other.txt")
	if err := os.WriteFile(bad, []byte(strings.Replace(twoCPUs.text(), "count:      100", "count:      101", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("000000 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); !badinput.Is(err) || !strings.Contains(err.Error(), "bad.txt") {
		t.Errorf("got %v, want bad input naming the file", err)
	}
	if _, err := ReadFile(other); !errors.Is(err, ErrNotRTLA) {
		t.Errorf("got %v, want ErrNotRTLA", err)
	}
}

// FuzzRead: any input is read or refused with an error, never a panic,
// and what is converted holds together.
func FuzzRead(f *testing.F) {
	f.Add(twoCPUs.text())
	f.Add(hist{nano: true, cols: []string{"IRQ-000", "Thr-000", "Usr-000"}, rows: [][]int64{{1500, 2, 0, 1}, {2000, 0, 3, 3}}, over: []int64{0, 2, 1}, summary: true}.text())
	f.Add("x\n# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex Thr-000\n6 1\n21 1\nover: 0\ncount: 2\nmin: 6\navg: 13\nmax: 21\ntimerlat hit stop tracing\n")
	f.Add(quietCPUs.text())
	f.Add("# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n")
	f.Add("done" + twoCPUs.text() + "done\ntimerlat hit stop tracing\n")
	f.Add(strings.Replace(twoCPUs.text(), "       20         1", "       20         13\n", 1))
	f.Add("# RTLA osnoise histogram\n# Time unit is nanoseconds (ns)\nIndex   CPU-000\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n")
	f.Add(quietCPUs.text() + "ALL:        CPU\ncount:       54 \nmin:          1 \navg:       2.00 \nmax:         17 \n")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		sameAsCPU(t, h)
		for _, col := range h.Columns {
			ct, ok, err := h.CPU(col.Context, col.CPU)
			if !ok {
				t.Fatalf("column %v not found", col)
			}
			if err != nil {
				continue
			}
			var sum int64
			for _, k := range ct.Counts {
				sum += k
			}
			if k := slices.Min(append([]int64{0}, ct.Counts...)); k < 0 || sum != ct.InRange || ct.Threads != 1 || int64(len(ct.Counts)) != ct.RangeUs {
				t.Fatalf("column %v inconsistent: %+v", col, ct)
			}
		}
		for _, c := range []Context{IRQ, Thread, User, Noise} {
			ct, err := h.Cyclictest(c)
			if err != nil {
				continue
			}
			var sum int64
			for _, k := range ct.Counts {
				if k < 0 {
					t.Fatalf("negative bucket %d", k)
				}
				sum += k
			}
			if sum != ct.InRange || ct.Samples() != h.Samples(c) || ct.Samples() <= 0 || int64(len(ct.Counts)) != ct.RangeUs || ct.Threads < 1 {
				t.Fatalf("inconsistent: %+v", ct)
			}
		}
	})
}

// quietCPUs is rtla osnoise hist -c 0-3's layout when CPUs 1 and 2 had
// no noise: it names only CPU-000 and CPU-003.
var quietCPUs = hist{osnoise: true, cols: []string{"CPU-000", "CPU-003"},
	rows: [][]int64{{1, 40, 0}, {2, 7, 1}, {5, 0, 3}, {17, 1, 0}}, over: []int64{0, 2}, summary: true}

func TestReadOsnoise(t *testing.T) {
	h, err := Read(strings.NewReader(quietCPUs.text() + "rtla osnoise hit stop tracing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !h.Osnoise || !h.Has(Noise) || h.Has(Thread) || !slices.Equal(h.CPUs(Noise), []int{0, 3}) || !h.Stopped {
		t.Fatalf("read %+v", h)
	}
	if !slices.Equal(h.Avg, []int64{1, 2}) { // 71/48 = 1.48 and 17/6 = 2.83 (the over: row counted, not summed), rounded down
		t.Errorf("avg %v, want [1 2]", h.Avg)
	}
	if !slices.Equal(h.AvgCents, []int64{148, 283}) { // as written, its decimals kept
		t.Errorf("avg in hundredths %v, want [148 283]", h.AvgCents)
	}
	if n := h.ColumnSamples(Column{Noise, 3}); n != 6 || h.ColumnSamples(Column{Noise, 1}) != 0 {
		t.Errorf("CPU 3's samples %d, want 6 (its over: row counted); CPU 1, no column: %d", n, h.ColumnSamples(Column{Noise, 1}))
	}
	c3, ok, err := h.CPU(Noise, 3)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if !slices.Equal(c3.Counts, []int64{0, 0, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) || c3.Overflows != 2 || c3.Samples() != 6 || c3.RangeUs != 18 {
		t.Errorf("CPU 3: %+v", c3)
	}
	if _, ok, err := h.CPU(Noise, 1); ok || err != nil {
		t.Errorf("CPU 1, which the file does not name: %v %v", ok, err)
	}
	all, err := h.Cyclictest(Noise)
	if err != nil || all.Samples() != 54 || all.Threads != 2 {
		t.Errorf("pooled: %+v %v", all, err)
	}

	// No CPU had noise: no column, and a single 0 on each line.
	none, err := Read(strings.NewReader("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n"))
	if err != nil || len(none.Columns) != 0 || !none.Osnoise {
		t.Fatalf("no noise: %+v %v", none, err)
	}
	// Before Linux 6.11, the same lines without their 0.
	none, err = Read(strings.NewReader("# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:05\nIndex\nover:\ncount:\nmin:\navg:\nmax:\n"))
	if err != nil || len(none.Columns) != 0 {
		t.Fatalf("no noise, older rtla: %+v %v", none, err)
	}

	// The layout of rtla's own documentation (integer avg:), in ns.
	ns, err := Read(strings.NewReader("# RTLA osnoise histogram\n# Time unit is nanoseconds (ns)\n# Duration:   0 00:01:00\nIndex   CPU-000\n1500      3 \n2300      1 \nover:      0 \ncount:     4 \nmin:    1500 \navg:    1687 \nmax:    2300 \n"))
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err := ns.CPU(Noise, 0); err != nil || !slices.Equal(c.Counts, []int64{0, 3, 1}) {
		t.Errorf("ns: %+v %v", c, err)
	}
}

func TestReadOsnoiseBad(t *testing.T) {
	good := quietCPUs.text()
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q is not in the file", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	lines := strings.SplitAfter(good, "\n")
	cut := func(n int) string { return strings.Join(lines[:n], "") }
	empty := "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n"
	cases := []struct{ name, in, err string }{
		{"a Thr column in osnoise's", replace("CPU-003", "Thr-003"), "column \"Thr-003\" (want CPU-NNN"},
		{"a CPU twice", replace("CPU-003", "CPU-000"), "column CPU-000 twice"},
		{"cut in the rows", cut(6), "no \"over:\" row"},
		{"cut in the summary", cut(11), "ends before the summary's \"avg:\""},
		{"count disagrees", replace("count:       48", "count:       49"), "\"count:\" says 49 samples in column CPU-000, its rows and \"over:\" hold 48"},
		{"a row short of a column", replace("\n5             0         3 ", "\n5             0"), "1 values for 2 columns"},
		{"avg: not a number", replace("1.48", "1.4x"), "\"1.4x\" is not a number with decimals"},
		{"avg: a bare point", replace("1.48", "1."), "\"1.\" is not a number with decimals"},
		{"no column, two values", strings.Replace(empty, "over: 0", "over: 0 0", 1), "\"over:\": 2 values where rtla osnoise hist, with no column (no CPU had noise), writes a single 0 or none"},
		{"no column, a count", strings.Replace(empty, "count: 0", "count: 3", 1), "writes a single 0"},
		// osnoise_print_stats with CPUs in the header but no row in range
		// (Linux 6.11 on): a single 0 per summary line, whatever the
		// counts; with one CPU those 0s would read as no noise.
		{"every occurrence over the range, 2 CPUs", "# RTLA osnoise histogram\n# Time unit is nanoseconds (ns)\n# Duration:   0 00:00:10\nIndex   CPU-000   CPU-001\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n",
			"line 5: rtla osnoise hist names 2 CPU columns but writes no row and a single 0 on its summary lines: every noise occurrence was at or above the histogram's range"},
		{"every occurrence over the range, 1 CPU", "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex   CPU-003\nover: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n",
			"names 1 CPU column but writes no row"},
		{"a second histogram", good + good, "a second histogram"},
		{"--no-index", replace("Index   CPU-000", "   CPU-000"), "without an Index column (rtla --no-index)"},
		{"--no-header", strings.Join(lines[4:], ""), "no \"# RTLA timerlat histogram\" or \"# RTLA osnoise histogram\" header"},
		{"the Index line without the header", strings.Join(lines[3:], ""), "the Index line without rtla's header before it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want %q", err, c.err)
			}
		})
	}
}

// TestOsnoiseBucket: osnoise hist's min: and max: are bucket bounds, so
// only rows that are not all at multiples of one size prove 1 µs buckets.
func TestOsnoiseBucket(t *testing.T) {
	cases := []struct {
		name string
		h    hist
		err  string
	}{
		{"1 µs rows", quietCPUs, ""},
		{"-b 10", hist{osnoise: true, cols: []string{"CPU-000"}, rows: [][]int64{{0, 430}, {10, 88}, {20, 19}, {30, 6}}, summary: true},
			"its rows are all at multiples of 10 µs: the bucket size (rtla -b) is not written in the file"},
		{"one row at 0", hist{osnoise: true, cols: []string{"CPU-000"}, rows: [][]int64{{0, 4}}, summary: true}, "multiples of 0 µs"},
		{"-b 2 in ns", hist{osnoise: true, nano: true, cols: []string{"CPU-000"}, rows: [][]int64{{1500, 1}, {2300, 1}}, summary: true}, ""},
		{"-b 2000 in ns", hist{osnoise: true, nano: true, cols: []string{"CPU-000"}, rows: [][]int64{{2000, 1}, {6000, 1}}, summary: true}, "multiples of 2000 ns"},
		{"every sample over", hist{osnoise: true, cols: []string{"CPU-000"}, over: []int64{3}, summary: true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(c.h.text()))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = h.CPU(Noise, 0)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("got %v, want %q", err, c.err)
			}
		})
	}
}
