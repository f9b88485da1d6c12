package knob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

func TestRunRevertBadInput(t *testing.T) {
	state := testutil.TempDir(t)
	for _, c := range []struct {
		o    RevertOptions
		want string
	}{
		{RevertOptions{Knob: "tcp-dsack", All: true}, "give a knob name or --all, not both"},
		{RevertOptions{}, "revert needs a knob name or --all"},
		{RevertOptions{Knob: "tcp-dsak"}, "did you mean tcp-dsack?"},
	} {
		c.o.StateDir = state
		if res, err := RunRevert(context.Background(), c.o); res != nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %+v %v, want an input error with %q", c.o, res, err, c.want)
		}
	}
}

// setBehind changes the native knob as someone else would: not through
// latlab, so the journal does not know.
func setBehind(t *testing.T, env *Env, name, value string) {
	t.Helper()
	k, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.Plan(env, Selector{}, value)
	if err != nil || len(p.Changes) != 1 {
		t.Fatalf("plan %s %s: %v %+v", name, value, err, p)
	}
	if err := env.write(p.Changes[0].Loc, p.Changes[0].New); err != nil {
		t.Fatal(err)
	}
}

// A revert restores the original (a dry run only says it would); a
// value someone else changed since stops it unless forced; a second
// revert finds nothing to do.
func TestRunRevert(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := testutil.TempDir(t)
	set := func() {
		t.Helper()
		if _, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, StateDir: state, Env: env}); err != nil {
			t.Fatal(err)
		}
	}
	set()
	for _, c := range []struct {
		name   string
		o      RevertOptions
		behind string // set before the revert
		action string // of the one step; "" = none
		err    any
		after  string
	}{
		{"dry run", RevertOptions{Knob: n.name, DryRun: true}, "", "restore", nil, n.got},
		{"another target", RevertOptions{All: true, Target: "nothing of this name"}, "", "", nil, n.got},
		{"conflict", RevertOptions{All: true}, n.other, "conflict", new(*ConflictError), ""},
		{"forced", RevertOptions{All: true, Force: true}, "", "restore", nil, n.value},
		{"again", RevertOptions{Knob: n.name}, "", "", nil, n.value},
	} {
		if c.behind != "" {
			setBehind(t, env, n.name, c.behind)
		}
		c.o.StateDir, c.o.Env = state, env
		res, err := RunRevert(context.Background(), c.o)
		if res == nil {
			t.Fatalf("%s: no result: %v", c.name, err)
		}
		if c.err == nil && err != nil || c.err != nil && !errors.As(err, c.err) {
			t.Errorf("%s: error %v, want %T", c.name, err, c.err)
		}
		if (err == nil) != (res.Error == "") || err != nil && res.Error != err.Error() {
			t.Errorf("%s: the result's error %q, returned %v", c.name, res.Error, err)
		}
		if res.DryRun != c.o.DryRun || res.Target != c.o.Target {
			t.Errorf("%s: %+v", c.name, res)
		}
		switch {
		case c.action == "" && len(res.Steps) != 0:
			t.Errorf("%s: steps %+v, want none", c.name, res.Steps)
		case c.action != "" && (len(res.Steps) != 1 || res.Steps[0].Action != c.action):
			t.Errorf("%s: steps %+v, want one %s", c.name, res.Steps, c.action)
		}
		if c.after != "" {
			if v := getValue(t, env, n.name); v != c.after {
				t.Errorf("%s: %s is %s after, want %s", c.name, n.name, v, c.after)
			}
		}
	}
}

// A damaged journal entry is left alone, named in the result for the
// text, and the revert says that not everything was reverted.
func TestRunRevertDamaged(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := testutil.TempDir(t)
	if _, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, StateDir: state, Env: env}); err != nil {
		t.Fatal(err)
	}
	damageEntry(t, state, 1)
	var warned []string
	res, err := RunRevert(context.Background(), RevertOptions{All: true, StateDir: state, Env: env, Warn: func(s string) { warned = append(warned, s) }})
	var left *LeftAloneError
	if !errors.As(err, &left) || res == nil || len(res.Damaged) != 1 || res.Damaged[0].ID != 1 || res.Error != err.Error() {
		t.Fatalf("%v %+v", err, res)
	}
	if len(warned) != 0 {
		t.Errorf("warnings %q: a damaged entry explains the file's checksum", warned)
	}
	if v := getValue(t, env, n.name); v != n.got {
		t.Errorf("the damaged entry was reverted: %s is %s", n.name, v)
	}
}
