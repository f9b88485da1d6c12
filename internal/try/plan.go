package try

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// Result is an experiment, planned or run: the Data of a try document.
type Result struct {
	Knob   string `json:"knob"`
	Target string `json:"target,omitempty"`
	Scope  Scope  `json:"scope"`
	Probe  string `json:"probe"`
	// Quantity names the values: slept time, wake-up latency, UDP
	// round-trip time (ns, lower is better).
	Quantity        string  `json:"quantity"`
	By              string  `json:"by"`
	Alpha           float64 `json:"alpha"`
	Seed            uint64  `json:"seed"`
	Blocks          int     `json:"blocks_per_arm"`
	BlockDurationNs int64   `json:"block_duration_ns"`
	SettleNs        int64   `json:"settle_ns"`
	Keep            string  `json:"keep"`
	// Module is the driver module whose DPCs the block test of the dpcisr
	// probe follows: ModuleGiven (--module), or else the module with the
	// most DPC time over the run.
	Module      string `json:"module,omitempty"`
	ModuleGiven string `json:"module_given,omitempty"`
	// NoiseCPU is the CPU the noise probe spins on (a pointer, so that
	// CPU 0 is written: nil only when the probe is another, or in a
	// document written before, where CPU 0 was left out); NoiseThresholdNs
	// the shortest step between two clock reads it counts as an
	// interruption (--threshold, as latlab noise's).
	NoiseCPU *int `json:"noise_cpu,omitempty"`
	// NoiseCPUs are the CPUs of a noise run over several, a thread
	// spinning on each (NoiseCPU is then unset).
	NoiseCPUs        []int `json:"noise_cpus,omitempty"`
	NoiseThresholdNs int64 `json:"noise_threshold_ns,omitempty"`
	Arms             []Arm `json:"arms"`
	// Order is the arm of each block in the order planned: Blocks rounds,
	// each arm once per round in a random order drawn from Seed.
	Order []int `json:"order"`
	// Runs are the blocks in the order run; fewer than Order when the run
	// stopped early.
	Runs        []Block `json:"blocks"`
	Interrupted bool    `json:"interrupted"`
	// DryRun: planned only, nothing was measured or changed.
	DryRun bool `json:"dry_run,omitempty"`
	// Stopped says why the run ended before its last block ("" when it
	// did not).
	Stopped string   `json:"stopped,omitempty"`
	Restore *Restore `json:"restore,omitempty"`
	// Restart is how the network adapter is restarted (--restart-adapter).
	Restart    *AdapterRestart `json:"adapter_restart,omitempty"`
	EstimateNs int64           `json:"estimate_ns"`
	ElapsedNs  int64           `json:"elapsed_ns,omitempty"`
	StateDir   string          `json:"state_dir,omitempty"`
	// Writes says what the experiment changes outside latlab, in words.
	Writes []string `json:"writes"`
	Notes  []string `json:"notes,omitempty"`
	// SamplesInHistograms is set when the blocks keep histograms, not raw
	// samples (more than result.MaxSamples in all).
	SamplesInHistograms bool `json:"samples_in_histograms,omitempty"`

	meta meta
}

// Arm is the baseline (the value in place when the experiment started) or
// one value to try.
type Arm struct {
	Label    string `json:"label"`
	Value    string `json:"value,omitempty"` // as given; "" for the baseline
	Baseline bool   `json:"baseline,omitempty"`
	// Current is the baseline's value as the knob reads it.
	Current string `json:"current,omitempty"`
	// Changes are what applying a system knob's value writes.
	Changes []Change `json:"changes,omitempty"`
	// RequestNs is a process knob's request (0: none).
	RequestNs int64 `json:"request_ns,omitempty"`
	// Summary is of the samples of the arm's complete blocks.
	Summary *stats.Summary `json:"summary,omitempty"`
	// Complete is the number of the arm's blocks that ran to their end.
	Complete int `json:"complete_blocks"`
	// Noise is the noise probe's interruptions of the arm's complete
	// blocks, pooled.
	Noise *NoiseRate `json:"noise,omitempty"`
	// NoiseCPUs are those of a noise run over several CPUs, per CPU
	// (Noise is then absent).
	NoiseCPUs []NoiseCPURate `json:"noise_cpus,omitempty"`
	Verdict   *Verdict       `json:"verdict,omitempty"`

	plan    []knob.Change
	samples []int64 // sorted; complete blocks
}

