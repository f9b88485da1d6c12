// Package rtla reads the histograms `rtla timerlat hist` (the kernel's
// tools/tracing/rtla) writes: a header ("# RTLA timerlat histogram",
// "# Time unit is microseconds (us)" or nanoseconds with -n, "# Duration:"),
// an "Index" line naming the columns (IRQ-NNN, Thr-NNN and, with user-space
// threads, Usr-NNN for each CPU that recorded a sample), a row per bucket
// with any sample (every bucket with --with-zeros: the bucket's lower bound,
// then a count per column), the "over:" row, and unless --no-summary the
// "count:", "min:", "avg:" and "max:" lines per column and, in newer rtla,
// the "ALL:" section of the same per kind of latency. It converts the
// columns of one kind into a cyclictest.Histogram, the form compare reads.
// Bad input is a badinput.Error.
package rtla

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/infile"
)

// Context is the kind of latency a column counts.
type Context int

// The contexts of rtla's columns: the timer IRQ's latency (IRQ-NNN), the
// timerlat thread's (Thr-NNN), and with user-space threads (-u, -U, the
// default of recent rtla) the latency at the thread's return to user space
// (Usr-NNN).
const (
	IRQ Context = iota
	Thread
	User
)

// String is the context's name in rtla's columns.
func (c Context) String() string { return [...]string{"IRQ", "Thr", "Usr"}[c] }

// Column is one column of the histogram.
type Column struct {
	Context Context
	CPU     int
}

// MaxColumns bounds the columns: three per CPU of far more CPUs than a
// machine has (cyclictest.MaxThreads).
const MaxColumns = 3 * cyclictest.MaxThreads

// maxLine bounds one line that is read: a row of MaxColumns counts of 20
// digits fits. Longer lines after the histogram (rtla's auto-analysis,
// the output of --on-end actions) are skipped unread into memory.
const maxLine = MaxColumns * 22

// maxIndexNs bounds a row's index: one second, as cyclictest's reader
// bounds its rows (each 1 µs bucket costs 8 bytes when converted).
const maxIndexNs = 1_000_000_000

// Histogram is one `rtla timerlat hist` output.
type Histogram struct {
	// Nano says the time unit is ns (rtla -n); otherwise µs.
	Nano bool
	// Duration is the header's "# Duration:", as written.
	Duration string
	Columns  []Column
	// Index are the rows' lower bounds, in the unit, increasing.
	Index []int64
	// rows are, per context, each row's counts summed over the CPUs.
	rows [3][]int64
	// colRows are each column's in-range samples (its rows summed);
	// first and last the indexes of its first and last row with any, -1
	// before one.
	colRows     []int64
	first, last []int64
	// Over is the "over:" row: each column's samples at or above the
	// histogram's range (-E entries of -b).
	Over []int64
	// Count, Min, Avg and Max are the summary per column, nil without
	// one (--no-summary); -1 where rtla wrote "-" (a column with no
	// sample) or, before it did, 18446744073709551615 (~0) for its min.
	Count, Min, Avg, Max []int64
	// All says the file has the "ALL:" section (newer rtla), whose
	// counts were checked against the columns'.
	All bool
	// Missed is how many events rtla reports it missed (tracefs mode:
	// "N (x%) events missed, results might not be accurate"), -1 for
	// "unknown number of events missed", 0 when it reports none.
	Missed int64
	// Stopped says rtla's run stopped at a threshold (-a, -i, -T): "...
	// hit stop tracing" after the histogram.
	Stopped bool
}

// Has says whether the histogram has columns of c.
func (h *Histogram) Has(c Context) bool {
	return slices.ContainsFunc(h.Columns, func(col Column) bool { return col.Context == c })
}

// CPUs are the CPUs of c's columns, ascending.
func (h *Histogram) CPUs(c Context) []int {
	var cpus []int
	for _, col := range h.Columns {
		if col.Context == c {
			cpus = append(cpus, col.CPU)
		}
	}
	slices.Sort(cpus)
	return cpus
}

// Samples are c's samples, in range and over it.
func (h *Histogram) Samples(c Context) int64 {
	var n int64
	for j, col := range h.Columns {
		if col.Context == c {
			n += h.colRows[j] + h.Over[j] // cannot overflow: Read checked every context's sum
		}
	}
	return n
}

// ErrNotTimerlat marks input that has nothing of rtla timerlat hist's
// output: no "# RTLA timerlat histogram" line, no "over:" row.
var ErrNotTimerlat = errors.New("not an rtla timerlat histogram")

