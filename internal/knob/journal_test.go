package knob

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/internal/safefile"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

type crash struct{}

type setStep struct {
	knob  string
	sel   Selector
	value string
}

// windowsSteps touch every Windows knob: DWORD and REG_SZ values that
// exist, values and keys that do not, and a BCD element.
var windowsSteps = []setStep{
	{"win32-priority-separation", Selector{}, "0x26"},
	{"network-throttling-index", Selector{}, "off"},
	{"global-timer-resolution-requests", Selector{}, "1"},
	{"rss", Selector{Adapter: "I225-V"}, "*NumRssQueues=2,*RssBaseProcNumber=2"},
	{"interrupt-moderation", Selector{Adapter: "7"}, "off,rate=minimal"},
	{"qos-dscp", Selector{App: "game.exe", Protocol: "udp", RemotePort: "3074", NoNLA: true}, "46"},
	{"tsc-sync-policy", Selector{}, "enhanced"},
	{"display-scaling", Selector{}, "identity"},
	{"win32-priority-separation", Selector{}, "0x18"}, // a second change of the same value
}

var linuxSteps = []setStep{
	{"tcp-recovery", Selector{}, "rack,no-dupthresh"},
	{"tcp-dsack", Selector{}, "off"},
	{"clocksource", Selector{}, "hpet"},
	{"timer-slack", Selector{PID: "4242"}, "1us"},
	{"irq-affinity", Selector{IRQ: "24"}, "1"},
	{"rps", Selector{Iface: "eth0"}, "0-1"},
	{"tcp-recovery", Selector{}, "0"},
}

// applySteps plans and applies each step as `knob set` does, one journal
// open per step. It reports whether the injected crash fired.
func applySteps(t *testing.T, env *Env, dir string, steps []setStep) (crashed bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	for _, s := range steps {
		k, err := Lookup(s.knob)
		if err != nil {
			t.Fatal(err)
		}
		p, err := k.Plan(env, s.sel, s.value)
		if err != nil {
			t.Fatalf("plan %s %s: %v", s.knob, s.value, err)
		}
		func() {
			j, err := journal.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close() // a real crash drops the lock too
			if err := Apply(env, j, p); err != nil {
				t.Fatalf("apply %s %s: %v", s.knob, s.value, err)
			}
		}()
	}
	return false
}

func revertAll(t *testing.T, env *Env, dir string) (steps []Step, crashed bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	steps, err = Revert(env, j, MatchAll, false)
	if err != nil {
		t.Fatalf("revert --all: %v", err)
	}
	return steps, false
}

func withFault(env *Env, k int) *Env {
	e := *env
	e.writes = 0
	e.FaultAfter = k
	e.Crash = func() { panic(crash{}) }
	return &e
}

