package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(newTimerCmd) }

func newTimerCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "timer",
		Short: "timer resolution (Windows) / timer slack (Linux): status, set, who",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Usagef("timer needs a subcommand: status, set or who")
		},
	}
	cmd.AddCommand(newTimerStatusCmd(io, nil), newTimerSetCmd(io, nil), newTimerWhoCmd(io, nil))
	return cmd
}

// TimerStatusOptions are the flags of `latlab timer status`.
type TimerStatusOptions struct {
	IO   *IO
	JSON bool

	settings map[string]string
}

// newTimerStatusCmd builds latlab timer status. runF, when set, is given
// the options the flags map to instead of querying: the tests of the
// mapping.
func newTimerStatusCmd(io *IO, runF func(*TimerStatusOptions) error) *cobra.Command {
	o := &TimerStatusOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "show the timer resolution, slack and clock facts",
		Example: `  latlab timer status
  latlab timer status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if runF != nil {
				return runF(o)
			}
			return runTimerStatus(o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "write the status as JSON")
	return cmd
}

func runTimerStatus(o *TimerStatusOptions) error {
	st, err := timer.Query()
	if err != nil {
		return fmt.Errorf("timer status: %w", err)
	}
	if o.JSON {
		return writeDoc(o.IO, timer.KindStatus.New(host.Collect(), &st), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.TimerStatus(w, &st) })
	return nil
}

// TimerSetOptions are the flags of `latlab timer set`.
type TimerSetOptions struct {
	IO      *IO
	Value   time.Duration
	For     time.Duration
	JSON    bool
	Command []string

	settings map[string]string
}

// ExitStatusError carries a child command's exit status through to the
// process exit code.
type ExitStatusError struct{ Code int }

func (e *ExitStatusError) Error() string { return fmt.Sprintf("command exited with status %d", e.Code) }

// newTimerSetCmd builds latlab timer set. runF, when set, is given the
// options the arguments and flags map to instead of holding a request:
// the tests of the mapping.
func newTimerSetCmd(io *IO, runF func(*TimerSetOptions) error) *cobra.Command {
	o := &TimerSetOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "set R [--for D] [-- COMMAND ARGS...]",
		Short: "request a timer resolution (Windows) / timer slack (Linux) and hold it",
		Long: `Requests R and prints what was granted, then holds the request until Ctrl-C,
until --for elapses, or while COMMAND runs; the request is released on exit.

Windows: NtSetTimerResolution after opting out of power throttling
(PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION), like SetTimerResolution.
Since Windows 10 2004 the request still sets the system's timer interrupt,
but other processes' sleeps follow it only when GlobalTimerResolutionRequests
is set (Windows 11 / Server 2022); without it theirs keep near the default
15.625 ms in whole intervals (about 12 ms at a 6 ms interval: Bruce Dawson).
Linux: the timer slack of the holding thread; COMMAND inherits it through
fork and exec. With COMMAND, latlab exits with COMMAND's exit status.

With COMMAND, SIGINT and SIGTERM go to COMMAND: latlab waits for it and
exits with its status, or 128+N when it died of signal N. A second signal
makes latlab exit at once (128+N). Linux: a Ctrl-C typed at the terminal
already reached COMMAND, so latlab does not send it again. Windows: a
console Ctrl-C or close event reaches every process of the console,
COMMAND included; latlab only waits for it.`,
		Example: `  latlab timer set 0.5ms
  latlab timer set 0.5068ms --for 60s
  latlab timer set 1us -- ./my-game-server`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := ParseDuration(args[0])
			if err != nil {
				return Usagef("invalid resolution %q: %v", args[0], err)
			}
			o.Value = d
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash == -1 && len(args) > 1:
				return Usagef("unexpected argument %q: put a command after --, e.g. latlab timer set 1us -- sleep 1", args[1])
			case dash > 1:
				return Usagef("unexpected argument %q before --", args[1])
			case dash == 1:
				o.Command = args[1:]
				if len(o.Command) == 0 {
					return Usagef("no command after --")
				}
			}
			o.settings = settingsOf(cmd.Flags())
			if err := timer.Validate(o.Value); err != nil {
				return Usage(err)
			}
			if runF != nil {
				return runF(o)
			}
			return runTimerSet(cmd.Context(), o)
		},
	}
	durationFlagZero(cmd.Flags(), &o.For, "for", 0, "hold for this long, then release (0 = until Ctrl-C or COMMAND exits)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the granted request as one JSON line")
	return cmd
}

func runTimerSet(ctx context.Context, o *TimerSetOptions) error {
	if len(o.Command) > 0 {
		// Never given back: the root's handler may read a signal that
		// Hold has already forwarded only after Hold returned (its
		// goroutine runs late on a loaded machine), and it must not then
		// end latlab by that signal; latlab's status is the command's, or
		// 128+N, and nothing is left to do but return it.
		ownSignals.Store(true)
	}
	res, err := timer.Hold(ctx, timer.HoldOptions{
		Resolution: o.Value, For: o.For, Command: o.Command,
		Stdin: o.IO.In, Stdout: o.IO.Out, Stderr: o.IO.Err,
		Granted: func(g timer.Grant) error { return emitGrant(o, g) },
	})
	var re *timer.RangeError
	var ce *timer.CommandError
	switch {
	case errors.As(err, &re), errors.As(err, &ce):
		return Usage(err)
	case err != nil:
		return err
	case res.ExitStatus != nil && *res.ExitStatus != 0:
		return &ExitStatusError{Code: *res.ExitStatus}
	}
	return nil
}

// emitGrant says what was granted, once it is in force: a parent
// process (sweep --mode separate) waits for the --json line.
func emitGrant(o *TimerSetOptions, g timer.Grant) error {
	if o.JSON {
		doc := timer.KindGrant.New(host.Collect(), &g)
		doc.Settings = o.settings
		if err := result.WriteLine(o.IO.Out, doc); err != nil {
			return err
		}
	} else {
		humanOut(o.IO.Out, func(w io.Writer) { report.TimerGrant(w, g) })
	}
	if f, ok := o.IO.Out.(*os.File); ok {
		f.Sync()
	}
	if len(o.Command) == 0 && !o.JSON {
		if o.For > 0 {
			fmt.Fprintf(o.IO.Err, "holding for %s\n", units.Duration(o.For))
		} else {
			fmt.Fprintln(o.IO.Err, "holding; Ctrl-C releases")
		}
	}
	return nil
}
