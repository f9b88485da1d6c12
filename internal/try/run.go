package try

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/timer"
)

// Run plans and carries out an experiment. When the run stops early
// (Ctrl-C, an error) it still returns the result, with what was measured
// and Stopped saying why; err is set when it stopped on an error or the
// original value could not be restored.
func Run(ctx context.Context, o Options) (*Result, error) {
	x, err := plan(o)
	if err != nil {
		return nil, err
	}
	res, err := x.run(ctx)
	if res != nil {
		if st, qerr := timer.Query(); qerr == nil {
			res.meta.timer = &st // after the run and its restore
		}
	}
	return res, err
}

// meta is what the document needs of a run beyond the Result.
type meta struct {
	requestedNs int64 // sleep: the sleep asked for
	intervalNs  int64 // wake, udp: the period
	method      string
	setup       probe.ThreadSetup
	overhead    *probe.Overhead
	warmupNs    int64
	timer       *timer.Status // after the run; nil when unread
}

func (x *experiment) run(ctx context.Context) (*Result, error) {
	res := x.res
	if x.opts.Probe.Kind == ProbeDPCISR {
		// Before anything changes: a kernel trace that cannot start
		// (no elevation, another tool holds it, Wine) would stop the run
		// at its first block.
		if err := checkWatch(ctx); err != nil {
			return nil, err
		}
	}
	if res.Restart != nil {
		if err := x.lookupAdapter(ctx); err != nil {
			return nil, err
		}
	}
	var j *journal.Journal
	var rec Record
	if x.info.Scope == ScopeSystem {
		if err := x.env.CheckPrivileged(); err != nil {
			return nil, err
		}
		var err error
		if j, err = journal.Open(x.stateDir()); err != nil {
			return nil, err
		}
		defer j.Close()
		if r, open, err := Unfinished(j); err != nil {
			return nil, err
		} else if r != nil {
			return nil, fmt.Errorf("%s; then run try again", UnfinishedMessage(r, open, x.undoCommand("--all")))
		}
		// The record goes first, then each change's journal entry, then
		// the change: a crash at any point leaves entries that revert.
		rec = Record{State: StateRunning, Command: x.opts.Command, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second),
			Knob: x.info.Name, FirstEntry: j.NextID}
		if err := writeRecord(j, rec); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var runErr error
	for i, arm := range res.Order {
		if ctx.Err() != nil {
			break
		}
		b := Block{Index: i, Round: i / len(res.Arms), Arm: arm}
		err := x.block(ctx, start, &b, j, i == 0)
		res.Runs = append(res.Runs, b)
		x.progress(b, true)
		if err != nil {
			runErr = err
			break
		}
	}
	res.ElapsedNs = time.Since(start).Nanoseconds()
	switch {
	case runErr != nil:
		res.Stopped = runErr.Error()
	case ctx.Err() != nil:
		res.Interrupted = true
		res.Stopped = fmt.Sprintf("interrupted after %d of %d blocks", completeBlocks(res), len(res.Order))
	}
	if err := Analyze(res, x.by, x.opts.Seed); err != nil && runErr == nil {
		runErr = err
	}
	if x.info.Scope == ScopeProcess {
		res.Restore = &Restore{Restored: true, Text: "nothing outside latlab was changed"}
		return res, runErr
	}
	if err := x.finish(j, &rec, runErr == nil && !res.Interrupted); err != nil {
		return res, errors.Join(runErr, err)
	}
	return res, runErr
}

func completeBlocks(res *Result) int {
	n := 0
	for _, b := range res.Runs {
		if b.Complete {
			n++
		}
	}
	return n
}

func (x *experiment) progress(b Block, done bool) {
	if x.opts.Progress != nil {
		x.opts.Progress(Event{Block: b, Total: len(x.res.Order), Arm: x.res.Arms[b.Arm].Label, Done: done})
	}
}

