package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/regfile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/try"
)

func init() { register(newKnobCmd) }

// KnobOptions are the flags shared by the knob subcommands.
type KnobOptions struct {
	IO       *IO
	JSON     bool
	StateDir string
	Sel      knob.Selector

	settings map[string]string
}

func newKnobCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "knob",
		Short: "latency settings: decode, inspect, change and revert (with a crash-safe journal)",
		Long: `Every setting latlab knows, decoded from evidence: what it is now, what a
value means, and a safe way to change it. Each change records the original
value (type and bytes, or absent) durably before writing, so
'latlab knob revert' restores it exactly, also after a crash.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Usagef("knob needs a subcommand: list, get, explain, set, revert, history or export")
		},
	}
	cmd.AddCommand(newKnobListCmd(io, nil), newKnobGetCmd(io, nil), newKnobExplainCmd(io, nil), newKnobSetCmd(io, nil),
		newKnobRevertCmd(io, nil), newKnobHistoryCmd(io, nil), newKnobExportCmd(io, nil))
	return cmd
}

// knobCmd returns the subcommand after it takes its settings from its
// flags when it runs (its document records them).
func knobCmd(cmd *cobra.Command, o *KnobOptions) *cobra.Command {
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		o.settings = settingsOf(c.Flags())
		return run(c, args)
	}
	return cmd
}

func knobCommonFlags(fs *pflag.FlagSet, o *KnobOptions, state bool) {
	fs.BoolVar(&o.JSON, "json", false, "write JSON")
	if state {
		fs.StringVar(&o.StateDir, "state-dir", "", "where the journal lives (default %ProgramData%\\latlab or /var/lib/latlab)")
	}
}

// selectorFlags are the flags that say which instance of a knob a
// command means; each help names the knobs that declare the flag
// (knob.Selecting; generated into selectorKnobs).
func selectorFlags(fs *pflag.FlagSet, s *knob.Selector, set bool) {
	fs.StringVar(&s.Adapter, knob.SelAdapter, "", "Windows network adapter: name, class index (7) or GUID ("+selectorKnobs[knob.SelAdapter]+")")
	fs.StringVar(&s.Iface, knob.SelIface, "", "Linux network interface ("+selectorKnobs[knob.SelIface]+")")
	fs.StringVar(&s.Queue, knob.SelQueue, "", "Linux rx queue, e.g. rx-0 ("+selectorKnobs[knob.SelQueue]+"; default all)")
	fs.StringVar(&s.IRQ, knob.SelIRQ, "", "Linux IRQ number ("+selectorKnobs[knob.SelIRQ]+")")
	fs.StringVar(&s.PID, knob.SelPID, "", "Linux process id ("+selectorKnobs[knob.SelPID]+")")
	fs.StringVar(&s.Config, knob.SelConfig, "", "Windows display configuration id or its prefix ("+selectorKnobs[knob.SelConfig]+")")
	fs.StringVar(&s.Policy, knob.SelPolicy, "", "Windows QoS policy name ("+selectorKnobs[knob.SelPolicy]+")")
	if set {
		fs.StringVar(&s.App, "app", "", "qos-dscp: the program, e.g. game.exe (* for all)")
		fs.StringVar(&s.Protocol, "protocol", "", "qos-dscp: tcp, udp or * (default *)")
		fs.StringVar(&s.LocalPort, "local-port", "", "qos-dscp: local port or range N:M (default *)")
		fs.StringVar(&s.RemotePort, "remote-port", "", "qos-dscp: remote port or range N:M (default *)")
		fs.StringVar(&s.LocalIP, "local-ip", "", "qos-dscp: local address or address/prefix (default *)")
		fs.StringVar(&s.RemoteIP, "remote-ip", "", "qos-dscp: remote address or address/prefix (default *)")
		fs.BoolVar(&s.NoNLA, "no-nla", false, `qos-dscp: also set "Do not use NLA" so the policy applies off a domain`)
	}
}

// cpuFlag is --cpus, the CPU list of the per-CPU knobs, for knob get and
// set (--cpu before).
func cpuFlag(fs *pflag.FlagSet, note io.Writer, s *knob.Selector) {
	cpusFlag(fs, &s.CPU, "Linux CPUs, e.g. 0-3,8 ("+selectorKnobs[knob.SelCPUs]+"; default all)")
	oldSpelling(fs, note, "cpu", "cpus", "")
}

// knobErr maps knob errors to exit codes: bad input exits 2.
func knobErr(err error) error {
	if err == nil {
		return nil
	}
	if badinput.Is(err) {
		return Usage(err)
	}
	return err
}

// warn tells the user, on stderr, what a knob command goes on past.
func (o *KnobOptions) warn(msg string) {
	errProse(o.IO.Err, func(w io.Writer) { fmt.Fprintf(w, "warning: %s\n", msg) })
}

// --- list ---

// KnobListOptions are the flags of `latlab knob list`.
type KnobListOptions struct {
	KnobOptions
	All bool
}

// newKnobListCmd builds latlab knob list. runF, when set, is given the
// options the flags map to instead of reading the knobs: the tests of the
// mapping.
func newKnobListCmd(io *IO, runF func(*KnobListOptions) error) *cobra.Command {
	lo := &KnobListOptions{KnobOptions: KnobOptions{IO: io}}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "every knob on this OS with its current value and what it means",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(lo)
			}
			return runKnobList(cmd.Context(), lo)
		},
	}
	knobCommonFlags(cmd.Flags(), &lo.KnobOptions, false)
	cmd.Flags().BoolVar(&lo.All, "all", false, "also list the other OS's knobs (names and summaries; explain works on them)")
	return knobCmd(cmd, &lo.KnobOptions)
}

func runKnobList(ctx context.Context, lo *KnobListOptions) error {
	o := &lo.KnobOptions
	l, err := knob.RunList(ctx, knob.ListOptions{All: lo.All, Root: o.IO.Root})
	if err != nil {
		return err
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindList.New(host.Collect(), l), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.KnobList(w, l) })
	return nil
}

// --- get ---

// KnobGetOptions are the argument and flags of `latlab knob get`.
type KnobGetOptions struct {
	KnobOptions
	Name string
}

// newKnobGetCmd builds latlab knob get. runF, when set, is given the
// options the argument and flags map to instead of reading the knob: the
// tests of the mapping.
func newKnobGetCmd(io *IO, runF func(*KnobGetOptions) error) *cobra.Command {
	gop := &KnobGetOptions{KnobOptions: KnobOptions{IO: io}}
	o := &gop.KnobOptions
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "the current value of a knob, decoded",
		Example: `  latlab knob get win32-priority-separation
  latlab knob get rss --adapter "Intel(R) Ethernet Controller (3) I225-V"
  latlab knob get irq-affinity --irq 24 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			gop.Name = args[0]
			if runF != nil {
				return runF(gop)
			}
			return runKnobGet(cmd.Context(), gop)
		},
	}
	knobCommonFlags(cmd.Flags(), o, false)
	selectorFlags(cmd.Flags(), &o.Sel, false)
	cpuFlag(cmd.Flags(), io.Err, &o.Sel)
	return knobCmd(cmd, o)
}

