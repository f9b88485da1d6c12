package knob

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// timerSlackName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const timerSlackName = "timer-slack"

func init() { register(timerSlack{}) }

type timerSlack struct{ linuxKnob }

func (timerSlack) Name() string { return timerSlackName }

// Selectors are the selector flags timerSlack reads.
func (timerSlack) Selectors() []string { return []string{SelPID} }
func (timerSlack) Summary() string {
	return "how late the kernel may fire a process's timers to batch wake-ups (/proc/PID/timerslack_ns)"
}

// parseNs reads "50us", "1ms", "0" or a plain number of nanoseconds.
func parseNs(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("must not be negative")
		}
		return n, nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "μs", "µs"))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want nanoseconds or a duration, e.g. 50000, 50us, 1us, 0")
	}
	return int64(d), nil
}

// slackMeaning is what a slack read from a task means. 0 is what a
// realtime thread reads (the kernel keeps no slack for SCHED_FIFO,
// SCHED_RR and SCHED_DEADLINE); only written does 0 reset a thread to its
// default, which `knob get --pid` of a realtime kernel thread once said
// of the value it read.
func slackMeaning(ns int64) string {
	if ns == 0 {
		return "no slack: timers fire on time (realtime threads read 0); writing 0 instead resets a normal thread to its default"
	}
	return fmt.Sprintf("timers may fire up to %s late so the kernel can batch wake-ups (default 50µs; realtime threads have none)", time.Duration(ns))
}

func (timerSlack) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: timerSlackName}
	if value == "" {
		ex.Text = []string{
			"timerslack_ns of /proc/PID: the slack of that task (the process's main thread; other threads keep theirs, see /proc/PID/task/TID).",
			"The kernel may delay a timer by up to the slack to merge wake-ups; 50µs by default, inherited over fork and exec.",
			"SCHED_FIFO/SCHED_RR threads have no slack. Writing 0 resets the task to its default slack. Writing another process's needs CAP_SYS_NICE.",
		}
		return ex, nil
	}
	ns, err := parseNs(value)
	if err != nil {
		return nil, badinput.Errorf("invalid timer-slack %q: %v", value, err)
	}
	meaning := slackMeaning(ns)
	if ns == 0 { // a value to write: what writing it does
		meaning = "resets the thread to its default slack when written (a realtime thread keeps none)"
	}
	ex.Text = []string{fmt.Sprintf("%d ns: %s", ns, meaning)}
	ex.Data = map[string]any{"timerslack_ns": ns}
	return ex, nil
}

func slackLoc(sel Selector) (backend.Loc, string, error) {
	pid := sel.PID
	if pid == "" {
		pid = "self"
	} else if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return backend.Loc{}, "", badinput.Errorf("invalid --pid %q: want a process id", pid)
	}
	return fileLoc("proc/" + pid + "/timerslack_ns"), "pid " + pid, nil
}

func (timerSlack) Get(env *Env, sel Selector) (*Reading, error) {
	l, target, err := slackLoc(sel)
	if err != nil {
		return nil, err
	}
	s, v, err := readText(env, l)
	if err != nil && sel.PID == "" && env.OwnSlack != nil && errors.Is(err, fs.ErrPermission) {
		// The kernel shows /proc/PID/timerslack_ns to a thread other than
		// PID's main one only with CAP_SYS_NICE, even in the same process,
		// and Go runs this on any of its threads: `cat` reads it, latlab
		// did not. Every thread inherits the slack of the one that started
		// it, so the calling thread's own slack is the process's.
		return ownSlackReading(env, l, target)
	}
	if err != nil {
		return nil, err
	}
	if v.IsAbsent() {
		if sel.PID == "" {
			// A tree without /proc/self does not say what the kernel has
			// (absence.go).
			a, err := absenceOf(env, l, "timerslack_ns (it came with Linux 4.6)")
			if err != nil {
				return nil, err
			}
			if a.unseen() {
				return nil, errors.New(a.why(l.String()))
			}
			return nil, fmt.Errorf("%s does not exist: this kernel does not expose timer slack (timerslack_ns came with Linux 4.6)", l)
		}
		return nil, badinput.Errorf("no process %s (no %s)", sel.PID, l)
	}
	ns, _ := strconv.ParseInt(s, 10, 64)
	it := item(target, l, v, slackMeaning(ns))
	it.Value = fmt.Sprintf("%s (%d ns)", time.Duration(ns), ns)
	r := &Reading{Knob: timerSlackName, Items: []Item{it}}
	if sel.PID == "" {
		r.Notes = append(r.Notes, "this is latlab's own slack; --pid PID reads another process")
	}
	return r, nil
}

