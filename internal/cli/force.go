package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/latlab/latlab/internal/outfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlags are the flags, in any command, that name a file latlab
// writes. A test checks that every flag whose help says it writes a file is
// here (or deliberately not).
var outputFlags = []string{
	"output", "plot", "window-plot", "csv", "events", "raw",
	"histfile", "result", "reg-out", "etl", "html",
	"bundle",
}

// guardOutputs gives a command that writes files a --force flag and
// refuses, before the command does any work, to replace an existing file
// without it: `latlab report` writes report.html by default, and a second
// run, or a typo in -o, must not silently destroy an earlier result.
// With or without --force it refuses what latlab never writes
// (outfile.Check): a link, a FIFO or device (os.DevNull excepted), a
// missing directory, and, as root, a directory others could change.
// inputArgs annotates a command whose arguments are input files: the
// guard names a missing one before an output that exists.
const inputArgs = "latlab-input-args"

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
		if cmd.Annotations[inputArgs] != "" {
			// What is missing of the input is the first thing wrong,
			// before a report.html that the run would replace.
			for _, a := range args {
				if a == "-" {
					continue
				}
				if _, err := os.Stat(a); errors.Is(err, fs.ErrNotExist) {
					return Usagef("cannot read %s: no such file", a)
				}
			}
		}
		for _, f := range flags {
			if err := refuseOverwrite(f, *force); err != nil {
				return err
			}
		}
		return run(cmd, args)
	}
}

func refuseOverwrite(f *pflag.Flag, force bool) error {
	path := f.Value.String()
	if path == "" {
		return nil
	}
	if path == "-" {
		// Many tools read "-" as standard output; latlab would have
		// written a file named "-" in the current directory.
		msg := "--%s -: give a file name (\"-\" is not standard output here)"
		if f.Name == "output" {
			msg += "; --json writes the document to standard output"
		}
		return Usagef(msg, f.Name)
	}
	// outfile.Check looks at the path itself, not where a link leads: a
	// link (even dangling) or a FIFO is refused with or without --force.
	err := outfile.Check(path, force)
	if err == nil || !strings.HasSuffix(err.Error(), "add --force to overwrite it") {
		return err
	}
	how := "--" + f.Name
	if f.Shorthand != "" {
		how = "-" + f.Shorthand
	}
	return Usagef("%s exists: add --force to overwrite it, or give %s another file", path, how)
}
