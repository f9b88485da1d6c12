package irq

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/lazy"

	"github.com/latlab/latlab/internal/cpuset"
)

// Counters is one reading of a per-CPU counter file (/proc/interrupts or
// /proc/softirqs): cumulative counts since boot, one column per CPU.
type Counters struct {
	// CPUs are the logical CPU numbers of the columns, from the header
	// ("CPU0 CPU2 ..."): /proc/interrupts lists online CPUs only, while
	// /proc/softirqs lists every possible CPU, so columns are matched by
	// number, never by position.
	CPUs []int
	Rows []CounterRow
}

// CounterRow is one line.
type CounterRow struct {
	Name string // "38", "LOC", "NET_RX"
	Kind string // KindIRQ, KindArch or KindSoftirq
	// PerCPU is aligned with Counters.CPUs; nil for rows that carry one
	// total only (x86 ERR: and MIS:, ARM Err:), for architecture rows with
	// more counts than the header has CPUs (old 32-bit ARM IPI rows, whose
	// Total is then their sum), and for rows with no counts at all (32-bit
	// ARM FIQ:, Total 0).
	PerCPU []uint64
	Total  uint64
	// Chip is the interrupt controller and trigger text of numbered IRQs
	// ("PCI-MSI 524288-edge"); Desc is an architecture row's description.
	Chip, Desc string
	// Actions are the handlers registered on a numbered IRQ, e.g.
	// "eth0-TxRx-3"; a shared line has several.
	Actions []string
}

// Row kinds.
const (
	KindIRQ     = "irq"     // a numbered interrupt line
	KindArch    = "arch"    // an architecture counter: LOC, NMI, IPI0, ...
	KindSoftirq = "softirq" // NET_RX, TIMER, ...
)

// rowStart matches the start of a row: a name (s390's "I/O" has a
// slash), a colon, then space, the end of the line, or a count. arm64
// prints "IPI0:" with no space before a count as wide as its column
// ("IPI0:2768808080 2844211768 ...", on a machine with fewer than 1000
// interrupts). Continuation lines of a row wrapped by a terminal or a
// mail client do not match (descriptions such as "ACPI:Ged" have a letter
// after the colon).
var rowStart = lazy.Regexp(`^\s*([A-Za-z0-9_/]+):(\s|$|[0-9]+(\s|$))`)

// ParseInterrupts parses /proc/interrupts.
func ParseInterrupts(r io.Reader) (*Counters, error) { return parseCounters(r, false) }

// ParseSoftirqs parses /proc/softirqs.
func ParseSoftirqs(r io.Reader) (*Counters, error) { return parseCounters(r, true) }

