package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// Wake prints `wake`: the run and its timer, the lateness and its
// verdict first, then each thread's distribution, the missed periods, the
// tool's overhead, the notes and, with --explain, why the worst wake-ups
// were late.
func Wake(w io.Writer, doc *result.Document) {
	d := doc.Data.(*probe.WakeData)
	wakeStopLines(w, d)
	m := d.Measurement
	prio := "normal scheduling"
	if len(d.Threads) > 0 {
		switch t := d.Threads[0]; t.Priority {
		case "realtime":
			prio = fmt.Sprintf("realtime priority %d", t.RTPrio)
		case "high": // a realtime request that Windows lowered
			prio = "high priority"
		}
	}
	fmt.Fprintf(w, "latlab wake: %d thread(s), interval %s, %s, %s\n", len(d.Threads), units.Duration(time.Duration(m.IntervalNs)), prio, m.Method)
	// --resolution's grant, as sleep prints it (every thread asks the same)
	if len(d.Threads) > 0 && d.Threads[0].RequestedNs > 0 {
		t := d.Threads[0]
		fmt.Fprintf(w, "timer request: %s -> granted %s (%s)\n", units.MsPrecise(time.Duration(t.RequestedNs)), units.MsPrecise(time.Duration(t.GrantedNs)), t.ResolutionNote)
	}
	if d.Timer != nil {
		fmt.Fprintf(w, "timer: %s\n", timerLine(d.Timer))
	}
	// The answer first, in the check-up's words and units.
	s := d.Summary
	fmt.Fprintf(w, "lateness (wake time - deadline): p50 %s, p99 %s, max %s; %d missed period%s\n",
		units.Ns(s.P50), units.Ns(s.P99), units.Ns(s.Max), d.Overruns, plural(int(d.Overruns)))
	_, verdict := WakeVerdict(d)
	fmt.Fprintf(w, "verdict: %s\n\n", verdict)
	// p90 and p99.9 are in the document: with a unit in each cell the
	// table fits 80 columns with these.
	hdr := []string{"thread", "cpu", "count", "min", "p50", "p99", "max", "mean", "missed"}
	var rows [][]string
	row := func(name, cpu string, s stats.Summary, over int64) []string {
		u := WithUnit
		if s.Count == 0 { // a thread held off its CPU for the run: a note says so
			return []string{name, cpu, "0", "-", "-", "-", "-", "-", strconv.FormatInt(over, 10)}
		}
		return []string{name, cpu, strconv.FormatInt(s.Count, 10), u.Format(float64(s.Min)), u.Format(float64(s.P50)),
			u.Format(float64(s.P99)), u.Format(float64(s.Max)), u.Format(s.Mean), strconv.FormatInt(over, 10)}
	}
	for i, t := range d.Threads {
		cpu := "-"
		if t.CPU >= 0 {
			cpu = strconv.Itoa(t.CPU)
		}
		rows = append(rows, row(fmt.Sprintf("T%d", i), cpu, t.Summary, t.Overruns))
	}
	if len(d.Threads) > 1 {
		rows = append(rows, row("all", "", d.Summary, d.Overruns))
	}
	Table(w, hdr, rows)
	if d.Overruns > 0 {
		c := d.CorrectedSummary
		fmt.Fprintf(w, "\n%d missed period%s. Corrected for them (coordinated omission): p99 %s, p99.9 %s, max %s over %d wake-ups that should have happened\n",
			d.Overruns, plural(int(d.Overruns)), units.Ns(c.P99), units.Ns(c.P999), units.Ns(c.Max), c.Count)
	} else {
		fmt.Fprintln(w, "\nno missed periods")
	}
	fmt.Fprintf(w, "tool overhead: clock read %s, %s %s (p50); interrupted waits %d\n",
		units.Ns(d.Overhead.ClockReadP50Ns), d.Overhead.ZeroWaitMethod, units.Ns(d.Overhead.ZeroWaitP50Ns), m.Interrupted)
	if l := interruptedLine(d.Counts, "wake-ups"); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, n := range doc.Notes {
		if n != probe.WakeWarmupNote && !strings.HasPrefix(n, "explain: tracefs") {
			writeNote(w, n)
		}
	}
	if len(d.Explain) > 0 {
		wakeExplain(w, d)
	}
}

