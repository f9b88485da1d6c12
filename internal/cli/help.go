package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/textwrap"
)

// helpWidth is the width every line of --help fits in, whatever the
// terminal: the help reads the same everywhere and in docs/reference.
const helpWidth = 80

// setHelp makes --help, and the usage of every command, fit helpWidth
// columns with no trailing spaces: long descriptions, command summaries and
// flag usages wrap with a hanging indent, long examples are continued with
// a backslash (a comment after one moves to the line above). It is cobra's
// layout otherwise.
func setHelp(root *cobra.Command) {
	root.SetUsageFunc(func(c *cobra.Command) error {
		writeUsage(c.OutOrStderr(), c)
		return nil
	})
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		desc := c.Long
		if desc == "" {
			desc = c.Short
		}
		if desc = strings.TrimRight(desc, " \t\n"); desc != "" {
			for _, l := range strings.Split(desc, "\n") {
				writeLines(w, wrapProse(l, helpWidth))
			}
			fmt.Fprintln(w)
		}
		if c.Runnable() || c.HasSubCommands() {
			writeUsage(w, c)
		}
	})
}

func writeUsage(w io.Writer, c *cobra.Command) {
	fmt.Fprint(w, "Usage:\n")
	if c.Runnable() {
		writeLines(w, textwrap.Hanging("  "+c.UseLine(), 4, helpWidth))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s [command]\n", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(w, "\nAliases:\n  %s\n", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprint(w, "\nExamples:\n")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			writeLines(w, wrapExample(l, helpWidth))
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprint(w, "\nAvailable Commands:\n")
		pad := 0
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				pad = max(pad, len(s.Name()))
			}
		}
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				line := fmt.Sprintf("  %-*s  %s", pad, s.Name(), s.Short)
				writeLines(w, textwrap.Hanging(line, pad+4, helpWidth))
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprint(w, "\nFlags:\n")
		writeFlagUsages(w, c.LocalFlags().FlagUsagesWrapped(helpWidth))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprint(w, "\nGlobal Flags:\n")
		writeFlagUsages(w, c.InheritedFlags().FlagUsagesWrapped(helpWidth))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
}

// writeFlagUsages writes pflag's wrapped flag table; a line pflag could not
// wrap (one long word) is wrapped here with its hanging indent.
func writeFlagUsages(w io.Writer, s string) {
	for _, l := range strings.Split(strings.TrimRight(s, " \n"), "\n") {
		writeLines(w, textwrap.Hanging(l, usageColumn(l), helpWidth))
	}
}

// usageColumn is where the description starts in a line "  -o, --output
// string   text" (after the first run of spaces past the flag), or, in a
// continuation line, the line's indent.
func usageColumn(l string) int {
	trimmed := strings.TrimLeft(l, " ")
	lead := len(l) - len(trimmed)
	if !strings.HasPrefix(trimmed, "-") {
		return lead
	}
	i := strings.Index(l[lead:], "   ")
	if i < 0 {
		return lead + 4
	}
	j := lead + i
	for j < len(l) && l[j] == ' ' {
		j++
	}
	return j
}

func writeLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
}

func width(s string) int { return text.StringWidthWithoutEscSequences(s) }

// wrapProse wraps a line of description text at spaces, continuing at its
// own indent (past a "- " list marker).
func wrapProse(l string, max int) []string {
	indent := len(l) - len(strings.TrimLeft(l, " "))
	if rest := l[indent:]; strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "* ") {
		indent += 2
	}
	return textwrap.Hanging(l, indent, max)
}

// wrapExample fits an example command line: a trailing "# comment" moves to
// a line of its own above the command, and a command still too long is
// continued with " \" between shell words (never inside quotes), as bash,
// zsh and fish read it.
func wrapExample(l string, max int) []string {
	l = strings.TrimRight(l, " ")
	if width(l) <= max {
		return []string{l}
	}
	lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
	var out []string
	if i := strings.Index(l, "  #"); i > 0 && !inQuotes(l[:i]) {
		out = append(out, lead+strings.TrimSpace(l[i:]))
		l = strings.TrimRight(l[:i], " ")
		if width(l) <= max {
			return append(out, l)
		}
	}
	// A flag and its value stay on one line.
	var words []string
	for _, wd := range shellWords(strings.TrimSpace(l)) {
		if n := len(words); n > 1 && strings.HasPrefix(words[n-1], "-") && !strings.Contains(words[n-1], " ") &&
			!strings.HasPrefix(wd, "-") {
			words[n-1] += " " + wd
			continue
		}
		words = append(words, wd)
	}
	cont := lead + "    "
	cur := lead + words[0]
	for _, wd := range words[1:] {
		if width(cur)+1+width(wd)+2 > max {
			out = append(out, cur+" \\")
			cur = cont + wd
			continue
		}
		cur += " " + wd
	}
	return append(out, cur)
}

// shellWords splits a command line at the spaces outside quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

func inQuotes(s string) bool {
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		}
	}
	return quote != 0
}