// crashEverywhere applies steps with a crash after every k-th write in
// turn, reverts, and checks the state equals the original exactly; then
// the same with the crash inside the revert.
func crashEverywhere(t *testing.T, steps []setStep, fresh func(t *testing.T) (*Env, func() map[string]string)) {
	// Set for the subtests too: they run in parallel, after this
	// function has returned (each crash point is a fresh tree and
	// journal of its own; under Wine each one's file operations wait on
	// wineserver, and in turn they took half a minute).
	safefile.Durable = false
	t.Cleanup(func() { safefile.Durable = true })
	env, snap := fresh(t)
	dir := testutil.TempDir(t)
	orig := snap()
	if applySteps(t, env, dir, steps) {
		t.Fatal("crashed without fault injection")
	}
	total := env.writes
	if total < len(steps) {
		t.Fatalf("only %d writes for %d steps", total, len(steps))
	}
	if maps.Equal(orig, snap()) {
		t.Fatal("applying changed nothing")
	}
	applyWrites := env.writes
	revSteps, c := revertAll(t, env, dir)
	if c {
		t.Fatal("revert crashed")
	}
	if diff := mapDiff(orig, snap()); diff != "" {
		t.Fatalf("after apply and revert: %s", diff)
	}
	// A revert writes once per restore: the newer changes of a value are
	// undone by restoring only the oldest original, so there may be fewer
	// restores than writes.
	restores := 0
	for _, s := range revSteps {
		if s.Action == "restore" {
			restores++
		}
	}
	if restores == 0 || restores > total || env.writes-applyWrites != restores {
		t.Fatalf("%d restores, %d revert writes, for %d writes", restores, env.writes-applyWrites, total)
	}
	for k := 1; k <= total; k++ {
		t.Run(fmt.Sprintf("apply-crash-after-%d", k), func(t *testing.T) {
			t.Parallel()
			env, snap := fresh(t)
			dir := testutil.TempDir(t)
			if !applySteps(t, withFault(env, k), dir, steps) {
				t.Fatalf("no crash after write %d", k)
			}
			if _, c := revertAll(t, env, dir); c {
				t.Fatal("revert crashed")
			}
			if diff := mapDiff(orig, snap()); diff != "" {
				t.Fatalf("crash after write %d, then revert --all: %s", k, diff)
			}
			j, _ := journal.Read(dir)
			for _, e := range j.Entries {
				if e.Open() {
					t.Errorf("entry %d still %s after revert", e.ID, e.State)
				}
			}
		})
	}
	for k := 1; k <= total; k++ {
		t.Run(fmt.Sprintf("revert-crash-after-%d", k), func(t *testing.T) {
			t.Parallel()
			env, snap := fresh(t)
			dir := testutil.TempDir(t)
			applySteps(t, env, dir, steps)
			_, c := revertAll(t, withFault(env, k), dir)
			if c != (k <= restores) {
				t.Fatalf("crash after write %d of the revert: crashed %v, but the revert makes %d writes", k, c, restores)
			}
			if !c {
				if diff := mapDiff(orig, snap()); diff != "" {
					t.Fatalf("revert without a crash: %s", diff)
				}
				return
			}
			if _, c := revertAll(t, env, dir); c {
				t.Fatal("second revert crashed")
			}
			if diff := mapDiff(orig, snap()); diff != "" {
				t.Fatalf("crash in revert after write %d, then revert again: %s", k, diff)
			}
		})
	}
}

func mapDiff(want, got map[string]string) string {
	var d []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("%s missing (was %q)", k, v))
		} else if g != v {
			d = append(d, fmt.Sprintf("%s = %q, want %q", k, g, v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%s = %q appeared", k, v))
		}
	}
	return strings.Join(d, "; ")
}

func TestCrashAtEveryWriteWindowsKnobs(t *testing.T) {
	crashEverywhere(t, windowsSteps, func(t *testing.T) (*Env, func() map[string]string) {
		env, reg, bcd, _ := testEnv(t)
		return env, func() map[string]string {
			s := reg.Snapshot()
			for k, v := range bcd.Snapshot() {
				s["bcd:"+k] = v
			}
			return s
		}
	})
}

func TestCrashAtEveryWriteLinuxKnobs(t *testing.T) {
	crashEverywhere(t, linuxSteps, func(t *testing.T) (*Env, func() map[string]string) {
		env, _, _, root := testEnvTree(t)
		return env, func() map[string]string { return snapshotTree(t, root) }
	})
}

