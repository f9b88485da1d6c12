package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

// TimerWhoOptions are the flags of `latlab timer who`.
type TimerWhoOptions struct {
	IO      *IO
	Seconds int
	Report  string
	JSON    bool
	Out     string

	settings map[string]string
}

func newTimerWhoCmd(io *IO) *cobra.Command {
	o := &TimerWhoOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "who [--seconds N]",
		Short: "who holds timer requests: resolution (Windows), DMA latency and slack (Linux)",
		Long: `Windows: the current timer resolution (NtQueryTimerResolution) and every
process with an outstanding timer-resolution request, as 'powercfg /energy
/duration N' reports them: requested period, process ID and path, and the
calling modules of the request's stack. powercfg needs an elevated prompt;
without one only the current resolution is shown.

Linux: the processes holding /dev/cpu_dma_latency open (each open file is a
PM QoS CPU latency request), the limit in force (reading it needs root), and
the processes whose timer slack is not the kernel's default of 50 µs
(/proc/PID/timerslack_ns, the main thread's). With --seconds N the holders are
looked for once a second for N seconds.`,
		Example: `  latlab timer who
  latlab timer who --seconds 30
  latlab timer who --json -o who.json
  latlab timer who --report energy-report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			return runTimerWho(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&o.Seconds, "seconds", timerWhoDefaultSeconds, "window: the powercfg trace (Windows) or the watch (Linux; 0 = look once)")
	fs.StringVar(&o.Report, "report", "", "read this saved powercfg /energy report (XML, HTML or text) instead of looking")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind timer-who) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", "also write the result document to this file")
	return cmd
}

func runTimerWho(ctx context.Context, o *TimerWhoOptions) error {
	if o.Seconds < 0 || o.Seconds > 3600 {
		return Usagef("invalid --seconds %d: want 0 to 3600", o.Seconds)
	}
	if err := checkOutputs("", "", o.Out); err != nil {
		return err
	}
	var w *timer.WhoResult
	if o.Report != "" {
		rep, err := readEnergyReport(o.Report)
		if err != nil {
			return err
		}
		w = &timer.WhoResult{OS: "windows", Energy: rep}
	} else {
		if o.Seconds > 1 && !o.JSON {
			fmt.Fprintf(o.IO.Err, "looking for timer requests for %ds ...\n", o.Seconds)
		}
		var err error
		if w, err = timer.Who(ctx, timer.WhoOptions{Seconds: o.Seconds, Root: o.IO.Root}); err != nil {
			return fmt.Errorf("timer who: %w", err)
		}
	}
	doc := timer.KindWho.New(w)
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, w.Notes...)
	return emitResult(o.IO, doc, o.Out, o.JSON, func(out io.Writer) { printTimerWho(out, w) })
}

func ms100ns(v int64) string { return timer.FormatMs(time.Duration(v) * 100) }

func printTimerWho(w io.Writer, r *timer.WhoResult) {
	if r.OS == "windows" {
		printTimerWhoWindows(w, r)
	} else {
		printTimerWhoLinux(w, r)
	}
	for _, n := range r.Notes {
		printWrapped(w, "note: "+n)
	}
}

// readEnergyReport reads a saved report; every failure is bad input.
func readEnergyReport(path string) (*timer.EnergyReport, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, Usagef("cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	rep, err := timer.ParseEnergyReport(f)
	if err != nil {
		return nil, Usagef("%s: %v", path, err)
	}
	return rep, nil
}

func printTimerWhoWindows(w io.Writer, r *timer.WhoResult) {
	if r.Current100ns > 0 { // not from a saved report
		fmt.Fprintf(w, "timer resolution now: %s (finest %s, coarsest %s)\n",
			ms100ns(int64(r.Current100ns)), ms100ns(int64(r.Finest100ns)), ms100ns(int64(r.Coarsest100ns)))
	}
	if r.Energy == nil {
		printWrapped(w, "requesters: unknown: "+r.EnergyError)
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
	fmt.Fprintf(w, "\n%d outstanding timer requests (powercfg /energy), finest first:\n", len(e.Requests))
	rows := [][]string{}
	for _, q := range e.Requests {
		period := "-"
		if q.Period100ns != nil {
			period = ms100ns(*q.Period100ns)
		}
		name := q.Process
		if name == "" {
			name = "(no path)"
		}
		var mods []string
		for _, m := range q.Modules {
			mods = append(mods, baseOfPath(m))
		}
		rows = append(rows, []string{name, fmt.Sprint(q.PID), period, strings.Join(mods, " ")})
	}
	report.TableLeft(w, []string{"process", "pid", "period", "calling modules"}, rows)
	fmt.Fprintln(w, "(paths in --json)")
}

func printTimerWhoLinux(w io.Writer, r *timer.WhoResult) {
	d := r.DMALatency
	if d != nil {
		switch {
		case d.EffectiveUs == nil:
			printWrapped(w, fmt.Sprintf("/dev/cpu_dma_latency: limit in force unknown (%s)", d.EffectiveError))
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
		rows = append(rows, []string{s.Comm, fmt.Sprint(s.PID), report.Duration(time.Duration(s.SlackNs)), s.Policy})
	}
	fmt.Fprintf(w, "\ntimer slack not the default %s:\n", report.Duration(time.Duration(r.DefaultSlackNs)))
	if len(rows) == 0 {
		fmt.Fprintln(w, "  no process apart from realtime ones")
	} else {
		report.Table(w, []string{"process", "pid", "slack", "policy"}, rows)
	}
	if len(rt) > 0 {
		printWrapped(w, fmt.Sprintf("%d realtime processes (no slack): %s", len(rt), clip(strings.Join(rt, ", "), 400)))
	}
}

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
