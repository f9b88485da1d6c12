package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// TimerStatus prints `timer status`: this OS's timer facts, then the
// warnings.
func TimerStatus(w io.Writer, st *timer.Status) {
	timerStatusOS(w, st)
	for _, warn := range st.Warnings {
		writeHanging(w, "warning: "+warn, 2)
	}
}

// TimerGrant prints the human line of `timer set`: what was asked for
// and what the OS granted.
func TimerGrant(w io.Writer, g timer.Grant) {
	fmt.Fprintf(w, "requested %s, granted %s\n", units.MsPrecise(time.Duration(g.RequestedNs)), units.MsPrecise(time.Duration(g.GrantedNs)))
}

// TimerWho prints `timer who`: the requesters powercfg listed (a Windows
// result, also one read from a saved report on Linux) or the holders of
// /dev/cpu_dma_latency and timer slack (Linux), then the notes.
func TimerWho(w io.Writer, r *timer.WhoResult) {
	if r.OS == "windows" {
		timerWhoWindows(w, r)
	} else {
		timerWhoLinux(w, r)
	}
	for _, n := range r.Notes {
		writeHanging(w, "note: "+n, 2)
	}
}

func ms100ns(v int64) string { return units.MsPrecise(time.Duration(v) * 100) }

func timerWhoWindows(w io.Writer, r *timer.WhoResult) {
	if r.Current100ns > 0 { // not from a saved report
		fmt.Fprintf(w, "timer resolution now: %s (finest %s, coarsest %s)\n",
			ms100ns(int64(r.Current100ns)), ms100ns(int64(r.Finest100ns)), ms100ns(int64(r.Coarsest100ns)))
	}
	if r.Energy == nil {
		writeHanging(w, "requesters: unknown: "+r.EnergyError, 2)
		return
	}
	e := r.Energy
	if e.CurrentPeriod100ns != nil {
		fmt.Fprintf(w, "powercfg saw the resolution at %s", ms100ns(*e.CurrentPeriod100ns))
		if e.MaxPeriod100ns != nil {
			fmt.Fprintf(w, " (platform maximum %s)", ms100ns(*e.MaxPeriod100ns))
		}
		fmt.Fprintln(w)
	}
	if len(e.Requests) == 0 {
		fmt.Fprintln(w, "no outstanding timer request: nothing holds the timer faster than its default")
		return
	}
	var procs, kernel []timer.TimerRequest
	for _, q := range e.Requests {
		if q.Kernel {
			kernel = append(kernel, q)
			continue
		}
		procs = append(procs, q)
	}
	if len(procs) > 0 {
		fmt.Fprintf(w, "\n%d outstanding timer request%s by processes (powercfg /energy), finest first:\n", len(procs), plural(len(procs)))
		requestTable(w, procs)
	}
	if len(kernel) > 0 {
		fmt.Fprintf(w, "\n%d kernel-mode request%s (drivers, ExSetTimerResolution), finest first:\n", len(kernel), plural(len(kernel)))
		requestTable(w, kernel)
	}
	fmt.Fprintln(w, "(paths in --json)")
	if e.Labels != "" {
		writeHanging(w, "the report's labels are not English: its timer entries were recognised by their values (a period, a process ID, a \\Device\\ path)", 2)
	}
	if n := e.HiddenRequests(); n > 0 {
		writeHanging(w, fmt.Sprintf("powercfg reads the current resolution as %s (%d) although %s finer: since Windows 10 2004 the report gives the default (156250) there unless a driver holds a request, and still lists each process with the period it asked for (readers' comments on Bruce Dawson's \"Windows Timer Resolution: The Great Rule Change\"). The requests still set the timer interrupt; other processes' sleeps no longer follow it", ms100ns(*e.CurrentPeriod100ns), *e.CurrentPeriod100ns, finerRequesters(n)), 2)
	}
	if len(kernel) > 0 {
		writeHanging(w, "kernel-mode requests (a driver's ExSetTimerResolution) are listed apart from processes': they belong to no process, so they set the resolution for the whole system", 2)
	} else {
		fmt.Fprintln(w, "no kernel-mode request (a driver's ExSetTimerResolution) listed")
	}
}

