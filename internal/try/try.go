// Package try runs a setting change as an experiment: the current value of
// a knob (the baseline) and each value to try are the arms; the run is cut
// into blocks, each arm once per round in a seeded random order; before
// each block the arm's value is applied (system knobs through the knob
// journal, first recording the original), a settle time passes, and a
// probe measures; after the block the original is restored. The verdict of
// each value against the baseline rests on two tests: the pooled samples
// (bootstrap interval, Mann-Whitney) and the blocks (a randomization test
// on the rounds' differences), so that drift between blocks cannot pass
// for an effect. It never prints.
package try

import (
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
)

// Probes try can measure a block with.
const (
	ProbeSleep  = knob.ProbeSleep
	ProbeWake   = "wake"
	ProbeUDP    = knob.ProbeUDP
	ProbeDPCISR = "dpcisr"
	ProbeNoise  = "noise"
)

// Limits of a plan.
const (
	DefaultBlocks = 8
	MaxBlocks     = 1000
	MaxValues     = 16
	// MinBlockDuration keeps a block long enough to hold samples.
	MinBlockDuration = 10 * time.Millisecond
	MaxBlockDuration = time.Hour
)

// Keep modes: restore the original at the end (none), or leave the best
// value in place when it is significantly better than the baseline.
const (
	KeepNone = "none"
	KeepBest = "best"
)

// Alpha is the family-wise error rate of the verdicts.
const Alpha = 0.05

// Probe is what each block measures. Only the options of Kind are used;
// their length fields (samples, duration) are set per block.
type Probe struct {
	Kind  string
	Sleep probe.SleepOptions
	Wake  probe.WakeOptions
	UDP   netload.UDPOptions
	// Module is the driver module whose DPCs the block test of the dpcisr
	// probe follows ("" = the one with the most DPC time in the run).
	Module string
	// Load is traffic the dpcisr probe sends while each block traces.
	Load Load
	// Noise is the noise probe's: the CPUs (a spinning thread on each),
	// the threshold, the threads' priority (latlab noise's options;
	// Duration is the block's).
	Noise probe.NoiseOptions
}

// Options configure an experiment.
type Options struct {
	Knob   string
	Values []string
	Sel    knob.Selector
	Probe  Probe
	// Blocks per arm (rounds); 0 = DefaultBlocks.
	Blocks        int
	BlockDuration time.Duration
	// Settle is the wait after applying a value; negative = the knob's.
	Settle time.Duration
	By     stats.Statistic
	BySet  bool // By was given; else the probe's default
	// ByRate: the verdict compares the noise probe's rate of
	// interruptions (--by rate, its default), not a statistic of samples.
	ByRate bool
	Seed   uint64
	Keep   string
	// Root is the filesystem root of the Linux backends (--root); StateDir
	// the journal's directory ("" = knob.DefaultStateDir(Root)).
	Root     string
	StateDir string
	// Env is what knobs read and write through; nil = knob.NewEnv(Root).
	Env *knob.Env
	// RestartAdapter allows a knob that takes effect when the network
	// adapter restarts: the adapter is restarted after each change and
	// each restore (--restart-adapter).
	RestartAdapter bool
	// Runner runs the restart's commands; nil = this OS's.
	Runner Runner
	// Command is the command line, kept in the experiment record.
	Command string
	// Progress, when set, is told about each block as it starts and ends.
	Progress func(Event)
}

// Event is a block starting to measure, its value applied and settled
// (Done false), or a block ending.
type Event struct {
	Block Block
	Total int
	Arm   string
	Done  bool
}

// DefaultBy is the statistic a probe's verdict uses unless told: the tail
// for periodic wake-ups (a missed deadline is what hurts), the median for
// one-off sleeps and round trips.
func DefaultBy(probeKind string) stats.Statistic {
	switch probeKind {
	case ProbeWake:
		return stats.Quantile(99)
	case ProbeDPCISR:
		return DPCBy
	}
	return stats.Quantile(50)
}

// Quantity names a probe's values.
func Quantity(probeKind string) string {
	switch probeKind {
	case ProbeSleep:
		return "slept time"
	case ProbeWake:
		return "wake-up latency"
	case ProbeUDP:
		return "UDP round-trip time"
	case ProbeDPCISR:
		return "DPC execution time"
	case ProbeNoise:
		return "interruption length"
	}
	return probeKind
}

// probeCommand is the command that measures once as the probe does, for
// the manual two-run recipe.
func probeCommand(p Probe) string {
	switch p.Kind {
	case ProbeWake:
		return "latlab wake"
	case ProbeUDP:
		to := p.UDP.To
		if to == "" {
			to = "HOST:PORT"
		}
		return "latlab net udp --to " + to
	case ProbeDPCISR:
		return "latlab dpc watch --duration 60s"
	case ProbeNoise:
		if len(p.Noise.CPUs) > 0 {
			return "latlab noise --cpus " + cpuList(p.Noise.CPUs)
		}
		return "latlab noise"
	}
	return "latlab sleep"
}

func validateProbe(p Probe) error {
	if err := validateLoad(p); err != nil {
		return err
	}
	switch p.Kind {
	case ProbeSleep:
		o := p.Sleep
		o.Samples = 1
		if err := o.Validate(); err != nil {
			return err
		}
	case ProbeWake:
		if p.Wake.Interval <= 0 {
			return badinput.Errorf("--interval must be positive")
		}
	case ProbeUDP:
		o := p.UDP
		o.Duration, o.Count = time.Second, 0
		if err := o.Validate(); err != nil {
			return err
		}
	case ProbeDPCISR:
		if dpcisrRefusal != "" {
			return badinput.Errorf("%s", dpcisrRefusal)
		}
	case ProbeNoise:
		o := p.Noise
		o.Duration = time.Second
		if err := o.Validate(); err != nil {
			return err
		}
	case "":
		return badinput.Errorf("--probe is required: sleep, wake, udp, dpcisr or noise")
	default:
		return badinput.Errorf("unknown --probe %q: accepted sleep, wake, udp, dpcisr, noise", p.Kind)
	}
	return nil
}

func checkValues(values []string) error {
	if len(values) == 0 {
		return badinput.Errorf("try needs a knob and at least one value to try: latlab try KNOB VALUE [VALUE...]")
	}
	if len(values) > MaxValues {
		return badinput.Errorf("%d values: at most %d per experiment", len(values), MaxValues)
	}
	seen := map[string]bool{}
	for _, v := range values {
		if strings.TrimSpace(v) == "" {
			return badinput.Errorf("an empty value: give each value to try, e.g. 0x28")
		}
		if seen[v] {
			return badinput.Errorf("value %s is given twice", v)
		}
		seen[v] = true
	}
	return nil
}

// CPUWords is CPUs as text says them: 2, 3.
func CPUWords(cpus []int) string { return strings.ReplaceAll(cpuList(cpus), ",", ", ") }

// cpuList is CPUs as --cpus takes them: 2,3.
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
