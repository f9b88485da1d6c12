package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/knob"
)

func init() { register(func(io *IO) *cobra.Command { return newExporterCmd(io, nil) }) }

// ExporterOptions are the flags of `latlab exporter` and its install
// subcommand.
type ExporterOptions struct {
	IO            *IO
	Listen        string
	Interval      time.Duration
	Duty          string
	Probes        string
	CPUs          string
	RTPrio        int
	MaxConns      int
	Duration      time.Duration
	SettingsEvery time.Duration
	TLSConfig     string

	// exporter is what the flags ask of the exporter, set by options.
	exporter exporter.Options
}

// exporterFlags are the flags install passes on to the service.
var exporterFlags = []string{"listen", "interval", "duty", "probes", "cpus", "rtprio", "settings-every", "tls-config", "max-conns"}

// newExporterCmd builds latlab exporter. runF, when set, is given the
// options the flags map to instead of serving: the tests of the mapping.
func newExporterCmd(io *IO, runF func(*ExporterOptions) error) *cobra.Command {
	o := &ExporterOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "exporter",
		Short: "serve wake-up latency, timer state and latency settings as Prometheus metrics",
		Long: `Runs the wake and sleep probes continuously at a low duty (by default a 20ms
burst of 1ms wake-ups per second, in turn) and serves the results at
/metrics as histograms with classic and native buckets, with the timer state,
the settings as the check-up audits them, and the process's own metrics.
/healthz says whether the probes are running. It listens on loopback unless
given another address; --tls-config takes a Prometheus web configuration
file (TLS, basic auth).

On Windows, 'latlab exporter install' registers it as a service that starts
at boot and logs to the event log; on Linux, packaging/latlab-exporter.service
is the systemd unit.`,
		Example: `  latlab exporter
  latlab exporter --listen :9977 --tls-config web.yml
  latlab exporter --duty 1% --probes wake --cpus 2 --rtprio 80
  latlab exporter install --listen :9977      (Windows, elevated)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eo, err := o.options()
			if err != nil {
				return err
			}
			o.exporter = eo
			if runF != nil {
				return runF(o)
			}
			return runExporter(cmd.Context(), o)
		},
	}
	fs := cmd.PersistentFlags()
	fs.StringVar(&o.Listen, "listen", exporter.DefaultListen, "address to serve on; give :9977 to listen on every interface")
	durationFlag(fs, &o.Interval, "interval", exporter.DefaultInterval, "wake-up period, and the length of each sleep, inside a burst")
	fs.StringVar(&o.Duty, "duty", "2%", "share of each 1s cycle spent measuring, which bounds the probe's CPU share (0.1%-50%)")
	fs.StringVar(&o.Probes, "probes", "wake,sleep", "probes to run in turn: wake, sleep or both")
	cpusFlag(fs, &o.CPUs, "pin the probe thread to this CPU, e.g. 2 (a list of one; labels the histograms)")
	oldSpelling(fs, io.Err, "cpu", "cpus", "")
	fs.IntVar(&o.RTPrio, "rtprio", 0, "SCHED_FIFO priority 1-99 for the probe thread alone (Windows: TIME_CRITICAL in its class); 0 = normal")
	durationFlagZero(cmd.Flags(), &o.Duration, "duration", 0, "stop after this long (0 = until Ctrl-C or the service stops)")
	fs.IntVar(&o.MaxConns, "max-conns", exporter.DefaultMaxConns, "HTTP connections open at once; one not being answered gives its slot to a newcomer")
	durationFlag(fs, &o.SettingsEvery, "settings-every", exporter.DefaultSettingsEvery, "how often to read the settings (and, on Linux, the timer state)")
	fs.StringVar(&o.TLSConfig, "tls-config", "", "Prometheus web configuration file: TLS and basic auth, as node_exporter's --web.config.file")
	cmd.AddCommand(newExporterInstallCmd(o, nil), newExporterUninstallCmd(io, nil))
	return cmd
}

// newExporterInstallCmd builds latlab exporter install. runF, when set, is
// given the options the flags map to, checked, instead of installing: the
// tests of the mapping.
func newExporterInstallCmd(o *ExporterOptions, runF func(*ExporterOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "install",
		Short: "register the exporter as a Windows service with these flags, and start it",
		Long: `Registers the service latlab-exporter: it starts at boot as LocalSystem,
restarts after a failure, logs to the Application event log, and runs
'latlab exporter' with the flags given here, from this executable's
location. Needs an elevated prompt. Linux uses the systemd unit instead.`,
		Example: `  latlab exporter install
  latlab exporter install --listen :9977 --tls-config C:\ProgramData\latlab\web.yml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eo, err := o.options()
			if err != nil {
				return err
			}
			o.exporter = eo
			if runF != nil {
				return runF(o)
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find latlab's own executable: %w", err)
			}
			// The service runs as LocalSystem: it runs and reads only
			// what Administrators alone can change.
			exe, note, err := exporter.PrepareInstall(exe, o.TLSConfig)
			if err := serviceError(err); err != nil {
				return err
			}
			if note != "" {
				fmt.Fprintln(o.IO.Out, note)
			}
			svcArgs := exporter.ServiceArgs(changedFlags(cmd.Flags(), exporterFlags))
			if err := serviceError(exporter.InstallService(exporter.DefaultService, exe, svcArgs)); err != nil {
				return err
			}
			fmt.Fprintf(o.IO.Out, "installed and started service %s: %s %v\n", exporter.ServiceName, exe, svcArgs)
			fmt.Fprintln(o.IO.Out, "remove with: latlab exporter uninstall")
			return nil
		},
	}
}

