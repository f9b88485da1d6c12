package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/etl"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(func(io *IO) *cobra.Command { return newETLCmd(io, nil) }) }

// ETLOptions are the flags of `latlab etl`.
type ETLOptions struct {
	IO   *IO
	File string
	JSON bool

	settings map[string]string
}

// newETLCmd builds latlab etl. runF, when set, is given the options the
// argument and flags map to instead of reading the trace: the tests of the
// mapping. The trace is the only input, checked as it is read.
func newETLCmd(io *IO, runF func(*ETLOptions) error) *cobra.Command {
	o := &ETLOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "etl FILE.etl",
		Short: "what an .etl trace holds: header facts, events per provider, kernel modules",
		Long: `Reads an Event Trace Log (.etl) file, as wpr, xperf, netsh trace, pktmon and
logman write it, on any OS, and summarises it like tracerpt -summary: the
header's facts (Windows version and build, CPUs, pointer size, clock, start
and end, buffers, lost events), the events per provider or classic kernel class
(GUID, name where known, count, counts per opcode or event id), the kernel
modules that the trace's Image events list (name, base, size: what dpcisr
attributes DPC and ISR routines with), and which latlab commands read the
trace.

Damaged buffers are skipped with a note naming their file offset. The logger's
own EventTrace class (68fdd900-4a3e-11d1-84f4-0000f80464e3) is counted like any
other class: the log file header event in the first buffer included.`,
		Example: `  latlab etl trace.etl
  latlab etl trace.etl --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			if runF != nil {
				return runF(o)
			}
			return runETL(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "write JSON")
	return cmd
}

func runETL(ctx context.Context, o *ETLOptions) error {
	s, err := etl.Run(ctx, etl.Options{File: o.File})
	if err != nil {
		return err
	}
	if o.JSON {
		err = writeDoc(o.IO, s.Document(host.Collect()), o.settings)
	} else {
		humanOut(o.IO.Out, func(w io.Writer) { report.ETL(report.TerminalSafe(w), s) })
	}
	if err == nil && s.Interrupted {
		return errInterrupted
	}
	return err
}

// errInterrupted ends a read of a trace that Ctrl-C stopped, after what
// was read is written marked interrupted: exit status 130, as a shell
// gives a command that SIGINT ended.
var errInterrupted = &ExitStatusError{Code: 130}
