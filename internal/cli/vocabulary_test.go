package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// vocabulary is what each flag name means, in every command that has it:
// its type and words its help must say. A new command that gives a name
// another meaning fails here, and so does one that brings back a retired
// name (retired: the old spellings, which live on only hidden).
var vocabulary = map[string]struct {
	typ  string
	help string // a regular expression the help must match
	not  string // and one it must not ("": none)
}{
	// How long a run (or each of its phases or blocks) lasts.
	"duration": {"duration", `(?i)how long|stop after`, `(?i)each sleep|the sleep`},
	// The length of one sleep.
	"sleep-length": {"duration", `each sleep`, ""},
	"cpus":         {"cpus", `(?i)CPU`, ""},
	"priority":     {"string", `normal, high or realtime`, ""},
	"rtprio":       {"int", `SCHED_FIFO priority`, ""},
	"interval":     {"duration", `(?i)period|interval|every|between`, ""},
	"output":       {"string", `(?i)file`, ""},
	"json":         {"bool", `(?i)json|document`, ""},
	"force":        {"bool", `overwrite`, ""},
	"dry-run":      {"bool", `(?i)change nothing|measure nothing|would`, ""},
	// A chart of the run, its format from the file's extension.
	"plot": {"string", `svg.*png`, ""},
}

// exceptions are flags that mean something else than the table says, each
// with the reason it stays.
var exceptions = map[string]string{
	// Restores over a change someone made after latlab: the journal's
	// recovery messages print this command, so renaming it would break
	// what earlier versions told users to run.
	"latlab knob revert --force": "revert over a later change",
}

// retired are names no command shows any more: each lives on as a hidden
// old spelling of its new name.
var retired = map[string]string{"cpu": "cpus", "seconds": "duration", "graph": "plot", "window-graph": "window-plot"}

func TestCommandTreeVocabulary(t *testing.T) {
	root := NewRoot(&IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	walk(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			where := c.CommandPath() + " --" + f.Name
			if isOldSpelling(f) {
				if !f.Hidden {
					t.Errorf("%s: an old spelling is shown in the help", where)
				}
				return
			}
			if f.Hidden {
				return
			}
			if to, ok := retired[f.Name]; ok {
				t.Errorf("%s: a retired name; the flag is --%s now", where, to)
			}
			v, ok := vocabulary[f.Name]
			if _, except := exceptions[where]; !ok || except {
				return
			}
			if f.Value.Type() != v.typ {
				t.Errorf("%s is a %s, everywhere else a %s", where, f.Value.Type(), v.typ)
			}
			if !regexp.MustCompile(v.help).MatchString(f.Usage) {
				t.Errorf("%s: help %q does not say %s", where, f.Usage, v.help)
			}
			if v.not != "" && regexp.MustCompile(v.not).MatchString(f.Usage) {
				t.Errorf("%s: help %q means something else (%s)", where, f.Usage, v.not)
			}
			if f.Name == "output" && f.Shorthand != "o" {
				t.Errorf("%s: -o is its short name everywhere", where)
			}
			if f.Shorthand == "o" && f.Name != "output" {
				t.Errorf("%s: -o is --output everywhere", where)
			}
		})
	})
}

// An old spelling given a bad value is bad input like any other: one
// line, the error, without the note on the new name.
func TestOldSpellingBadValue(t *testing.T) {
	code, _, errs := runCLI(t, "sleep", "--duration", "abc")
	testutil.CheckBadExit(t, "sleep --duration abc", code, errs, `latlab: invalid value "abc" for --duration: want a duration with a unit`)
}

// The old spellings still work, with one line on stderr naming the new
// one, and set what the new name sets.
func TestOldSpellingsStillWork(t *testing.T) {
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"sleep", "--duration", "2ms", "--samples", "3", "--gap", "0", "--json"}, "latlab: --duration is now --sleep-length, the length of one sleep"},
		{[]string{"sleep", "--cpu", "0", "--samples", "3", "--gap", "0", "--json"}, "latlab: --cpu is now --cpus\n"},
		{[]string{"knob", "get", "cpu-governor", "--cpu", "0", "--json"}, "latlab: --cpu is now --cpus\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 0 && !strings.Contains(c.args[0], "knob") {
			t.Errorf("%v: exit %d: %s", c.args, code, errs)
		}
		if strings.Count(errs, c.note) != 1 {
			t.Errorf("%v: stderr %q lacks the note %q once", c.args, errs, c.note)
		}
		if strings.Contains(out, "is now --") {
			t.Errorf("%v: the note went to stdout", c.args)
		}
		if c.args[0] == "sleep" {
			doc := readDoc(t, out)
			if c.args[1] == "--duration" && doc.Settings["sleep-length"] != "2ms" {
				t.Errorf("%v: settings %v", c.args, doc.Settings)
			}
			if c.args[1] == "--cpu" && doc.Settings["cpus"] != "0" {
				t.Errorf("%v: settings %v", c.args, doc.Settings)
			}
			if _, ok := doc.Settings[c.args[1][2:]]; ok {
				t.Errorf("%v: the document records the old spelling: %v", c.args, doc.Settings)
			}
		}
	}
}

