package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// Each way a command line can be wrong exits 2 with a message that says
// what is wrong; the class is decided by the error's type, not its words.
func TestUsageErrorClasses(t *testing.T) {
	tests := []struct {
		class string
		args  []string
		want  string
	}{
		{"unknown command, near one", []string{"slep"}, `unknown command "slep" for latlab; did you mean sleep?`},
		{"unknown command, prefix", []string{"kno", "list"}, "did you mean knob?"},
		{"unknown command, nothing near", []string{"zzzz"}, `unknown command "zzzz" for latlab (see 'latlab --help')`},
		{"unknown command before a flag", []string{"slep", "--samples", "5"}, "did you mean sleep?"},
		{"unknown subcommand", []string{"knob", "lst"}, `unknown command "lst" for knob; did you mean list?`},
		{"unknown subcommand, listed", []string{"timer", "zzzz"}, "the commands are set, status"},
		{"group without a subcommand", []string{"completion"}, "completion needs a subcommand: bash, fish, powershell, zsh"},
		{"argument to a command that takes none", []string{"wake", "extra"}, `wake takes no arguments, got "extra"`},
		{"missing argument", []string{"timer", "set"}, "timer set needs a resolution, e.g. 1ms"},
		{"missing second argument", []string{"knob", "set", "timer-slack"}, "knob set needs a knob name and a value"},
		{"too many arguments", []string{"knob", "get", "a", "b"}, `knob get takes at most 1 argument, got 2 (unexpected: "b")`},
		{"unknown flag", []string{"sleep", "--bogus"}, "unknown flag --bogus (see 'latlab sleep --help')"},
		{"unknown flag, near one", []string{"sleep", "--sample", "5"}, "unknown flag --sample; did you mean --samples?"},
		{"unknown shorthand", []string{"sleep", "-z"}, "unknown flag -z (see"},
		{"unknown shorthand in a group", []string{"sleep", "-zq"}, "unknown flag -z in -zq"},
		{"flag without its value", []string{"sleep", "--output"}, "--output needs a value: write the result document"},
		{"bad flag syntax", []string{"sleep", "---x"}, "bad flag syntax: ---x"},
		{"whole number", []string{"sleep", "--samples", "x"}, `invalid value "x" for --samples: want a whole number`},
		{"unsigned", []string{"sweep", "--seed", "-1"}, `invalid value "-1" for --seed: want a whole number`},
		{"out of range", []string{"sweep", "--seed", "99999999999999999999999"}, "want a whole number in range"},
		{"number", []string{"compare", "--detect", "x"}, `invalid value "x" for --detect: want a number`},
		{"boolean", []string{"wake", "--json=maybe"}, `invalid value "maybe" for --json: want true or false`},
		{"latlab's own value type", []string{"sleep", "--sleep-length", "1"}, `invalid value "1" for --sleep-length: needs a unit`},
	}
	for _, tc := range tests {
		code, out, errs := runCLI(t, tc.args...)
		testutil.CheckBadExit(t, fmt.Sprintf("%s: %q", tc.class, tc.args), code, errs, tc.want)
		if out != "" {
			t.Errorf("%s: want nothing on stdout: %q", tc.class, out)
		}
	}
}

// runTree runs a command tree that finish prepared, as Run does.
func runTree(root *cobra.Command, args ...string) (int, string) {
	var out, errb bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SilenceErrors, root.SilenceUsage = true, true
	err := root.ExecuteContext(context.Background())
	if err != nil {
		errb.WriteString(err.Error())
	}
	return ExitCode(err), errb.String()
}

// Required flags and flag groups, which no latlab command uses yet, are
// bad input too; and the validators' wording does not matter: a rejection
// in any words exits 2, an error from the work exits 3 even when its words
// look like cobra's.
func TestUsageErrorClassesByType(t *testing.T) {
	build := func() *cobra.Command {
		root := &cobra.Command{Use: "latlab", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
		req := &cobra.Command{Use: "req", RunE: func(*cobra.Command, []string) error { return nil }}
		req.Flags().String("to", "", "where")
		req.Flags().Bool("a", false, "a")
		req.Flags().Bool("b", false, "b")
		_ = req.MarkFlagRequired("to")
		req.MarkFlagsMutuallyExclusive("a", "b")
		odd := &cobra.Command{Use: "odd", Args: func(*cobra.Command, []string) error { return errors.New("no") },
			RunE: func(*cobra.Command, []string) error { return nil }}
		work := &cobra.Command{Use: "work", RunE: func(*cobra.Command, []string) error {
			return errors.New(`unknown command "x": requires at least 1 arg(s), invalid argument`)
		}}
		bad := &cobra.Command{Use: "bad", RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("reading: %w", badinput.Errorf("invalid --top -1: want 0 (all) or a positive count"))
		}}
		root.AddCommand(req, odd, work, bad)
		finish(root, &IO{})
		return root
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"req"}, 2, `req: required flag(s) "to" not set`},
		{[]string{"req", "--to", "x", "--a", "--b"}, 2, "req: if any flags in the group [a b] are set none of the others can be"},
		{[]string{"req", "--to", "x"}, 0, ""},
		{[]string{"odd"}, 2, "odd: no (usage: latlab odd"},
		{[]string{"work"}, 3, "unknown command"},
		// A domain package's bad input, however wrapped, is exit 2.
		{[]string{"bad"}, 2, "reading: invalid --top -1: want 0 (all) or a positive count"},
	}
	for _, tc := range tests {
		code, errs := runTree(build(), tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d %q, want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// Every command that cannot run without arguments says in words what it
// needs.
func TestMissingArgumentSentences(t *testing.T) {
	root := NewRoot(&IO{})
	walk(root, func(c *cobra.Command) {
		if !c.Runnable() || c.Args == nil || c.Args(c, nil) == nil {
			return
		}
		if _, ok := missingArgs[c.CommandPath()]; !ok {
			t.Errorf("%s needs arguments but has no sentence in missingArgs", c.CommandPath())
		}
		code, _, errs := runCLI(t, strings.Fields(strings.TrimPrefix(c.CommandPath(), "latlab "))...)
		testutil.CheckBadExit(t, c.CommandPath()+" without arguments", code, errs, " needs ")
		if !strings.Contains(errs, "e.g. ") {
			t.Errorf("%s without arguments: %q gives no example", c.CommandPath(), errs)
		}
	})
	for path := range missingArgs {
		if c, _, err := root.Find(strings.Fields(path)[1:]); err != nil || c.CommandPath() != path {
			t.Errorf("missingArgs names %q, which is no command", path)
		}
	}
}
