package cli

import (
	"net"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/sweep"
)

// Shell completion (latlab completion bash|zsh|fish|powershell) completes
// commands and flags by itself; these complete values. They are registered
// by flag name in every command that has the flag (registerCompletions,
// from finish), so a new command gets them without a line of its own. The
// lists come from the packages that accept the values where such a list
// exists; a test checks every offered value against the flag's help.

// flagValues complete a flag's value, by flag name.
var flagValues = map[string]cobra.CompletionFunc{
	"method":   fixed(probe.SleepMethods()...),
	"priority": fixed(sched.Normal.String(), sched.High.String(), sched.Realtime.String()),
	"profile":  completeProfiles,
	"mode":     fixed(string(sweep.InProcess), string(sweep.Separate)),
	"order":    fixed("random", "ascending"),
	"rank-by":  fixed("mean", "p50", "p99", "stdev"),
	"by":       fixed("p50", "p90", "p99", "p99.9", "mean"),
	"dedup":    fixed(string(capture.DedupAuto), string(capture.DedupOn), string(capture.DedupOff)),
	"format":   fixed(knob.FormatReg, knob.FormatPS1, knob.FormatSh),
	"product":  fixed("workstation", "server", "dc"),
	"arch":     fixed("amd64", "x86", "arm64", "arm", "ia64"),
	"iface":    completeInterfaces,
	"adapter":  completeInterfaces,
	"cpu":      completeCPU,
	"cpus":     completeCPUList,

	// Files latlab writes or reads, by the extensions it uses.
	"plot":        files("svg", "png"),
	"window-plot": files("svg", "png"),
	"csv":         files("csv"),
	"events":      files("csv"),
	"raw":         files("csv"),
	"result":      files("json"),
	"reg-out":     files("reg"),
	"etl":         files("etl"),
	"expect-better": func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return []cobra.Completion{"json"}, cobra.ShellCompDirectiveFilterFileExt
	},
	"state-dir":   dirs,
	"png":         dirs,
	"root":        dirs,
	"include-dir": dirs,
}

// argValues complete positional arguments, by command path.
var argValues = map[string]cobra.CompletionFunc{
	"latlab knob get":       knobNames(false),
	"latlab knob set":       knobNames(false),
	"latlab knob revert":    knobNames(false),
	"latlab knob explain":   knobNames(true),
	"latlab compare":        files("json"),
	"latlab report":         files("json"),
	"latlab pcap dscp":      firstArg(files("pcap", "pcapng", "cap")),
	"latlab pcap tcp":       firstArg(files("pcap", "pcapng", "cap")),
	"latlab inf":            firstArg(files("inf")),
	"latlab dpcisr":         firstArg(files("txt", "json")),
	"latlab dpcisr compare": files("txt", "json"),
}

// registerCompletions gives c's flags and arguments their value
// completions, leaving alone any a command registered itself.
func registerCompletions(c *cobra.Command) {
	// Looking each name up, rather than visiting every flag, spares pflag
	// a sorted copy of each flag set: this runs for every command on every
	// start, and completion starts latlab on every Tab.
	for name, fn := range flagValues {
		if c.Flags().Lookup(name) == nil && c.PersistentFlags().Lookup(name) == nil {
			continue
		}
		if _, exists := c.GetFlagCompletionFunc(name); exists {
			continue
		}
		_ = c.RegisterFlagCompletionFunc(name, fn)
	}
	if fn, ok := argValues[c.CommandPath()]; ok && c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
		c.ValidArgsFunction = fn
	}
}

func fixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

func files(ext ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return ext, cobra.ShellCompDirectiveFilterFileExt
	}
}

func dirs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// firstArg completes the first argument only.
func firstArg(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, to string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(c, args, to)
	}
}

// knobNames completes a knob name (the first argument) with its summary:
// this OS's knobs, or every knob for explain.
func knobNames(all bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ks := knob.Native()
		if all {
			ks = knob.All()
		}
		var out []cobra.Completion
		for _, k := range ks {
			out = append(out, cobra.CompletionWithDesc(k.Name(), k.Summary()))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func completeProfiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, n := range netload.Profiles() {
		desc := ""
		if p, err := netload.LookupProfile(n); err == nil {
			desc = p.About
		}
		out = append(out, cobra.CompletionWithDesc(n, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeInterfaces offers the names of this machine's network
// interfaces (on Windows, the adapters' names as Windows shows them).
func completeInterfaces(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, i := range ifs {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// cpuCount is how many CPUs are offered: the ones this process may run on.
var cpuCount = runtime.NumCPU

func completeCPU(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for i := range cpuCount() {
		out = append(out, strconv.Itoa(i))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeCPUList completes a CPU list such as 0,2-3: after what is typed
// up to the last comma, each CPU not yet listed, and with nothing typed the
// whole range too.
func completeCPUList(_ *cobra.Command, _ []string, to string) ([]cobra.Completion, cobra.ShellCompDirective) {
	n := cpuCount()
	prefix, listed := "", map[int]bool{}
	if i := strings.LastIndexByte(to, ','); i >= 0 {
		prefix = to[:i+1]
		for _, part := range strings.Split(to[:i], ",") {
			lo, hi, ok := strings.Cut(part, "-")
			a, err := strconv.Atoi(lo)
			if err != nil {
				continue
			}
			b := a
			if ok {
				if b, err = strconv.Atoi(hi); err != nil {
					continue
				}
			}
			for c := a; c <= b && c < n; c++ {
				listed[c] = true
			}
		}
	}
	var out []cobra.Completion
	if prefix == "" && n > 1 {
		out = append(out, "0-"+strconv.Itoa(n-1))
	}
	for c := range n {
		if !listed[c] {
			out = append(out, prefix+strconv.Itoa(c))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
