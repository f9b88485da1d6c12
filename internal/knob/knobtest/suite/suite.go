// Package suite is the conformance suite every knob runs from its own
// test file, the way restic's backends run one generic test suite: the
// explanation; the reading of a fixture; Plan, Apply and Revert giving the
// machine back byte for byte, values that were absent absent again; Vet
// taking the knob's own places and values and refusing others'; every
// check-up rule reached by a case, as the check-up reads the knob
// (knob.Cases), the last rule a catch-all; the experiment facts latlab
// try needs.
//
// RunFiles runs it on a knob of files (procfs, sysfs) over a fixture
// tree, with what it reads beyond files (a systemd, a driver) added by an
// Env hook; RunRegistry on a knob of the Windows registry or the BCD
// store over an in-memory registry, on any OS.
//
// It is a package of its own, beside knobtest's test doubles, because it
// imports package knob, whose internal tests import knobtest: the files
// that run it are external tests (package knob_test).
package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

// Files is a knob of files under a fixture root, and what it must do
// there.
type Files struct {
	Knob string // the catalogue name
	Sel  knob.Selector
	// Tree is the fixture: path below the root -> content.
	Tree map[string]string
	// Explain are values the knob must decode; "" (the general
	// explanation) is always tried.
	Explain []string
	// Set are values to set and the files each leaves; every one is
	// reverted, and the tree must then be as it was.
	Set []Set
	// Bad are values Plan must refuse as bad input, each with a part of
	// the message that says what is accepted.
	Bad map[string]string
	// Foreign are places and values Vet must refuse: the knob's
	// neighbours, and values the kernel never shows.
	Foreign []Place
	// Rules are trees (Tree with these files replaced; "" removes one)
	// and the check-up rule each one's reading must reach. Together they
	// must reach every rule of the knob.
	Rules []Rule
	// Env, when set, adds to the Env over the fixture tree what the knob
	// reads beyond files (a systemd, say), for every part of the suite.
	Env func(t *testing.T, e *knob.Env)
	// Extra are places beyond the files the knob writes through another
	// backend (a service's state): after set and revert each must read as
	// before. Set's Files may name them by Loc.String().
	Extra []backend.Loc
	// More marks a further fixture of a knob (another kernel, say) whose
	// main one reaches every rule and names the foreign places: here the
	// Rules and Foreign given are checked, and none are required.
	More bool
}

// Set is a value and the files it leaves (paths below the root; only
// those named are checked). NoChange: the tree holds it already, so the
// plan has no change.
type Set struct {
	Value    string
	Files    map[string]string
	NoChange bool
}

// Place is a stored value at a location, for Vet, and the target (a
// plan's) it is vetted for; "" for a knob without instances.
type Place struct {
	Loc    backend.Loc
	Value  backend.Value
	Target string
}

// File is a Place of the file backend.
func File(path, content string) Place {
	return Place{Loc: backend.Loc{Backend: backend.BackendFile, Path: path}, Value: backend.FileValue(content)}
}

// Rule is a tree's change and the rule its reading reaches: Rule for
// every target, or ByTarget's rule for each target of a knob whose
// targets are judged apart. Reason, when set, is a part of the reason the
// rule gives (for every target).
type Rule struct {
	Files map[string]string
	// Env changes the machine beyond its files, after Files.Env.
	Env      func(t *testing.T, e *knob.Env)
	Rule     string
	ByTarget map[string]string
	Reason   string
}

