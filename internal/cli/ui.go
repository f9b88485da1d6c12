package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/ui"
)

func init() { register(func(io *IO) *cobra.Command { return newUICmd(io, nil) }) }

// UIOptions are the flags of `latlab ui`.
type UIOptions struct {
	IO        *IO
	NoBrowser bool
	Duty      string
	Duration  time.Duration
	RecordDir string
	NoDPC     bool

	probe exporter.Options // from --duty, once validated

	// checkup is a check-up run just before (the double-click's), shown
	// instead of running the quick one; checkupAt is when it finished.
	checkup   *doctor.Result
	checkupAt time.Time
}

// newUICmd builds latlab ui. runF, when set, is given the validated
// options instead of serving: the tests of the mapping.
func newUICmd(io *IO, runF func(*UIOptions) error) *cobra.Command {
	o := &UIOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "the check-up and live wake-up latency in the browser, on this machine only",
		Long: `Runs the quick check-up, then serves one page on 127.0.0.1 at a free port and
opens it in the default browser: the check-up's verdict, summary and next
steps at the top, the settings below, and live panels updated every second
(wake-up lateness as a rolling p50/p99/max series and a histogram, sleep
overshoot), measured by the exporter's low-duty probes (--duty). Elevated
(Administrator on Windows, root on Linux), a panel lists the drivers with
the most DPC and ISR time (on Linux the softirqs and hard interrupt
handlers), the longest single one and its verdict, from latlab dpc watch's
machinery (--no-dpc leaves it off). "Record the session" writes wake and
sleep documents that latlab compare and latlab report read.

The page is private and read-only: its URL carries a random token every
request needs, only the loopback Host is answered, and nothing on the page
changes a setting. It loads nothing from the network. The server stops on
Ctrl-C, after --duration, or a minute after the last page closes.`,
		Example: `  latlab ui
  latlab ui --no-browser
  latlab ui --duty 1% --duration 10m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runUI(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.NoBrowser, "no-browser", false, "print the URL instead of opening the browser")
	fs.StringVar(&o.Duty, "duty", "2%", "share of each 1s cycle the probes measure, which bounds their CPU share (0.1%-50%)")
	durationFlagZero(fs, &o.Duration, "duration", 0, "stop after this long (0 = until Ctrl-C or a minute after the last page closes)")
	fs.StringVar(&o.RecordDir, "record-dir", ".", "directory the record action writes its documents into")
	fs.BoolVar(&o.NoDPC, "no-dpc", false, "leave the DPC and ISR (softirq and hard interrupt) watch off")
	return cmd
}

// validate checks the flags before anything runs: a usage error each.
func (o *UIOptions) validate() error {
	duty, err := exporter.ParseDuty(o.Duty)
	if err != nil {
		return Usage(err)
	}
	if fi, err := os.Stat(o.RecordDir); err != nil || !fi.IsDir() {
		return Usagef("invalid --record-dir %q: want an existing directory", o.RecordDir)
	}
	po := exporter.Defaults()
	po.Duty = duty
	if err := exporter.Validate(po); err != nil {
		return Usage(err)
	}
	o.probe = po
	return nil
}

func runUI(ctx context.Context, o *UIOptions) error {
	po := o.probe
	r, at := o.checkup, o.checkupAt
	if r == nil {
		fmt.Fprintln(o.IO.Err, "latlab ui: running the quick check-up (about 4 s)")
		opts := doctor.ForProfile(doctor.Quick)
		opts.Root = o.IO.Root
		doctorSizes(&opts)
		var err error
		if r, err = doctor.Run(ctx, opts); err != nil {
			return err
		}
		at = time.Now()
	}
	facts := host.Collect()
	summary, evidence, err := report.DoctorSections(r)
	if err != nil {
		return err
	}
	srv, err := ui.New(ui.Options{Probe: po, Summary: summary, Evidence: evidence, Style: report.DoctorStyle(),
		Subtitle: fmt.Sprintf("%s check-up on %s at %s, then live", r.Profile, facts.OSVersion, at.Format("15:04:05")),
		Host:     facts, RecordDir: o.RecordDir, NoDPC: o.NoDPC})
	if err != nil {
		return err
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	url := srv.URL()
	if o.NoBrowser {
		fmt.Fprintln(o.IO.Out, url)
	} else {
		fmt.Fprintf(o.IO.Out, "latlab ui: opening %s\n", url)
		if err := ui.OpenBrowser(url); err != nil {
			fmt.Fprintf(o.IO.Err, "latlab ui: could not open the browser (%v): open the URL above\n", err)
		}
	}
	fmt.Fprintln(o.IO.Err, "latlab ui: Ctrl-C stops; it also stops a minute after the last page closes")
	err = srv.Run(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}