func runKnobGet(ctx context.Context, gop *KnobGetOptions) error {
	o := &gop.KnobOptions
	r, err := knob.RunGet(ctx, knob.GetOptions{Knob: gop.Name, Sel: o.Sel, Root: o.IO.Root})
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindGet.New(host.Collect(), r), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.KnobReading(w, r) })
	return nil
}

// --- explain ---

// KnobExplainOptions are the arguments and flags of `latlab knob explain`.
type KnobExplainOptions struct {
	KnobOptions
	Name, Value string
	RegFile     string // a .reg file to decode instead of a knob's value
	Current     bool   // with RegFile: read what each value is now (Windows)
	Explain     knob.ExplainOptions
	Tick        time.Duration
}

// isRegFile says whether explain's first argument names a .reg file, a
// batch file (.bat, .cmd) of reg commands or a PowerShell script (.ps1,
// .psm1): no knob's name ends so.
func isRegFile(arg string) bool {
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".reg", ".bat", ".cmd", ".ps1", ".psm1":
		return true
	}
	return false
}

// newKnobExplainCmd builds latlab knob explain. runF, when set, is given
// the options the arguments and flags map to instead of explaining: the
// tests of the mapping.
func newKnobExplainCmd(io *IO, runF func(*KnobExplainOptions) error) *cobra.Command {
	xo := &KnobExplainOptions{KnobOptions: KnobOptions{IO: io}}
	o := &xo.KnobOptions
	cmd := &cobra.Command{
		Use:         "explain NAME [VALUE] | explain FILE.reg|.bat|.cmd|.ps1",
		Annotations: map[string]string{negativeArgs: "values"}, // as set: rt-throttling -1
		Short:       "decode a value without touching the system (any knob, on any OS), or a .reg, .bat or .ps1 file of tweaks",
		Long: `Decodes a value of a knob (or, with no VALUE, the knob and its values) without
reading or changing anything on this machine.

Given a .reg file (a file of registry tweaks, as regedit exports them or as
they are shared), a batch file (.bat, .cmd) of reg add and reg delete
commands, or a PowerShell script (.ps1, .psm1) of Set-ItemProperty,
New-ItemProperty, Remove-ItemProperty, New-Item, Remove-Item and reg commands,
it says which of its values are settings latlab knows, each decoded by its
knob as above, and lists the others as settings latlab has no evidence on: it
decodes nothing it has no evidence for. Lines regedit would not import, and
commands whose key or data only the running script knows, are listed with why;
a value a script writes without fixing its type (Set-ItemProperty without
-Type) is listed, not decoded. A PowerShell script with a syntax error
(brackets that do not pair, a string, here-string or <# comment left open)
runs nothing, and is refused naming the line. Nothing is imported or run. On
Windows, --current also reads each value as this machine has it now (and the
type a script leaves to it) and counts what an import would change.`,
		Example: `  latlab knob explain win32-priority-separation 0x26
  latlab knob explain tweaks.reg
  latlab knob explain optimize.bat
  latlab knob explain tweaks.ps1
  latlab knob explain win32-priority-separation --find short,variable,3:1
  latlab knob explain win32-priority-separation --table --server
  latlab knob explain tcp-recovery 5`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			xo.Name = args[0]
			if isRegFile(args[0]) {
				if len(args) == 2 {
					return Usagef("knob explain %s: a file of tweaks takes no VALUE", args[0])
				}
				xo.RegFile = args[0]
			}
			if len(args) == 2 {
				if strings.TrimSpace(args[1]) == "" {
					// else it silently explained the knob instead of a value
					return Usagef("knob explain %s: the VALUE is empty: give one, or none to explain the knob", args[0])
				}
				xo.Value = args[1]
			}
			xo.Explain.TickMs = float64(xo.Tick) / 1e6
			if xo.Current && xo.RegFile == "" {
				return Usagef("--current is for a .reg, batch or PowerShell file: knob get reads a knob's current value")
			}
			if runF != nil {
				return runF(xo)
			}
			return runKnobExplain(cmd.Context(), xo)
		},
	}
	knobCommonFlags(cmd.Flags(), o, false)
	cmd.Flags().BoolVar(&xo.Explain.Server, "server", false, "win32-priority-separation: Windows Server platform defaults (long, fixed)")
	durationFlag(cmd.Flags(), &xo.Tick, "tick", 15625*time.Microsecond, "win32-priority-separation: clock interval the quanta are counted in")
	cmd.Flags().BoolVar(&xo.Explain.Table, "table", false, "win32-priority-separation: print all 64 classes")
	cmd.Flags().StringVar(&xo.Explain.Find, "find", "", "win32-priority-separation: the values of a class, e.g. short,variable,3:1")
	cmd.Flags().BoolVar(&xo.Current, "current", false, "with a .reg, batch or PowerShell file, on Windows: also read each value as this machine has it now (and the type a script leaves to it), and count what an import would change")
	return knobCmd(cmd, o)
}

