package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/try"
	"github.com/latlab/latlab/internal/units"
)

// TryPlanWarnings says, before an experiment measures, what would leave it
// without an answer.
func TryPlanWarnings(w io.Writer, plan *try.Result) {
	var warn []string
	if need := try.MinBlocksOf(plan); plan.Blocks < need {
		warn = append(warn, fmt.Sprintf("%d blocks per arm cannot give a verdict: the block test needs at least %d to reach p < %.2f (--blocks %d)", plan.Blocks, need, try.Alpha, need))
	}
	for _, n := range plan.Notes {
		if strings.HasPrefix(n, "none of try's probes measures") || strings.HasPrefix(n, "the ") && strings.Contains(n, "probe is the one that shows") {
			warn = append(warn, n)
		}
	}
	for _, m := range warn {
		writeHanging(w, "warning: "+m, 2)
	}
}

// tryHead is the first line of try's output and of its plan: the knob,
// the arms and blocks, the probe and verdict, the seed that repeats it.
func tryHead(w io.Writer, r *try.Result) {
	writeHanging(w, fmt.Sprintf("latlab try %s%s: %d arms x %d blocks of %s, settle %s, %s probe, verdict by %s; block order seed %d (--seed %d repeats it)",
		r.Knob, Paren(r.Target), len(r.Arms), r.Blocks, units.Duration(time.Duration(r.BlockDurationNs)), units.Duration(time.Duration(r.SettleNs)),
		r.Probe, r.By, r.Seed, r.Seed), 2)
}

// TryPlan prints `try --dry-run`: the head, the arms and what each
// changes, the order of the blocks, the adapter restarts, the files the
// run would write (out: -o, html: --html; none: ""), the notes.
func TryPlan(w io.Writer, r *try.Result, out, html string) {
	tryHead(w, r)
	fmt.Fprintf(w, "about %s in all\n", units.Duration(estimateRound(time.Duration(r.EstimateNs))))
	if r.Probe == try.ProbeNoise {
		on := fmt.Sprintf("a thread spinning on CPU %d", r.OneNoiseCPU())
		if cpus := r.NoiseCPUList(); len(cpus) > 1 {
			on = "a thread spinning on each of CPUs " + try.CPUWords(cpus)
		}
		writeHanging(w, fmt.Sprintf("each block: %s, counting interruptions of at least %s", on, units.Ns(r.NoiseThresholdNs)), 2)
	}
	fmt.Fprint(w, "\narms:\n")
	for _, a := range r.Arms {
		switch {
		case a.Baseline:
			writeHanging(w, fmt.Sprintf("  %-10s %s (the baseline)", a.Label, a.Current), 13)
		case len(a.Changes) == 0:
			writeHanging(w, fmt.Sprintf("  %-10s request %s", a.Label, units.Duration(time.Duration(a.RequestNs))), 13)
		default:
			for i, c := range a.Changes {
				l := a.Label
				if i > 0 {
					l = ""
				}
				// a registry path is one word wider than a line: broken
				// after a separator
				writeProse(w, fmt.Sprintf("  %-10s %s: %s -> %s", l, c.Where, c.From, c.To), 13, c.Where)
			}
		}
	}
	fmt.Fprintln(w, "\norder:")
	n := len(r.Arms)
	for round := 0; round*n < len(r.Order); round++ {
		var names []string
		for _, a := range r.Order[round*n : round*n+n] {
			l := r.Arms[a].Label
			if a != 0 && r.Restart != nil {
				l += " (restart, block, restore, restart)"
			}
			names = append(names, l)
		}
		writeHanging(w, fmt.Sprintf("  round %d: %s", round+1, strings.Join(names, ", ")), 4)
	}
	if rs := r.Restart; rs != nil {
		writeHanging(w, fmt.Sprintf("\nadapter restarts: %d, each of %q by its interface alias (NAME), looked up first with:", rs.Planned, rs.Adapter), 2)
		for _, c := range []string{rs.Lookup, rs.Restart, rs.Status + " (until Up, at most " + units.Duration(time.Duration(rs.LinkTimeoutNs)) + ")"} {
			writeHanging(w, "  "+c, 4)
		}
	}
	fmt.Fprintln(w, "\nwould write:")
	for _, s := range r.Writes {
		writeProse(w, "  "+s, 4)
	}
	for _, f := range []struct{ flag, path string }{{"-o", out}, {"--html", html}} {
		if f.path != "" {
			writeProse(w, fmt.Sprintf("  %s: the result (%s)", f.path, f.flag), 4, f.path)
		}
	}
	for _, n := range r.Notes {
		writeHanging(w, "note: "+n, 2)
	}
	fmt.Fprintln(w, "\ndry run: nothing was changed")
}