// Change is one write of a system knob's value.
type Change struct {
	Where string `json:"where"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// Block is one block as run.
type Block struct {
	Index int `json:"index"` // position in the run, from 0
	Round int `json:"round"`
	Arm   int `json:"arm"`
	// StartNs is when its measurement began, after the settle time,
	// counted from the start of the experiment; ElapsedNs how long it ran.
	StartNs   int64 `json:"start_ns"`
	ElapsedNs int64 `json:"elapsed_ns"`
	// Complete: it ran its full duration (an interrupted block is kept
	// but left out of the statistics).
	Complete bool `json:"complete"`
	Count    int  `json:"count"`
	// Stat is the verdict's statistic (By) of its samples.
	Stat      float64           `json:"stat_ns"`
	Samples   []int64           `json:"samples_ns,omitempty"`
	Histogram *result.Histogram `json:"histogram,omitempty"`
	// GrantedNs is the timer request the OS granted (process knobs).
	GrantedNs   int64 `json:"granted_ns,omitempty"`
	Interrupted int   `json:"interrupted_waits,omitempty"`
	Overruns    int64 `json:"overruns,omitempty"`
	Lost        int64 `json:"lost,omitempty"`
	// Journal are the journal entries made for it; they are reverted
	// when it ends.
	Journal []int  `json:"journal_entries,omitempty"`
	Note    string `json:"note,omitempty"`
	// DPCISR is the dpcisr probe's report of the block: per section and
	// module, the histogram of execution times in xperf's buckets.
	DPCISR *dpcisr.Report `json:"dpcisr,omitempty"`
	// Load is what the dpcisr probe's traffic sent during the block.
	Load *LoadOutcome `json:"load,omitempty"`
	// Noise is what the noise probe counted on its CPU in the block;
	// NoiseCPUs what it counted on each CPU of a run over several (in
	// the run's order; Noise is then absent).
	Noise     *NoiseBlock  `json:"noise,omitempty"`
	NoiseCPUs []NoiseBlock `json:"noise_cpus,omitempty"`
}

// Restore says what the experiment left in place.
type Restore struct {
	// Restored: the original value is back (or, for a process knob,
	// nothing outside latlab was changed).
	Restored bool `json:"restored"`
	// Kept is the value --keep best left in place.
	Kept    string `json:"kept,omitempty"`
	Entries []int  `json:"journal_entries,omitempty"`
	Undo    string `json:"undo,omitempty"`
	Text    string `json:"text"`
}

// experiment is a planned run with what it needs to carry it out.
type experiment struct {
	res    *Result
	opts   Options
	info   Info
	k      knob.Knob // nil for a process knob
	env    *knob.Env
	by     stats.Statistic
	settle time.Duration
}

// Plan works out an experiment without changing anything: the arms and
// what applying each writes, the order of the blocks, the time it takes.
func Plan(o Options) (*Result, error) {
	x, err := plan(o)
	if err != nil {
		return nil, err
	}
	x.res.DryRun = true
	return x.res, nil
}

func plan(o Options) (*experiment, error) {
	if err := checkValues(o.Values); err != nil {
		return nil, err
	}
	if err := validateProbe(o.Probe); err != nil {
		return nil, err
	}
	in, k, err := resolve(o.Knob)
	if err != nil {
		return nil, err
	}
	switch {
	case in.Restart && o.RestartAdapter:
	case !in.Live():
		return nil, refusal(in, o.Values, probeCommand(o.Probe))
	case o.RestartAdapter:
		return nil, badinput.Errorf("--restart-adapter is for knobs that take effect when the network adapter restarts (rss, interrupt-moderation, nic-buffers, nic-power-saving on Windows); %s takes effect without", in.Name)
	}
	if o.Blocks == 0 {
		o.Blocks = DefaultBlocks
	}
	switch {
	case o.Blocks < 1 || o.Blocks > MaxBlocks:
		return nil, badinput.Errorf("invalid --blocks %d: accepted 1-%d blocks per arm", o.Blocks, MaxBlocks)
	case o.BlockDuration < MinBlockDuration || o.BlockDuration > MaxBlockDuration:
		return nil, badinput.Errorf("invalid --block-duration %s: accepted %s to %s", units.FlagDuration(o.BlockDuration), units.FlagDuration(MinBlockDuration), units.FlagDuration(MaxBlockDuration))
	}
	if o.Probe.Kind == ProbeWake && o.BlockDuration < o.Probe.Wake.Interval {
		return nil, badinput.Errorf("--block-duration %s is shorter than --interval %s", units.FlagDuration(o.BlockDuration), units.FlagDuration(o.Probe.Wake.Interval))
	}
	switch o.Keep {
	case "", KeepNone:
		o.Keep = KeepNone
	case KeepBest:
		if in.Scope == ScopeProcess {
			return nil, badinput.Errorf("--keep best: %s is set on latlab's own measuring thread and ends with it; set it on a program with latlab knob set", in.Name)
		}
	default:
		return nil, badinput.Errorf("invalid --keep %q: accepted best or none", o.Keep)
	}
	by := o.By
	if !o.BySet {
		by = DefaultBy(o.Probe.Kind)
	}
	byRate := o.ByRate || o.Probe.Kind == ProbeNoise && !o.BySet
	if byRate && o.Probe.Kind != ProbeNoise {
		return nil, badinput.Errorf("--by rate is the noise probe's (interruptions per second); --probe %s compares p50, p90, p99, p99.9 (any pN) or mean", o.Probe.Kind)
	}
	if o.Probe.Kind == ProbeNoise && !byRate && len(o.Probe.Noise.CPUs) > 1 {
		return nil, badinput.Errorf("--by %s with --probe noise compares the interruptions' lengths on one CPU; over several CPUs the verdict is by rate (the default): give one CPU with --cpus N, or leave --by out", by)
	}
	if o.Probe.Kind == ProbeDPCISR && !validDPCBy(by) {
		return nil, badinput.Errorf("invalid --by %s for --probe dpcisr: a histogram of buckets gives quantiles only: p50, p90, p99, p99.9 (any pN) or max", by)
	}
	settle := o.Settle
	if settle < 0 {
		settle = in.Settle
	}
	env := o.Env
	if env == nil && in.Scope == ScopeSystem {
		env = knob.NewEnv(o.Root)
	}
	x := &experiment{opts: o, info: in, k: k, env: env, by: by, settle: settle}
	byName := by.String()
	if byRate {
		byName = ByRate
	}
	res := &Result{Knob: in.Name, Scope: in.Scope, Probe: o.Probe.Kind, Quantity: Quantity(o.Probe.Kind), By: byName,
		Alpha: Alpha, Seed: o.Seed, Blocks: o.Blocks, BlockDurationNs: o.BlockDuration.Nanoseconds(), SettleNs: settle.Nanoseconds(), Keep: o.Keep, ModuleGiven: o.Probe.Module}
	x.res = res
	switch o.Probe.Kind {
	case ProbeSleep:
		res.meta.requestedNs = o.Probe.Sleep.Duration.Nanoseconds()
	case ProbeWake:
		res.meta.intervalNs = o.Probe.Wake.Interval.Nanoseconds()
	case ProbeUDP:
		res.meta.intervalNs = int64(1e9 / o.Probe.UDP.RatePPS)
	case ProbeNoise:
		if cpus := o.Probe.Noise.CPUs; len(cpus) == 1 {
			cpu := cpus[0]
			res.NoiseCPU = &cpu
		} else {
			res.NoiseCPUs = slices.Clone(cpus)
		}
		res.NoiseThresholdNs = o.Probe.Noise.Threshold.Nanoseconds()
	}
	if in.Scope == ScopeProcess {
		err = x.processArms()
	} else if err = x.checkUnfinished(); err == nil {
		err = x.systemArms()
	}
	if err != nil {
		return nil, err
	}
	switch {
	case in.Probe == "" && in.Unprobed != "":
		res.Notes = append(res.Notes, fmt.Sprintf("none of try's probes measures what %s changes: %s", in.Name, in.Unprobed))
	case in.Probe == "":
		res.Notes = append(res.Notes, fmt.Sprintf("none of try's probes measures what %s changes (TCP loss recovery): compare latlab net tcp-discard runs before and after", in.Name))
	case in.Probe != o.Probe.Kind:
		res.Notes = append(res.Notes, fmt.Sprintf("the %s probe is the one that shows what %s changes; this run measures with the %s probe", in.Probe, in.Name, o.Probe.Kind))
	}
	if in.RealtimeNote != "" && probePriority(o.Probe) == sched.Realtime {
		res.Notes = append(res.Notes, in.RealtimeNote)
	}
	res.Order = Order(len(res.Arms), o.Blocks, o.Seed)
	if in.Restart {
		if err := x.planRestart(); err != nil {
			return nil, err
		}
	}
	res.Runs = []Block{}
	res.EstimateNs = estimate(o, len(res.Arms), settle).Nanoseconds()
	return x, nil
}

// processArms sets up the arms of a process knob: the baseline asks for
// what a thread of latlab has anyway, each value for itself.
func (x *experiment) processArms() error {
	if x.opts.Sel != (knob.Selector{}) {
		return badinput.Errorf("%s applies to latlab's own measuring thread: --pid and the other selectors do not go with try (latlab knob set %s VALUE --pid PID sets another process's)", x.info.Name, x.info.Name)
	}
	base, label, err := processBaseline()
	if err != nil {
		return err
	}
	x.res.Arms = []Arm{{Label: "current", Baseline: true, Current: label, RequestNs: base.Nanoseconds()}}
	for _, v := range x.opts.Values {
		r, err := parseRequest(v, processPlainNs)
		if err != nil {
			return err
		}
		if r == base {
			return badinput.Errorf("%s is the current %s: it is the baseline already; give other values", v, x.info.Name)
		}
		for _, a := range x.res.Arms[1:] {
			if a.RequestNs == r.Nanoseconds() {
				return badinput.Errorf("%s and %s are the same request", a.Value, v)
			}
		}
		x.res.Arms = append(x.res.Arms, Arm{Label: v, Value: v, RequestNs: r.Nanoseconds()})
	}
	x.res.Writes = []string{processWhat}
	return nil
}

// systemArms plans each value through the knob: what it writes, from
// what, to what. Nothing is written.
func (x *experiment) systemArms() error {
	r, err := x.k.Get(x.env, x.opts.Sel)
	if err != nil {
		return err
	}
	var cur []string
	for _, it := range r.Items {
		s := it.Value
		if it.Raw != nil && it.Raw.IsAbsent() && it.Meaning != "" {
			s = it.Meaning // "absent: the kernel keeps its built-in default"
		}
		if it.Target != "" && len(r.Items) > 1 {
			s = it.Target + " " + s
		}
		cur = append(cur, s)
	}
	x.res.Arms = []Arm{{Label: "current", Baseline: true, Current: strings.Join(cur, "; ")}}
	total := 0
	for _, v := range x.opts.Values {
		p, err := x.k.Plan(x.env, x.opts.Sel, v)
		if err != nil {
			return err
		}
		if len(p.Changes) == 0 && len(p.Manual) > 0 {
			return badinput.Errorf("%s %s is a change latlab does not make itself (%s): it cannot be tried live; latlab knob set %s %s prints the steps", x.info.Name, v, p.Manual[len(p.Manual)-1].Do, x.info.Name, v)
		}
		if len(p.Changes) == 0 {
			return badinput.Errorf("%s already holds %s: it is the baseline already; give other values", x.info.Name, v)
		}
		if x.res.Target == "" {
			x.res.Target = p.Target
		}
		for _, a := range x.res.Arms[1:] {
			if samePlan(a.plan, p.Changes) {
				return badinput.Errorf("%s and %s write the same values", a.Value, v)
			}
		}
		a := Arm{Label: v, Value: v, plan: p.Changes}
		for _, c := range p.Changes {
			a.Changes = append(a.Changes, Change{Where: c.Loc.String(), From: knob.ShowValue(c.Old), To: knob.ShowValue(c.New)})
		}
		total += len(p.Changes)
		x.res.Arms = append(x.res.Arms, a)
	}
	dir := x.stateDir()
	x.res.StateDir = dir
	x.res.Writes = append(x.res.Writes,
		fmt.Sprintf("%s: the original value of each change before it is made (%d changes in all, each reverted when its block ends)",
			filepath.Join(dir, journal.File), total*x.opts.Blocks),
		fmt.Sprintf("%s: which command made those changes, while it runs", filepath.Join(dir, journal.ExperimentFile)))
	for _, a := range x.res.Arms[1:] {
		for _, c := range a.Changes {
			x.res.Writes = append(x.res.Writes, fmt.Sprintf("%s: %s -> %s before each %s block, back to %s after it", c.Where, c.From, c.To, a.Label, c.From))
		}
	}
	return nil
}

// checkUnfinished refuses to plan over the changes an experiment that did
// not finish left in place: the value read now would be one of its values,
// not the original. A journal that cannot be read here (no privilege) is
// left to the run, which opens it with its lock and checks again.
func (x *experiment) checkUnfinished() error {
	j, err := journal.Read(x.stateDir())
	if err != nil {
		return nil
	}
	r, open, err := Unfinished(j)
	if err != nil || r == nil {
		return nil
	}
	return fmt.Errorf("%s; then run try again", UnfinishedMessage(r, open, x.undoCommand("--all")))
}

func (x *experiment) stateDir() string {
	if x.opts.StateDir != "" {
		return x.opts.StateDir
	}
	return knob.DefaultStateDir(x.opts.Root)
}

// samePlan reports whether two plans write the same values to the same
// places.
func samePlan(a, b []knob.Change) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Loc != b[i].Loc || !backend.Same(a[i].New, b[i].New) {
			return false
		}
	}
	return true
}

// Order returns the arm of each block in run order: rounds rounds, each a
// permutation of the arms drawn from a generator seeded with seed, so that
// every arm has the same number of blocks, each round holds every arm
// once (drift moves all arms of a round alike), and which arm comes first
// in a round is left to chance (the block test rests on that).
func Order(arms, rounds int, seed uint64) []int {
	rng := mrand.New(mrand.NewPCG(seed, 0x7472792d6f72646e))
	out := make([]int, 0, arms*rounds)
	for r := 0; r < rounds; r++ {
		out = append(out, rng.Perm(arms)...)
	}
	return out
}

// NewSeed is a seed for a run that was given none.
func NewSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 44 // 20 bits: short enough to type again
}

// estimate is how long a run takes: per block the settle time, the block
// and the probe's own setup (a thread and a garbage collection; for UDP
// the peer check and the drain).
func estimate(o Options, arms int, settle time.Duration) time.Duration {
	per := settle + o.BlockDuration + 10*time.Millisecond
	if o.Probe.Kind == ProbeUDP {
		per += udpDrain + 10*time.Millisecond
	}
	t := time.Duration(arms*o.Blocks) * per
	if o.Probe.Kind == ProbeSleep {
		t += 50 * time.Millisecond // the overhead calibration of the first block
	}
	return t
}

// probePriority is the priority the probe's measuring thread asks for.
func probePriority(p Probe) sched.Priority {
	switch p.Kind {
	case ProbeWake:
		return p.Wake.Priority
	case ProbeUDP:
		if p.UDP.Thread != nil {
			return p.UDP.Thread.Priority
		}
		return sched.Normal
	case ProbeNoise:
		return p.Noise.Priority
	}
	return p.Sleep.Thread.Priority
}
