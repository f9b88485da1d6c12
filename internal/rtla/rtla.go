// Package rtla reads the histograms `rtla timerlat hist` and `rtla osnoise
// hist` (the kernel's tools/tracing/rtla) write, one layout for both: a
// header ("# RTLA timerlat histogram" or "# RTLA osnoise histogram",
// "# Time unit is microseconds (us)" or nanoseconds with -n, "# Duration:"),
// an "Index" line naming the columns (IRQ-NNN, Thr-NNN and, with user-space
// threads, Usr-NNN for each CPU that recorded a sample; osnoise: CPU-NNN
// for each CPU that recorded a noise occurrence), a row per bucket
// with any sample (every bucket with --with-zeros: the bucket's lower bound,
// then a count per column), the "over:" row, and unless --no-summary the
// "count:", "min:", "avg:" and "max:" lines per column and, in newer rtla,
// the "ALL:" section of the same per kind of latency (timerlat only: one
// in osnoise output is refused, rtla never writing it). It
// converts the columns of one kind, or one column, into a
// cyclictest.Histogram, the form compare reads.
// Bad input is a badinput.Error.
package rtla

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
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
// (Usr-NNN); osnoise's one column per CPU (CPU-NNN) counts the noise
// occurrences of its thread (osnoise:sample_threshold events).
const (
	IRQ Context = iota
	Thread
	User
	Noise
)

// String is the context's name in rtla's columns.
func (c Context) String() string { return [...]string{"IRQ", "Thr", "Usr", "CPU"}[c] }

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