// Accepted says what Read takes, for error messages.
const Accepted = "rtla timerlat hist output, header included (\"# RTLA timerlat histogram\", \"# Time unit is ...\", the \"Index\" line, the rows and \"over:\")"

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
		if errors.Is(err, infile.ErrLimit) || errors.Is(err, ErrNotTimerlat) {
			return nil, err
		}
		return nil, badinput.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// The parts of the output, in their order.
const (
	before  = iota // rtla's messages before the histogram, skipped
	header         // the "#" lines, until "Index"
	rows           // the rows, until "over:"
	summary        // "count:", "min:", "avg:", "max:"
	all            // the "ALL:" section
	after          // whatever rtla printed after: missed events, auto-analysis, actions
)

// summaryNames are the summary lines, in rtla's order.
var summaryNames = []string{"count:", "min:", "avg:", "max:"}

// Read reads rtla timerlat hist's output. Lines before its header are
// skipped (rtla's messages, such as "Saving trace to ..." of a threshold
// action), and so are those after the summary (the missed events, "hit
// stop tracing", the auto-analysis, the output of --on-end actions), which
// say whether events were missed and whether the run stopped at a
// threshold.
func Read(r io.Reader) (*Histogram, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &Histogram{}
	part := before
	unit := false // the "# Time unit" line was read
	next := 0     // the summary line expected next
	var allNames []Context
	allNext := 0
	sawOver := false
	for lineNo := 1; ; lineNo++ {
		line, long, err := cyclictest.ReadLine(br, maxLine)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		text := string(bytes.TrimSpace(line))
		fields := strings.Fields(text)
		if long && part != before && part != after {
			return nil, fmt.Errorf("line %d: longer than %d bytes (at most %d columns)", lineNo, maxLine, MaxColumns)
		}
		switch part {
		case before:
			switch {
			case text == "# RTLA timerlat histogram":
				part = header
			case strings.HasPrefix(text, "# RTLA osnoise histogram"):
				return nil, fmt.Errorf("line %d: an rtla osnoise histogram, of operating-system noise, not of timer latency (want rtla timerlat hist output)", lineNo)
			case len(fields) > 0 && fields[0] == "Index":
				return nil, fmt.Errorf("line %d: the Index line without rtla's header before it: whether the buckets are µs or ns (-n) is not known (want rtla's whole output, its \"# RTLA timerlat histogram\" and \"# Time unit is ...\" lines included)", lineNo)
			case len(fields) > 0 && fields[0] == "over:":
				sawOver = true
			}
		case header:
			switch {
			case text == "":
			case strings.HasPrefix(text, "# Time unit is "):
				switch strings.TrimPrefix(text, "# Time unit is ") {
				case "microseconds (us)":
				case "nanoseconds (ns)":
					h.Nano = true
				default:
					return nil, fmt.Errorf("line %d: %.60q: a time unit other than microseconds (us) and nanoseconds (ns)", lineNo, text)
				}
				unit = true
			case strings.HasPrefix(text, "# Duration:"):
				h.Duration = strings.TrimSpace(strings.TrimPrefix(text, "# Duration:"))
			case text[0] == '#':
			case fields[0] == "Index":
				if !unit {
					return nil, fmt.Errorf("line %d: no \"# Time unit is ...\" line before the Index line: whether the buckets are µs or ns (-n) is not known", lineNo)
				}
				if err := h.columns(fields[1:]); err != nil {
					return nil, fmt.Errorf("line %d: %v", lineNo, err)
				}
				part = rows
			case strings.HasPrefix(fields[0], "IRQ-") || strings.HasPrefix(fields[0], "Thr-") || strings.HasPrefix(fields[0], "Usr-"):
				return nil, fmt.Errorf("line %d: columns without an Index column (rtla --no-index): the buckets' bounds are not known (want rtla's output without --no-index)", lineNo)
			default:
				return nil, fmt.Errorf("line %d: neither a \"#\" header line nor the Index line", lineNo)
			}
		case rows:
			switch {
			case text == "":
			case fields[0] == "over:":
				v, err := counts(fields[1:], len(h.Columns))
				if err != nil {
					return nil, fmt.Errorf("line %d: \"over:\": %v", lineNo, err)
				}
				h.Over = v
				part = summary
			case fields[0][0] >= '0' && fields[0][0] <= '9':
				if err := h.row(fields); err != nil {
					return nil, fmt.Errorf("line %d: %v", lineNo, err)
				}
			default:
				return nil, fmt.Errorf("line %d: neither a row (\"INDEX COUNT...\") nor the \"over:\" row", lineNo)
			}
		case summary:
			switch {
			case text == "":
			case next < len(summaryNames) && fields[0] == summaryNames[next]:
				v, err := values(fields[1:], len(h.Columns), next > 0)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %v", lineNo, summaryNames[next], err)
				}
				switch next {
				case 0:
					h.Count = v
					// checked before the ALL: section, whose counts
					// are the columns'
					if err := h.check(); err != nil {
						return nil, err
					}
				case 1:
					h.Min = v
				case 2:
					h.Avg = v
				case 3:
					h.Max = v
				}
				next++
			case next > 0 && next < len(summaryNames):
				return nil, fmt.Errorf("line %d: %q where rtla writes %q: the summary is cut short", lineNo, fields[0], summaryNames[next])
			case fields[0] == "ALL:" && next == len(summaryNames):
				for _, f := range fields[1:] {
					c, ok := contextNamed(f)
					if !ok || slices.Contains(allNames, c) {
						return nil, fmt.Errorf("line %d: \"ALL:\" names %.20q (want IRQ, Thr, Usr, each once)", lineNo, f)
					}
					allNames = append(allNames, c)
				}
				if want := h.contexts(); !slices.Equal(allNames, want) {
					return nil, fmt.Errorf("line %d: \"ALL:\" names %v, the columns %v", lineNo, allNames, want)
				}
				part = all
			default:
				// --no-summary, or an rtla without the ALL: section
				part = after
				if err := h.afterLine(fields, lineNo); err != nil {
					return nil, err
				}
			}
		case all:
			switch {
			case text == "":
			case allNext < len(summaryNames) && fields[0] == summaryNames[allNext]:
				v, err := values(fields[1:], len(allNames), allNext > 0)
				if err != nil {
					return nil, fmt.Errorf("line %d: \"ALL:\" %q: %v", lineNo, summaryNames[allNext], err)
				}
				if allNext == 0 {
					if err := h.checkAll(allNames, v); err != nil {
						return nil, fmt.Errorf("line %d: %v", lineNo, err)
					}
				}
				allNext++
				if allNext == len(summaryNames) {
					h.All = true
					part = after
				}
			default:
				return nil, fmt.Errorf("line %d: %q where rtla writes the \"ALL:\" section's %q: the summary is cut short", lineNo, fields[0], summaryNames[allNext])
			}
		case after:
			if err := h.afterLine(fields, lineNo); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	switch {
	case part == before && sawOver:
		return nil, errors.New("an \"over:\" row but no \"# RTLA timerlat histogram\" header (rtla --no-header?): which columns are IRQ, thread and user latency, and the time unit, are not known (want rtla's output without --no-header)")
	case part == before:
		return nil, ErrNotTimerlat
	case part == header:
		return nil, errors.New("no Index line after the header: the file ends before the histogram (cut short?)")
	case part == rows:
		return nil, errors.New("no \"over:\" row: the file ends inside the histogram's rows (cut short?)")
	case part == summary && next > 0 && next < len(summaryNames):
		return nil, fmt.Errorf("the file ends before the summary's %q line (cut short?)", summaryNames[next])
	case part == all:
		return nil, fmt.Errorf("the file ends before the \"ALL:\" section's %q line (cut short?)", summaryNames[allNext])
	}
	return h, h.check()
}

// columns reads the Index line's column names.
func (h *Histogram) columns(names []string) error {
	if len(names) == 0 {
		return errors.New("the Index line names no column: rtla recorded no sample on any CPU")
	}
	if len(names) > MaxColumns {
		return fmt.Errorf("%d columns, more than the %d this reader takes", len(names), MaxColumns)
	}
	for _, n := range names {
		ctx, cpu, ok := strings.Cut(n, "-")
		c, known := contextNamed(ctx)
		id, err := strconv.Atoi(cpu)
		if !ok || !known || err != nil || id < 0 || id >= cyclictest.MaxThreads || cpu[0] == '+' {
			return fmt.Errorf("column %.20q (want IRQ-NNN, Thr-NNN or Usr-NNN, NNN a CPU below %d)", n, cyclictest.MaxThreads)
		}
		col := Column{c, id}
		if slices.Contains(h.Columns, col) {
			return fmt.Errorf("column %s twice", n)
		}
		h.Columns = append(h.Columns, col)
	}
	h.colRows = make([]int64, len(h.Columns))
	h.first = slices.Repeat([]int64{-1}, len(h.Columns))
	h.last = slices.Repeat([]int64{-1}, len(h.Columns))
	return nil
}

// contexts are the contexts of the columns, in rtla's order.
func (h *Histogram) contexts() []Context {
	var cs []Context
	for _, c := range []Context{IRQ, Thread, User} {
		if h.Has(c) {
			cs = append(cs, c)
		}
	}
	return cs
}

func contextNamed(s string) (Context, bool) {
	switch s {
	case "IRQ":
		return IRQ, true
	case "Thr":
		return Thread, true
	case "Usr":
		return User, true
	}
	return 0, false
}

// row reads one row: its index, then a count per column.
func (h *Histogram) row(fields []string) error {
	idx, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil || idx < 0 {
		return fmt.Errorf("index %.30q is not a bucket's bound (want a whole number)", fields[0])
	}
	if n := len(h.Index); n > 0 && idx <= h.Index[n-1] {
		return fmt.Errorf("index %d after %d (rows must increase)", idx, h.Index[n-1])
	}
	if limit := h.limit(); idx >= limit {
		return fmt.Errorf("index %d, at or above the %d (one second) this reader takes", idx, limit)
	}
	v, err := counts(fields[1:], len(h.Columns))
	if err != nil {
		return err
	}
	h.Index = append(h.Index, idx)
	var sums [3]int64
	for j, c := range v {
		if h.colRows[j], err = cyclictest.AddCounts(h.colRows[j], c); err != nil {
			return fmt.Errorf("column %d: %v", j+1, err)
		}
		if c > 0 {
			if h.first[j] < 0 {
				h.first[j] = idx
			}
			h.last[j] = idx
		}
		ctx := h.Columns[j].Context
		if sums[ctx], err = cyclictest.AddCounts(sums[ctx], c); err != nil {
			return err
		}
	}
	for c := range sums {
		h.rows[c] = append(h.rows[c], sums[c])
	}
	return nil
}

// limit is the bound of an index, one second in the unit.
func (h *Histogram) limit() int64 {
	if h.Nano {
		return maxIndexNs
	}
	return maxIndexNs / 1000
}

// afterLine reads a line after the histogram: a second histogram is bad
// input, the missed events and a stop are noted, the rest skipped.
func (h *Histogram) afterLine(fields []string, lineNo int) error {
	text := strings.Join(fields, " ")
	switch {
	case len(fields) == 0:
	case text == "# RTLA timerlat histogram" || fields[0] == "Index":
		return fmt.Errorf("line %d: a second histogram after the first (want one rtla run per file)", lineNo)
	case strings.HasPrefix(text, "unknown number of events missed"):
		h.Missed = -1
	case strings.HasSuffix(text, "events missed, results might not be accurate") && h.Missed == 0:
		if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil && n > 0 {
			h.Missed = n
		}
	case strings.HasSuffix(text, "hit stop tracing"):
		h.Stopped = true
	}
	return nil
}

// checkAll checks the "ALL:" section's counts against the columns'.
func (h *Histogram) checkAll(names []Context, count []int64) error {
	for i, c := range names {
		var sum int64
		for j, col := range h.Columns {
			if col.Context != c {
				continue
			}
			var err error
			if sum, err = cyclictest.AddCounts(sum, h.Count[j]); err != nil {
				return fmt.Errorf("the %s columns' \"count:\": %v", c, err)
			}
		}
		if sum != count[i] {
			return fmt.Errorf("\"ALL:\" counts %d %s samples, the %s columns' \"count:\" %d: the summary does not match", count[i], c, c, sum)
		}
	}
	return nil
}

// check checks the summary's counts against the rows and the over: row:
// rtla counts every sample once, in a bucket or over the range.
func (h *Histogram) check() error {
	var perContext [3]int64
	for j, col := range h.Columns {
		n, err := cyclictest.AddCounts(h.colRows[j], h.Over[j])
		if err != nil {
			return fmt.Errorf("column %s-%03d: %v", col.Context, col.CPU, err)
		}
		if perContext[col.Context], err = cyclictest.AddCounts(perContext[col.Context], n); err != nil {
			return fmt.Errorf("the %s columns: %v", col.Context, err)
		}
		if h.Count != nil && h.Count[j] != n {
			return fmt.Errorf("\"count:\" says %d samples in column %s-%03d, its rows and \"over:\" hold %d: rows are missing or changed", h.Count[j], col.Context, col.CPU, n)
		}
	}
	return nil
}

// Cyclictest converts c's columns, pooled over the CPUs, into a
// cyclictest histogram of 1 µs buckets: the form compare reads (bucket
// says how the bucket size was found). The range is one past the last
// row's bucket (rtla's -E entries of -b may reach further: that only
// makes more values unknown, never fewer); in ns, as rtla's range may end
// inside the last row's µs, that µs is counted with the overflows when
// there are any.
func (h *Histogram) Cyclictest(c Context) (*cyclictest.Histogram, error) {
	if !h.Has(c) {
		return nil, fmt.Errorf("no %s column", c)
	}
	if err := h.bucket(); err != nil {
		return nil, err
	}
	out := &cyclictest.Histogram{}
	for j, col := range h.Columns {
		if col.Context != c {
			continue
		}
		out.Threads++
		out.PerThread = append(out.PerThread, h.colRows[j])
		out.PerThreadOverflows = append(out.PerThreadOverflows, h.Over[j])
		out.Overflows += h.Over[j] // cannot overflow: check() summed them
	}
	us := func(i int64) int64 {
		if h.Nano {
			return i / 1000
		}
		return i
	}
	if n := len(h.Index); n > 0 {
		out.Counts = make([]int64, us(h.Index[n-1])+1)
	}
	for r, i := range h.Index {
		out.Counts[us(i)] += h.rows[c][r] // cannot overflow: check() summed them
	}
	if h.Nano && out.Overflows > 0 && len(out.Counts) > 0 {
		last := len(out.Counts) - 1
		out.Overflows += out.Counts[last]
		out.Counts = out.Counts[:last]
	}
	for _, k := range out.Counts {
		out.InRange += k
	}
	out.RangeUs = int64(len(out.Counts))
	if out.Samples() == 0 {
		return nil, fmt.Errorf("its %s columns hold no sample", c)
	}
	return out, nil
}

// bucket checks that the buckets are 1 µs, or in ns (-n) fall in whole
// µs. The bucket size (-b) is not written in the file. The rows' indexes
// are its multiples, so it divides their greatest common divisor g: in
// µs, g = 1 proves 1 µs buckets (the default); in ns, a g that divides
// 1000 proves buckets that each fall in one µs. Rows too few to prove it
// (a short run's, or a quiet machine's, at 6 and 21 µs) are taken as
// buckets of one unit when the summary agrees: rtla's min: and max: are
// the latencies themselves, in the unit, so with buckets of one unit each
// column's min: is the index of its first row with a sample, and its
// max: that of its last when none is over the range; buckets any wider
// would hold them anywhere inside.
func (h *Histogram) bucket() error {
	var g int64
	for _, i := range h.Index {
		g = gcd(g, i)
	}
	if g == 1 || (h.Nano && g > 0 && 1000%g == 0) {
		return nil
	}
	accepted := "compare takes rtla histograms of 1 µs buckets (-b 1, the default), or in ns (-n) of buckets that divide 1000 ns"
	if h.Min == nil || h.Max == nil {
		return fmt.Errorf("its rows are all at multiples of %d %s and it has no summary (--no-summary): the bucket size (rtla -b) is not known from the file; %s", g, h.unit(), accepted)
	}
	for j, col := range h.Columns {
		if h.colRows[j] == 0 {
			continue
		}
		if h.Min[j] != h.first[j] || (h.Over[j] == 0 && h.Max[j] != h.last[j]) {
			return fmt.Errorf("its rows are all at multiples of %d %s and column %s-%03d's min: %d and max: %d do not both fall at the start of its first and last rows' buckets (%d and %d): its buckets are wider than 1 %s (rtla -b); %s",
				g, h.unit(), col.Context, col.CPU, h.Min[j], h.Max[j], h.first[j], h.last[j], h.unit(), accepted)
		}
	}
	return nil
}

func (h *Histogram) unit() string {
	if h.Nano {
		return "ns"
	}
	return "µs"
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// counts parses n fields as non-negative counts.
func counts(fields []string, n int) ([]int64, error) {
	return values(fields, n, false)
}

// values parses n fields as non-negative whole numbers; with dash, "-"
// (rtla's "no sample") is read as -1, and so is ~0 (2^64 - 1), which
// older rtla wrote as the minimum of a column with no sample.
func values(fields []string, n int, dash bool) ([]int64, error) {
	if len(fields) != n {
		return nil, fmt.Errorf("%d values for %d columns (the Index line names one per column)", len(fields), n)
	}
	v := make([]int64, n)
	for i, f := range fields {
		if dash && (f == "-" || f == "18446744073709551615") {
			v[i] = -1
			continue
		}
		x, err := cyclictest.ParseCount(f)
		if err != nil {
			return nil, err
		}
		v[i] = x
	}
	return v, nil
}
