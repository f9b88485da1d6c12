package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// noiseLevels are the levels of a CPU's noise, quietest first: a CPU is
// at the first level whose both bounds it meets, else heavy. quiet is
// what an isolated CPU (isolcpus, nohz_full) reaches; light is a normal
// CPU's timer tick and device interrupts; noisy loses up to 1% and has
// interruptions up to 1 ms; heavy loses more, or has one longer.
var noiseLevels = []struct {
	name     string
	minAvail float64 // % of the runtime available to the thread, at least
	maxNs    int64   // no interruption longer than this
}{
	{"quiet", 99.99, 10_000},
	{"light", 99.9, 100_000},
	{"noisy", 99, 1_000_000},
}

// NoiseHeavy is the level of a CPU below every one of noiseLevels.
const NoiseHeavy = "heavy"

// NoiseLevel is c's level and the rule that puts it there, in words.
func NoiseLevel(c probe.NoiseCPU) (level, rule string) {
	for _, l := range noiseLevels {
		if c.AvailablePct >= l.minAvail && c.MaxNs <= l.maxNs {
			return l.name, fmt.Sprintf("%s: at least %s%% available, no interruption over %s", l.name, units.Trim(l.minAvail, 2), units.Duration(time.Duration(l.maxNs)))
		}
	}
	last := noiseLevels[len(noiseLevels)-1]
	return NoiseHeavy, fmt.Sprintf("%s: below %s%% available or an interruption over %s", NoiseHeavy, units.Trim(last.minAvail, 2), units.Duration(time.Duration(last.maxNs)))
}

func noiseRank(level string) int {
	for i, l := range noiseLevels {
		if l.name == level {
			return i
		}
	}
	return len(noiseLevels)
}

// NoiseVerdict is the level and verdict line of a noise document: the
// ones it carries, else those of its noisiest CPU (the lowest level, then
// the least available), quoting its figures.
func NoiseVerdict(d *probe.NoiseData) (level, text string) {
	if d.Verdict != "" {
		return d.Level, d.Verdict
	}
	worst, rule := -1, ""
	for i, c := range d.CPUs {
		l, r := NoiseLevel(c)
		if worst < 0 || noiseRank(l) > noiseRank(level) || (l == level && c.AvailablePct < d.CPUs[worst].AvailablePct) {
			worst, level, rule = i, l, r
		}
	}
	if worst < 0 {
		return "", ""
	}
	c := d.CPUs[worst]
	text = fmt.Sprintf("%s: CPU %d: %s available; longest interruption %s; %s interruptions/s (%s)",
		level, c.CPU, availPct(c.AvailablePct), units.NsShort(float64(c.MaxNs)), perSecond(c.PerSecond), rule)
	if len(d.CPUs) > 1 {
		text = fmt.Sprintf("%s: the noisiest of %d CPUs, CPU %d: %s available; longest interruption %s; %s interruptions/s (%s)",
			level, len(d.CPUs), c.CPU, availPct(c.AvailablePct), units.NsShort(float64(c.MaxNs)), perSecond(c.PerSecond), rule)
	}
	return level, text
}

// availPct is a share with three decimals, rounded down so that a CPU
// that lost any time never reads 100%.
func availPct(p float64) string {
	return strconv.FormatFloat(math.Floor(p*1000)/1000, 'f', 3, 64) + "%"
}

// perSecond is a rate in three significant digits at most, whole above 100.
func perSecond(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64)
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// Noise prints `noise`: the run, the verdict first, then each CPU's
// figures, the clock's own step, the pauses and the notes.
func Noise(w io.Writer, doc *result.Document) {
	d := doc.Data.(*probe.NoiseData)
	noiseStopLines(w, d)
	m := d.Measurement
	var cpus []string
	prio := "normal scheduling"
	for _, c := range d.CPUs {
		cpus = append(cpus, strconv.Itoa(c.CPU))
	}
	if len(d.CPUs) > 0 {
		switch t := d.CPUs[0]; t.Priority {
		case "realtime":
			prio = fmt.Sprintf("realtime priority %d", t.RTPrio)
		case "high":
			prio = "high priority"
		}
	}
	what := "CPU " + strings.Join(cpus, ",")
	if len(cpus) > 1 {
		what = "CPUs " + strings.Join(cpus, ",")
	}
	fmt.Fprintf(w, "latlab noise: %s, %s, threshold %s, %s\n", what, units.Duration(time.Duration(m.DurationNs)), units.Duration(time.Duration(m.ThresholdNs)), prio)
	writeHanging(w, fmt.Sprintf("method: %s; clock %s", m.Method, m.ClockSource), 2)
	_, verdict := NoiseVerdict(d)
	writeHanging(w, "verdict: "+verdict, 2)
	fmt.Fprintln(w)
	Table(w, noiseHeader, noiseRows(d))
	fmt.Fprintln(w)
	for _, c := range d.CPUs {
		if l := noiseSourcesLine(c); l != "" {
			writeHanging(w, l, 2)
		}
		if l := noiseTickLine(c, d.Timer, m.CountersNs); l != "" {
			writeHanging(w, l, 2)
		}
	}
	for _, c := range d.CPUs {
		perRead := "-"
		if c.ClockReads > 0 {
			perRead = units.NsShort(float64(c.RuntimeNs+c.PausedNs) / float64(c.ClockReads))
		}
		writeHanging(w, fmt.Sprintf("CPU %d: spun %s; clock read: smallest step %s, %s on average (%s reads)",
			c.CPU, units.NsShort(float64(c.RuntimeNs)), units.NsShort(float64(c.ClockStepMinNs)), perRead, units.Thousands(int(c.ClockReads))), 2)
		if c.Pauses > 0 {
			writeHanging(w, fmt.Sprintf("CPU %d: the loop let its thread go %d time%s for the Go runtime (%s in all): left out of runtime and noise",
				c.CPU, c.Pauses, plural(c.Pauses), units.NsShort(float64(c.PausedNs))), 2)
		}
	}
	if d.Interrupted {
		writeHanging(w, fmt.Sprintf("interrupted: the run was stopped before its %s; the figures cover the time measured", units.Duration(time.Duration(m.DurationNs))), 2)
	}
	for _, n := range doc.Notes {
		if !strings.HasPrefix(n, "explain: tracefs") {
			writeHanging(w, "note: "+safeText(n), 2)
		}
	}
	if len(d.Explain) > 0 {
		noiseExplain(w, d)
	}
}