// Try prints `try`, the answer first: the head and the verdicts, then
// each arm's statistics over the complete blocks (and the DPC times of
// the dpcisr probe), how the run stopped, what was restored, the restarts
// and the notes.
func Try(w io.Writer, r *try.Result) {
	tryHead(w, r)
	perCPU, perSection := false, false
	for _, a := range r.Arms[1:] {
		if a.Verdict != nil {
			writeHanging(w, "- "+a.Verdict.Text, 2)
			perCPU = perCPU || len(a.Verdict.NoiseCPUs) > 0
			perSection = perSection || len(a.Verdict.DPCISRSections) > 1
		}
	}
	fmt.Fprintln(w)
	if perCPU {
		// The noise probe over several CPUs: each line above sums up a
		// value's verdicts on the CPUs; here is each one's evidence.
		fmt.Fprintln(w, "per CPU:")
		for _, a := range r.Arms[1:] {
			if a.Verdict == nil {
				continue
			}
			for _, c := range a.Verdict.NoiseCPUs {
				writeHanging(w, "- "+c.Text, 2)
			}
		}
		fmt.Fprintln(w)
	}
	if perSection {
		// The dpcisr probe over a module's DPCs and ISRs: each line above
		// sums up a value's verdicts on the sections; here is each one's
		// evidence.
		fmt.Fprintln(w, "per section:")
		for _, a := range r.Arms[1:] {
			if a.Verdict == nil {
				continue
			}
			for _, s := range a.Verdict.DPCISRSections {
				writeHanging(w, "- "+s.Section+": "+s.Text, 2)
			}
		}
		fmt.Fprintln(w)
	}
	var cols []Column
	for _, a := range r.Arms {
		if a.Summary == nil {
			continue
		}
		cols = append(cols, Column{Title: a.Label, Summary: *a.Summary, Unit: tryUnit(r)})
	}
	if len(cols) > 0 {
		pooled := ""
		if r.Probe == try.ProbeNoise && len(r.NoiseCPUList()) > 1 {
			pooled = ", all CPUs"
		}
		fmt.Fprintf(w, "%s of the complete blocks%s:\n", r.Quantity, pooled)
		SummaryTable(w, cols...)
		fmt.Fprintln(w)
	}
	if r.Probe == try.ProbeDPCISR {
		tryDPC(w, r)
	}
	if r.Probe == try.ProbeNoise {
		tryNoise(w, r)
	}
	for _, a := range r.Arms {
		if a.Baseline {
			writeHanging(w, fmt.Sprintf("baseline: %s (%d of %d blocks complete)", a.Current, a.Complete, r.Blocks), 2)
		}
	}
	if r.Stopped != "" {
		writeHanging(w, "stopped: "+r.Stopped, 2)
	}
	if r.Restore != nil {
		writeHanging(w, r.Restore.Text, 2)
	}
	if rs := r.Restart; rs != nil {
		writeHanging(w, fmt.Sprintf("network adapter %q (%s) restarted %d of %d planned times; the longest wait for its link was %s",
			rs.Adapter, rs.GUID, rs.Done, rs.Planned, units.Duration(time.Duration(rs.WaitedNs))), 2)
	}
	for _, n := range r.Notes {
		writeHanging(w, "note: "+n, 2)
	}
}