// block applies the arm's value, lets it settle, measures, and puts the
// original back.
func (x *experiment) block(ctx context.Context, start time.Time, b *Block, j *journal.Journal, first bool) (err error) {
	arm := &x.res.Arms[b.Arm]
	if j != nil {
		if err := x.checkOriginal(); err != nil {
			return err
		}
		if !arm.Baseline {
			ids, aerr := x.apply(j, arm)
			b.Journal = ids
			if aerr != nil {
				return aerr
			}
			defer func() {
				if rerr := x.revert(j, ids); rerr != nil {
					err = errors.Join(err, rerr)
				} else if rerr := x.restartAfter(context.WithoutCancel(ctx), "the restore"); rerr != nil {
					err = errors.Join(err, rerr)
				}
			}()
			if err := x.restartAfter(ctx, "applying "+arm.Label); err != nil {
				return err
			}
		}
	}
	threadRes, granted, release, err := hold(time.Duration(arm.RequestNs))
	if err != nil {
		return fmt.Errorf("request the timer for %s: %w", arm.Label, err)
	}
	defer release()
	if err := clock.Pause(ctx, x.settle); err != nil {
		b.Note = "stopped while settling"
		return nil
	}
	b.StartNs = time.Since(start).Nanoseconds()
	x.progress(*b, false)
	m, err := measure(ctx, x.opts.Probe, x.opts.BlockDuration, threadRes, first)
	b.ElapsedNs = time.Since(start).Nanoseconds() - b.StartNs
	if err != nil {
		return fmt.Errorf("block %d (%s): %w", b.Index+1, arm.Label, err)
	}
	b.Samples, b.Count = m.samples, len(m.samples)
	if m.starved {
		b.Note = "the thread was held off its CPU for the whole block: its one wake-up, the warm-up, is the block's sample"
	}
	b.Interrupted, b.Overruns, b.Lost = m.interrupted, m.overruns, m.lost
	b.GrantedNs = granted.Nanoseconds()
	if x.info.Scope == ScopeProcess && b.GrantedNs == 0 {
		b.GrantedNs = m.setup.GrantedNs
	}
	b.Complete = ctx.Err() == nil && b.Count > 0
	if m.report != nil {
		// A block in which the module ran no DPC measured that: it is
		// complete.
		b.DPCISR, b.Complete = m.report, ctx.Err() == nil
		b.Load = m.load
	}
	if len(m.noise) > 0 {
		// A block without an interruption of the threshold measured
		// that: it is complete.
		b.Complete = ctx.Err() == nil
		if len(m.noise) == 1 {
			b.Noise = &m.noise[0]
		} else {
			b.NoiseCPUs = m.noise
		}
	}
	if m.unrun {
		b.Note = "the thread was held off its CPU until after the block's end: it measured nothing, the block is left out"
	}
	if ctx.Err() != nil {
		b.Note = "interrupted: left out of the statistics"
	}
	if first {
		x.res.meta.setup, x.res.meta.overhead, x.res.meta.warmupNs, x.res.meta.method = m.setup, m.overhead, m.warmupNs, m.method
		x.res.Notes = append(x.res.Notes, m.notes...)
	}
	return nil
}

// restartAfter restarts the network adapter when the knob needs it, so
// that what was just written (after what) takes effect.
func (x *experiment) restartAfter(ctx context.Context, after string) error {
	if x.res.Restart == nil {
		return nil
	}
	if err := x.restartAdapter(ctx); err != nil {
		return fmt.Errorf("after %s: %w", after, err)
	}
	return nil
}

// checkOriginal makes sure the system still holds what it held when the
// experiment was planned: every value's plan starts from the same values.
// Someone else changing the knob mid-run would make the baseline another.
func (x *experiment) checkOriginal() error {
	for i := range x.res.Arms[1:] {
		a := &x.res.Arms[i+1]
		p, err := x.k.Plan(x.env, x.opts.Sel, a.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", x.info.Name, err)
		}
		if err := samePlanned(a, p.Changes); err != nil {
			return err
		}
	}
	return nil
}

// samePlanned checks a fresh plan of arm against the one made at the
// start.
func samePlanned(a *Arm, cs []knob.Change) error {
	if len(cs) != len(a.plan) {
		return fmt.Errorf("the values %s writes changed during the experiment (someone else changed the setting): stopped", a.Label)
	}
	for i, c := range cs {
		p := a.plan[i]
		if c.Loc != p.Loc || !backend.Same(c.Old, p.Old) || c.Old.Type != p.Old.Type {
			return fmt.Errorf("%s changed during the experiment (now %s, was %s; someone else changed it): stopped", c.Loc, knob.ShowValue(c.Old), knob.ShowValue(p.Old))
		}
	}
	return nil
}

