package knob

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
)

// add appends the change of l to v, reading the current value; a value
// that already holds v is left out.
func (p *Plan) add(env *Env, l backend.Loc, v backend.Value) error {
	for _, c := range p.Changes {
		if c.Loc == l {
			if backend.Same(c.New, v) && c.New.Type == v.Type {
				return nil // a key two values need
			}
			return fmt.Errorf("internal: %s changed twice in one plan", l)
		}
	}
	// A registry value needs its key: create the missing ones first, so
	// revert removes exactly what latlab added.
	if l.Backend == backend.BackendRegistry && l.Name != "" && !v.IsAbsent() {
		if err := ensureKey(env, p, l.Path); err != nil {
			return err
		}
	}
	old, err := env.read(l)
	if err != nil {
		return err
	}
	if backend.Same(old, v) && old.Type == v.Type {
		return nil
	}
	p.Changes = append(p.Changes, Change{Loc: l, Old: old, New: v})
	return nil
}

// addNumber adds the change of l to the number n, in the type the value
// has now (def when it is absent), and returns the value it has now.
func (p *Plan) addNumber(env *Env, l backend.Loc, n uint64, def string) (backend.Value, error) {
	old, err := env.read(l)
	if err != nil {
		return backend.Value{}, err
	}
	return old, p.add(env, l, backend.WithNumber(old, n, def))
}

// Apply carries out a plan: it checks that every write can be made, then
// records every original value durably in the journal, then writes, and
// after each write reads the value back into the entry (and the plan) and
// marks the entry applied. If a write fails, the writes
// already made are undone, so a plan is applied whole or not at all.
func Apply(env *Env, j *journal.Journal, p *Plan) error {
	if len(p.Changes) == 0 {
		return nil
	}
	if err := vetPlan(env, p); err != nil {
		return err
	}
	if env.Privileged != nil {
		if err := env.Privileged(); err != nil {
			return err
		}
	}
	for _, c := range p.Changes {
		b, err := env.backend(c.Loc.Backend)
		if err != nil {
			return err
		}
		if err := b.CheckWrite(c.Loc); err != nil {
			return fmt.Errorf("nothing was changed: %w", err)
		}
		// The plan may be old: refuse if the value moved since.
		cur, err := b.Read(c.Loc)
		if err != nil {
			return fmt.Errorf("nothing was changed: %w", err)
		}
		if !backend.Same(cur, c.Old) {
			return fmt.Errorf("nothing was changed: %s changed while planning (now %s)", c.Loc, cur)
		}
	}
	now := time.Now().UTC()
	es := make([]journal.Entry, len(p.Changes))
	for i, c := range p.Changes {
		es[i] = journal.Entry{Time: now, Knob: p.Knob, Target: p.Target, Request: p.Request, Loc: c.Loc, Original: c.Old, New: c.New, Guard: c.Guard, State: journal.StatePending}
	}
	idx := j.Add(es)
	if err := j.Save(); err != nil {
		j.Entries = j.Entries[:len(j.Entries)-len(es)]
		return fmt.Errorf("nothing was changed: %w", err)
	}
	for i, c := range p.Changes {
		if err := env.write(c.Loc, c.New); err != nil {
			for _, k := range idx[i+1:] {
				markReverted(&j.Entries[k], "not applied: an earlier write of the same change failed")
			}
			return rollback(env, j, idx[:i+1], fmt.Errorf("write %s: %w", c.Loc, err))
		}
		// Record what the system stored, which need not be what was
		// written: the kernel turns a timer slack of 0 into the default,
		// bcdedit shows "enhanced" as "Enhanced". Revert compares the live
		// value with this.
		if got, err := env.read(c.Loc); err == nil {
			j.Entries[idx[i]].New = got
			p.Changes[i].New = got
		}
		j.Entries[idx[i]].State = journal.StateApplied
		if err := j.Save(); err != nil {
			// The write is made and the journal still holds the pending
			// entry with the original value: revert will restore it.
			return fmt.Errorf("%s was written but the journal could not be updated (revert still works): %w", c.Loc, err)
		}
	}
	return nil
}

