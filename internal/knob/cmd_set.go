package knob

import (
	"context"
	"strings"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
)

// SetOptions are the work of `latlab knob set`.
type SetOptions struct {
	Knob  string
	Value string
	// Sel picks the instance to change (adapter, IRQ, PID, ...) and, for
	// qos-dscp, the policy's filters.
	Sel Selector
	// DryRun plans the change and renders it as a script, and changes
	// nothing.
	DryRun bool
	// Format is the script of a dry run: reg, ps1 or sh; "" = the
	// knob's OS's (DefaultFormat). A real set writes no script, so a
	// Format without DryRun is a badinput.Error.
	Format string
	// Root is the filesystem root of the Linux backends (--root);
	// StateDir the journal's directory ("" = DefaultStateDir(Root)).
	// The undo command names both as given.
	Root     string
	StateDir string
	// Env is what the knob reads and writes through; nil = NewEnv(Root).
	Env *Env
	// Warn, when set, is told what the set goes on past: damaged journal
	// entries, an experiment that did not finish.
	Warn func(string)
	// Unfinished, when set, is asked under the journal's lock, before
	// anything is written, what an experiment that did not finish left
	// in place ("" = nothing); undo is the command that reverts every
	// change. latlab's is try.UnfinishedWarning: the experiment record
	// is try's, and knob cannot import try, which drives knob.
	Unfinished func(j *journal.Journal, undo []string) (string, error)
}

// Validate checks what needs nothing of the system, before anything runs:
// a Format goes with DryRun and names a script format. Its errors are
// badinput.Errors.
func (o SetOptions) Validate() error {
	if o.Format == "" {
		return nil
	}
	if !o.DryRun {
		return badinput.Errorf("--format goes with --dry-run (it picks the script the dry run prints: reg, ps1 or sh); a real set writes no script")
	}
	return checkFormat(o.Format)
}

// RunSet changes a knob of this OS: it plans the change, records every
// original value durably in the journal, then writes (Apply). A dry run
// only plans, and renders the plan as a script. The result's Changes are
// what the system stored.
func RunSet(ctx context.Context, o SetOptions) (*SetResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	k, err := lookupNative(o.Knob)
	if err != nil {
		return nil, err
	}
	return runSet(ctx, k, o)
}

// runSet is RunSet of knob k, which tests give on any OS.
func runSet(ctx context.Context, k Knob, o SetOptions) (*SetResult, error) {
	format := o.Format
	if format == "" {
		format = DefaultFormat(k.OS())
	}
	env := envOf(o.Env, o.Root)
	p, err := k.Plan(env, o.Sel, o.Value)
	if err != nil {
		return nil, err
	}
	// Checked before anything is written, so a real set warns first.
	if w := BootWarning(env, p.Changes); w != "" {
		p.Warnings = append(p.Warnings, w)
		if !o.DryRun && o.Warn != nil {
			o.Warn(w)
		}
	}
	res := &SetResult{DryRun: o.DryRun, Plan: p}
	if o.DryRun {
		script, err := Script(p.Changes, format)
		if err != nil {
			return nil, err
		}
		res.Script, res.Format = script, format
	}
	if !o.DryRun && len(p.Changes) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := apply(env, o, p, res); err != nil {
			return nil, err
		}
	}
	// After Apply, New is what the system stored.
	for _, c := range p.Changes {
		res.Changes = append(res.Changes, Delta{Where: c.Loc.String(), From: ShowValue(c.Old), To: ShowValue(c.New)})
	}
	return res, nil
}

// apply carries out the plan of a set under the journal's lock, after
// saying what the journal holds that the set goes on past.
func apply(env *Env, o SetOptions, p *Plan, res *SetResult) error {
	if err := env.CheckPrivileged(); err != nil {
		return err
	}
	j, err := journal.Open(stateDirOf(o.StateDir, o.Root))
	if err != nil {
		return err
	}
	defer j.Close()
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	for _, w := range journalWarnings(j.Dir(), j.FileDamage, j.Damaged) {
		warn(w)
	}
	if o.Unfinished != nil {
		msg, err := o.Unfinished(j, undoArgs("--all", "", o.Root, o.StateDir))
		switch {
		case err != nil:
			warn("experiment record: " + err.Error())
		case msg != "":
			warn(msg)
		}
	}
	before := len(j.Entries)
	if err := Apply(env, j, p); err != nil {
		return err
	}
	res.Applied = true
	res.Journal = j.Dir()
	res.Undo = undoArgs(p.Knob, p.Target, o.Root, o.StateDir)
	for _, e := range j.Entries[before:] {
		res.Entries = append(res.Entries, e.ID)
	}
	return nil
}

// undoArgs is the command that reverts the changes of knob what (or
// "--all") to target: the root and the state directory the change was
// made with go with it, or it would look in another journal and revert
// nothing.
func undoArgs(what, target, root, stateDir string) []string {
	args := []string{"latlab", "knob", "revert", what}
	if target != "" {
		args = append(args, "--target", target)
	}
	if root != "" && root != "/" {
		args = append(args, "--root", root)
	}
	if stateDir != "" {
		args = append(args, "--state-dir", stateDir)
	}
	return args
}

// CommandLine quotes args for the shell of this OS, so that the line
// can be pasted as it is printed.
func CommandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellWord(a)
	}
	return strings.Join(q, " ")
}

// shellWord leaves a plain word as it is and quotes anything else: in
// single quotes for a POSIX shell, in double quotes for cmd and
// PowerShell (a path with spaces; Windows paths hold no double quote).
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@%", r) || (HostOS == "windows" && r == '\\')) {
			plain = false
		}
	}
	switch {
	case plain:
		return s
	case HostOS == "windows":
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