func runKnobExplain(ctx context.Context, xo *KnobExplainOptions) error {
	o := &xo.KnobOptions
	if xo.RegFile != "" {
		return runKnobExplainReg(ctx, xo)
	}
	ex, err := knob.RunExplain(ctx, xo.Name, xo.Value, xo.Explain)
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindExplain.New(host.Collect(), ex), o.settings)
	}
	report.KnobExplain(o.IO.Out, ex)
	return nil
}

// runKnobExplainReg decodes a .reg, batch or PowerShell file: nothing is written to
// the registry, which only --current reads.
func runKnobExplainReg(ctx context.Context, xo *KnobExplainOptions) error {
	o := &xo.KnobOptions
	f, err := infile.Open(xo.RegFile)
	if err != nil {
		return Usagef("cannot read %s: %v", xo.RegFile, unwrapPathErr(err))
	}
	defer f.Close()
	read := regfile.ReadBatch
	switch strings.ToLower(filepath.Ext(xo.RegFile)) {
	case ".reg":
		read = regfile.Read
	case ".ps1", ".psm1":
		read = regfile.ReadPowerShell
	}
	rf, err := read(f)
	if err != nil {
		if badinput.Is(err) {
			return Usagef("%s: %v", xo.RegFile, err)
		}
		return fmt.Errorf("%s: %w", xo.RegFile, err)
	}
	x, err := knob.RunExplainRegFile(ctx, knob.RegFileOptions{Name: filepath.Base(xo.RegFile), File: rf, Explain: xo.Explain,
		Current: xo.Current, Root: o.IO.Root})
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindExplainReg.New(host.Collect(), x), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.KnobRegFile(w, x) })
	return nil
}

