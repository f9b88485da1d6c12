package knob

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// getValue is the value of the one instance of a knob, as get shows it.
func getValue(t *testing.T, env *Env, name string) string {
	t.Helper()
	r, err := RunGet(context.Background(), GetOptions{Knob: name, Env: env})
	if err != nil || len(r.Items) != 1 {
		t.Fatalf("get %s: %v %+v", name, err, r)
	}
	return r.Items[0].Value
}

// A dry run plans and renders the script, and writes neither the knob
// nor the journal.
func TestRunSetDryRun(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := filepath.Join(testutil.TempDir(t), "state")
	for _, format := range []string{"", FormatReg, FormatPS1, FormatSh} {
		res, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, DryRun: true, Format: format, StateDir: state, Env: env})
		if err != nil {
			t.Fatalf("--format %q: %v", format, err)
		}
		want := format
		if want == "" {
			want = DefaultFormat(HostOS)
		}
		if !res.DryRun || res.Applied || res.Format != want || len(res.Script) == 0 || res.Journal != "" || res.Undo != nil {
			t.Errorf("--format %q: %+v", format, res)
		}
		if d := []Delta{{n.loc, n.from, n.to}}; !slices.Equal(res.Changes, d) {
			t.Errorf("--format %q: changes %+v, want %+v", format, res.Changes, d)
		}
	}
	if v := getValue(t, env, n.name); v != n.value {
		t.Errorf("the dry run changed %s to %s", n.name, v)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run made the state directory: %v", err)
	}
}

func TestRunSetBadInput(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := testutil.TempDir(t)
	for _, c := range []struct {
		o    SetOptions
		want string
	}{
		{SetOptions{Knob: n.name, Value: n.set, Format: FormatSh}, "--format goes with --dry-run"},
		{SetOptions{Knob: n.name, Value: n.set, DryRun: true, Format: "bat"}, `unknown format "bat": accepted reg, ps1, sh`},
		{SetOptions{Knob: "no-such-knob", Value: "1"}, "unknown knob"},
		{SetOptions{Knob: n.name, Value: "x-y-z"}, ""},
	} {
		c.o.Env, c.o.StateDir = env, state
		_, err := RunSet(context.Background(), c.o)
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an input error with %q", c.o, err, c.want)
		}
	}
	if v := getValue(t, env, n.name); v != n.value {
		t.Errorf("bad input changed %s to %s", n.name, v)
	}
}

// A set records the original, writes, and says how to undo it with the
// root and state directory it was given; setting the value it already
// holds changes nothing.
func TestRunSet(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	n := native()
	state := testutil.TempDir(t)
	res, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, Root: root, StateDir: state, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	undo := []string{"latlab", "knob", "revert", n.name, "--root", root, "--state-dir", state}
	if !res.Applied || res.DryRun || res.Journal != state || !slices.Equal(res.Entries, []int{1}) || !slices.Equal(res.Undo, undo) || res.Script != nil {
		t.Errorf("set: %+v", res)
	}
	if d := []Delta{{n.loc, n.from, n.to}}; !slices.Equal(res.Changes, d) {
		t.Errorf("changes %+v, want %+v", res.Changes, d)
	}
	if v := getValue(t, env, n.name); v != n.got {
		t.Errorf("%s is %s after the set, want %s", n.name, v, n.got)
	}
	j, err := journal.Read(state)
	if err != nil || len(j.Entries) != 1 || j.Entries[0].Knob != n.name || j.Entries[0].State != journal.StateApplied {
		t.Fatalf("journal: %v %+v", err, j)
	}
	res, err = RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, StateDir: state, Env: env})
	if err != nil || res.Applied || len(res.Plan.Changes) != 0 || res.Changes != nil {
		t.Errorf("set again: %v %+v", err, res)
	}
}

// Without the right to change settings, a set says so before it opens
// the journal.
func TestRunSetNotPrivileged(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	env.Privileged = func() error { return errors.New("needs root") }
	state := filepath.Join(testutil.TempDir(t), "state")
	_, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, StateDir: state, Env: env})
	if err == nil || err.Error() != "needs root" || badinput.Is(err) {
		t.Fatalf("set without the right: %v", err)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the state directory was made: %v", err)
	}
}

// A set warns of what it goes on past: a damaged journal entry, and what
// the experiment check finds, asked with the command that reverts every
// change; the check's own failure is a warning too.
func TestRunSetWarnings(t *testing.T) {
	n := native()
	for _, c := range []struct {
		name   string
		damage bool
		msg    string
		err    error
		want   []string
	}{
		{name: "clean"},
		{name: "damaged entry", damage: true, want: []string{"journal entry 1 (line 2) is damaged, left alone: "}},
		{name: "unfinished", msg: "an experiment did not finish", want: []string{"an experiment did not finish"}},
		{name: "unreadable record", err: errors.New("permission denied"), want: []string{"experiment record: permission denied"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _, _, root := testEnvTree(t)
			state := testutil.TempDir(t)
			if _, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: n.set, StateDir: state, Env: env}); err != nil {
				t.Fatal(err)
			}
			if c.damage {
				damageEntry(t, state, 1)
			}
			var warned, asked []string
			o := SetOptions{Knob: n.name, Value: n.other, Root: root, StateDir: state, Env: env,
				Warn: func(s string) { warned = append(warned, s) },
				Unfinished: func(j *journal.Journal, undo []string) (string, error) {
					asked = undo
					return c.msg, c.err
				}}
			if _, err := RunSet(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if len(warned) != len(c.want) {
				t.Fatalf("warnings %q, want %q", warned, c.want)
			}
			for i := range warned {
				if !strings.HasPrefix(warned[i], c.want[i]) {
					t.Errorf("warning %q, want %q", warned[i], c.want[i])
				}
			}
			if all := []string{"latlab", "knob", "revert", "--all", "--root", root, "--state-dir", state}; !slices.Equal(asked, all) {
				t.Errorf("the experiment check was asked with %q, want %q", asked, all)
			}
		})
	}
}

// damageEntry flips a character of the time of journal entry id, so
// that its checksum fails.
func damageEntry(t *testing.T, dir string, id int) {
	t.Helper()
	p := filepath.Join(dir, journal.File)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\n"))
	for _, l := range lines {
		if i := bytes.Index(l, []byte(`"time":"2`)); i >= 0 && bytes.Contains(l, []byte(`"id":`+string(rune('0'+id))+`,`)) {
			l[i+len(`"time":"`)] = '3'
			if err := os.WriteFile(p, bytes.Join(lines, []byte("\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no entry %d in\n%s", id, b)
}

// The undo command is pasted into the shell of this OS: plain words stay
// as they are, others are quoted so that the shell gives them back.
func TestCommandLine(t *testing.T) {
	args := []string{"latlab", "knob", "revert", "irq-affinity", "--target", "irq 30", "--state-dir", `C:\my state`, "--root", "/tmp/it's"}
	want := `latlab knob revert irq-affinity --target 'irq 30' --state-dir 'C:\my state' --root '/tmp/it'\''s'`
	if HostOS == "windows" {
		want = `latlab knob revert irq-affinity --target "irq 30" --state-dir "C:\my state" --root "/tmp/it's"`
	}
	if got := CommandLine(args); got != want {
		t.Errorf("CommandLine = %s\nwant            %s", got, want)
	}
	if got := CommandLine([]string{"a", "", `C:\ProgramData\latlab`}); HostOS == "linux" && got != `a '' 'C:\ProgramData\latlab'` ||
		HostOS == "windows" && got != `a "" C:\ProgramData\latlab` {
		t.Errorf("CommandLine = %s", got)
	}
}