// vetPlan checks a plan against its knob, as Revert will check the
// journal entries made of it: a revert must never refuse what Apply
// recorded.
func vetPlan(env *Env, p *Plan) error {
	k, ok := catalogue()[p.Knob]
	if !ok {
		return fmt.Errorf("internal: a plan of unknown knob %q", p.Knob)
	}
	for _, c := range p.Changes {
		if err := vetChange(env, k, p.Target, c.Loc, c.New); err != nil {
			return fmt.Errorf("internal: %s planned a write it may not make: %w", p.Knob, err)
		}
		if c.Guard != nil {
			if err := vetChange(env, k, p.Target, c.Guard.Loc, c.Guard.Value); err != nil {
				return fmt.Errorf("internal: %s guard: %w", p.Knob, err)
			}
		}
		if err := vetChange(env, k, p.Target, c.Loc, c.Old); err != nil {
			if errors.Is(err, ErrEmptyFile) {
				return fmt.Errorf("nothing was changed: %s is empty, which it never is: a write to it was cut short; if latlab changed it, 'latlab knob revert %s' restores it from the journal", c.Loc, p.Knob)
			}
			return fmt.Errorf("nothing was changed: %s holds %s, which %s could not restore: %v", c.Loc, c.Old, p.Knob, err)
		}
	}
	return nil
}

// rollback undoes the entries of a failed Apply, newest first.
func rollback(env *Env, j *journal.Journal, idx []int, cause error) error {
	var failed []string
	for k := len(idx) - 1; k >= 0; k-- {
		e := &j.Entries[idx[k]]
		cur, err := env.read(e.Loc)
		if err == nil && backend.Same(cur, e.Original) {
			markReverted(e, "not applied: "+cause.Error())
			continue
		}
		if err == nil {
			err = env.write(e.Loc, e.Original)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", e.Loc, err))
			continue
		}
		markReverted(e, "rolled back: "+cause.Error())
	}
	saveErr := j.Save()
	if len(failed) > 0 {
		return fmt.Errorf("%w; rolling back also failed for %s (run latlab knob revert --all)", cause, strings.Join(failed, "; "))
	}
	if saveErr != nil {
		return fmt.Errorf("%w; rolled back, but the journal could not be updated: %v", cause, saveErr)
	}
	return fmt.Errorf("nothing was changed: %w", cause)
}

func markReverted(e *journal.Entry, note string) {
	t := time.Now().UTC()
	e.State = journal.StateReverted
	e.RevertedAt = &t
	e.Note = note
}

// Step is what Revert does (or would do) with one journal entry.
type Step struct {
	Entry  journal.Entry `json:"entry"`
	Action string        `json:"action"` // "restore", "already-original", "keep", "gone", "conflict", "refused"
	Live   backend.Value `json:"live"`
	Detail string        `json:"detail,omitempty"`
}

// ConflictError is a revert refused because a value was changed by
// someone else after latlab wrote it.
type ConflictError struct{ Steps []Step }

func (e *ConflictError) Error() string {
	s := e.Steps[0]
	msg := fmt.Sprintf("%s was changed by someone else after latlab set it (now %s, latlab wrote %s, original %s); nothing was reverted; --force restores the original anyway",
		s.Entry.Loc, s.Live, s.Entry.New, s.Entry.Original)
	if len(e.Steps) > 1 {
		msg += fmt.Sprintf(" (%d more such values)", len(e.Steps)-1)
	}
	return msg
}

// LeftAloneError is a revert that could not restore every open entry:
// entries the catalogue refuses (a location that is not their knob's, an
// original the knob could not have held) and damaged journal lines, whose
// entries may be open. Everything else was restored.
type LeftAloneError struct {
	Refused []Step
	Damaged []journal.Damage
}

func (e *LeftAloneError) Error() string {
	var parts []string
	for _, s := range e.Refused {
		parts = append(parts, fmt.Sprintf("entry %d refused", s.Entry.ID))
	}
	for _, d := range e.Damaged {
		parts = append(parts, d.String()+" damaged")
	}
	if len(parts) == 1 && len(e.Refused) == 1 {
		return fmt.Sprintf("not every change was reverted: journal entry %d refused: %s", e.Refused[0].Entry.ID, e.Refused[0].Detail)
	}
	return "not every change was reverted: journal " + strings.Join(parts, ", ")
}