// noiseSourcesLine says what the OS counted on c's CPU over the run:
// "CPU 1: 355 interrupts (LOC 338, RES 10, CAL 3, 2 others 4), 82
// softirqs (RCU 47, SCHED 24, TIMER 11), 116 involuntary context
// switches"; "" when nothing was read.
func noiseSourcesLine(c probe.NoiseCPU) string {
	var parts []string
	for _, k := range []struct {
		n    *probe.NoiseCounts
		what string
	}{{c.Interrupts, "interrupt%s"}, {c.Softirqs, "softirq%s"}, {c.DPCs, "DPC%s queued"}} {
		if k.n != nil {
			parts = append(parts, units.Thousands(int(k.n.Total))+" "+fmt.Sprintf(k.what, plural(int(k.n.Total)))+noiseTopSources(k.n.Sources))
		}
	}
	if c.InvoluntarySwitches != nil {
		parts = append(parts, fmt.Sprintf("%s involuntary context switch%s", units.Thousands(int(*c.InvoluntarySwitches)), map[bool]string{true: "", false: "es"}[*c.InvoluntarySwitches == 1]))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("CPU %d: %s", c.CPU, strings.Join(parts, ", "))
}

// noiseCountTable is what the OS counted on each CPU, for the HTML
// report: a column per kind some CPU has, the count then its largest
// sources; nil when no CPU has any.
func noiseCountTable(d *probe.NoiseData) (header []string, rows [][]string) {
	kinds := []struct {
		name string
		get  func(probe.NoiseCPU) *probe.NoiseCounts
	}{
		{"interrupts", func(c probe.NoiseCPU) *probe.NoiseCounts { return c.Interrupts }},
		{"softirqs", func(c probe.NoiseCPU) *probe.NoiseCounts { return c.Softirqs }},
		{"DPCs queued", func(c probe.NoiseCPU) *probe.NoiseCounts { return c.DPCs }},
	}
	var cols []int
	for i, k := range kinds {
		for _, c := range d.CPUs {
			if k.get(c) != nil {
				cols = append(cols, i)
				break
			}
		}
	}
	switches := false
	for _, c := range d.CPUs {
		switches = switches || c.InvoluntarySwitches != nil
	}
	if len(cols) == 0 && !switches {
		return nil, nil
	}
	header = []string{"cpu"}
	for _, i := range cols {
		header = append(header, kinds[i].name)
	}
	if switches {
		header = append(header, "involuntary context switches")
	}
	for _, c := range d.CPUs {
		row := []string{strconv.Itoa(c.CPU)}
		for _, i := range cols {
			cell := "-"
			if n := kinds[i].get(c); n != nil {
				cell = units.Thousands(int(n.Total)) + noiseTopSources(n.Sources)
			}
			row = append(row, cell)
		}
		if switches {
			cell := "-"
			if c.InvoluntarySwitches != nil {
				cell = units.Thousands(int(*c.InvoluntarySwitches))
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// noiseTickLine relates c's local timer interrupts to the tick: a CPU
// that runs a thread ticks CONFIG_HZ times a second unless nohz_full
// stops it, and the same interrupt (LOC on x86, arch_timer on arm64)
// also fires for high-resolution timers. "" without the figures.
func noiseTickLine(c probe.NoiseCPU, st *timer.Status, windowNs int64) string {
	if st == nil || st.ConfigHZ <= 0 || windowNs <= 0 || c.Interrupts == nil {
		return ""
	}
	var loc *probe.NoiseCount
	for i, s := range c.Interrupts.Sources {
		if s.Name == "LOC" || s.Label == "arch_timer" {
			loc = &c.Interrupts.Sources[i]
			break
		}
	}
	if loc == nil {
		return ""
	}
	secs := float64(windowNs) / 1e9
	tick := int64(math.Round(float64(st.ConfigHZ) * secs))
	name := safeText(loc.ShortName())
	if loc.Count >= tick {
		return fmt.Sprintf("CPU %d: of the %s %s interrupts, a %d Hz tick over %s s is at most %s; the rest are high-resolution timers",
			c.CPU, units.Thousands(int(loc.Count)), name, st.ConfigHZ, strconv.FormatFloat(secs, 'f', 2, 64), units.Thousands(int(tick)))
	}
	why := ""
	if cpus, err := cpuset.ParseList(st.NohzFullCPUs); err == nil && slices.Contains(cpus, c.CPU) {
		why = ": the tick stopped for part of the run (nohz_full)"
	}
	return fmt.Sprintf("CPU %d: %s %s interrupts, fewer than a %d Hz tick's %s in %s s%s",
		c.CPU, units.Thousands(int(loc.Count)), name, st.ConfigHZ, units.Thousands(int(tick)), strconv.FormatFloat(secs, 'f', 2, 64), why)
}

// noiseTopSources names the three largest sources and sums the rest; a
// source's name (a device's, from /proc/interrupts, or a driver's) escaped.
func noiseTopSources(s []probe.NoiseCount) string {
	const top = 3
	var names []string
	for i, x := range s {
		if i == top {
			rest := int64(0)
			for _, y := range s[top:] {
				rest += y.Count
			}
			names = append(names, fmt.Sprintf("%d other%s %s", len(s)-top, plural(len(s)-top), units.Thousands(int(rest))))
			break
		}
		names = append(names, safeText(x.ShortName())+" "+units.Thousands(int(x.Count)))
	}
	return Paren(strings.Join(names, ", "))
}

// noiseExplain prints what ran in each explained interruption, then the
// totals by cause and the next step, as wake --explain does.
func noiseExplain(w io.Writer, d *probe.NoiseData) {
	us := func(ns int64) string { return units.UsFixed(float64(ns)) }
	pct := func(ns, of int64) string {
		if of <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%4.1f %%)", 100*float64(ns)/float64(of))
	}
	fmt.Fprintf(w, "\nwhat ran on the CPU in the %d longest interruptions:\n", len(d.Explain))
	for i, x := range d.Explain {
		fmt.Fprintf(w, "\n#%d CPU %d at %s: %s\n", i+1, x.CPU, units.Seconds(float64(x.AtNs)/1e9, 3), us(x.LengthNs))
		for j, r := range x.Ran {
			if j == 6 {
				fmt.Fprintf(w, "    (%d more in the document)\n", len(x.Ran)-j)
				break
			}
			fmt.Fprintf(w, "    %s %12s%s\n", padCols(Clip(ranName(r), 48), 48), us(r.DurationNs), pct(r.DurationNs, x.LengthNs))
		}
		fmt.Fprintf(w, "    %-48s %12s%s\n", "untraced", us(x.UntracedNs), pct(x.UntracedNs, x.LengthNs))
		if x.Note != "" {
			writeHanging(w, "  note: "+safeText(x.Note), 4)
		}
		fmt.Fprintf(w, "  main cause: %s\n", safeText(x.Cause))
	}
	if len(d.ExplainTotals) > 0 {
		fmt.Fprintln(w, "\ntotals by cause over the explained interruptions:")
		rows := [][]string{}
		for i, c := range d.ExplainTotals {
			if i == 10 {
				break
			}
			rows = append(rows, []string{c.Kind, Clip(causeName(c), 34), strconv.Itoa(c.Wakeups), us(c.DurationNs)})
		}
		Table(w, []string{"kind", "name", "interruptions", "total"}, rows)
	}
	if d.ExplainNext != "" {
		fmt.Fprintln(w)
		writeHanging(w, "next step: "+safeText(d.ExplainNext), 2)
	}
}

// noiseHeader and noiseRows are the per-CPU table of the text and the
// HTML report alike.
var noiseHeader = []string{"cpu", "available", "noise", "count", "per s", "p50", "p99", "max"}

func noiseRows(d *probe.NoiseData) [][]string {
	u := WithUnit
	var rows [][]string
	for _, c := range d.CPUs {
		row := []string{strconv.Itoa(c.CPU), availPct(c.AvailablePct), u.Format(float64(c.NoiseNs)), strconv.FormatInt(c.Count, 10), perSecond(c.PerSecond)}
		// A p99 of fewer than 100 interruptions is their maximum (nearest
		// rank), which the next column has: a note says so.
		switch {
		case c.Summary.Count == 0:
			row = append(row, "-", "-")
		case c.Summary.Count < 100:
			row = append(row, u.Format(float64(c.Summary.P50)), "-")
		default:
			row = append(row, u.Format(float64(c.Summary.P50)), u.Format(float64(c.Summary.P99)))
		}
		max := "-"
		if c.Count > 0 {
			max = u.Format(float64(c.MaxNs))
		}
		rows = append(rows, append(row, max))
	}
	return rows
}
