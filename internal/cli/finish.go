package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// finish applies latlab's conventions to every command once the tree is
// built, so that no command file has to: typed usage errors for flags,
// arguments and required flags, the sentences that say what is missing,
// --force before an output file is replaced, help that fits 80 columns,
// and the completion of flag and argument values.
func finish(root *cobra.Command, io *IO) {
	root.InitDefaultCompletionCmd()
	setHelp(root)
	walk(root, func(c *cobra.Command) {
		c.SetFlagErrorFunc(flagError)
		if c.HasSubCommands() {
			if !c.Runnable() {
				c.RunE = needSubcommand
			}
		}
		wrapArgs(c)
		registerCompletions(c)
		if c.Runnable() {
			checkRequiredFlags(c)
			guardOutputs(c)
		}
	})
}

// walk calls f on c and every command below it.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, s := range c.Commands() {
		walk(s, f)
	}
}

// needSubcommand runs a command that only groups others (cobra would print
// its help and exit 0): it is bad input, named as such.
func needSubcommand(c *cobra.Command, _ []string) error {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	sort.Strings(names)
	return Usagef("%s needs a subcommand: %s", name(c), strings.Join(names, ", "))
}