// PlanRevert works out how to restore the open entries that match: newest
// first, each compared with the value it will find then (the live value,
// or what a newer entry restored). An entry the catalogue refuses (see
// Knob.Vet) is never written: its step is "refused" and the error a
// LeftAloneError, unless a conflict stops the whole revert; damaged
// journal lines make a LeftAloneError too. It writes nothing.
func PlanRevert(env *Env, j *journal.Journal, match func(*journal.Entry) bool, force bool) ([]Step, error) {
	var open []int
	for i := range j.Entries {
		if j.Entries[i].Open() && match(&j.Entries[i]) {
			open = append(open, i)
		}
	}
	sort.Slice(open, func(a, b int) bool { return j.Entries[open[a]].ID > j.Entries[open[b]].ID })
	sim := map[backend.Loc]backend.Value{}
	var steps []Step
	var conflicts, refused []Step
	for _, i := range open {
		e := j.Entries[i]
		if err := vetEntry(env, &e); err != nil {
			s := Step{Entry: e, Action: "refused", Detail: err.Error()}
			steps = append(steps, s)
			refused = append(refused, s)
			continue
		}
		cur, ok := sim[e.Loc]
		if !ok {
			v, err := env.read(e.Loc)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", e.Loc, err)
			}
			cur = v
		}
		s := Step{Entry: e, Live: cur}
		if e.Guard != nil {
			g, err := env.read(e.Guard.Loc)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", e.Guard.Loc, err)
			}
			if !backend.Same(g, e.Guard.Value) {
				s.Action = "gone"
				s.Detail = e.Guard.What
				steps = append(steps, s)
				continue
			}
		}
		switch {
		case backend.Same(cur, e.Original) && cur.Type == e.Original.Type:
			s.Action = "already-original"
			if e.State == journal.StatePending {
				s.Detail = "the write never happened"
			}
		case e.Loc.Backend == backend.BackendFile && cur.Type == backend.TypeFile && strings.TrimSpace(string(cur.Data)) == "":
			// No setting file is ever empty: a write that truncated first
			// was cut short. The journal holds the value.
			s.Action = "restore"
			s.Detail = "the file was empty (a write was cut short); restored from the journal"
		case cur.IsAbsent() && e.Loc.Backend == backend.BackendFile:
			s.Action = "gone"
			s.Detail = "the setting no longer exists (its process exited or its device went away)"
		case backend.Same(cur, e.New):
			s.Action = "restore"
		default:
			s.Action = "restore"
			if !force {
				s.Action = "conflict"
				conflicts = append(conflicts, s)
			} else {
				s.Detail = "forced over a value someone else set"
			}
		}
		// A key latlab created is deleted only when it will be empty: it
		// may hold what someone else (or a change not being reverted)
		// put there since, and that must stay.
		if s.Action == "restore" && e.Original.IsAbsent() && e.Loc.Backend == backend.BackendRegistry && e.Loc.Name == "" {
			busy, err := keyKeepsContent(env, e.Loc.Path, sim)
			if err != nil {
				return nil, err
			}
			if busy {
				s.Action = "keep"
				s.Detail = "kept: holds values latlab did not add"
			}
		}
		if s.Action == "restore" {
			sim[e.Loc] = e.Original
		} else {
			sim[e.Loc] = cur
		}
		steps = append(steps, s)
	}
	if len(conflicts) > 0 {
		return steps, &ConflictError{conflicts}
	}
	if len(refused) > 0 || len(j.Damaged) > 0 {
		return steps, &LeftAloneError{Refused: refused, Damaged: j.Damaged}
	}
	return steps, nil
}

