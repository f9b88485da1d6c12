package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(func(io *IO) *cobra.Command { return newDoctorCmd(io, nil) }) }

// DoctorOptions are the flags of `latlab doctor` (and of bare `latlab`).
type DoctorOptions struct {
	IO       *IO
	Quick    bool
	Thorough bool
	JSON     bool
	Out      string
	HTML     string
	Bundle   string
	All      bool
	Against  string

	settings map[string]string
}

// doctorSizes lets tests shrink the probes; it leaves them alone.
var doctorSizes = func(*doctor.Options) {}

// newDoctorCmd builds latlab doctor. runF, when set, is given the options
// the flags map to instead of running the check-up: the tests of the
// mapping.
func newDoctorCmd(io *IO, runF func(*DoctorOptions) error) *cobra.Command {
	o := &DoctorOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "check-up: timer state, sleep and wake probes, every setting audited (about 4 s)",
		Long: `The check-up latlab runs with no arguments: the timer state, a sleep probe, a
wake probe with the tool's own overhead, and an audit of every setting of the
knob catalogue for this OS, read live and never changed: its value, what it
means, whether it is the default, and a verdict (default, tuned, suspicious,
unknown) with the evidence it rests on. It ends with at most five
next steps. It needs no elevation: what it cannot read it lists as unknown.

--quick keeps it under about 4 s; --thorough takes about a minute: longer
probes, a realtime probe where allowed, a probe on each CPU.

The page answers first: six lines of summary (the verdict, the wake-ups, the
sleeps, the settings counted by class, the cause), then the evidence, with
what needs no attention folded; --all shows every finding in full. As root
on Linux the check-up traces a second, short wake run (the machinery of
wake --explain) and names what held the CPU in its worst wake-ups; as
administrator on Windows a few seconds of dpc watch name the driver with the
most DPC and ISR time.

--against PROFILE (Linux) sets the audited settings beside a tuned profile,
as tuned-adm verify does: every setting that differs, with the latlab knob
set command that makes it the profile's. It runs no probes. PROFILE is one of
the tuned profiles latlab cites (compared on the values it quotes); a path
(it has a "/" or ends in .conf) to a tuned.conf or to a profile's directory
holding one, read as tuned reads it, its includes merged; or "active", the
profiles /etc/tuned/active_profile names, looked up in
/etc/tuned then /usr/lib/tuned. An include latlab cites that is not on disk
is compared on latlab's values. What the profile sets that latlab does not
audit is listed.`,
		Example: `  latlab
  latlab doctor --quick
  latlab doctor --all
  latlab doctor --against latency-performance
  latlab doctor --against active
  latlab doctor --against /etc/tuned/my-profile/tuned.conf
  latlab doctor --json -o checkup.json
  latlab doctor --html checkup.html
  latlab doctor --thorough --bundle checkup.zip`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runDoctor(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.Quick, "quick", false, "shorter probes: about 4 s in all")
	fs.BoolVar(&o.Thorough, "thorough", false, "about a minute: longer probes, realtime where allowed, each CPU")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind doctor) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.StringVar(&o.HTML, "html", "", "write the check-up as one self-contained HTML page")
	fs.StringVar(&o.Against, "against", "", "Linux: list every audited setting that differs from this tuned profile, with its latlab knob set command; no probes: a profile latlab cites (latency-performance, ...), a path to a tuned.conf or its directory (has a / or ends in .conf), or active (/etc/tuned/active_profile)")
	fs.BoolVar(&o.All, "all", false, "show every finding in full (the default folds what needs no attention)")
	fs.StringVar(&o.Bundle, "bundle", "", "write a .zip with the document, the page and the raw samples, with nothing personal, for a forum post or a bug report")
	return cmd
}

