package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/units"
)

// CrossprocInterrupted prints what a crossproc run stopped by Ctrl-C
// measured: the complete holds and the verdict on them, then what was cut.
func CrossprocInterrupted(w io.Writer, r *crossproc.Result) {
	Crossproc(w, r)
	fmt.Fprintf(w, "interrupted: %d of %d holds (the baseline included) measured before the run was stopped; the verdict covers those\n", len(r.Rows), r.Planned)
}

// Crossproc prints `crossproc`, the answer first: the head, the verdict
// and what this build should do, then what this process slept while
// another held each request, against what each rule predicts.
func Crossproc(w io.Writer, r *crossproc.Result) {
	fmt.Fprintf(w, "latlab crossproc: this process, requesting nothing, sleeps %s(%s) while another process holds each request for %s (%s)\n",
		r.Method, units.Duration(time.Duration(r.DurationNs)), units.Duration(time.Duration(r.HoldNs)), r.Requester)
	fmt.Fprintf(w, "verdict: %s\n", r.Verdict.Text)
	if n := expectedNote(r.Rule); n != "" {
		fmt.Fprintf(w, "expected: %s\n", n)
	}
	fmt.Fprintln(w)
	win := false
	for _, row := range r.Rows {
		win = win || row.CurrentNs > 0 || row.TimeGetTimeNs > 0
	}
	// On Windows the child's grant is the system-wide current interval
	// right after its call; the interval read during the hold replaces it.
	// Columns are kept to what fits 80 columns; the JSON has the rest.
	hdr := []string{"requested", "granted"}
	if win {
		hdr[1] = "interval"
	}
	hdr = append(hdr, "n", "p50", "p99", "if isolated", "if global", "nearer")
	var rows [][]string
	mixed := false
	for _, row := range r.Rows {
		req, granted := "nothing", "-"
		if row.RequestedNs > 0 {
			req, granted = units.MsPrecise(time.Duration(row.RequestedNs)), units.MsPrecise(time.Duration(row.ChildGrantedNs))
		}
		if win {
			granted = units.MsPrecise(time.Duration(row.CurrentNs))
		}
		iso, glob, near := "", "", ""
		if row.RequestedNs > 0 {
			iso, glob = expectedCell(row.ExpectedIsolated), expectedCell(row.ExpectedGlobal)
			mixed = mixed || strings.Contains(iso+glob, "/")
			switch {
			case !row.Informative && row.Slept.Count < crossproc.MinSleepsPerRow:
				near = "(too few)"
			case !row.Informative:
				near = "(same)"
			case row.Tracked:
				near = "global"
			default:
				near = "isolated"
			}
		}
		s := row.Slept
		rows = append(rows, []string{req, granted, fmt.Sprint(s.Count), units.MsSignificant(time.Duration(s.P50), 4), units.MsSignificant(time.Duration(s.P99), 4), iso, glob, near})
	}
	Table(w, hdr, rows)
	if mixed || win {
		fmt.Fprintln(w)
	}
	if mixed {
		fmt.Fprintln(w, "a/b: some sleeps take a, the rest b (the plot and the JSON give the shares)")
	}
	if win {
		fmt.Fprintf(w, "this process's timeGetTime stepped every %s\n", timeGetTimeSteps(r.Rows))
	}
}

// timeGetTimeSteps summarises the step of this process's timeGetTime over
// the holds: one value when it never changed, else one per hold.
func timeGetTimeSteps(rows []crossproc.Row) string {
	var vs []string
	same := true
	for i, row := range rows {
		vs = append(vs, units.MsPrecise(time.Duration(row.TimeGetTimeNs)))
		same = same && (i == 0 || row.TimeGetTimeNs == rows[0].TimeGetTimeNs)
	}
	if same {
		return vs[0] + " in every hold"
	}
	return strings.Join(vs, ", ") + " (no request first, then each hold in turn)"
}

// expectedCell is an expectation in ms; a mix of outcomes (the research's
// 8 or 16 ms at an 8 ms interval) is written a/b.
func expectedCell(e *crossproc.Expectation) string {
	if e == nil {
		return ""
	}
	var vs []string
	for _, o := range e.Outcomes {
		vs = append(vs, units.Ms(time.Duration(o.SleepNs), 3))
	}
	return strings.Join(vs, "/") + "ms"
}

// expectedNote is the rule this OS and build follow, in words.
func expectedNote(r crossproc.Rule) string {
	switch r {
	case crossproc.Isolated2004:
		return "isolated on this build (Windows 10 2004 and later): a process that asks for nothing imitates the default 15.625 ms with whole intervals of the faster clock (the research: 12 ms at 6 ms, 14 ms at 7 ms, 8 or 16 ms at 8 ms)"
	case crossproc.GlobalRule:
		return "global on this build (before Windows 10 2004, or GlobalTimerResolutionRequests=1): Sleep follows the other process's interval"
	case crossproc.PerThread:
		return "isolated on Linux: timer slack belongs to the thread that set it"
	}
	return ""
}
