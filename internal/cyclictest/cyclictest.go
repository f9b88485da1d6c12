// Package cyclictest reads the latency histograms cyclictest (rt-tests)
// writes with -h/--histogram, -H/--histofall and --histfile, and that
// `latlab wake --histfile` writes in the same layout: one row per 1 µs
// bucket ("000012 000003\t000001": the latency, then a count per
// measuring thread), then a footer of "# Total:", "# Min Latencies:",
// "# Avg Latencies:", "# Max Latencies:" and "# Histogram Overflows:"
// lines, each with a field per thread. Bad input is a badinput.Error.
package cyclictest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/infile"
)

// MaxThreads bounds the thread columns of one row: far more CPUs than a
// machine has, few enough that a row is never a long line.
const MaxThreads = 4096

// maxLine bounds one line that is read: a row of MaxThreads counts of 20
// digits fits. The lines listing the cycle numbers that overflowed
// ("# Thread 0: 00031 00032 ...") can be longer (cyclictest writes one
// number per overflow); their rest is skipped unread into memory.
const maxLine = MaxThreads * 22

// maxRange bounds the buckets: a row's latency must be below it (one
// second in µs; cyclictest allocates its -h buckets too, and runs are
// made with a few thousand). Each bucket costs 16 bytes while reading.
const maxRange = 1_000_000

// Histogram is one cyclictest histogram, its thread columns pooled.
type Histogram struct {
	// Threads is the number of thread columns; the summary column of -H
	// (histofall) is not one of them.
	Threads int
	// HistOfAll says the file had -H's extra column, the sum of the
	// threads' (it was checked to be their sum, and is not counted).
	HistOfAll bool
	// Counts are the samples per 1 µs bucket, summed over the threads:
	// Counts[b] holds the latencies in [b, b+1) µs. Buckets the file has
	// no row for hold none.
	Counts []int64
	// RangeUs is one past the last row's latency: every overflow was at
	// or above it (cyclictest counts latencies at or above its -h value
	// as overflows and writes a row for each bucket below it).
	RangeUs int64
	// InRange is the sum of Counts; Overflows is the "# Histogram
	// Overflows:" counts summed over the threads.
	InRange, Overflows int64
	// PerThread are each thread's in-range samples and overflows.
	PerThread, PerThreadOverflows []int64
	// MaxUs and AvgUs are the footer's "# Max Latencies:" and "# Avg
	// Latencies:" per thread (whole µs, over all of a thread's wake-ups,
	// overflows included); nil when the file has no such line.
	MaxUs, AvgUs []int64
}

// Samples is the number of wake-ups the histogram holds, overflows
// included.
func (h *Histogram) Samples() int64 { return h.InRange + h.Overflows }