func TestRevertRestoresTypesAndDeletesAbsent(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, windowsSteps[:6])
	if v, _ := reg.Read(prioLoc); v.Type != backend.TypeDWORD || v.String() != "38" {
		t.Errorf("Win32PrioritySeparation = %s %s", v.Type, v)
	}
	q := regLoc(NetClassKey+`\0007`, "*NumRssQueues")
	if v, _ := reg.Read(q); v.Type != backend.TypeSZ || v.String() != "2" {
		t.Errorf("*NumRssQueues = %s %q, want REG_SZ 2 (type kept)", v.Type, v)
	}
	base := regLoc(NetClassKey+`\0007`, "*RssBaseProcNumber")
	if v, _ := reg.Read(base); v.Type != backend.TypeSZ {
		t.Errorf("new *RssBaseProcNumber is %s, want REG_SZ", v.Type)
	}
	pol := QoSKey + `\latlab game.exe`
	if v, _ := reg.Read(regLoc(pol, "DSCP Value")); v.String() != "46" || v.Type != backend.TypeSZ {
		t.Errorf("DSCP Value = %s %q", v.Type, v)
	}
	if v, _ := reg.Read(regLoc(NLAKey, "Do not use NLA")); v.String() != "1" {
		t.Errorf("Do not use NLA = %q", v)
	}
	revertAll(t, env, dir)
	for _, l := range []backend.Loc{base, regLoc(pol, ""), regLoc(QoSKey, ""), regLoc(NLAKey, ""), ntiLoc} {
		if v, _ := reg.Read(l); !v.IsAbsent() {
			t.Errorf("%s still exists after revert: %s", l, v)
		}
	}
	if v, _ := reg.Read(q); v.Type != backend.TypeSZ || v.String() != "4" {
		t.Errorf("*NumRssQueues after revert = %s %q", v.Type, v)
	}
}

func TestRevertConflict(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, windowsSteps[:1])
	reg.Set(prioKey, "Win32PrioritySeparation", backend.DWORD(0x28)) // someone else
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, err = Revert(env, j, MatchAll, false)
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("revert over someone else's value: %v, want a conflict", err)
	}
	if v, _ := reg.Read(prioLoc); v.String() != "40" {
		t.Fatalf("a refused revert changed the value to %s", v)
	}
	if _, err := Revert(env, j, MatchAll, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := reg.Read(prioLoc); v.String() != "2" {
		t.Fatalf("forced revert left %s, want 2", v)
	}
}

func TestPendingEntryNeverWritten(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	dir := testutil.TempDir(t)
	// The original is recorded, then the crash comes before the write.
	j, _ := journal.Open(dir)
	p, _ := prioSep{}.Plan(env, Selector{}, "0x26")
	j.Add([]journal.Entry{{Knob: "win32-priority-separation", Loc: p.Changes[0].Loc, Original: p.Changes[0].Old, New: p.Changes[0].New, State: journal.StatePending}})
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	steps, _ := revertAll(t, env, dir)
	if len(steps) != 1 || steps[0].Action != "already-original" {
		t.Fatalf("steps %+v, want one already-original", steps)
	}
	if v, _ := reg.Read(prioLoc); v.String() != "2" {
		t.Fatalf("value %s", v)
	}
}

// failAfter fails the n-th write, after CheckWrite passed: a partial plan
// must be rolled back.
type failAfter struct {
	backend.Backend
	n, count int
}

func (f *failAfter) Write(l backend.Loc, v backend.Value) error {
	f.count++
	if f.count == f.n {
		return errors.New("injected failure")
	}
	return f.Backend.Write(l, v)
}

func TestFailedWriteRollsBack(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	before := reg.Snapshot()
	env.Backends[backend.BackendRegistry] = &failAfter{Backend: reg, n: 5}
	dir := testutil.TempDir(t)
	p, err := qosDSCP{}.Plan(env, Selector{App: "game.exe"}, "46")
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.Open(dir)
	defer j.Close()
	err = Apply(env, j, p)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("apply with a failing write: %v", err)
	}
	if d := mapDiff(before, reg.Snapshot()); d != "" {
		t.Fatalf("partial change left: %s", d)
	}
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry %d left %s", e.ID, e.State)
		}
	}
}

func TestNoPrivilegeNoChange(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	before := reg.Snapshot()
	env.Privileged = func() error { return errors.New("needs admin") }
	dir := testutil.TempDir(t)
	p, _ := prioSep{}.Plan(env, Selector{}, "0x26")
	j, _ := journal.Open(dir)
	defer j.Close()
	if err := Apply(env, j, p); err == nil {
		t.Fatal("applied without privilege")
	}
	if len(j.Entries) != 0 || mapDiff(before, reg.Snapshot()) != "" {
		t.Fatal("something was recorded or changed")
	}
	reg.Denied[strings.ToLower(QoSKey)] = true
	env.Privileged = nil
	p, err := qosDSCP{}.Plan(env, Selector{App: "x.exe"}, "46")
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(env, j, p); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Fatalf("apply to a denied key: %v", err)
	}
	if mapDiff(before, reg.Snapshot()) != "" {
		t.Fatal("partial change")
	}
}

