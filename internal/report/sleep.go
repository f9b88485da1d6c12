package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

// Sleep prints `sleep`: the run, the timer it ran under, the overshoot
// and its verdict first, then the distribution, the tool's overhead and
// the notes (not the warm-up's, said already).
func Sleep(w io.Writer, doc *result.Document, r *probe.SleepResult) {
	d := doc.Data.(*probe.SleepData)
	m := d.Measurement
	fmt.Fprintf(w, "latlab sleep: %s(%s) x %d, gap %s, priority %s, %s\n",
		m.Method, units.Duration(r.Requested), d.Summary.Count, doc.Settings["gap"], describePriority(m.Thread), describeCPU(m.Thread.CPU))
	if m.Thread.RequestedNs > 0 {
		fmt.Fprintf(w, "timer request: %s -> granted %s (%s)\n", units.MsPrecise(time.Duration(m.Thread.RequestedNs)), units.MsPrecise(time.Duration(m.Thread.GrantedNs)), m.Thread.ResolutionNote)
	}
	if d.Timer != nil {
		fmt.Fprintf(w, "timer: %s\n", timerLine(d.Timer))
	}
	// The answer first, in the check-up's words and units.
	o := d.Overshoot
	fmt.Fprintf(w, "overshoot (slept - requested): p50 %s, p99 %s, max %s\n", units.Ns(o.P50), units.Ns(o.P99), units.Ns(o.Max))
	if v := SleepVerdict(d); v != "" {
		fmt.Fprintf(w, "verdict: %s\n", v)
	}
	fmt.Fprintf(w, "warm-up: first sample (%s) discarded\n\n", units.Duration(time.Duration(m.WarmupNs)))
	SummaryTable(w,
		Column{Title: "slept", Summary: d.Summary, Unit: WithUnit},
		Column{Title: "overshoot", Summary: d.Overshoot, Unit: WithUnit})
	fmt.Fprintf(w, "\ntool overhead: clock read %s, zero-length %s %s (p50); interrupted waits %d\n",
		units.Duration(time.Duration(d.Overhead.ClockReadP50Ns)), d.Overhead.ZeroWaitMethod,
		units.Duration(time.Duration(d.Overhead.ZeroWaitP50Ns)), m.Interrupted)
	if l := interruptedLine(d.Counts, "samples"); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, n := range doc.Notes {
		if !strings.HasPrefix(n, "first sample") {
			writeNote(w, n)
		}
	}
}

// SleepVerdict is the verdict line of a sleep document: the one it
// carries, else the check-up's words for its overshoot (a document
// written before sleep documents carried it), "" without the timer
// state it rests on.
func SleepVerdict(d *probe.SleepData) string {
	switch {
	case d.Verdict != "":
		return d.Verdict
	case d.Timer == nil:
		return ""
	}
	return doctor.SleepVerdict(d.Overshoot, *d.Timer)
}

// interruptedLine says what an interrupted sleep or wake run measured, or
// "" when it was not interrupted; unit names its samples.
func interruptedLine(c probe.Counts, unit string) string {
	if !c.Interrupted {
		return ""
	}
	return fmt.Sprintf("interrupted: %d of %d planned %s measured before the run was stopped;\n  the statistics cover those", c.MeasuredCount, c.RequestedCount, unit)
}

// describePriority is the measuring thread's priority, with the
// realtime priority it got.
func describePriority(t *probe.ThreadSetup) string {
	if t.Priority == "realtime" && t.RTPrio > 0 {
		return fmt.Sprintf("realtime (%d)", t.RTPrio)
	}
	return t.Priority
}

// describeCPU says which CPU the measuring thread was pinned to.
func describeCPU(cpu int) string {
	if cpu < 0 {
		return "not pinned"
	}
	return fmt.Sprintf("pinned to CPU %d", cpu)
}