// apply writes an arm's value through the journal (original first) and
// returns the journal entries made.
func (x *experiment) apply(j *journal.Journal, a *Arm) ([]int, error) {
	p, err := x.k.Plan(x.env, x.opts.Sel, a.Value)
	if err != nil {
		return nil, err
	}
	if err := samePlanned(a, p.Changes); err != nil {
		return nil, err
	}
	before := len(j.Entries)
	err = knob.Apply(x.env, j, p)
	var ids []int
	for _, e := range j.Entries[before:] {
		if e.Open() {
			ids = append(ids, e.ID)
		}
	}
	if err != nil {
		return ids, fmt.Errorf("apply %s %s: %w", x.info.Name, a.Label, err)
	}
	return ids, nil
}

// revert restores the entries of one block.
func (x *experiment) revert(j *journal.Journal, ids []int) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := knob.Revert(x.env, j, func(e *journal.Entry) bool { return slices.Contains(ids, e.ID) }, false)
	if err != nil {
		return fmt.Errorf("restore %s: %w (%s)", x.info.Name, err, x.undoCommand(x.info.Name))
	}
	return nil
}

// finish keeps the best value when asked and allowed, and marks the
// record finished once nothing but a kept value is left in place.
func (x *experiment) finish(j *journal.Journal, rec *Record, completed bool) error {
	res := x.res
	res.Restore = &Restore{Restored: true, Text: fmt.Sprintf("%s restored to the original (%s)", x.info.Name, res.Arms[0].Current)}
	if x.opts.Keep == KeepBest {
		best := bestArm(res)
		switch {
		case !completed:
			res.Restore.Text += "; --keep best keeps a value only after a complete run"
		case best < 0:
			res.Restore.Text += "; --keep best: no value was significantly better"
		default:
			a := &res.Arms[best]
			if err := x.checkOriginal(); err != nil {
				return err
			}
			ids, err := x.apply(j, a)
			if err != nil {
				return fmt.Errorf("--keep best: %w", err)
			}
			if err := x.restartAfter(context.Background(), "keeping "+a.Label); err != nil {
				return fmt.Errorf("--keep best: %w", err)
			}
			undo := x.undoCommand(x.info.Name)
			res.Restore = &Restore{Kept: a.Value, Entries: ids, Undo: undo,
				Text: fmt.Sprintf("kept %s %s: it was significantly better (journal %s; %s undoes it)", x.info.Name, a.Value, idList(ids), undo)}
		}
	}
	kept := map[int]bool{}
	for _, id := range res.Restore.Entries {
		kept[id] = true
	}
	var left []journal.Entry
	for _, e := range openEntries(j, rec.FirstEntry, "") {
		if !kept[e.ID] {
			left = append(left, e)
		}
	}
	if len(left) > 0 {
		res.Restore.Restored = false
		res.Restore.Undo = x.undoCommand("--all")
		res.Restore.Text = UnfinishedMessage(&Record{Command: "this experiment"}, left, res.Restore.Undo)
		return errors.New(res.Restore.Text)
	}
	rec.State = StateFinished
	return writeRecord(j, *rec)
}

// bestArm is the value --keep best keeps: of those significantly better,
// the one with the largest gain (-1 when none is). A rate verdict (the
// noise probe) has no difference in ns but the change of its rate, and
// a dpcisr verdict neither: the first better value then.
func bestArm(res *Result) int {
	gain := func(v *Verdict) float64 {
		if v.Diff != nil {
			return v.Diff.Estimate
		}
		return v.RelChange
	}
	best := -1
	for i := 1; i < len(res.Arms); i++ {
		a := &res.Arms[i]
		if a.Verdict == nil || a.Verdict.Outcome != Better {
			continue
		}
		if best < 0 || gain(a.Verdict) < gain(res.Arms[best].Verdict) {
			best = i
		}
	}
	return best
}

func idList(ids []int) string {
	switch len(ids) {
	case 0:
		return "no entries"
	case 1:
		return fmt.Sprintf("entry %d", ids[0])
	}
	return fmt.Sprintf("entries %d-%d", ids[0], ids[len(ids)-1])
}

// undoCommand is the revert command for what, with the flags that chose
// the root and the journal.
func (x *experiment) undoCommand(what string) string {
	args := []string{"latlab", "knob", "revert", what}
	if r := x.opts.Root; r != "" && r != "/" {
		args = append(args, "--root", quoteArg(r))
	}
	if x.opts.StateDir != "" {
		args = append(args, "--state-dir", quoteArg(x.opts.StateDir))
	}
	return strings.Join(args, " ")
}