func TestDamagedJournalIsKept(t *testing.T) {
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, journal.File)
	if err := os.WriteFile(p, []byte(`{"version":1,"entries":[{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := journal.Open(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged journal: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"version":1,"entries":[{` {
		t.Fatal("damaged journal was overwritten")
	}
}

func TestJournalRoundTrip(t *testing.T) {
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.Add([]journal.Entry{{Knob: "x", Loc: regLoc(`HKLM\A`, "B"), Original: backend.SZ("é\x00"), New: backend.Absent, State: journal.StateApplied}})
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j2, err := journal.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(j2.Entries) != 1 || string(j2.Entries[0].Original.Data) != string(backend.SZ("é\x00").Data) || !j2.Entries[0].New.IsAbsent() {
		t.Fatalf("round trip: %+v", j2.Entries)
	}
	if j2.NextID != 2 || j2.NextSet != 2 {
		t.Fatalf("counters %d %d", j2.NextID, j2.NextSet)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestJournalLock(t *testing.T) {
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := journal.Open(dir); err == nil || !strings.Contains(err.Error(), "another latlab") {
		t.Fatalf("second open: %v", err)
	}
	j.Close()
	j, err = journal.Open(dir)
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	j.Close()
}

func journalEntry(t *testing.T, dir string, l backend.Loc) journal.Entry {
	t.Helper()
	j, err := journal.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range j.Entries {
		if e.Loc == l {
			return e
		}
	}
	t.Fatalf("no journal entry for %s", l)
	return journal.Entry{}
}

// Two policies share the QoS key the first one created: reverting only
// the first keeps the key (the second policy is in it) and still closes
// the entry.
func TestRevertKeepsSharedKeyLatlabCreated(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{
		{"qos-dscp", Selector{App: "a.exe"}, "46"},
		{"qos-dscp", Selector{App: "b.exe"}, "34"},
	})
	polA, polB := QoSKey+`\latlab a.exe`, QoSKey+`\latlab b.exe`
	if e := journalEntry(t, dir, regLoc(QoSKey, "")); !e.Original.IsAbsent() || e.Target != "latlab a.exe" {
		t.Fatalf("QoS key entry %+v: want it created by a.exe's change", e)
	}
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := Revert(env, j, MatchKnob("qos-dscp", "latlab a.exe"), false)
	j.Close()
	if err != nil {
		t.Fatalf("revert of a.exe's policy: %v", err)
	}
	kept := 0
	for _, s := range steps {
		if s.Action == "keep" {
			kept++
			if s.Entry.Loc != regLoc(QoSKey, "") {
				t.Errorf("kept %s, want only the QoS key", s.Entry.Loc)
			}
		}
	}
	if kept != 1 {
		t.Errorf("%d keep steps, want 1: %+v", kept, steps)
	}
	if v, _ := reg.Read(regLoc(polA, "")); !v.IsAbsent() {
		t.Error("a.exe's policy is still there")
	}
	if v, _ := reg.Read(regLoc(polB, "DSCP Value")); v.String() != "34" {
		t.Errorf("b.exe's policy lost its DSCP Value: %s", v)
	}
	e := journalEntry(t, dir, regLoc(QoSKey, ""))
	if e.State != journal.StateReverted || !strings.Contains(e.Note, "kept: holds values latlab did not add") {
		t.Errorf("QoS key entry %s %q: want reverted with the kept note", e.State, e.Note)
	}
	j, _ = journal.Read(dir)
	for _, e := range j.Entries {
		if e.Target == "latlab a.exe" && e.Open() {
			t.Errorf("a.exe entry %d (%s) still %s", e.ID, e.Loc, e.State)
		}
	}
	revertAll(t, env, dir)
	if v, _ := reg.Read(regLoc(polB, "")); !v.IsAbsent() {
		t.Error("b.exe's policy survived revert --all")
	}
}

// A policy the user added under the QoS key latlab created survives
// revert --all, and the revert succeeds.
func TestRevertAllKeepsForeignContent(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	before := reg.Snapshot()
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"qos-dscp", Selector{App: "a.exe"}, "46"}})
	mine := QoSKey + `\mine`
	reg.Set(mine, "Application Name", backend.SZ("mine.exe"))
	reg.Set(mine, "DSCP Value", backend.SZ("8"))
	reg.Set(QoSKey, "Foreign", backend.DWORD(1))
	steps, _ := revertAll(t, env, dir)
	var actions []string
	for _, s := range steps {
		if s.Entry.Loc.Name == "" {
			actions = append(actions, s.Entry.Loc.Path+"="+s.Action)
		}
	}
	if strings.Join(actions, " ") != QoSKey+`\latlab a.exe=restore `+QoSKey+"=keep" {
		t.Errorf("key steps %v", actions)
	}
	after := reg.Snapshot()
	for _, want := range []string{"val:" + strings.ToLower(mine) + "\x00dscp value", "val:" + strings.ToLower(QoSKey) + "\x00foreign", "key:" + strings.ToLower(mine)} {
		if _, ok := after[want]; !ok {
			t.Errorf("%q did not survive the revert", want)
		}
	}
	// Everything else is as before latlab's change.
	for k := range after {
		if strings.HasPrefix(k, "key:"+strings.ToLower(QoSKey)) || strings.HasPrefix(k, "val:"+strings.ToLower(QoSKey)) {
			delete(after, k)
		}
	}
	if d := mapDiff(before, after); d != "" {
		t.Errorf("outside the QoS key: %s", d)
	}
	j, _ := journal.Read(dir)
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry %d (%s) still %s", e.ID, e.Loc, e.State)
		}
	}
}

