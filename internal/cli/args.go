package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// missingArgs says in words what a command needs when it is run without
// (enough) arguments, by command path. argsError uses it; a test checks that
// every command that requires an argument has a sentence here.
var missingArgs = map[string]string{
	"latlab dpcisr":         "dpcisr needs an xperf DPC/ISR report or an .etl trace, e.g. latlab dpcisr out.txt or latlab dpcisr trace.etl (latlab dpcisr capture writes a report)",
	"latlab etl":            "etl needs an .etl trace, e.g. latlab etl trace.etl (wpr -stop trace.etl writes one)",
	"latlab dpcisr compare": "dpcisr compare needs two or more reports (xperf text or dpc watch JSON), e.g. latlab dpcisr compare before.txt after.json",
	"latlab inf":            "inf needs a driver INF file, e.g. latlab inf e2f.inf",
	"latlab knob explain":   "knob explain needs a knob name (latlab knob list shows them), e.g. latlab knob explain win32-priority-separation 0x26",
	"latlab knob get":       "knob get needs a knob name (latlab knob list shows them), e.g. latlab knob get timer-slack",
	"latlab knob set":       "knob set needs a knob name and a value, e.g. latlab knob set win32-priority-separation 0x26 --dry-run",
	"latlab pcap dscp":      "pcap dscp needs a capture file (.pcap or .pcapng), e.g. latlab pcap dscp capture.pcapng",
	"latlab pcap tcp":       "pcap tcp needs a capture file (.pcap or .pcapng), e.g. latlab pcap tcp capture.pcapng",
	"latlab report":         "report needs at least one result file, e.g. latlab report sleep.json -o report.html",
	"latlab timer set":      "timer set needs a resolution, e.g. 1ms: latlab timer set 1ms",
	"latlab try":            "try needs a knob and at least one value to try against the current one, e.g. latlab try timer-slack 1us --probe sleep",
}

// placeholderArg stands for an argument the user did not give when a
// command's validator is asked whether more arguments would satisfy it.
const placeholderArg = "x"

// wrapArgs makes every rejection of c's arguments a UsageError that says
// what is wrong in words, whatever the validator's message: a missing
// argument (missingArgs), an unknown subcommand (with the nearest names),
// too many arguments. A command without a validator gets cobra's default
// made explicit, so that cobra never rejects arguments on its own (with
// an untyped error) while finding the command.
func wrapArgs(c *cobra.Command) {
	orig := c.Args
	if orig == nil {
		orig = cobra.ArbitraryArgs
		if c.HasSubCommands() {
			orig = cobra.NoArgs
		}
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := orig(cmd, args); err != nil {
			return argsError(cmd, orig, args, err)
		}
		return nil
	}
}

func argsError(c *cobra.Command, valid cobra.PositionalArgs, args []string, err error) error {
	if more := acceptsMore(c, valid, args); more {
		if s, ok := missingArgs[c.CommandPath()]; ok {
			return Usagef("%s", s)
		}
		return Usagef("%s needs more arguments: %s", name(c), c.UseLine())
	}
	if n, ok := mostAccepted(c, valid, args); ok {
		extra := quoteAll(args[n:])
		if n == 0 && c.HasAvailableSubCommands() {
			return unknownCommand(c, args[0])
		}
		if n == 0 {
			return Usagef("%s takes no arguments, got %s", name(c), extra)
		}
		return Usagef("%s takes at most %d argument%s, got %d (unexpected: %s): %s",
			name(c), n, plural(n), len(args), extra, c.UseLine())
	}
	return Usagef("%s: %s (usage: %s)", name(c), oneLine(err.Error()), c.UseLine())
}

// acceptsMore reports whether adding arguments (up to 3) would satisfy the
// validator: the arguments given are too few.
func acceptsMore(c *cobra.Command, valid cobra.PositionalArgs, args []string) bool {
	more := append([]string(nil), args...)
	for range 3 {
		more = append(more, placeholderArg)
		if valid(c, more) == nil {
			return true
		}
	}
	return false
}

// mostAccepted is the largest number of the given arguments the validator
// accepts, when dropping some satisfies it: the arguments are too many.
func mostAccepted(c *cobra.Command, valid cobra.PositionalArgs, args []string) (int, bool) {
	for n := len(args) - 1; n >= 0; n-- {
		if valid(c, args[:n]) == nil {
			return n, true
		}
	}
	return 0, false
}

// unknownCommand names the nearest subcommands of c, or lists them.
func unknownCommand(c *cobra.Command, arg string) error {
	if s := nearest(c, arg); len(s) > 0 {
		return Usagef("unknown command %q for %s; did you mean %s?", arg, name(c), strings.Join(s, " or "))
	}
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	sort.Strings(names)
	if len(names) > 8 {
		return Usagef("unknown command %q for %s (see '%s --help')", arg, name(c), c.CommandPath())
	}
	return Usagef("unknown command %q for %s: the commands are %s", arg, name(c), strings.Join(names, ", "))
}

// nearest are the subcommands of c closest to a mistyped name: those it
// begins, else those the fewest edits (at most 2) away. cobra suggests
// both up to a distance; asking for 0, then 1, then 2 keeps the nearest.
func nearest(c *cobra.Command, typed string) []string {
	defer func(d int) { c.SuggestionsMinimumDistance = d }(c.SuggestionsMinimumDistance)
	c.Commands() // sorts them by name, the order suggestions come in
	for d := range 3 {
		c.SuggestionsMinimumDistance = d
		if s := c.SuggestionsFor(typed); len(s) > 0 {
			return s
		}
	}
	return nil
}

// name is the command as the user typed it after "latlab", or "latlab".
func name(c *cobra.Command) string {
	if !c.HasParent() {
		return c.Name()
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checkRequiredFlags runs cobra's checks of required flags and flag groups
// before cobra does, so that their errors arrive as UsageErrors. It is
// chained in front of c's own pre-run.
func checkRequiredFlags(c *cobra.Command) {
	preE, pre := c.PreRunE, c.PreRun
	c.PreRun = nil
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return Usagef("%s: %s (see '%s --help')", name(cmd), oneLine(err.Error()), cmd.CommandPath())
		}
		if err := cmd.ValidateFlagGroups(); err != nil {
			return Usagef("%s: %s (see '%s --help')", name(cmd), oneLine(err.Error()), cmd.CommandPath())
		}
		if err := checkRoot(cmd); err != nil {
			return err
		}
		if preE != nil {
			return preE(cmd, args)
		}
		if pre != nil {
			pre(cmd, args)
		}
		return nil
	}
}

// checkRoot refuses a --root (the tests' fixture trees) that is not a
// directory: every read below it would fail, and each reader would then
// report its file absent and not shown ("vm.swappiness is not in this
// tree"), an answer about the tree where the input was wrong.
func checkRoot(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("root")
	if f == nil || !f.Changed {
		return nil
	}
	why := "not a directory"
	fi, err := os.Stat(f.Value.String())
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		why = pe.Err.Error()
	} else if err != nil {
		why = err.Error()
	} else if fi.IsDir() {
		return nil
	}
	return Usagef("--root %s: %s (a directory holding proc/ and sys/ is accepted)", f.Value.String(), why)
}