func parseCounters(r io.Reader, softirq bool) (*Counters, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	c := &Counters{}
	lineNo := 0
	header := false
	type logical struct {
		no   int
		text string
	}
	var rows []logical
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !header {
			cpus, err := parseHeader(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			c.CPUs = cpus
			header = true
			continue
		}
		if rowStart().MatchString(line) {
			rows = append(rows, logical{lineNo, line})
			continue
		}
		if len(rows) == 0 {
			// A header wrapped over several lines continues with CPUn.
			if more, err := parseHeader(line); err == nil {
				c.CPUs = append(c.CPUs, more...)
				continue
			}
			return nil, fmt.Errorf("line %d: expected a row \"NAME: counts...\", got %q", lineNo, clip(line))
		}
		rows[len(rows)-1].text += " " + strings.TrimSpace(line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", lineNo+1, err)
	}
	if !header {
		return nil, fmt.Errorf("empty input: no CPU header line")
	}
	for _, l := range rows {
		row, err := parseRow(l.text, len(c.CPUs), softirq)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", l.no, err)
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

func parseHeader(line string) ([]int, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil, fmt.Errorf("empty header")
	}
	cpus := make([]int, 0, len(f))
	for _, t := range f {
		n, ok := strings.CutPrefix(t, "CPU")
		if !ok {
			return nil, fmt.Errorf("header: %q is not CPUn", clip(t))
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("header: %q is not CPUn", clip(t))
		}
		if len(cpus) > 0 && v <= cpus[len(cpus)-1] {
			return nil, fmt.Errorf("header: CPU%d after CPU%d: CPU numbers must increase", v, cpus[len(cpus)-1])
		}
		cpus = append(cpus, v)
	}
	return cpus, nil
}

func parseRow(text string, ncpu int, softirq bool) (CounterRow, error) {
	i := strings.IndexByte(text, ':')
	name := strings.TrimSpace(text[:i])
	f := strings.Fields(text[i+1:])
	row := CounterRow{Name: name}
	// A numbered row takes at most one count a column: what follows is its
	// chip. An architecture row takes every leading number.
	limit := len(f)
	if isNumber(name) {
		limit = min(ncpu, len(f))
	}
	var vals []uint64
	for len(vals) < limit {
		v, err := strconv.ParseUint(f[len(vals)], 10, 64)
		if err != nil {
			break
		}
		vals = append(vals, v)
	}
	rest := f[len(vals):]
	switch {
	case len(vals) == ncpu:
		row.PerCPU = vals
		for _, v := range vals {
			row.Total += v
		}
	case len(vals) == 1 && len(rest) == 0 && !isNumber(name):
		row.Total = vals[0] // ERR:, MIS: a single system-wide total
	case len(vals) > ncpu && !softirq:
		// Old 32-bit ARM kernels print the IPI rows for every present CPU
		// and the header for online CPUs only: which CPU a count belongs
		// to is not known, so only their sum is kept.
		for _, v := range vals {
			row.Total += v
		}
	case len(vals) == 0 && len(rest) > 0 && !isNumber(name) && !softirq:
		// 32-bit ARM's "FIQ:   fiq_glue": the FIQ handler's name, no counts.
	default:
		return row, fmt.Errorf("row %s: %d counts for %d CPUs", name, len(vals), ncpu)
	}
	switch {
	case softirq:
		row.Kind = KindSoftirq
		if len(rest) > 0 {
			return row, fmt.Errorf("row %s: unexpected text %q after the counts", name, clip(strings.Join(rest, " ")))
		}
	case isNumber(name):
		row.Kind = KindIRQ
		row.Chip, row.Actions = splitIRQText(rest)
	default:
		row.Kind = KindArch
		row.Desc = strings.Join(rest, " ")
	}
	return row, nil
}

// trigger matches the token that ends the chip part of a numbered IRQ's
// text, after which the handler names follow: the hwirq joined to the flow
// handler on x86 ("524288-edge", "9-fasteoi"), the flow handler glued to
// the chip on old kernels ("IO-APIC-edge", "PCI-MSI-edge"), or a separate
// Level/Edge word (GENERIC_IRQ_SHOW_LEVEL: ARM and RISC-V).
var trigger = lazy.Regexp(`(?i)(-(edge|level|fasteoi|simple|percpu|percpu_devid|bad|none|untracked)$|^(edge|level)$)`)

func splitIRQText(f []string) (chip string, actions []string) {
	last := -1
	for i, t := range f {
		if trigger().MatchString(t) {
			last = i
		}
	}
	var names []string
	switch {
	case last >= 0:
		chip = strings.Join(f[:last+1], " ")
		names = f[last+1:]
	case len(f) >= 2:
		chip, names = f[0], f[1:]
	default:
		return strings.Join(f, " "), nil
	}
	if len(names) == 0 {
		return chip, nil
	}
	// Handlers are joined with ", "; a name itself may contain spaces
	// ("iwlwifi: default queue", "PCIe PME").
	for _, a := range strings.Split(strings.Join(names, " "), ", ") {
		if a = strings.TrimSpace(a); a != "" {
			actions = append(actions, a)
		}
	}
	return chip, actions
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// SplitQueue splits a handler name into device and queue:
// "eth0-TxRx-3" -> eth0, TxRx-3; "virtio2-input.0" -> virtio2, input.0;
// "mlx5_comp3@pci:0000:21:00.0" -> mlx5, comp3; "nvme0q3" -> nvme0, q3;
// "iwlwifi: queue 1" -> iwlwifi, queue 1. A name with no queue part is all
// device.
func SplitQueue(action string) (device, queue string) {
	a := action
	if i := strings.IndexByte(a, '@'); i > 0 {
		a = a[:i]
	}
	if i := strings.Index(a, ": "); i > 0 {
		return a[:i], a[i+2:]
	}
	if i := strings.IndexByte(a, '-'); i > 0 {
		return a[:i], a[i+1:]
	}
	if m := reCompQueue().FindStringSubmatch(a); m != nil {
		return m[1], m[2]
	}
	if m := reNVMeQueue().FindStringSubmatch(a); m != nil {
		return m[1], m[2]
	}
	return a, ""
}

var (
	reCompQueue = lazy.Regexp(`^([A-Za-z0-9]+)_((?:comp|async|ctrl)\d*)$`)
	reNVMeQueue = lazy.Regexp(`^(nvme\d+)(q\d+)$`)
)

// FormatCPUList renders CPUs as a kernel CPU list ("0-3,8").
func FormatCPUList(cpus []int) string {
	if len(cpus) == 0 {
		return "-"
	}
	return cpuset.FormatList(cpus)
}