// knob set and try take values that begin with '-' (rt-throttling -1),
// before or after their flags.
func TestNegativeValuesAreArguments(t *testing.T) {
	root := NewRoot(&IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, c := range []struct{ in, want string }{
		{"knob set rt-throttling -1 --dry-run", "knob set --dry-run -- rt-throttling -1"},
		{"knob set --dry-run rt-throttling -1 --format sh", "knob set --dry-run --format sh -- rt-throttling -1"},
		{"knob set --state-dir /x timer-slack -5 --pid 1", "knob set --state-dir /x --pid 1 -- timer-slack -5"},
		{"try rt-throttling -1 -o t.json --blocks 2", "try -o t.json --blocks 2 -- rt-throttling -1"},
		{"knob set rt-throttling -- -1", "knob set rt-throttling -- -1"},
		// explain decodes what set takes: "unknown flag -1" before
		{"knob explain rt-throttling -1", "knob explain -- rt-throttling -1"},
		{"knob explain --json swappiness -5", "knob explain --json -- swappiness -5"},
		{"sleep --samples 3", "sleep --samples 3"},
	} {
		if got := strings.Join(separateNegativeArgs(root, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
}

// -o FILE writes the document to the file only, whatever the command, and
// stderr says where; without --json the human summary still goes to stdout.
func TestOutputGoesToTheFileOnly(t *testing.T) {
	dir := testutil.TempDir(t)
	for i, args := range [][]string{
		{"sleep", "--samples", "3", "--gap", "0", "--json"},
		{"sleep", "--samples", "3", "--gap", "0"},
	} {
		file := filepath.Join(dir, fmt.Sprintf("out%d.json", i))
		code, out, errs := runCLI(t, append(args, "-o", file)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"kind": "sleep"`) {
			t.Errorf("%v -o: the file holds %q (%v)", args, b, err)
		}
		json := slices.Contains(args, "--json")
		if json && out != "" || !json && (out == "" || strings.Contains(out, `"kind"`)) {
			t.Errorf("%v -o: stdout %q", args, out)
		}
		if !strings.Contains(errs, "wrote "+file+"\n") {
			t.Errorf("%v -o: stderr %q does not say what was written", args, errs)
		}
	}
}

// Ctrl-C, everywhere: the command stops, undoes what it changed, prints
// what it measured, and latlab exits 130 (sweep exited 3, try 0). The
// interrupt comes once the command says its run has begun, whenever that
// is on a loaded machine (the interrupt before the first sample, and
// after many, have tests of their own in interrupt_test.go).
func TestInterruptExits130(t *testing.T) {
	state := testutil.TempDir(t)
	for _, c := range []struct {
		args    []string
		started string // on stderr when the run has begun
	}{
		{[]string{"sleep", "--samples", "0", "--gap", "0"}, "measuring until Ctrl-C"},
		{[]string{"wake", "--duration", "1h"}, "measuring for "},
		{[]string{"sweep", "--samples", "2000", "--settle", "0"}, "latlab sweep: "},
		{[]string{"try", tryKnob, tryValue, "--probe", "sleep", "--blocks", "50", "--state-dir", state}, "block 1/"},
	} {
		args := c.args
		ctx, cancel := context.WithCancelCause(context.Background())
		errs := &startWriter{marker: c.started, started: make(chan struct{})}
		go func() {
			select {
			case <-errs.started:
			case <-time.After(2 * time.Minute): // stuck before its run: stopped, and failed below
			case <-ctx.Done():
				return
			}
			cancel(&Interrupted{Signal: os.Interrupt})
		}()
		var out bytes.Buffer
		code := Run(ctx, args, &IO{In: strings.NewReader(""), Out: &out, Err: errs, Root: "/"})
		cancel(nil)
		select {
		case <-errs.started:
		default:
			t.Errorf("%v: stderr never said %q before it ended:\n%s", args, c.started, errs)
		}
		if code != 130 {
			t.Errorf("%v interrupted: exit %d, want 130\n%s%s", args, code, out.String(), errs)
		}
		if !strings.Contains(errs.String(), "latlab: interrupted") {
			t.Errorf("%v interrupted: stderr %q does not say so", args, errs)
		}
		// What was measured is printed, marked interrupted.
		if args[0] == "sweep" && !strings.Contains(out.String(), "latlab sweep: interrupted: ") {
			t.Errorf("sweep interrupted printed nothing of what it measured:\n%s", out.String())
		}
	}
}

// startWriter keeps what a command writes, safe for its goroutines and
// the test's, and closes started once the text holds marker.
type startWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	marker  string
	started chan struct{}
}

func (w *startWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.marker != "" && strings.Contains(w.buf.String(), w.marker) {
		w.marker = ""
		close(w.started)
	}
	return len(p), nil
}

func (w *startWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// wake and sleep answer first in the check-up's words and units: the
// verdict and the percentiles with their units, never bare µs.
func TestWakeAndSleepSpeakTheCheckupsWords(t *testing.T) {
	for _, args := range [][]string{
		{"wake", "--loops", "200"},
		{"sleep", "--samples", "20", "--gap", "0"},
	} {
		code, out, errs := runCLIWidth(t, 80, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		lines := strings.Split(out, "\n")
		head := strings.Join(lines[:min(len(lines), 8)], "\n")
		if !regexp.MustCompile(`verdict: (good|fair|mediocre|poor|\S)`).MatchString(head) ||
			!regexp.MustCompile(`p50 [0-9.]+(ns|µs|ms|s),`).MatchString(head) {
			t.Errorf("%v: the first lines do not give the verdict and figures with units:\n%s", args, head)
		}
		if strings.Contains(out, "in µs") || strings.Contains(out, "(µs)") || strings.Contains(out, "(ms)") {
			t.Errorf("%v: a table in bare units:\n%s", args, out)
		}
	}
}