// validate checks the flags before anything runs.
func (o *DoctorOptions) validate() error {
	if o.Quick && o.Thorough {
		return Usagef("--quick and --thorough exclude each other: give one")
	}
	if o.Against == "" {
		return nil
	}
	switch {
	case knob.HostOS != "linux":
		return Usagef("--against compares with tuned's profiles, which are Linux's")
	case o.Quick || o.Thorough || o.HTML != "" || o.Bundle != "" || o.All:
		return Usagef("--against compares the settings only: it takes no --quick, --thorough, --all, --html or --bundle")
	}
	if o.Against == "active" || doctor.IsTunedPath(o.Against) {
		return nil // read, and refused if it is wrong, before the audit runs
	}
	return doctor.CheckProfile(o.Against)
}

// runDoctor runs the check-up the options ask for; validate has checked
// them (bare latlab and the double-click start pass only valid ones).
func runDoctor(ctx context.Context, o *DoctorOptions) error {
	_, err := checkup(ctx, o)
	return err
}

// checkup is runDoctor returning the check-up's result too (nil with
// --against), for the double-click to hand on to the live view instead of
// having it run a second check-up.
func checkup(ctx context.Context, o *DoctorOptions) (*doctor.Result, error) {
	profile := doctor.Standard
	switch {
	case o.Quick:
		profile = doctor.Quick
	case o.Thorough:
		profile = doctor.Thorough
	}
	if o.Against != "" {
		return nil, runDoctorAgainst(ctx, o)
	}
	for _, p := range []string{o.Out, o.HTML, o.Bundle} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return nil, err
			}
		}
	}
	opts := doctor.ForProfile(profile)
	opts.Root = o.IO.Root
	doctorSizes(&opts)
	stop := func() {}
	if profile == doctor.Thorough {
		if !o.JSON {
			fmt.Fprintln(o.IO.Err, "latlab: the thorough check-up measures for about a minute")
		}
		stop = progressLine(o.IO, "check-up", time.Minute)
	}
	r, err := doctor.Run(ctx, opts)
	stop()
	if err != nil {
		return nil, err
	}
	doc, err := doctor.Document(host.Collect(), r, o.settings)
	if err != nil {
		return nil, err
	}
	if o.HTML != "" {
		if err := writeFileWith(o.HTML, func(w io.Writer) error { return report.DoctorHTML(w, doc, r) }); err != nil {
			return nil, err
		}
		wrote(o.IO, o.HTML)
	}
	if o.Bundle != "" {
		if err := writeFileWith(o.Bundle, func(w io.Writer) error { return report.DoctorBundle(w, doc, r, doctor.CurrentIdentity()) }); err != nil {
			return nil, err
		}
		wrote(o.IO, o.Bundle)
	}
	return r, emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.DoctorText(w, r, o.All) })
}

// runDoctorAgainst is doctor --against: the settings audit set beside a
// tuned profile, without probes.
func runDoctorAgainst(ctx context.Context, o *DoctorOptions) error {
	if o.Out != "" {
		if err := checkWritable(o.Out); err != nil {
			return err
		}
	}
	root := o.IO.Root
	if root == "" {
		root = "/"
	}
	// A profile read from files is read first: what is wrong with it
	// is said before the audit's second.
	var set *doctor.TunedSet
	if o.Against == "active" || doctor.IsTunedPath(o.Against) {
		var err error
		if set, err = doctor.LoadTuned(o.Against, o.IO.Root); err != nil {
			return err
		}
	}
	opts := doctor.Options{Profile: doctor.Standard, Root: o.IO.Root}
	r, err := doctor.Run(ctx, opts)
	if err != nil {
		return err
	}
	env := knob.NewEnv(root)
	if set != nil {
		r.Against = doctor.CompareTuned(env, knob.HostOS, r.Settings, set, doctor.Cmdline(root))
	} else if r.Against, err = doctor.CompareAgainst(env, knob.HostOS, r.Settings, o.Against, doctor.Cmdline(root)); err != nil {
		return err
	}
	doc, err := doctor.Document(host.Collect(), r, o.settings)
	if err != nil {
		return err
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.DoctorAgainstText(w, r.Against) })
}