// keyKeepsContent reports whether registry key will still hold a sub-key
// or a value once the steps planned so far (sim: the value each touched
// Loc will have) are carried out.
func keyKeepsContent(env *Env, key string, sim map[backend.Loc]backend.Value) (bool, error) {
	keys, vals, err := env.list(backend.BackendRegistry, key)
	if err != nil && !errors.Is(err, backend.ErrNotFound) {
		return false, fmt.Errorf("list %s: %w", key, err)
	}
	// Registry names are case-insensitive.
	id := func(path, name string) string { return strings.ToLower(path) + "\x00" + strings.ToLower(name) }
	present := map[string]bool{}
	for _, k := range keys {
		present[id(key+`\`+k, "")] = true
	}
	for _, v := range vals {
		present[id(key, v)] = true
	}
	for l, v := range sim {
		if l.Backend != backend.BackendRegistry {
			continue
		}
		parent := l.Path
		if l.Name == "" {
			i := strings.LastIndexByte(l.Path, '\\')
			if i < 0 {
				continue
			}
			parent = l.Path[:i]
		}
		if strings.EqualFold(parent, key) {
			present[id(l.Path, l.Name)] = !v.IsAbsent()
		}
	}
	for _, p := range present {
		if p {
			return true, nil
		}
	}
	return false, nil
}

// keepClosed is how many closed entries (reverted or gone) a revert keeps
// in the journal for history; older ones are dropped when it saves, so
// the journal, and every save of it, stays the size of what is in place
// plus this. A variable for the tests.
var keepClosed = 1000

// Revert is RevertContext without a way to stop it.
func Revert(env *Env, j *journal.Journal, match func(*journal.Entry) bool, force bool) ([]Step, error) {
	return RevertContext(context.Background(), env, j, match, force)
}

// RevertContext restores the open entries that match, newest first.
// Entries that were never written, or whose value is already back, are
// only marked. When ctx is done (Ctrl-C) it stops between two entries,
// records what was reverted and returns the steps taken with ctx's error.
//
// The journal is saved once at the end, not after every entry (that made
// a revert of n entries cost n rewrites of the whole journal), and
// additionally before a write to a setting that an entry marked but not
// yet saved also names. So after a crash, every entry still open in the
// journal is the newest open one for its setting, and its setting holds
// either what it held when the revert began or the entry's original: the
// next revert restores the first and marks the second, as if each entry
// had been saved at once.
func RevertContext(ctx context.Context, env *Env, j *journal.Journal, match func(*journal.Entry) bool, force bool) ([]Step, error) {
	steps, err := PlanRevert(env, j, match, force)
	var left *LeftAloneError
	if err != nil && !errors.As(err, &left) {
		return steps, err
	}
	needWrite := false
	for _, s := range steps {
		if s.Action == "restore" {
			needWrite = true
			b, err := env.backend(s.Entry.Loc.Backend)
			if err != nil {
				return steps, err
			}
			if err := b.CheckWrite(s.Entry.Loc); err != nil {
				return steps, fmt.Errorf("nothing was reverted: %w", err)
			}
		}
	}
	if needWrite && env.Privileged != nil {
		if err := env.Privileged(); err != nil {
			return steps, err
		}
	}
	byID := map[int]int{}
	for i := range j.Entries {
		byID[j.Entries[i].ID] = i
	}
	unsaved := map[backend.Loc]bool{} // settings of the entries marked since the last save
	save := func() error {
		if len(unsaved) == 0 {
			return nil
		}
		clear(unsaved)
		j.PruneClosed(keepClosed)
		byID = nil // pruning moved the entries
		return j.Save()
	}
	entry := func(id int) *journal.Entry {
		if byID == nil {
			byID = map[int]int{}
			for i := range j.Entries {
				byID[j.Entries[i].ID] = i
			}
		}
		return &j.Entries[byID[id]]
	}
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			if serr := save(); serr != nil {
				return steps[:i], errors.Join(err, serr)
			}
			return steps[:i], fmt.Errorf("interrupted after %d of %d changes (what was reverted is recorded; revert again for the rest): %w", i, len(steps), err)
		}
		switch s.Action {
		case "restore":
			if unsaved[s.Entry.Loc] {
				if err := save(); err != nil {
					return steps[:i], err
				}
			}
			e := entry(s.Entry.ID)
			if err := env.write(e.Loc, e.Original); err != nil {
				return steps, errors.Join(fmt.Errorf("restore %s: %w", e.Loc, err), save())
			}
			markReverted(e, s.Detail)
		case "already-original", "keep":
			markReverted(entry(s.Entry.ID), s.Detail)
		case "gone":
			e := entry(s.Entry.ID)
			e.State = journal.StateGone
			e.Note = s.Detail
		default:
			continue
		}
		unsaved[s.Entry.Loc] = true
	}
	if err := save(); err != nil {
		return steps, err
	}
	if left != nil {
		return steps, left
	}
	return steps, nil
}

// UndoChanges are the writes that restore the open entries, newest first,
// for a script that undoes latlab's changes. An entry whose guard no
// longer matches (the process whose timer slack was set has exited, and
// its PID may belong to another), or that the catalogue refuses, comes
// with Skip set, as revert would leave it alone.
func UndoChanges(env *Env, j *journal.Journal) []Change {
	var out []Change
	for i := len(j.Entries) - 1; i >= 0; i-- {
		e := j.Entries[i]
		if !e.Open() {
			continue
		}
		c := Change{Loc: e.Loc, Old: e.New, New: e.Original}
		if err := vetEntry(env, &e); err != nil {
			c.Skip = fmt.Sprintf("journal entry %d refused: %v", e.ID, err)
		} else if e.Guard != nil {
			g, err := env.read(e.Guard.Loc)
			switch {
			case err != nil:
				c.Skip = fmt.Sprintf("cannot tell whether it is still the same process (%v)", err)
			case !backend.Same(g, e.Guard.Value):
				c.Skip = e.Guard.What
			}
		}
		out = append(out, c)
	}
	return out
}

// MatchAll matches every entry.
func MatchAll(*journal.Entry) bool { return true }

// MatchKnob matches the entries of one knob (every knob when name is "")
// and one target (every target when target is "").
func MatchKnob(name, target string) func(*journal.Entry) bool {
	return func(e *journal.Entry) bool {
		return (name == "" || e.Knob == name) && (target == "" || strings.EqualFold(e.Target, target))
	}
}