// wakeExplain prints each explained wake-up in the manner of rtla
// timerlat's auto-analysis, then the totals by cause and the next step.
func wakeExplain(w io.Writer, d *probe.WakeData) {
	us := func(ns int64) string {
		if ns < 0 {
			return "?"
		}
		return units.UsFixed(float64(ns))
	}
	pct := func(ns, of int64) string {
		if of <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%4.1f %%)", 100*float64(ns)/float64(of))
	}
	fmt.Fprintf(w, "\nwhy the worst %d wake-ups were late (what ran on the measured CPU between\nthe deadline and the thread's time stamp):\n", len(d.Explain))
	for i, x := range d.Explain {
		fmt.Fprintf(w, "\n#%d CPU %d at %s: latency %s\n", i+1, x.CPU, units.Seconds(x.AtS, 3), us(x.LatencyNs))
		fmt.Fprintf(w, "  %-44s %12s\n", "timer interrupt latency (to hrtimer expiry):", us(x.TimerLatencyNs))
		fmt.Fprintf(w, "  %-44s %12s\n", "wake-up to running (sched_wakeup to switch):", us(x.WakeToRunNs))
		if x.WakeToRunNs >= 0 {
			fmt.Fprintf(w, "  %-44s %12s\n", "switch to time stamp:", us(x.SwitchToStampNs))
		}
		if len(x.Ran) > 0 {
			fmt.Fprintln(w, "  held the CPU:")
		}
		for j, r := range x.Ran {
			if j == 6 {
				fmt.Fprintf(w, "    (%d more in the document)\n", len(x.Ran)-j)
				break
			}
			fmt.Fprintf(w, "    %s %12s%s\n", padCols(Clip(ranName(r), 42), 42), us(r.DurationNs), pct(r.DurationNs, x.LatencyNs))
		}
		if x.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", safeText(x.Note))
		}
		fmt.Fprintf(w, "  main cause: %s\n", safeText(x.Cause))
	}
	if len(d.ExplainTotals) > 0 {
		fmt.Fprintln(w, "\ntotals by cause over the explained wake-ups:")
		rows := [][]string{}
		for i, c := range d.ExplainTotals {
			if i == 10 {
				break
			}
			rows = append(rows, []string{c.Kind, Clip(causeName(c), 34), strconv.Itoa(c.Wakeups), us(c.DurationNs)})
		}
		Table(w, []string{"kind", "name", "wake-ups", "total"}, rows)
	}
	if d.ExplainNext != "" {
		fmt.Fprintln(w)
		writeHanging(w, "next step: "+safeText(d.ExplainNext), 2)
	}
}

// causeName is a total's name in a table, escaped: "latlab (latlab's
// own)" for latlab's own threads.
func causeName(c explain.Cause) string {
	if c.Own {
		return safeText(c.Name) + " (latlab's own)"
	}
	return safeText(c.Name)
}

// ranName is one line's subject: "thread stress:7016 (SCHED_OTHER, nice 0)",
// "thread latlab:7020 (latlab's own, nice 19)", its name (a process's
// comm, an interrupt's device) escaped.
func ranName(r explain.Ran) string {
	name := safeText(r.Name)
	switch r.Kind {
	case explain.KindThread:
		p := ""
		switch {
		case r.Prio < 100:
			p = fmt.Sprintf("rt %d", 99-r.Prio)
		default:
			p = fmt.Sprintf("nice %d", r.Prio-120)
		}
		switch {
		case r.Own:
			p = "latlab's own, " + p // its policy is latlab's to know
		case r.Policy != "":
			p = r.Policy + ", " + p
		}
		return fmt.Sprintf("thread %s:%d (%s)", name, r.PID, p)
	case explain.KindIdle:
		return "idle"
	}
	s := r.Kind + " " + name
	if r.Count > 1 {
		s += fmt.Sprintf(" x%d", r.Count)
	}
	return s
}

// WakeVerdict is the band and verdict line of a wake document: the ones
// it carries, else the check-up's (a document written before wake
// documents carried them).
func WakeVerdict(d *probe.WakeData) (band, text string) {
	if d.Verdict != "" {
		return d.Band, d.Verdict
	}
	// A thread held off its CPU for the whole run has no figures; its one
	// wake-up, the warm-up, is the run's latest, and the verdict counts it.
	judged := d.Summary
	for _, t := range d.Threads {
		if t.Summary.Count == 0 {
			judged.Max = max(judged.Max, t.WarmupNs)
		}
	}
	return doctor.WakeVerdict(judged, d.Overruns, time.Duration(d.Measurement.IntervalNs))
}
