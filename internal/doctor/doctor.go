// Package doctor is latlab's check-up, the command a new user runs first:
// the timer state, short sleep and wake probes, and an audit of every
// setting of the knob catalogue that applies to this OS, each with a
// verdict that quotes the evidence it rests on, and the next steps worth
// taking.
//
// The audit only reads: it never changes a setting and needs no
// elevation. What it cannot read without elevation it reports as unknown,
// naming the privilege.
package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/tracefs"
)

// Kind is the document `latlab doctor --json` writes; its payload is the
// Result.
var Kind = result.Register[Result]("doctor", "the check-up: timer, sleep and wake probes, the settings audit, next steps (latlab doctor)")

// Profile names how long the check-up measures.
type Profile string

// The profiles: quick (about 4 s in all), standard (the default, a
// little longer), thorough (about a minute: longer probes, a realtime
// probe where allowed, a probe on each CPU).
const (
	Quick    Profile = "quick"
	Standard Profile = "standard"
	Thorough Profile = "thorough"
)

// Options configure a check-up. ForProfile fills the probe sizes; tests
// shrink them.
type Options struct {
	Profile Profile

	SleepSamples int           // 0: no sleep probe
	SleepGap     time.Duration // unmeasured pause between sleeps
	WakeDuration time.Duration // 0: no wake probe
	WakeInterval time.Duration
	// Thorough extras: a realtime wake probe (when this process may run
	// realtime) and one wake thread per CPU, each for ExtraDuration.
	Realtime      bool
	PerCPU        bool
	ExtraDuration time.Duration

	// OS is whose knobs to audit ("" = this OS). The Windows knobs'
	// reading logic runs on any OS over an in-memory registry, which is
	// how the audit rules are tested everywhere.
	OS string
	// Env is what the knobs read through; nil = this machine with Root.
	Env *knob.Env
	// Root is the filesystem root the Linux readings use (--root).
	Root string
	// Timer reads the timer state; nil = timer.Query.
	Timer func() (timer.Status, error)
	// Progress, when set, is told what the check-up is doing.
	Progress func(step string)

	// Cause, after the probes, names what delayed the worst wake-ups:
	// on Linux as root a second wake run of CauseDuration, traced (wake
	// --explain), with a thread on each of CauseCPUs (nil: each CPU this
	// process may use, at most 8); on Windows as administrator a DPC/ISR watch of
	// CauseDuration. Without the privilege the result says how to get it.
	Cause         bool
	CauseDuration time.Duration
	CauseCPUs     []int
}

// ForProfile returns the options of a profile with the probe sizes it
// stands for.
func ForProfile(p Profile) Options {
	o := Options{Profile: p, SleepGap: 2 * time.Millisecond, WakeInterval: time.Millisecond, Cause: true}
	switch p {
	case Quick:
		// 30 sleeps take under 1 s even at Windows' 15.625 ms default tick.
		o.SleepSamples, o.WakeDuration, o.CauseDuration = 30, time.Second, time.Second
	case Thorough:
		o.SleepSamples, o.WakeDuration = 600, 20*time.Second
		o.Realtime, o.PerCPU, o.ExtraDuration = true, true, 15*time.Second
		o.CauseDuration = 10 * time.Second
	default:
		o.Profile = Standard
		// The check-up as it always was: about 1 s of sleeps and 3 s of
		// wake-ups; then 2 s traced for the cause, where allowed.
		o.SleepSamples, o.WakeDuration, o.CauseDuration = 60, 3*time.Second, 2*time.Second
	}
	return o
}

// ParseProfile accepts quick, standard and thorough.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case Quick, Standard, Thorough:
		return Profile(s), nil
	case "":
		return Standard, nil
	}
	return "", fmt.Errorf("unknown profile %q: accepted quick, standard, thorough", s)
}