// ReadFile reads the histogram at path, bounded as every input is
// (infile: --max-input-size, --allow-special-files).
func ReadFile(path string) (*Histogram, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		if errors.Is(err, infile.ErrLimit) {
			return nil, err
		}
		return nil, badinput.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Accepted says what Read takes, for error messages.
const Accepted = "a cyclictest histogram: rows \"LATENCY COUNT...\" (one count per thread, latencies increasing) and a footer with \"# Histogram Overflows:\""

// ErrNotHistogram marks input that does not look like a histogram at all
// (no row and no footer line before its first other line).
var ErrNotHistogram = errors.New("not a cyclictest histogram")

// Read reads a histogram. Lines that are neither rows nor the footer's
// are skipped when they start with "#" (the header, "# Thread N:") or
// are cyclictest's status lines ("T: 0 (...)", "policy: ...", written
// without -q); any other line is bad input.
func Read(r io.Reader) (*Histogram, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &Histogram{}
	cols := -1
	last := int64(-1)
	var perCol []int64
	// lastCol is each bucket's last column: the sum column of -H, which
	// Counts must leave out once the footer says the file has one.
	var lastCol []int64
	footer := map[string][]int64{}
	seen := false // a row or a footer line was read
	for lineNo := 1; ; lineNo++ {
		line, long, err := ReadLine(br, maxLine)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		line = bytes.TrimRight(line, "\r")
		text := bytes.TrimSpace(line)
		switch {
		case len(text) == 0:
		case text[0] == '#':
			name, vals, ok := footerLine(text)
			if !ok {
				break // a comment, the header or a "# Thread N:" line
			}
			if long {
				return nil, fmt.Errorf("line %d: the %q line is longer than %d bytes", lineNo, name, maxLine)
			}
			if _, dup := footer[name]; dup {
				return nil, fmt.Errorf("line %d: a second %q line (want one footer)", lineNo, "# "+name+":")
			}
			v, err := numbers(vals)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %v", lineNo, "# "+name+":", err)
			}
			footer[name] = v
			seen = true
		case text[0] >= '0' && text[0] <= '9':
			if long {
				return nil, fmt.Errorf("line %d: a row longer than %d bytes (at most %d thread columns)", lineNo, maxLine, MaxThreads)
			}
			// Rows after the footer are taken: reports reorder the two
			// (the footer first); two histograms appended to one file are
			// caught by their rows starting again and by a second footer.
			v, err := numbers(bytes.Fields(text))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			if len(v) < 2 {
				return nil, fmt.Errorf("line %d: a row with no count (want the latency, then a count per thread)", lineNo)
			}
			if cols < 0 {
				cols = len(v) - 1
				perCol = make([]int64, cols)
			} else if len(v)-1 != cols {
				return nil, fmt.Errorf("line %d: %d count columns after rows of %d (every row has one per thread)", lineNo, len(v)-1, cols)
			}
			lat := v[0]
			if lat <= last {
				return nil, fmt.Errorf("line %d: latency %d after %d (rows must increase)", lineNo, lat, last)
			}
			if lat >= maxRange {
				return nil, fmt.Errorf("line %d: latency %d µs, at or above the %d this reader takes", lineNo, lat, maxRange)
			}
			for int64(len(h.Counts)) < lat {
				h.Counts = append(h.Counts, 0)
				lastCol = append(lastCol, 0)
			}
			var sum int64
			for j, c := range v[1:] {
				if perCol[j], err = AddCounts(perCol[j], c); err != nil {
					return nil, fmt.Errorf("line %d: column %d: %v", lineNo, j+1, err)
				}
				if j < cols-1 {
					// may wrap only if the columns' totals do, which
					// finish refuses before Counts is used
					sum += c
				}
			}
			h.Counts = append(h.Counts, sum)
			lastCol = append(lastCol, v[cols])
			last = lat
			seen = true
		case !seen && status(text):
			// cyclictest's running status, before the histogram
		default:
			if !seen {
				return nil, ErrNotHistogram
			}
			return nil, fmt.Errorf("line %d: neither a row (\"LATENCY COUNT...\") nor a \"#\" line", lineNo)
		}
		if err == io.EOF {
			break
		}
	}
	if !seen {
		return nil, ErrNotHistogram
	}
	if cols < 0 {
		return nil, errors.New("no rows: an empty histogram (cyclictest -h N writes N rows)")
	}
	return h, h.finish(perCol, lastCol, footer)
}