// --- set ---

// KnobSetOptions are the arguments and flags of `latlab knob set`.
type KnobSetOptions struct {
	KnobOptions
	Name, Value string
	DryRun      bool
	Format      string
}

// newKnobSetCmd builds latlab knob set. runF, when set, is given the
// options the arguments and flags map to instead of planning or changing
// anything: the tests of the mapping.
func newKnobSetCmd(io *IO, runF func(*KnobSetOptions) error) *cobra.Command {
	so := &KnobSetOptions{KnobOptions: KnobOptions{IO: io}}
	o := &so.KnobOptions
	cmd := &cobra.Command{
		Use:         "set NAME VALUE",
		Annotations: map[string]string{negativeArgs: "values"},
		Short:       "change a knob, recording the original value first (--dry-run shows what would change)",
		Example: `  latlab knob set win32-priority-separation 0x26 --dry-run
  latlab knob set win32-priority-separation short,variable,3:1
  latlab knob set rss --adapter 7 '*NumRssQueues=4,*RssBaseProcNumber=2'
  latlab knob set qos-dscp 46 --app game.exe --protocol udp --no-nla
  latlab knob set tcp-recovery rack,no-dupthresh
  latlab knob set irq-affinity 1 --irq 24
  latlab knob set cpu-idle-states 10us --cpus 2-3`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			so.Name, so.Value = args[0], args[1]
			if err := so.setOptions().Validate(); err != nil {
				return knobErr(err)
			}
			if runF != nil {
				return runF(so)
			}
			return runKnobSet(cmd.Context(), so)
		},
	}
	knobCommonFlags(cmd.Flags(), o, true)
	selectorFlags(cmd.Flags(), &o.Sel, true)
	cpuFlag(cmd.Flags(), io.Err, &o.Sel)
	cmd.Flags().BoolVar(&so.DryRun, "dry-run", false, "show what would change and the equivalent .reg / shell lines; change nothing")
	cmd.Flags().StringVar(&so.Format, "format", "", "script format of --dry-run: reg, ps1 or sh (default: reg on Windows, sh on Linux)")
	return knobCmd(cmd, o)
}