// ownSlackReading is latlab's own slack read with PR_GET_TIMERSLACK.
func ownSlackReading(env *Env, l backend.Loc, target string) (*Reading, error) {
	ns, err := env.OwnSlack()
	if err != nil {
		return nil, err
	}
	// The value as the file would have shown it, for the rules that
	// read the stored value.
	raw := backend.FileValue(strconv.FormatInt(ns, 10) + "\n")
	it := Item{Target: target, Loc: &l, Raw: &raw, Value: fmt.Sprintf("%s (%d ns)", time.Duration(ns), ns), Meaning: slackMeaning(ns)}
	return &Reading{Knob: timerSlackName, Items: []Item{it}, Notes: []string{
		"this is latlab's own slack (prctl PR_GET_TIMERSLACK: /proc/self/timerslack_ns is shown to another thread of a process only with CAP_SYS_NICE); --pid PID reads another process",
	}}, nil
}

func (k timerSlack) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.PID == "" {
		return nil, badinput.Errorf("timer-slack needs --pid PID: the process whose main thread's slack to set")
	}
	l, target, err := slackLoc(sel)
	if err != nil {
		return nil, err
	}
	ns, err := parseNs(value)
	if err != nil {
		return nil, badinput.Errorf("invalid timer-slack %q: %v", value, err)
	}
	if ns > int64(10*time.Second) {
		return nil, badinput.Errorf("timer-slack %s is out of range: accepted 0 to 10s", time.Duration(ns))
	}
	if _, v, err := readText(env, l); err != nil {
		return nil, err
	} else if v.IsAbsent() {
		return nil, badinput.Errorf("no process %s (no %s)", sel.PID, l)
	}
	p := &Plan{Knob: k.Name(), Target: target, Request: value}
	p.Notes = append(p.Notes, "only the main thread of the process changes; threads it starts later inherit the new slack")
	if err := p.add(env, l, backend.FileValue(strconv.FormatInt(ns, 10)+"\n")); err != nil {
		return nil, err
	}
	// The start time (field 22 of /proc/PID/stat) tells this process from
	// a later one with the same PID, which a revert must not touch.
	start := slackGuardLoc(sel.PID)
	if v, err := env.read(start); err == nil && !v.IsAbsent() && len(p.Changes) == 1 {
		p.Changes[0].Guard = &Guard{Loc: start, Value: v, What: "process " + sel.PID + " has exited (its PID is free or belongs to another process now)"}
	}
	return p, nil
}

// slackGuardLoc is the start time of process pid (field 22 of its stat).
func slackGuardLoc(pid string) backend.Loc {
	return backend.Loc{Backend: backend.BackendFile, Path: "proc/" + pid + "/stat", Name: "stat-field:22"}
}

func (k timerSlack) Vet(target string, l backend.Loc, v backend.Value) error {
	pid, ok := strings.CutPrefix(target, "pid ")
	if !ok {
		return fmt.Errorf("%s target %q is not pid N", k.Name(), target)
	}
	want, _, err := slackLoc(Selector{PID: pid})
	if err != nil {
		return err
	}
	switch l {
	case want, slackGuardLoc(pid):
		return fileUint(v)
	}
	return notMine(k.Name(), target, l)
}

// Checkup is what the check-up knows of timer-slack: its default, how its
// instances are read and the verdict rules.
func (timerSlack) Checkup() Checkup {
	return Checkup{Default: func(*Case) string { return "50µs" }, Rules: timerSlackRules,
		TryValue: func(*Case, string) string { return "50us" }}
}

// Experiment is how a change of timer-slack takes effect for latlab try.
func (timerSlack) Experiment() Experiment {
	return Experiment{Scope: ScopeProcess, Settle: 100 * time.Millisecond, Probe: ProbeSleep, RealtimeNote: "SCHED_FIFO threads have no timer slack: at realtime priority the arms differ in name only"}
}

// Cases gathers the check-up's case of timer-slack: latlab's own slack,
// what the program that started it passed on (slack is inherited over
// fork and exec).
func (k timerSlack) Cases(env *Env) []*Case {
	cs := readCases(env, k, Selector{})
	for _, c := range cs {
		c.Target = "latlab's own"
	}
	return cs
}

var timerSlackRules = []Rule{
	{ID: "slack-default", Verdict: Default, When: "50µs",
		Match:    func(c *Case) bool { return c.Text() == "50000" },
		Reason:   text("50µs: normal threads' timers may fire up to 50µs late so the kernel can batch wake-ups"),
		Evidence: func(c *Case) string { return quote(timerSlackName, "", "50µs by default") }},
	{ID: "slack-changed", Verdict: Changed, When: "another value",
		Match: always,
		Reason: func(c *Case) string {
			return "latlab inherited this slack from the program that started it: " + c.Meaning
		},
		Evidence: func(c *Case) string { return quote(timerSlackName, "", "inherited over fork") }},
}