// finish checks the footer against the rows and fills in the totals.
func (h *Histogram) finish(perCol, lastCol []int64, footer map[string][]int64) error {
	cols := len(perCol)
	over, ok := footer["Histogram Overflows"]
	if !ok {
		return errors.New("no \"# Histogram Overflows:\" line: the samples at or above the histogram's range are not known (want cyclictest's whole output, footer included)")
	}
	// -H writes a column more than there are threads, their sum, in
	// the rows, Total, Max and Overflows, but not Min and Avg.
	threads := cols
	for _, name := range []string{"Min Latencies", "Avg Latencies"} {
		if v, ok := footer[name]; ok && cols > 2 && len(v) == cols-1 {
			threads = cols - 1
		}
	}
	h.Threads = threads
	h.HistOfAll = threads < cols
	if h.HistOfAll {
		var sum int64
		for _, c := range perCol[:threads] {
			sum += c // cannot overflow: Counts' sums did not
		}
		if sum != perCol[threads] {
			return fmt.Errorf("the last column (-H's sum over the threads) holds %d samples, the threads %d", perCol[threads], sum)
		}
	} else {
		for b, c := range lastCol {
			// wraps only if the columns' totals do, refused below
			h.Counts[b] += c
		}
	}
	for name, v := range footer {
		want := threads
		switch name {
		case "Total", "Max Latencies", "Histogram Overflows":
			want = cols
		}
		if len(v) != want {
			return fmt.Errorf("\"# %s:\" has %d fields for %d thread columns", name, len(v), threads)
		}
	}
	if total, ok := footer["Total"]; ok {
		for j := range cols {
			if total[j] != perCol[j] {
				return fmt.Errorf("\"# Total:\" says %d samples in column %d, its rows hold %d: rows are missing or changed", total[j], j+1, perCol[j])
			}
		}
	}
	h.PerThread = perCol[:threads]
	h.PerThreadOverflows = over[:threads]
	for j := range threads {
		var err error
		if h.InRange, err = AddCounts(h.InRange, perCol[j]); err != nil {
			return err
		}
		if h.Overflows, err = AddCounts(h.Overflows, over[j]); err != nil {
			return fmt.Errorf("\"# Histogram Overflows:\": %v", err)
		}
	}
	if _, err := AddCounts(h.InRange, h.Overflows); err != nil {
		return err
	}
	h.MaxUs = trim(footer["Max Latencies"], threads)
	h.AvgUs = trim(footer["Avg Latencies"], threads)
	if h.Samples() == 0 {
		return errors.New("an empty histogram: no sample in any row and no overflow")
	}
	h.RangeUs = int64(len(h.Counts))
	return nil
}

// trim keeps the first n fields of a footer line: -H adds one, the sum.
func trim(v []int64, n int) []int64 {
	if v == nil {
		return nil
	}
	return v[:n]
}

// footerNames are the footer lines read; the rest of "#" lines are not.
var footerNames = []string{"Total", "Min Latencies", "Avg Latencies", "Max Latencies", "Histogram Overflows"}

// footerLine splits "# Name: v1 v2" into its name and fields.
func footerLine(text []byte) (string, [][]byte, bool) {
	rest := bytes.TrimSpace(text[1:])
	for _, n := range footerNames {
		if v, ok := bytes.CutPrefix(rest, []byte(n+":")); ok {
			return n, bytes.Fields(v), true
		}
	}
	return "", nil, false
}

// status reports whether a line is one of cyclictest's status lines,
// which it writes without -q (cursor movements included).
func status(text []byte) bool {
	text = bytes.TrimLeft(text, "\x1b[0123456789A")
	return bytes.HasPrefix(text, []byte("T:")) || bytes.HasPrefix(text, []byte("policy:"))
}

// numbers parses fields as counts (ParseCount).
func numbers(fields [][]byte) ([]int64, error) {
	v := make([]int64, len(fields))
	for i, f := range fields {
		n, err := ParseCount(string(f))
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	return v, nil
}

// ParseCount parses a count of a histogram's text: a non-negative
// decimal integer within an int64, or an error that quotes it.
func ParseCount(f string) (int64, error) {
	n, err := strconv.ParseInt(f, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && f[0] != '-':
		return 0, fmt.Errorf("%.30q is more than a 64-bit count", f)
	case err != nil:
		return 0, fmt.Errorf("%.30q is not a count (want a whole number)", f)
	case n < 0:
		return 0, fmt.Errorf("%.30q is negative (want a count)", f)
	}
	return n, nil
}

// AddCounts adds two counts, refusing a sum beyond int64.
func AddCounts(a, b int64) (int64, error) {
	if a > math.MaxInt64-b {
		return 0, errors.New("the counts add up to more than a 64-bit count")
	}
	return a + b, nil
}

// ReadLine reads one line without its newline; long says it was longer
// than max, and then only its first max bytes are returned (the rest is
// read and dropped): a reader of histogram text (this one, rtla's) holds
// no more than max bytes of a line however long the file makes it.
func ReadLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(buf)+len(part) <= max {
			buf = append(buf, part...)
		} else {
			long = true
			if len(buf) < max {
				buf = append(buf, part[:max-len(buf)]...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), long, err
	}
}