// setOptions is the set the arguments and flags ask for.
func (so *KnobSetOptions) setOptions() knob.SetOptions {
	o := &so.KnobOptions
	return knob.SetOptions{Knob: so.Name, Value: so.Value, Sel: o.Sel, DryRun: so.DryRun, Format: so.Format,
		Root: o.IO.Root, StateDir: o.StateDir, Warn: o.warn, Unfinished: try.UnfinishedWarning}
}

func runKnobSet(ctx context.Context, so *KnobSetOptions) error {
	o := &so.KnobOptions
	res, err := knob.RunSet(ctx, so.setOptions())
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindSet.New(host.Collect(), res), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.KnobSet(w, res) })
	return nil
}

// --- revert ---

// KnobRevertOptions are the argument and flags of `latlab knob revert`.
type KnobRevertOptions struct {
	KnobOptions
	Name               string
	All, Force, DryRun bool
	Target, CPUs       string
}

// newKnobRevertCmd builds latlab knob revert. runF, when set, is given the
// options the argument and flags map to instead of restoring anything: the
// tests of the mapping.
func newKnobRevertCmd(io *IO, runF func(*KnobRevertOptions) error) *cobra.Command {
	rvo := &KnobRevertOptions{KnobOptions: KnobOptions{IO: io}}
	o := &rvo.KnobOptions
	cmd := &cobra.Command{
		Use:   "revert NAME | --all",
		Short: "restore the values latlab changed, byte for byte (also after a crash)",
		Example: `  latlab knob revert win32-priority-separation
  latlab knob revert --all --dry-run`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				rvo.Name = args[0]
			}
			if err := rvo.revertOptions().Validate(); err != nil {
				return knobErr(err)
			}
			if runF != nil {
				return runF(rvo)
			}
			return runKnobRevert(cmd.Context(), rvo)
		},
	}
	knobCommonFlags(cmd.Flags(), o, true)
	cmd.Flags().BoolVar(&rvo.All, "all", false, "revert every change latlab made that is still in place")
	cmd.Flags().BoolVar(&rvo.Force, "force", false, "restore even values someone else changed after latlab")
	cmd.Flags().BoolVar(&rvo.DryRun, "dry-run", false, "show what would be restored; change nothing")
	cmd.Flags().StringVar(&rvo.Target, "target", "", "only the changes of this target (adapter, irq 24, eth0 rx-0, ...), as history shows it; with --all of every knob")
	cpusFlag(cmd.Flags(), &rvo.CPUs, "only the changes of these Linux CPUs' files, e.g. 0-3,8 (cpu-governor, energy-performance-preference, cpu-idle-states)")
	oldSpelling(cmd.Flags(), io.Err, "cpu", "cpus", "")
	return knobCmd(cmd, o)
}

// revertOptions is the revert the argument and flags ask for.
func (rvo *KnobRevertOptions) revertOptions() knob.RevertOptions {
	o := &rvo.KnobOptions
	return knob.RevertOptions{Knob: rvo.Name, All: rvo.All, Target: rvo.Target, CPU: rvo.CPUs, Force: rvo.Force, DryRun: rvo.DryRun,
		Root: o.IO.Root, StateDir: o.StateDir, Warn: o.warn}
}