// kernelFiles is the Files backend with one habit of the kernel: writing
// 0 to timerslack_ns sets the default slack, 50 µs.
type kernelFiles struct{ backend.Files }

func (k kernelFiles) Write(l backend.Loc, v backend.Value) error {
	if strings.HasSuffix(l.Path, "/timerslack_ns") && strings.TrimSpace(string(v.Data)) == "0" {
		v = backend.FileValue("50000\n")
	}
	return k.Files.Write(l, v)
}

// Apply records what the system stored, not what was written, so a
// revert finds its own value and is no conflict.
func TestApplyRecordsWhatTheSystemStored(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	env.Backends[backend.BackendFile] = kernelFiles{backend.Files{Root: root}}
	dir := testutil.TempDir(t)
	slack := root + "/proc/4242/timerslack_ns"
	applySteps(t, env, dir, []setStep{{"timer-slack", Selector{PID: "4242"}, "1us"}})
	k, _ := Lookup("timer-slack")
	p, err := k.Plan(env, Selector{PID: "4242"}, "0")
	if err != nil || len(p.Changes) != 1 || string(p.Changes[0].New.Data) != "0\n" {
		t.Fatalf("plan %+v %v", p, err)
	}
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(env, j, p); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if got := string(p.Changes[0].New.Data); got != "50000\n" {
		t.Errorf("plan after apply says %q was written, the kernel holds 50000", got)
	}
	j, _ = journal.Read(dir)
	if e := j.Entries[len(j.Entries)-1]; string(e.New.Data) != "50000\n" || e.State != journal.StateApplied {
		t.Fatalf("entry %+v: want New 50000 (read back), applied", e)
	}
	steps, _ := revertAll(t, env, dir) // fails the test on a conflict
	if len(steps) != 2 || steps[0].Action != "restore" || steps[1].Action != "restore" {
		t.Errorf("steps %+v, want two restores", steps)
	}
	if b, _ := os.ReadFile(slack); string(b) != "50000\n" {
		t.Errorf("slack after revert %q", b)
	}
}