// Result is a check-up: the payload of a doctor document.
type Result struct {
	Profile  Profile   `json:"profile"`
	OS       string    `json:"os"`
	Timer    Timer     `json:"timer"`
	Sleep    *Probe    `json:"sleep,omitempty"`
	Wake     *Probe    `json:"wake,omitempty"`
	Extra    []Probe   `json:"wake_extra,omitempty"` // thorough: realtime, per CPU
	Settings []Setting `json:"settings"`
	Next     []Step    `json:"next"`
	Overhead *Overhead `json:"overhead,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Counts   Tally     `json:"counts"`
	// Verdict is the check-up's answer in one sentence.
	Verdict Overall `json:"verdict"`
	// Cause is what delayed the worst wake-ups (Options.Cause).
	Cause *Cause `json:"cause,omitempty"`
	// Against is the settings set beside a tuning profile (doctor
	// --against).
	Against *Against `json:"against,omitempty"`
	// ElapsedNs is how long the check-up took.
	ElapsedNs int64 `json:"elapsed_ns"`
}

// Overhead is what the tool itself adds to a sample (the wake probe's
// calibration).
type Overhead = probe.Overhead

// Tally counts the settings by verdict.
type Tally struct {
	Default    int `json:"default"`
	Changed    int `json:"changed"`
	Suspicious int `json:"suspicious"`
	Unknown    int `json:"unknown"`
}

func (o *Options) progress(s string) {
	if o.Progress != nil {
		o.Progress(s)
	}
}

// Run performs the check-up. Only a failing probe is an error; what
// cannot be read is reported in the result.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.OS == "" {
		o.OS = knob.HostOS
	}
	if o.Root == "" {
		o.Root = "/"
	}
	if o.Env == nil {
		o.Env = knob.NewEnv(o.Root)
	}
	if o.Timer == nil {
		root := o.Root
		o.Timer = func() (timer.Status, error) { return timer.QueryRoot(root) }
	}
	if o.WakeInterval <= 0 {
		o.WakeInterval = time.Millisecond
	}
	r := &Result{Profile: o.Profile, OS: o.OS, Settings: []Setting{}, Next: []Step{}}
	if r.Profile == "" {
		r.Profile = Standard
	}
	if o.Root != "/" {
		// A testing aid: what is read comes from the tree, what is
		// measured from this machine; the page must not pass one off as
		// the other.
		r.Notes = append(r.Notes, "under --root "+o.Root+": the settings and the timer's files are the tree's; clock_getres, this thread's timer slack, the host, the probes and the cause are this machine's")
	}
	if o.Root == "/" {
		// Tracing a `dpc watch` or `wake --explain` killed with SIGKILL
		// left running (its instance) and mounted (its private tracefs):
		// removed once its process is gone, and said.
		for _, l := range tracefs.RemoveLeftovers() {
			r.Notes = append(r.Notes, l.String())
		}
	}
	o.progress("timer")
	st, stErr := o.Timer()
	r.Timer = timerSection(st, stErr, o)

	o.progress("settings")
	r.Settings = Audit(o.Env, o.OS)
	r.Counts = tally(r.Settings)

	if err := runProbes(ctx, o, r, st); err != nil {
		return nil, err
	}
	if o.Cause && o.CauseDuration > 0 && r.Wake != nil && ctx.Err() == nil {
		o.progress("tracing the cause")
		r.Cause = findCause(ctx, o)
	}
	r.Verdict = OverallVerdict(r)
	r.Next = NextSteps(r)
	r.ElapsedNs = time.Since(start).Nanoseconds()
	if ctx.Err() != nil {
		r.Notes = append(r.Notes, "interrupted: the probes that had not finished are missing")
	}
	return r, nil
}

func tally(ss []Setting) Tally {
	var t Tally
	for _, s := range ss {
		switch s.Verdict {
		case knob.Default:
			t.Default++
		case knob.Changed:
			t.Changed++
		case knob.Suspicious:
			t.Suspicious++
		default:
			t.Unknown++
		}
	}
	return t
}