func runKnobRevert(ctx context.Context, rvo *KnobRevertOptions) error {
	o := &rvo.KnobOptions
	res, err := knob.RunRevert(ctx, rvo.revertOptions())
	if res == nil {
		return knobErr(err)
	}
	if o.JSON {
		if werr := writeDoc(o.IO, knob.KindRevert.New(host.Collect(), res), o.settings); werr != nil {
			return werr
		}
	} else {
		humanOut(o.IO.Out, func(w io.Writer) { report.KnobRevert(w, res) })
	}
	return err // a conflict names the value and the way out (--force)
}

// --- history ---

// newKnobHistoryCmd builds latlab knob history. runF, when set, is given
// the options the flags map to instead of reading the journal: the tests
// of the mapping.
func newKnobHistoryCmd(io *IO, runF func(*KnobOptions) error) *cobra.Command {
	o := &KnobOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "every change latlab made: when, what, from and to, and whether it is still in place",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runKnobHistory(cmd.Context(), o)
		},
	}
	knobCommonFlags(cmd.Flags(), o, true)
	return knobCmd(cmd, o)
}

func runKnobHistory(ctx context.Context, o *KnobOptions) error {
	h, err := knob.RunHistory(ctx, knob.HistoryOptions{Root: o.IO.Root, StateDir: o.StateDir})
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindHistory.New(host.Collect(), h), o.settings)
	}
	for _, w := range h.Warnings() {
		o.warn(w)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.KnobHistory(w, h) })
	return nil
}

// --- export ---

// KnobExportOptions are the flags of `latlab knob export`.
type KnobExportOptions struct {
	KnobOptions
	Format, Out string
	Undo        bool
}

// newKnobExportCmd builds latlab knob export. runF, when set, is given the
// options the flags map to instead of exporting: the tests of the mapping.
func newKnobExportCmd(io *IO, runF func(*KnobExportOptions) error) *cobra.Command {
	xo := &KnobExportOptions{KnobOptions: KnobOptions{IO: io}}
	o := &xo.KnobOptions
	cmd := &cobra.Command{
		Use:   "export",
		Short: "the current values as a script (.reg, PowerShell, shell), or with --undo the script that undoes latlab's changes",
		Example: `  latlab knob export --format reg -o before.reg
  latlab knob export --undo --format ps1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := xo.exportOptions().Validate(); err != nil {
				return knobErr(err)
			}
			if runF != nil {
				return runF(xo)
			}
			return runKnobExport(cmd.Context(), xo)
		},
	}
	knobCommonFlags(cmd.Flags(), o, true)
	cmd.Flags().StringVar(&xo.Format, "format", "", "reg, ps1 or sh (default: reg on Windows, sh on Linux)")
	cmd.Flags().StringVarP(&xo.Out, "output", "o", "", "write to FILE instead of stdout (a .reg file as regedit writes them: UTF-16LE with BOM, CRLF)")
	cmd.Flags().BoolVar(&xo.Undo, "undo", false, "the script that restores the original values of latlab's changes still in place")
	return knobCmd(cmd, o)
}

// exportOptions is the export the flags ask for.
func (xo *KnobExportOptions) exportOptions() knob.ExportOptions {
	o := &xo.KnobOptions
	return knob.ExportOptions{Undo: xo.Undo, Format: xo.Format, Root: o.IO.Root, StateDir: o.StateDir}
}

func runKnobExport(ctx context.Context, xo *KnobExportOptions) error {
	o := &xo.KnobOptions
	out := xo.Out
	x, err := knob.RunExport(ctx, xo.exportOptions())
	if err != nil {
		return knobErr(err)
	}
	if o.JSON {
		return writeDoc(o.IO, knob.KindExport.New(host.Collect(), x), o.settings)
	}
	if out != "" {
		if err := outfile.WriteBytes(out, x.File()); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.Err, "wrote %d value(s) to %s\n", len(x.Changes), out)
	} else {
		fmt.Fprint(o.IO.Out, x.Text())
	}
	for _, s := range x.Skipped {
		fmt.Fprintf(o.IO.Err, "skipped %s\n", s)
	}
	return nil
}