// outside are places no knob of files may write, whatever its Vet.
var outside = []Place{
	File("etc/shadow", "root::0:0:99999:7:::\n"),
	File("proc/sys/kernel/core_pattern", "|/tmp/x\n"),
	{Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Services\x`, Name: "ImagePath"}, Value: backend.SZ(`C:\x.exe`)},
}

// RunFiles runs the suite on c.
func RunFiles(t *testing.T, c Files) {
	t.Helper()
	sp := spec{Knob: c.Knob, Sel: c.Sel, Explain: c.Explain, Bad: c.Bad, Foreign: c.Foreign, More: c.More, Env: c.Env}
	sp.newEnv = func(t *testing.T, rule int) (*knob.Env, func() map[string]string) {
		tree := c.Tree
		var edit func(*testing.T, *knob.Env)
		if rule >= 0 {
			tree = maps.Clone(c.Tree)
			for f, content := range c.Rules[rule].Files {
				if content == "" {
					delete(tree, f)
				} else {
					tree[f] = content
				}
			}
			edit = c.Rules[rule].Env
		}
		e, root := env(t, tree, c.Env, edit)
		return e, func() map[string]string {
			snap := testutil.SnapshotTree(t, root)
			for _, l := range c.Extra {
				b, ok := e.Backends[l.Backend]
				if !ok {
					t.Fatalf("no %s backend for %s", l.Backend, l)
				}
				v, err := b.Read(l)
				if err != nil {
					t.Fatalf("read %s: %v", l, err)
				}
				snap[l.String()] = v.String()
			}
			return snap
		}
	}
	for _, st := range c.Set {
		sp.Set = append(sp.Set, setSpec{Value: st.Value, Want: st.Files, NoChange: st.NoChange})
	}
	for _, r := range c.Rules {
		sp.Rules = append(sp.Rules, ruleSpec{What: fmt.Sprint(r.Files), Rule: r.Rule, ByTarget: r.ByTarget, Reason: r.Reason})
	}
	run(t, sp)
}

// spec is what the suite checks of a knob, whatever its backend: newEnv
// makes the machine (rule -1: the fixture; otherwise with rule case
// rule's changes) and a snapshot of what the knob may change there.
type spec struct {
	Knob    string
	Sel     knob.Selector
	Env     func(*testing.T, *knob.Env)
	newEnv  func(t *testing.T, rule int) (*knob.Env, func() map[string]string)
	Explain []string
	Set     []setSpec
	Bad     map[string]string
	Foreign []Place
	Rules   []ruleSpec
	More    bool
}

// setSpec: Want holds snapshot entries after the set; absentEntry says
// the entry must be gone.
type setSpec struct {
	Value    string
	Want     map[string]string
	NoChange bool
}

type ruleSpec struct {
	What, Rule, Reason string
	ByTarget           map[string]string
}

const absentEntry = "\x00absent"

func run(t *testing.T, c spec) {
	t.Helper()
	k, err := knob.Lookup(c.Knob)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name() != c.Knob {
		t.Fatalf("%s is an alias of %s: run the suite on the name", c.Knob, k.Name())
	}
	t.Run("explain", func(t *testing.T) { explain(t, k, c) })
	t.Run("get", func(t *testing.T) { get(t, k, c) })
	t.Run("set and revert", func(t *testing.T) { setAndRevert(t, k, c) })
	t.Run("bad values", func(t *testing.T) { bad(t, k, c) })
	t.Run("vet", func(t *testing.T) { vet(t, k, c) })
	t.Run("rules", func(t *testing.T) { rules(t, k, c) })
	t.Run("experiment", func(t *testing.T) { experiment(t, k) })
}

// env is an Env over a fixture root holding tree, changed by the edits.
func env(t *testing.T, tree map[string]string, edits ...func(*testing.T, *knob.Env)) (*knob.Env, string) {
	t.Helper()
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, tree)
	e := &knob.Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}
	for _, f := range edits {
		if f != nil {
			f(t, e)
		}
	}
	return e, root
}

func explain(t *testing.T, k knob.Knob, c spec) {
	for _, v := range append([]string{""}, c.Explain...) {
		e, err := k.Explain(v, knob.ExplainOptions{})
		if err != nil {
			t.Errorf("explain %q: %v", v, err)
			continue
		}
		if e.Knob != k.Name() || len(e.Text) == 0 || strings.TrimSpace(strings.Join(e.Text, "")) == "" {
			t.Errorf("explain %q: knob %q, text %q", v, e.Knob, e.Text)
		}
	}
}

func get(t *testing.T, k knob.Knob, c spec) {
	e, _ := c.newEnv(t, -1)
	r, err := k.Get(e, c.Sel)
	if err != nil {
		t.Fatal(err)
	}
	if r.Knob != k.Name() || len(r.Items) == 0 {
		t.Fatalf("reading of %s: %+v", r.Knob, r)
	}
	for _, it := range r.Items {
		if it.Value == "" || it.Meaning == "" || strings.Contains(it.Meaning, "unreadable") {
			t.Errorf("%s: value %q meaning %q", it.Target, it.Value, it.Meaning)
		}
	}
}

func setAndRevert(t *testing.T, k knob.Knob, c spec) {
	if len(c.Set) == 0 {
		t.Fatal("no value to set")
	}
	e, snap := c.newEnv(t, -1)
	before := snap()
	for _, s := range c.Set {
		p, err := k.Plan(e, c.Sel, s.Value)
		if err != nil {
			t.Errorf("plan %q: %v", s.Value, err)
			continue
		}
		if (len(p.Changes) == 0) != s.NoChange {
			t.Errorf("plan %q: %d changes", s.Value, len(p.Changes))
		}
		// Vet takes what the plan writes and what it finds there: Apply
		// and Revert vet every change.
		for _, ch := range p.Changes {
			for _, v := range []backend.Value{ch.New, ch.Old} {
				if err := k.Vet(p.Target, ch.Loc, v); err != nil {
					t.Errorf("plan %q: Vet refuses its own %s = %q: %v", s.Value, ch.Loc, v, err)
				}
			}
		}
		j, err := journal.Open(testutil.TempDir(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := knob.Apply(e, j, p); err != nil {
			t.Errorf("apply %q: %v", s.Value, err)
		}
		after := snap()
		for f, want := range s.Want {
			got, ok := after[f]
			if want == absentEntry && ok {
				t.Errorf("set %q: %s = %q, want it absent", s.Value, f, got)
			} else if want != absentEntry && got != want {
				t.Errorf("set %q: %s = %q, want %q", s.Value, f, got, want)
			}
		}
		if _, err := knob.Revert(e, j, knob.MatchKnob(k.Name(), ""), false); err != nil {
			t.Errorf("revert %q: %v", s.Value, err)
		}
		j.Close()
		if got := snap(); !maps.Equal(got, before) {
			t.Errorf("set %q and revert: the machine is %q, was %q", s.Value, got, before)
		}
	}
}

func bad(t *testing.T, k knob.Knob, c spec) {
	e, _ := c.newEnv(t, -1)
	for v, want := range c.Bad {
		_, err := k.Plan(e, c.Sel, v)
		if !badinput.Is(err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("plan %q: %v, want one line of bad input saying %q", v, err, want)
		}
	}
}

func vet(t *testing.T, k knob.Knob, c spec) {
	if len(c.Foreign) == 0 && !c.More {
		t.Error("no foreign place: name the knob's neighbours Vet must refuse")
	}
	for _, p := range append(slices.Clone(c.Foreign), outside...) {
		if err := k.Vet(p.Target, p.Loc, p.Value); err == nil {
			t.Errorf("Vet takes %s = %q for %q", p.Loc, p.Value, p.Target)
		}
	}
}

func rules(t *testing.T, k knob.Knob, c spec) {
	rs := k.Checkup().Rules
	if len(rs) == 0 {
		t.Fatal("no check-up rules")
	}
	if last := rs[len(rs)-1]; !last.Match(&knob.Case{Knob: k.Name(), Raw: backend.Absent}) {
		t.Errorf("the last rule, %s, is not a catch-all", last.ID)
	}
	reached := map[string]bool{}
	for i, rc := range c.Rules {
		e, _ := c.newEnv(t, i)
		got := judge(t, k, e)
		for target, j := range got {
			reached[j.Rule] = true
			want := rc.Rule
			if rc.ByTarget != nil {
				want = rc.ByTarget[target]
			}
			if j.Rule != want {
				t.Errorf("%s: %s reaches rule %s, want %s", rc.What, target, j.Rule, want)
			}
			if !strings.Contains(j.Reason, rc.Reason) {
				t.Errorf("%s: %s: rule %s says %q, want it to say %q", rc.What, target, j.Rule, j.Reason, rc.Reason)
			}
		}
	}
	for _, r := range rs {
		if !reached[r.ID] && !c.More {
			t.Errorf("no case reaches rule %s (%s)", r.ID, r.When)
		}
	}
}

// Judgement is the rule a target's reading reaches and the reason it
// gives.
type Judgement struct{ Rule, Reason string }

// judge reads k through e as the check-up does (knob.Cases, whatever
// the selector the rest of the suite uses) and returns, per target, the
// first of the knob's rules that matches, each with a reason; a failed
// reading is the rule "error", the check-up's generic rules' business.
func judge(t *testing.T, k knob.Knob, e *knob.Env) map[string]Judgement {
	t.Helper()
	cases := knob.Cases(e, k)
	out := map[string]Judgement{}
	for _, c := range cases {
		if c.Err != nil {
			out[c.Target] = Judgement{Rule: "error", Reason: c.Err.Error()}
			continue
		}
		if c.NotShown != "" {
			// Neither the file nor the directory every kernel has above
			// it: the check-up's generic rule "not-shown" judges nothing.
			out[c.Target] = Judgement{Rule: "not shown", Reason: c.Meaning}
			continue
		}
		out[c.Target] = Judgement{Rule: "no rule"}
		for _, rule := range k.Checkup().Rules {
			if rule.Match(c) {
				out[c.Target] = Judgement{Rule: rule.ID, Reason: rule.Reason(c)}
				if out[c.Target].Reason == "" {
					t.Errorf("rule %s gives no reason", rule.ID)
				}
				break
			}
		}
	}
	return out
}

// experiment checks what latlab try reads of k: a scope it knows, a
// settle time for a change it switches live, a probe it has (or none,
// with the reason said by Unprobed or the TCP default).
func experiment(t *testing.T, k knob.Knob) {
	t.Helper()
	e := k.Experiment()
	live := e.Pending == "" && !e.Restart
	switch {
	case e.Scope != knob.ScopeProcess && e.Scope != knob.ScopeSystem:
		t.Errorf("%s: scope %q", k.Name(), e.Scope)
	case live && e.Settle <= 0:
		t.Errorf("%s: changes live but settles in %v", k.Name(), e.Settle)
	case e.Probe != "" && e.Probe != knob.ProbeSleep && e.Probe != knob.ProbeUDP:
		t.Errorf("%s: probe %q is not one of try's", k.Name(), e.Probe)
	case e.Probe != "" && e.Unprobed != "":
		t.Errorf("%s: has probe %s and says none shows its effect: %q", k.Name(), e.Probe, e.Unprobed)
	}
}
