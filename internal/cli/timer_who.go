package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
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

// newTimerWhoCmd builds latlab timer who. runF, when set, is given the
// options the flags map to instead of looking: the tests of the mapping.
func newTimerWhoCmd(io *IO, runF func(*TimerWhoOptions) error) *cobra.Command {
	o := &TimerWhoOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "who [--duration D]",
		Short: "who holds timer requests: resolution (Windows), DMA latency and slack (Linux)",
		Long: `Windows: the current timer resolution (NtQueryTimerResolution) and every
process with an outstanding timer-resolution request, as 'powercfg /energy
/duration N' reports them: requested period, process ID and path, and the
calling modules of the request's stack. powercfg needs an elevated prompt;
without one only the current resolution is shown.

Linux: the processes holding /dev/cpu_dma_latency open (each open file is a
PM QoS CPU latency request), the limit in force (reading it needs root), and
the processes whose timer slack is not the kernel's default of 50 µs
(/proc/PID/timerslack_ns, the main thread's). With --duration D the holders are
looked for once a second for N seconds.`,
		Example: `  latlab timer who
  latlab timer who --duration 30s
  latlab timer who --json -o who.json
  latlab timer who --report energy-report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.whoOptions().Validate(); err != nil {
				return timerWhoErr(err)
			}
			if runF != nil {
				return runF(o)
			}
			return runTimerWho(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	secondsDurationFlag(fs, io.Err, &o.Seconds, timer.WhoDefaultSeconds, "how long to look: the powercfg trace (Windows) or the watch (Linux; 0 = look once)")
	fs.StringVar(&o.Report, "report", "", "read this saved powercfg /energy report (XML, HTML or text) instead of looking")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind timer-who) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	return cmd
}

// whoOptions maps the flags to timer.Who's options.
func (o *TimerWhoOptions) whoOptions() timer.WhoOptions {
	return timer.WhoOptions{Seconds: o.Seconds, Root: o.IO.Root, Report: o.Report}
}

func runTimerWho(ctx context.Context, o *TimerWhoOptions) error {
	run := o.whoOptions()
	if err := checkOutputs("", "", o.Out); err != nil {
		return err
	}
	if o.Report == "" && o.Seconds > 1 && !o.JSON {
		fmt.Fprintf(o.IO.Err, "looking for timer requests for %ds ...\n", o.Seconds)
	}
	w, err := timer.Who(ctx, run)
	if err != nil {
		return timerWhoErr(err)
	}
	doc := timer.KindWho.New(host.Collect(), w)
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, w.Notes...)
	return emitResult(o.IO, doc, o.Out, o.JSON, func(out io.Writer) { report.TimerWho(out, w) })
}

// timerWhoErr maps Who's errors: bad --duration and an unreadable --report
// are bad input (exit 2), anything else a failure to look.
func timerWhoErr(err error) error {
	var we *timer.WindowError
	var re *timer.ReportError
	switch {
	case errors.As(err, &we):
		return Usagef("invalid --duration %ds: want 0 to %ds", we.Seconds, timer.MaxWhoSeconds)
	case errors.As(err, &re) && re.Open:
		return Usagef("cannot read %s: %v", re.Path, unwrapPathErr(re.Err))
	case errors.As(err, &re):
		return Usage(re)
	}
	return fmt.Errorf("timer who: %w", err)
}