// newExporterUninstallCmd builds latlab exporter uninstall. runF, when
// set, is called instead of removing the service: it takes no flags of its
// own, so the hook is given the command's IO.
func newExporterUninstallCmd(io *IO, runF func(*IO) error) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "stop and remove the Windows service and its event-log source",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(io)
			}
			if err := serviceError(exporter.UninstallService(exporter.DefaultService)); err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "stopped and removed service %s\n", exporter.ServiceName)
			return nil
		},
	}
}

// serviceError makes asking for a Windows service on Linux, and an
// install refused for its paths, bad input.
func serviceError(err error) error {
	var ie *exporter.InstallError
	if errors.Is(err, exporter.ErrNoServiceManager) || errors.As(err, &ie) {
		return Usage(err)
	}
	return err
}

// changedFlags renders the flags of names that were given as --name=value,
// so that parsing them again gives the same values.
func changedFlags(fs *pflag.FlagSet, names []string) []string {
	var out []string
	for _, n := range names {
		f := fs.Lookup(n)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		if d, ok := f.Value.(*durationValue); ok {
			v = d.d.String() // exact; the flag's own String rounds for display
		}
		out = append(out, "--"+n+"="+v)
	}
	return out
}

func (o *ExporterOptions) options() (exporter.Options, error) {
	eo := exporter.Defaults()
	cpu, err := pinnedCPU(o.CPUs)
	if err != nil {
		return eo, err
	}
	eo.Listen, eo.Interval, eo.CPU, eo.RTPrio = o.Listen, o.Interval, cpu, o.RTPrio
	eo.SettingsEvery, eo.WebConfig, eo.MaxConns = o.SettingsEvery, o.TLSConfig, o.MaxConns
	if o.MaxConns < 1 {
		// as net serve's --max-conns: 0 was taken as the default, 64
		return eo, Usagef("invalid --max-conns %d: want 1 or more", o.MaxConns)
	}
	if eo.Duty, err = exporter.ParseDuty(o.Duty); err != nil {
		return eo, Usage(err)
	}
	if eo.Probes, err = exporter.ParseProbes(o.Probes); err != nil {
		return eo, Usage(err)
	}
	eo.Settings = auditedSettings(o.IO.Root)
	if err := exporter.Validate(eo); err != nil {
		return eo, Usage(err)
	}
	return eo, nil
}

func runExporter(ctx context.Context, o *ExporterOptions) error {
	eo := o.exporter
	if exporter.IsService() {
		return exporter.RunService(exporter.ServiceName, func(ctx context.Context, log *slog.Logger) error {
			eo.Logger = log
			return exporter.Run(ctx, eo)
		})
	}
	eo.Logger = slog.New(slog.NewTextHandler(o.IO.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eo.Ready = func(a net.Addr) {
		fmt.Fprintf(o.IO.Out, "latlab exporter: listening on %s (/metrics, /healthz); Ctrl-C stops\n", a)
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	err := exporter.Run(ctx, eo)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil // --duration ran out: the end asked for
	}
	return err
}

// auditedSettings reads the settings as the check-up's audit judges them,
// through the knob backends under root; nothing is written.
func auditedSettings(root string) exporter.SettingsFunc {
	return func(context.Context) ([]exporter.Setting, error) {
		audit := doctor.Audit(knob.NewEnv(root), knob.HostOS)
		out := make([]exporter.Setting, 0, len(audit))
		for _, s := range audit {
			out = append(out, exporter.Setting{Knob: s.Knob, Target: s.Target, Value: s.Value, Verdict: string(s.Verdict)})
		}
		return out, nil
	}
}
