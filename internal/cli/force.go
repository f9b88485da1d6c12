package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlags are the flags, in any command, that name a file latlab
// writes. A test checks that every flag whose help says it writes a file is
// here (or deliberately not).
var outputFlags = []string{
	"output", "plot", "graph", "window-graph", "csv", "events", "raw",
	"histfile", "result", "reg-out", "etl", "html",
}

// guardOutputs gives a command that writes files a --force flag and
// refuses, before the command does any work, to replace an existing file
// without it: `latlab report` writes report.html by default, and a second
// run, or a typo in -o, must not silently destroy an earlier result.
// Devices such as /dev/null and directories are left to the command.
func guardOutputs(c *cobra.Command) {
	var flags []*pflag.Flag
	for _, n := range outputFlags {
		if f := c.Flags().Lookup(n); f != nil && f.Value.Type() == "string" {
			flags = append(flags, f)
		}
	}
	if len(flags) == 0 || c.RunE == nil || c.Flags().Lookup("force") != nil {
		return
	}
	force := c.Flags().Bool("force", false, "overwrite output files that exist")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if !*force {
			for _, f := range flags {
				if err := refuseOverwrite(f); err != nil {
					return err
				}
			}
		}
		return run(cmd, args)
	}
}

func refuseOverwrite(f *pflag.Flag) error {
	path := f.Value.String()
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	how := "--" + f.Name
	if f.Shorthand != "" {
		how = "-" + f.Shorthand
	}
	return Usagef("%s exists: add --force to overwrite it, or give %s another file", path, how)
}
