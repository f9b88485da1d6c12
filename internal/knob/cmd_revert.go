package knob

import (
	"context"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
)

// RevertOptions are the work of `latlab knob revert`.
type RevertOptions struct {
	// Knob is the knob whose changes are reverted; All reverts every
	// knob's instead. One of the two is needed, not both.
	Knob string
	All  bool
	// Target keeps the changes of one target (adapter, irq 24, eth0
	// rx-0, ...) as history shows it, in any case; "" = every target.
	Target string
	// CPU keeps the changes of the per-CPU files (/sys/devices/system/
	// cpu/cpuN/...) of these CPUs, a list such as 0-3,8; "" = every CPU.
	CPU string
	// Force restores even values someone else changed after latlab.
	Force bool
	// DryRun works out the steps and writes nothing.
	DryRun bool
	// Root is the filesystem root of the Linux backends (--root);
	// StateDir the journal's directory ("" = DefaultStateDir(Root)).
	Root     string
	StateDir string
	// Env is what the knobs are restored through; nil = NewEnv(Root).
	Env *Env
	// Warn, when set, is told that the journal file's checksum failed
	// (the entries that pass their own are used).
	Warn func(string)
}

// Validate checks what needs nothing of the system, before anything runs:
// a knob name or All, not both, and CPU's list. Its errors are
// badinput.Errors.
func (o RevertOptions) Validate() error {
	switch {
	case o.All && o.Knob != "":
		return badinput.Errorf("give a knob name or --all, not both")
	case !o.All && o.Knob == "":
		return badinput.Errorf("revert needs a knob name or --all")
	}
	if o.CPU != "" {
		if _, err := matchCPUs(o.CPU, MatchKnob("", "")); err != nil {
			return err
		}
	}
	return nil
}

// RunRevert restores the original values of the changes in the journal
// that are still in place, newest first, byte for byte. A revert that
// stops (a value someone else changed, an entry left alone) returns its
// result, with the steps it took and the error, and the error.
func RunRevert(ctx context.Context, o RevertOptions) (*RevertResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	name := ""
	if !o.All {
		k, err := Lookup(o.Knob)
		if err != nil {
			return nil, err
		}
		name = k.Name()
	}
	match := MatchKnob(name, o.Target)
	if o.CPU != "" {
		m, err := matchCPUs(o.CPU, match)
		if err != nil {
			return nil, err
		}
		match = m
	}
	env := envOf(o.Env, o.Root)
	j, err := journal.OpenExisting(stateDirOf(o.StateDir, o.Root))
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if w := fileDamageWarning(j.Dir(), j.FileDamage, j.Damaged); w != "" && o.Warn != nil {
		o.Warn(w)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A restore is a write like a set: a BCD element restored under
	// BitLocker without Secure Boot risks the same recovery prompt.
	if o.Warn != nil {
		if planned, err := PlanRevert(env, j, match, o.Force); err == nil {
			var restores []Change
			for _, s := range planned {
				if s.Action == "restore" {
					restores = append(restores, Change{Loc: s.Entry.Loc})
				}
			}
			if w := BootWarning(env, restores); w != "" {
				o.Warn(w)
			}
		}
	}
	var steps []Step
	if o.DryRun {
		steps, err = PlanRevert(env, j, match, o.Force)
	} else {
		steps, err = RevertContext(ctx, env, j, match, o.Force)
	}
	res := &RevertResult{DryRun: o.DryRun, Steps: steps, Target: o.Target, Damaged: j.Damaged}
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}
