package cyclictest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

// footer is a two-thread footer with no overflow, the totals given.
func footer(t0, t1 string) string {
	return "# Total: " + t0 + " " + t1 + "\n# Min Latencies: 00001 00001\n# Avg Latencies: 00002 00002\n# Max Latencies: 00002 00002\n# Histogram Overflows: 00000 00000\n# Histogram Overflow at cycle number:\n# Thread 0:\n# Thread 1:\n"
}

func TestRead(t *testing.T) {
	cases := []struct {
		name, in  string
		counts    []int64
		threads   int
		all       bool
		rangeUs   int64
		overflows int64
	}{
		{"two threads pooled", "# Histogram\n000000 000000\t000000\n000001 000002\t000001\n000002 000000\t000003\n" + footer("000000002", "000000004"),
			[]int64{0, 3, 3}, 2, false, 3, 0},
		{"rows with gaps hold none", "000001 000002\n000004 000001\n# Total: 3\n# Histogram Overflows: 00007\n",
			[]int64{0, 2, 0, 0, 1}, 1, false, 5, 7},
		{"-H: the sum column is not a thread", "000000 1\t2\t3\n000001 0\t1\t1\n# Total: 1 3 4\n# Min Latencies: 0 0\n# Avg Latencies: 0 0\n# Max Latencies: 0 1 1\n# Histogram Overflows: 2 3 5\n",
			[]int64{3, 1}, 2, true, 2, 5},
		{"status lines and CRLF", "policy: fifo: loadavg: 0.1\r\nT: 0 ( 123) P:99 I:1000 C: 5 Min: 1\r\n# Histogram\r\n000000 000005\r\n# Histogram Overflows: 00000\r\n",
			[]int64{5}, 1, false, 1, 0},
		{"the footer first", "# Total: 3\n# Histogram Overflows: 00000\n\n# Histogram\n000000 1\n000001 2\n", []int64{1, 2}, 1, false, 2, 0},
		{"counts wider than six digits", "000000 12345678901\n# Histogram Overflows: 1\n", []int64{12345678901}, 1, false, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Counts, c.counts) || h.Threads != c.threads || h.HistOfAll != c.all || h.RangeUs != c.rangeUs || h.Overflows != c.overflows {
				t.Errorf("got counts %v threads %d all %v range %d overflows %d, want %v %d %v %d %d",
					h.Counts, h.Threads, h.HistOfAll, h.RangeUs, h.Overflows, c.counts, c.threads, c.all, c.rangeUs, c.overflows)
			}
			var sum int64
			for _, n := range c.counts {
				sum += n
			}
			if h.InRange != sum || h.Samples() != sum+c.overflows {
				t.Errorf("in range %d, samples %d; want %d, %d", h.InRange, h.Samples(), sum, sum+c.overflows)
			}
		})
	}
}

func TestReadBad(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"rows not increasing", "000001 1\n000001 2\n# Histogram Overflows: 0\n", "rows must increase"},
		{"rows decreasing", "000002 1\n000001 2\n# Histogram Overflows: 0\n", "rows must increase"},
		{"column count changes", "000000 1\t1\n000001 2\n# Histogram Overflows: 0 0\n", "1 count columns after rows of 2"},
		{"negative count", "000000 -1\n# Histogram Overflows: 0\n", "negative"},
		{"non-numeric count", "000000 x1\n# Histogram Overflows: 0\n", "not a count"},
		{"count beyond int64", "000000 9223372036854775808\n# Histogram Overflows: 0\n", "more than a 64-bit count"},
		{"column sum beyond int64", "000000 9223372036854775807\n000001 1\n# Histogram Overflows: 0\n", "more than a 64-bit count"},
		{"pooled sum beyond int64", "000000 9223372036854775807\t1\n# Histogram Overflows: 0 0\n", "more than a 64-bit count"},
		{"overflows beyond int64", "000000 1\t1\n# Histogram Overflows: 9223372036854775807 1\n", "more than a 64-bit count"},
		{"total disagrees", "000000 1\n000001 2\n# Total: 000000004\n# Histogram Overflows: 0\n", "\"# Total:\" says 4 samples in column 1, its rows hold 3"},
		{"empty", "# Histogram\n000000 0\n000001 0\n# Total: 0\n# Histogram Overflows: 0\n", "an empty histogram"},
		{"no rows", "# Histogram\n# Total: 1\n# Histogram Overflows: 0\n", "no rows"},
		{"no overflow line", "000000 1\n# Total: 1\n", "no \"# Histogram Overflows:\" line"},
		{"footer of other width", "000000 1\t1\n# Histogram Overflows: 0\n", "has 1 fields for 2 thread columns"},
		{"-H sum wrong", "000000 1\t2\t4\n# Min Latencies: 0 0\n# Histogram Overflows: 0 0 0\n", "the threads 3"},
		{"two histograms appended", "000000 1\n# Histogram Overflows: 0\n000000 1\n# Histogram Overflows: 0\n", "rows must increase"},
		{"a stray line", "000000 1\nhello\n# Histogram Overflows: 0\n", "neither a row"},
		{"a row with no count", "000000\n# Histogram Overflows: 0\n", "no count"},
		{"latency out of range", "1000000 1\n# Histogram Overflows: 0\n", "at or above the 1000000"},
		{"two footers", "000000 1\n# Total: 1\n# Total: 1\n# Histogram Overflows: 0\n", "a second"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestNotHistogram(t *testing.T) {
	for _, in := range []string{"", "hello\n", "# only a comment\n", "PK\x03\x04"} {
		if _, err := Read(strings.NewReader(in)); !errors.Is(err, ErrNotHistogram) {
			t.Errorf("%q: got %v, want ErrNotHistogram", in, err)
		}
	}
}

// TestLongOverflowLine: a "# Thread N:" line of many overflow cycles is
// skipped, however long; a row that long is refused.
func TestLongLines(t *testing.T) {
	long := "# Thread 0:" + strings.Repeat(" 00001", 3*maxLine/6) + "\n"
	h, err := Read(strings.NewReader("000000 1\n# Histogram Overflows: 5\n# Histogram Overflow at cycle number:\n" + long))
	if err != nil || h.Overflows != 5 {
		t.Fatalf("got %v, %v", h, err)
	}
	row := "000000" + strings.Repeat(" 1", maxLine) + "\n"
	if _, err := Read(strings.NewReader(row)); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("got %v, want a row too long", err)
	}
}