// finerRequesters says how many processes request a finer period.
func finerRequesters(n int) string {
	if n == 1 {
		return "1 process requests"
	}
	return fmt.Sprintf("%d of the processes request", n)
}

// requestTable prints requests as a table: process, pid, period, the
// calling modules of the request's stack.
func requestTable(w io.Writer, reqs []timer.TimerRequest) {
	rows := [][]string{}
	for _, q := range reqs {
		period := "-"
		if q.Period100ns != nil {
			period = ms100ns(*q.Period100ns)
		}
		name, pid := q.Process, fmt.Sprint(q.PID)
		switch {
		case q.Kernel && q.PID == 0 && q.Path == "":
			// An "Outstanding Kernel Timer Request": no process, a count.
			name, pid = fmt.Sprintf("(drivers, count %d)", q.Count), "-"
		case name == "":
			name = "(no path)"
		}
		if q.PID == 0 {
			pid = "-" // the report gives none
		}
		var mods []string
		for _, m := range q.Modules {
			mods = append(mods, baseOfPath(m))
		}
		if q.StackPeriod100ns != nil {
			mods = append([]string{"(stack at " + ms100ns(*q.StackPeriod100ns) + ")"}, mods...)
		}
		rows = append(rows, []string{name, pid, period, strings.Join(mods, " ")})
	}
	TableLeft(w, []string{"process", "pid", "period", "calling modules"}, rows)
}

func timerWhoLinux(w io.Writer, r *timer.WhoResult) {
	d := r.DMALatency
	if d != nil {
		switch {
		case d.EffectiveUs == nil:
			writeHanging(w, fmt.Sprintf("/dev/cpu_dma_latency: limit in force unknown (%s)", d.EffectiveError), 2)
		case *d.EffectiveUs == timer.NoDMALimit:
			fmt.Fprintln(w, "/dev/cpu_dma_latency: no limit in force")
		default:
			fmt.Fprintf(w, "/dev/cpu_dma_latency: limit in force %d µs (the strictest request)\n", *d.EffectiveUs)
		}
		if len(d.Holders) == 0 {
			fmt.Fprintln(w, "  held by no process")
		}
		for _, h := range d.Holders {
			seen := ""
			if r.Scans > 1 {
				seen = fmt.Sprintf(", in %d of %d looks", h.Seen, r.Scans)
			}
			fmt.Fprintf(w, "  held by %s (pid %d, fd %s%s)\n", h.Comm, h.PID, joinInts(h.FDs), seen)
		}
		if len(d.Holders) > 0 {
			fmt.Fprintln(w, "  Linux does not show each holder's value; the limit is the lowest of them")
		}
	}
	var rt []string
	rows := [][]string{}
	for _, s := range r.Slack {
		if s.Policy == "SCHED_FIFO" || s.Policy == "SCHED_RR" || s.Policy == "SCHED_DEADLINE" {
			rt = append(rt, s.Comm)
			continue
		}
		rows = append(rows, []string{s.Comm, fmt.Sprint(s.PID), units.Duration(time.Duration(s.SlackNs)), s.Policy})
	}
	fmt.Fprintf(w, "\ntimer slack not the default %s:\n", units.Duration(time.Duration(r.DefaultSlackNs)))
	if len(rows) == 0 {
		fmt.Fprintln(w, "  no process apart from realtime ones")
	} else {
		Table(w, []string{"process", "pid", "slack", "policy"}, rows)
	}
	if len(rt) > 0 {
		writeHanging(w, fmt.Sprintf("%d realtime processes (no slack): %s", len(rt), Clip(strings.Join(rt, ", "), 400)), 2)
	}
}

// baseOfPath is the file name of a Windows or Unix path.
func baseOfPath(p string) string {
	if i := strings.LastIndexAny(p, `\\/`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func joinInts(v []int) string {
	var s []string
	for _, i := range v {
		s = append(s, fmt.Sprint(i))
	}
	return strings.Join(s, ", ")
}