// Histogram is one `rtla timerlat hist` or `rtla osnoise hist` output.
type Histogram struct {
	// Osnoise says the file is rtla osnoise hist output: its columns are
	// CPU-NNN (Noise), none when no CPU recorded noise.
	Osnoise bool
	// Nano says the time unit is ns (rtla -n); otherwise µs.
	Nano bool
	// Duration is the header's "# Duration:", as written.
	Duration string
	Columns  []Column
	// Index are the rows' lower bounds, in the unit, increasing.
	Index []int64
	// cells are each row's counts, a count per column.
	cells [][]int64
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
	// osnoise's avg: has two decimals (%9.2f), rounded down here and
	// kept whole in AvgCents.
	Count, Min, Avg, Max []int64
	// AvgCents is osnoise's avg: in hundredths of the unit, as rtla
	// wrote it (its third decimal on, if any, dropped); -1 where Avg is
	// -1 or the value is beyond int64 in hundredths; nil for timerlat,
	// whose avg: is whole, and without a summary.
	AvgCents []int64
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

// ErrNotRTLA marks input that has nothing of rtla timerlat or osnoise
// hist's output: no "# RTLA timerlat histogram" or "# RTLA osnoise
// histogram" line, no "over:" row.
var ErrNotRTLA = errors.New("not an rtla timerlat or osnoise histogram")

// Accepted says what Read takes, for error messages.
const Accepted = "rtla timerlat hist or rtla osnoise hist output, header included (\"# RTLA timerlat histogram\" or \"# RTLA osnoise histogram\", \"# Time unit is ...\", the \"Index\" line, the rows and \"over:\")"

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
		if errors.Is(err, infile.ErrLimit) || errors.Is(err, ErrNotRTLA) {
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

// Read reads rtla timerlat hist's or osnoise hist's output. Lines before
// its header are skipped, and so are those after the summary, of which
// those that say whether events were missed and whether the run stopped
// at a threshold are noted. What rtla prints to stdout around the
// histogram (tools/tracing/rtla/src, common.c's run_tool and
// hist_main_loop, actions.c's actions_perform): during the run, the
// output of --on-threshold actions (a shell,command= action's command
// writes to the same stdout; trace and signal actions print nothing);
// then print_stats, the histogram, and osnoise_report_missed_events;
// then the --on-end actions' output, "timerlat hit stop tracing" (older
// rtla: "rtla timerlat hit stop tracing", "  Saving trace to FILE") and
// timerlat's auto-analysis ("## CPU N hit stop tracing, analyzing it ##"
// and its lines), and last trace_events_destroy's "  Saving event
// SYS:EVENT hist to FILE". rtla's own output goes through stdio, which
// buffers it when stdout is a file or a pipe, and an action's command
// writes at once: an --on-end action's output then lands before the
// header (when the histogram fits in the buffer) or inside the histogram,
// wherever a full buffer was written, even inside a line. So an action's
// output that ends without a newline shares the header's line (the header
// is read as the line's end), and a line that rtla does not write where it
// stands inside the histogram is refused, never skipped; a row that an
// inserted number lengthened is told by its missing trailing space (rtla
// ends every row and summary line with one, "%9d "), and a summary line
// after such output by where it stands.
func Read(r io.Reader) (*Histogram, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &Histogram{}
	part := before
	unit := false // the "# Time unit" line was read
	next := 0     // the summary line expected next
	var allNames []Context
	allNext := 0
	sawOver := false
	// spaced is whether the first line of values (a row, over:) ended
	// with a space, as rtla writes them, at line spacedAt; the others
	// must agree (a file whose trailing spaces were stripped, every
	// line's, is read too).
	spaced, spacedAt := false, 0
	layout := func(lineNo int, line []byte, n int) error {
		if n == 0 {
			return nil // osnoise hist with no column: "over: 0", no space
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		ends := len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t')
		if spacedAt == 0 {
			spaced, spacedAt = ends, lineNo
			return nil
		}
		if ends != spaced {
			how := fmt.Sprintf("ends without the space that rtla writes after each value, which line %d ends with", spacedAt)
			if ends {
				how = fmt.Sprintf("ends with a space and line %d does not", spacedAt)
			}
			return fmt.Errorf("line %d: %s: its last value was changed, or something was written into it %s", lineNo, how, insideHint)
		}
		return nil
	}
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
			// The header may end a line: an action's output
			// written before it without a last newline.
			switch {
			case strings.HasSuffix(text, timerlatHeader):
				part = header
			case strings.HasSuffix(text, osnoiseHeader):
				part = header
				h.Osnoise = true
			case len(fields) > 0 && fields[0] == "Index":
				return nil, fmt.Errorf("line %d: the Index line without rtla's header before it: which tool wrote it and whether the buckets are µs or ns are not known (want rtla's whole output, its \"# RTLA ... histogram\" and \"# Time unit is ...\" lines included)", lineNo)
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
			case strings.HasPrefix(fields[0], "IRQ-") || strings.HasPrefix(fields[0], "Thr-") || strings.HasPrefix(fields[0], "Usr-") || strings.HasPrefix(fields[0], "CPU-"):
				return nil, fmt.Errorf("line %d: columns without an Index column (rtla --no-index): the buckets' bounds are not known (want rtla's output without --no-index)", lineNo)
			default:
				return nil, fmt.Errorf("line %d: %.40q, neither a \"#\" header line nor the Index line %s", lineNo, text, insideHint)
			}
		case rows:
			switch {
			case text == "":
			case fields[0] == "over:":
				if err := h.allOver(fields[1:]); err != nil {
					return nil, fmt.Errorf("line %d: %v", lineNo, err)
				}
				v, err := h.values(fields[1:], false, false)
				if err != nil {
					return nil, fmt.Errorf("line %d: \"over:\": %v", lineNo, err)
				}
				if err := layout(lineNo, line, len(h.Columns)); err != nil {
					return nil, err
				}
				h.Over = v
				part = summary
			case fields[0][0] >= '0' && fields[0][0] <= '9':
				if err := h.row(fields); err != nil {
					return nil, fmt.Errorf("line %d: %v", lineNo, err)
				}
				if err := layout(lineNo, line, len(h.Columns)); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("line %d: %.40q, neither a row (\"INDEX COUNT...\") nor the \"over:\" row %s", lineNo, text, insideHint)
			}
		case summary:
			switch {
			case text == "":
			case next < len(summaryNames) && fields[0] == summaryNames[next]:
				v, err := h.values(fields[1:], next > 0, next == 2 && h.Osnoise)
				if err != nil {
					return nil, fmt.Errorf("line %d: %q: %v", lineNo, summaryNames[next], err)
				}
				if err := layout(lineNo, line, len(h.Columns)); err != nil {
					return nil, err
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
					if h.Osnoise {
						h.AvgCents = cents(fields[1:], v)
					}
				case 3:
					h.Max = v
				}
				next++
			case next == 0 && slices.Contains(summaryNames[1:], fields[0]):
				return nil, fmt.Errorf("line %d: %q where rtla writes \"count:\": the summary is cut short", lineNo, fields[0])
			case next > 0 && next < len(summaryNames):
				return nil, fmt.Errorf("line %d: %.40q where rtla writes %q: the summary is cut short %s", lineNo, text, summaryNames[next], insideHint)
			case fields[0] == "ALL:" && h.Osnoise:
				return nil, fmt.Errorf("line %d: %s", lineNo, osnoiseAll)
			case fields[0] == "ALL:" && next == len(summaryNames) && !h.Osnoise:
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
				if err := layout(lineNo, line, len(allNames)); err != nil {
					return nil, err
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
				return nil, fmt.Errorf("line %d: %.40q where rtla writes the \"ALL:\" section's %q: the summary is cut short %s", lineNo, text, summaryNames[allNext], insideHint)
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
		return nil, errors.New("an \"over:\" row but no \"# RTLA timerlat histogram\" or \"# RTLA osnoise histogram\" header (rtla --no-header?): which tool wrote it, what its columns are, and the time unit, are not known (want rtla's output without --no-header)")
	case part == before:
		return nil, ErrNotRTLA
	case part == header:
		return nil, errors.New("no Index line after the header: the file ends before the histogram (cut short?)")
	case part == rows:
		return nil, errors.New("no \"over:\" row: the file ends inside the histogram's rows (cut short?)")
	case part == summary && next > 0 && next < len(summaryNames):
		return nil, fmt.Errorf("the file ends before the summary's %q line (cut short?)", summaryNames[next])
	case part == all:
		return nil, fmt.Errorf("the file ends before the \"ALL:\" section's %q line (cut short?)", summaryNames[allNext])
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	return h, h.bounds()
}

// bounds checks each column's min: and max: against its rows: rtla puts
// a latency (osnoise: a length) v in the row of index v/b*b (b the bucket
// size, -b; timerlat_hist_update, osnoise_hist_update_multiple), so a
// column's first row with a sample is at or below its min:, and its last
// at or below its max: (over: or not). A row whose index was lengthened
// by a number written before it (an action's output, Read's comment) is
// then told, when it is the first or the last row of a column (other rows
// would break the rows' order).
func (h *Histogram) bounds() error {
	if h.Min == nil || h.Max == nil {
		return nil // --no-summary
	}
	for j, col := range h.Columns {
		if h.colRows[j] == 0 {
			continue // no sample in a row (none, or all over:)
		}
		if m := h.Min[j]; m >= 0 && m < h.first[j] {
			return fmt.Errorf("column %s-%03d's \"min:\" %d is below its first row with a sample, %d, whose bucket rtla's minimum falls in: the rows were changed %s", col.Context, col.CPU, m, h.first[j], insideHint)
		}
		if m := h.Max[j]; m >= 0 && m < h.last[j] {
			return fmt.Errorf("column %s-%03d's \"max:\" %d is below its last row with a sample, %d, whose bucket rtla's maximum falls in or is above: the rows were changed %s", col.Context, col.CPU, m, h.last[j], insideHint)
		}
	}
	return nil
}

// columns reads the Index line's column names.
func (h *Histogram) columns(names []string) error {
	// osnoise hist names only the CPUs with a noise occurrence, and none
	// when no CPU had one (osnoise_print_stats then writes "over: 0" and
	// a summary of zeros); timerlat hist's columns are every CPU's.
	if len(names) == 0 && !h.Osnoise {
		return errors.New("the Index line names no column: rtla recorded no sample on any CPU")
	}
	if len(names) > MaxColumns {
		return fmt.Errorf("%d columns, more than the %d this reader takes", len(names), MaxColumns)
	}
	want := "IRQ-NNN, Thr-NNN or Usr-NNN"
	if h.Osnoise {
		want = "CPU-NNN"
	}
	for _, n := range names {
		ctx, cpu, ok := strings.Cut(n, "-")
		c, known := contextNamed(ctx)
		id, err := strconv.Atoi(cpu)
		if !ok || !known || (c == Noise) != h.Osnoise || err != nil || id < 0 || id >= cyclictest.MaxThreads || cpu[0] == '+' {
			return fmt.Errorf("column %.20q (want %s, NNN a CPU below %d)", n, want, cyclictest.MaxThreads)
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
	for _, c := range []Context{IRQ, Thread, User, Noise} {
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
	case "CPU":
		return Noise, true
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
	h.cells = append(h.cells, v)
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

// The header's first line, of each tool.
const (
	timerlatHeader = "# RTLA timerlat histogram"
	osnoiseHeader  = "# RTLA osnoise histogram"
)

// insideHint says what most likely put a line rtla does not write inside
// its histogram (Read's comment says how).
const insideHint = "(an --on-end or --on-threshold action's output, written while rtla's own waited in its buffer? want rtla's output without it: send the action's elsewhere, or stdout to a terminal)"

// osnoiseAll refuses an "ALL:" section in osnoise hist output.
const osnoiseAll = "an \"ALL:\" section, which rtla osnoise hist does not write (osnoise_print_summary in osnoise_hist.c writes count:, min:, avg: and max: per CPU, and no section of all CPUs, in every version read; timerlat hist's is read): what wrote it, and so what its columns and counts are, is not known (want rtla osnoise hist's output as it writes it)"

// afterLine reads a line after the histogram: a second histogram is bad
// input, and so is a line of rtla's summary (the summary's lines, and
// the ALL: section, follow the rows and each other without a line
// between: one after other lines had something printed inside the
// histogram); the missed events and a stop are noted, the rest skipped.
func (h *Histogram) afterLine(fields []string, lineNo int) error {
	text := strings.Join(fields, " ")
	switch {
	case len(fields) == 0:
	case strings.HasSuffix(text, timerlatHeader) || strings.HasSuffix(text, osnoiseHeader) || fields[0] == "Index":
		return fmt.Errorf("line %d: a second histogram after the first (want one rtla run per file)", lineNo)
	case fields[0] == "ALL:" && h.Osnoise:
		return fmt.Errorf("line %d: %s", lineNo, osnoiseAll)
	case slices.Contains(summaryNames, fields[0]) || fields[0] == "ALL:" || fields[0] == "over:":
		return fmt.Errorf("line %d: rtla's %q line after lines it does not write between its histogram's lines: something was printed inside the histogram %s", lineNo, fields[0], insideHint)
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
	var perContext [4]int64
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
	out, err := h.convert(func(col Column) bool { return col.Context == c })
	if err == nil && out.Samples() == 0 {
		return nil, fmt.Errorf("its %s columns hold no sample", c)
	}
	return out, err
}

// CPU converts the column of c on cpu alone, as Cyclictest converts the
// columns of c; ok is false when the file has no such column (osnoise
// hist omits a CPU without a noise occurrence).
func (h *Histogram) CPU(c Context, cpu int) (_ *cyclictest.Histogram, ok bool, _ error) {
	col := Column{c, cpu}
	if !slices.Contains(h.Columns, col) {
		return nil, false, nil
	}
	out, err := h.convert(func(x Column) bool { return x == col })
	return out, true, err
}

// convert sums the columns keep takes into 1 µs buckets.
func (h *Histogram) convert(keep func(Column) bool) (*cyclictest.Histogram, error) {
	if err := h.bucket(); err != nil {
		return nil, err
	}
	out := &cyclictest.Histogram{}
	var cols []int
	for j, col := range h.Columns {
		if !keep(col) {
			continue
		}
		cols = append(cols, j)
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
		for _, j := range cols {
			out.Counts[us(i)] += h.cells[r][j] // cannot overflow: check() summed them
		}
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
	if len(h.Index) == 0 {
		return nil // every sample is over the range: no bucket holds one
	}
	var g int64
	for _, i := range h.Index {
		g = gcd(g, i)
	}
	if g == 1 || (h.Nano && g > 0 && 1000%g == 0) {
		return nil
	}
	accepted := "compare takes rtla histograms of 1 µs buckets (-b 1, the default), or in ns (-n) of buckets that divide 1000 ns"
	if h.Osnoise {
		// osnoise hist's min: and max: are not the lengths themselves:
		// osnoise_read_trace_hist reads the kernel's histogram of
		// sample_threshold ("duration.buckets=" the bucket in ns) and
		// takes each bucket's lower bound, so they fall at a row's index
		// whatever the bucket size, and prove nothing of it.
		return fmt.Errorf("its rows are all at multiples of %d %s: the bucket size (rtla -b) is not written in the file, and osnoise hist's min: and max: are bucket bounds, which cannot tell 1 %s buckets from wider ones; %s", g, h.unit(), h.unit(), accepted)
	}
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

// allOver refuses what rtla osnoise hist writes when CPUs had noise but
// none of it fell inside the histogram's range: its header names each CPU
// with an occurrence, but with no row written osnoise_print_stats prints
// "over: 0\ncount: 0\nmin: 0\navg: 0\nmax: 0\n" whatever the counts
// (since Linux 6.11, "rtla/osnoise: Better report when histogram is
// empty"). Every occurrence was then at or above the range, and the file
// does not say how many: its 0s are not counts. Read as written, one CPU
// would have had no noise.
func (h *Histogram) allOver(fields []string) error {
	if !h.Osnoise || len(h.Columns) == 0 || len(h.Index) > 0 || len(fields) != 1 || fields[0] != "0" {
		return nil
	}
	cols := fmt.Sprintf("%d CPU columns", len(h.Columns))
	if len(h.Columns) == 1 {
		cols = "1 CPU column"
	}
	return fmt.Errorf("rtla osnoise hist names %s but writes no row and a single 0 on its summary lines: every noise occurrence was at or above the histogram's range (-E entries of -b; with -n the defaults span 256 ns), and rtla wrote no count of them (osnoise_print_stats prints zeros then): run it again with a range that holds the noise (-b, -E)", cols)
}

// values parses a line's values, one per column. osnoise hist with no
// column writes a single 0 on each of its lines (osnoise_print_stats:
// "over: 0", "count: 0", ...), and before "rtla/osnoise: Better report
// when histogram is empty" (Linux 6.11) none; its avg: has two decimals
// (%9.2f), read rounded down, with decimals.
func (h *Histogram) values(fields []string, dash, decimals bool) ([]int64, error) {
	if h.Osnoise && len(h.Columns) == 0 {
		if len(fields) > 1 || len(fields) == 1 && fields[0] != "0" {
			return nil, fmt.Errorf("%d values where rtla osnoise hist, with no column (no CPU had noise), writes a single 0 or none", len(fields))
		}
		return []int64{}, nil
	}
	if !decimals {
		return values(fields, len(h.Columns), dash)
	}
	ints := make([]string, len(fields))
	for i, f := range fields {
		whole, frac, ok := strings.Cut(f, ".")
		if ok && (len(frac) == 0 || strings.Trim(frac, "0123456789") != "") {
			return nil, fmt.Errorf("%.30q is not a number with decimals", f)
		}
		ints[i] = whole
	}
	return values(ints, len(h.Columns), dash)
}

// cents are osnoise's avg: fields (whole, read by values) in hundredths:
// whole*100 and the first two decimals.
func cents(fields []string, whole []int64) []int64 {
	if len(fields) != len(whole) {
		return []int64{} // no column: the single 0 or nothing
	}
	out := make([]int64, len(whole))
	for i, w := range whole {
		if w < 0 || w > (math.MaxInt64-99)/100 {
			out[i] = -1
			continue
		}
		_, frac, _ := strings.Cut(fields[i], ".")
		frac = (frac + "00")[:2] // values checked it holds digits only
		out[i] = w*100 + int64(frac[0]-'0')*10 + int64(frac[1]-'0')
	}
	return out
}

// ColumnSamples are col's samples, in range and over it; 0 when the
// file has no such column.
func (h *Histogram) ColumnSamples(col Column) int64 {
	j := slices.Index(h.Columns, col)
	if j < 0 {
		return 0
	}
	return h.colRows[j] + h.Over[j] // cannot overflow: check() summed them
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