// TestLatlabWrites: what latlab wake --histfile writes reads back to its
// samples, truncated to µs, and its overflows.
func TestLatlabWrites(t *testing.T) {
	r := &probe.WakeResult{Threads: []probe.WakeThread{
		{Latencies: []int64{1500, 2999, 9_000, 120_000}},
		{Latencies: []int64{1000, 250_000, 3_000}},
	}}
	var b bytes.Buffer
	if err := r.WriteCyclictestHist(&b, 100, 0); err != nil {
		t.Fatal(err)
	}
	h, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, 100)
	want[1], want[2], want[3], want[9] = 2, 1, 1, 1
	if !slices.Equal(h.Counts, want) || h.Overflows != 2 || h.Threads != 2 || h.RangeUs != 100 ||
		!slices.Equal(h.PerThreadOverflows, []int64{1, 1}) || !slices.Equal(h.MaxUs, []int64{120, 250}) {
		t.Fatalf("got %+v", h)
	}
}

// TestRealLayouts reads files rt-tests' cyclictest 2.40 wrote on Linux:
// -H with three threads (the sum column), and a run without -q (status
// lines before the histogram).
func TestRealLayouts(t *testing.T) {
	cases := []struct {
		file          string
		threads       int
		all           bool
		in, over, rng int64
	}{
		{"testdata/histofall-3threads.txt", 3, true, 4432, 1012, 100},
		{"testdata/status-lines.txt", 1, false, 21, 885, 50},
	}
	for _, c := range cases {
		h, err := ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if h.Threads != c.threads || h.HistOfAll != c.all || h.InRange != c.in || h.Overflows != c.over || h.RangeUs != c.rng {
			t.Errorf("%s: got threads %d all %v in %d over %d range %d", c.file, h.Threads, h.HistOfAll, h.InRange, h.Overflows, h.RangeUs)
		}
	}
}

func TestReadFileBadInput(t *testing.T) {
	f := filepath.Join(testutil.TempDir(t), "x.txt")
	if err := os.WriteFile(f, []byte("000000 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(f); !badinput.Is(err) {
		t.Fatalf("got %v, want bad input", err)
	}
}

// FuzzRead: any input is read or refused with an error, never a panic,
// and what is read holds together.
func FuzzRead(f *testing.F) {
	f.Add("# Histogram\n000000 000000\t000000\n000001 000002\t000001\n" + footer("000000002", "000000001"))
	f.Add("000000 1\t2\t3\n# Total: 1 2 3\n# Min Latencies: 0 0\n# Histogram Overflows: 2 3 5\n")
	f.Add("T: 0 ( 1) P:0\n000003 7\n# Histogram Overflows: 1\n# Thread 0: 00001\n")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		var sum int64
		for _, c := range h.Counts {
			if c < 0 {
				t.Fatalf("negative bucket %d", c)
			}
			sum += c
		}
		if sum != h.InRange || h.Samples() <= 0 || int64(len(h.Counts)) != h.RangeUs || h.Threads < 1 {
			t.Fatalf("inconsistent: %+v", h)
		}
	})
}