// tryDPC shows the module the dpcisr verdicts follow and its execution
// times per section and arm, pooled over the complete blocks, in xperf's
// buckets: the figures the verdicts rest on.
func tryDPC(w io.Writer, r *try.Result) {
	if r.Module == "" {
		writeHanging(w, "no DPC was recorded in the complete blocks", 2)
		fmt.Fprintln(w)
		return
	}
	why := "the module with the most DPC time in the run"
	if r.ModuleGiven != "" {
		why = "--module"
	}
	writeHanging(w, fmt.Sprintf("execution times of %s (%s), complete blocks pooled:", r.Module, why), 2)
	// Each value's comparison holds the baseline too: each (section,
	// arm) once, the sections in compare's order.
	type line struct{ section, text string }
	var lines []line
	shown := map[[2]string]bool{}
	var sections []string
	for _, a := range r.Arms[1:] {
		if a.Verdict == nil || a.Verdict.DPCISR == nil {
			continue
		}
		for _, sc := range a.Verdict.DPCISR.Sections {
			if !slices.Contains(sections, sc.Name) {
				sections = append(sections, sc.Name)
			}
			for _, rd := range sc.Runs {
				if shown[[2]string{sc.Name, rd.Label}] {
					continue
				}
				shown[[2]string{sc.Name, rd.Label}] = true
				t := fmt.Sprintf("    %-10s %d executions", rd.Label, rd.Summary.Count)
				for _, q := range rd.Summary.Quantiles {
					if q.P == 50 || q.P == 99 {
						t += fmt.Sprintf(", p%g in %s", q.P, q.Bucket.Range())
					}
				}
				if rd.Summary.Max != nil {
					t += ", max in " + rd.Summary.Max.Range()
				}
				lines = append(lines, line{sc.Name, t})
			}
		}
	}
	for _, name := range sections {
		fmt.Fprintf(w, "  %s:\n", name)
		for _, l := range lines {
			if l.section == name {
				writeHanging(w, l.text, 15)
			}
		}
	}
	fmt.Fprintln(w)
}

// tryNoise shows what the noise probe counted on its CPU per arm, over
// the complete blocks pooled: the figures the rate verdict rests on.
func tryNoise(w io.Writer, r *try.Result) {
	if cpus := r.NoiseCPUList(); len(cpus) > 1 {
		writeHanging(w, fmt.Sprintf("CPUs %s, interruptions of at least %s, complete blocks pooled:", try.CPUWords(cpus), units.Ns(r.NoiseThresholdNs)), 2)
		for c, cpu := range cpus {
			fmt.Fprintf(w, "  CPU %d:\n", cpu)
			for _, a := range r.Arms {
				var n *try.NoiseRate
				if c < len(a.NoiseCPUs) {
					n = &a.NoiseCPUs[c].NoiseRate
				}
				noiseLine(w, "    ", a.Label, n)
			}
		}
		fmt.Fprintln(w)
		return
	}
	writeHanging(w, fmt.Sprintf("CPU %d, interruptions of at least %s, complete blocks pooled:", r.OneNoiseCPU(), units.Ns(r.NoiseThresholdNs)), 2)
	for _, a := range r.Arms {
		noiseLine(w, "  ", a.Label, a.Noise)
	}
	fmt.Fprintln(w)
}

// noiseLine is an arm's pooled interruptions on a CPU.
func noiseLine(w io.Writer, indent, label string, n *try.NoiseRate) {
	if n == nil || n.RuntimeNs == 0 {
		writeHanging(w, fmt.Sprintf("%s%-10s no complete block", indent, label), len(indent)+11)
		return
	}
	writeHanging(w, fmt.Sprintf("%s%-10s %s, %.3f%% available (%d in %s, noise %s)", indent, label, try.FormatRate(n.PerSecond), n.AvailablePct,
		n.Count, units.Duration(time.Duration(n.RuntimeNs).Round(time.Millisecond)), units.Duration(time.Duration(n.NoiseNs).Round(time.Microsecond))), len(indent)+11)
}

// tryUnit shows sleep times in ms (a sleep is about a millisecond) and
// latencies in µs.
func tryUnit(r *try.Result) Unit {
	if r.Probe == try.ProbeSleep {
		return Ms
	}
	return Us
}

// estimateRound rounds a run's estimated length to what an estimate can
// claim: whole seconds, or a tenth of a second below ten seconds, which
// a run of short blocks takes (rounded to seconds, it read "about 0").
func estimateRound(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return max(d.Round(100*time.Millisecond), 100*time.Millisecond)
	}
	return d.Round(time.Second)
}
