package docexamples

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/cli"
)

// Every command line the documentation shows after "$ latlab" names a
// command that exists and flags that command takes, with values its flags
// parse: the examples whose output depends on the machine cannot be
// compared (TestExamplesShowWhatTheCommandPrints runs the others), but a
// renamed command or flag makes each page that still shows the old one
// fail here. What the command would then check (files, privileges, the
// flags' combination) is not judged: the line is parsed, not run.
func TestEveryDocumentedCommandLineParses(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// The reference pages are generated from the command tree.
		if d.IsDir() && d.Name() == "reference" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, line := range commandLines(string(b)) {
			n++
			if ranHere(line) {
				continue // run and compared by TestExamplesShowWhatTheCommandPrints
			}
			if err := parses(line); err != nil && !mention(line, err) {
				t.Errorf("%s: $ %s: %v", rel, line, err)
			}
		}
	}
	t.Logf("%d command lines in %d pages", n, len(pages))
	// The pages hold hundreds; far fewer means the scan broke.
	if n < 200 {
		t.Errorf("found %d command lines in %d pages", n, len(pages))
	}
}

// commandLines are the command lines of the pages' code blocks: the
// lines that start with "$ latlab", and in a block without "$ " lines
// (a block of commands, no output) those that start with "latlab " and
// are no output line ("latlab: ...", "latlab try timer-slack: ...").
// Each is joined with its continuation lines, without the "$ " and
// without what a shell would take from it (a pipe, a redirection, a
// comment).
func commandLines(page string) []string {
	var out []string
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			j++
		}
		block := lines[i+1 : min(j, len(lines))]
		dollar := false
		for _, l := range block {
			dollar = dollar || strings.HasPrefix(l, "$ ")
		}
		for k := 0; k < len(block); k++ {
			l := strings.TrimSpace(block[k])
			switch {
			case strings.HasPrefix(l, "$ latlab ") || l == "$ latlab":
				l = strings.TrimPrefix(l, "$ ")
			case !dollar && strings.HasPrefix(l, "latlab ") && !outputLine(l):
			default:
				continue
			}
			for strings.HasSuffix(l, "\\") && k+1 < len(block) {
				k++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(block[k])
			}
			for _, cut := range []string{" | ", " > ", " 2>", " >/", " #", " && ", " ; ", " &"} {
				if i := strings.Index(l, cut); i >= 0 {
					l = l[:i]
				}
			}
			out = append(out, strings.TrimSpace(l))
		}
		i = j
	}
	// Inline code in the prose: `latlab wake --explain`.
	for _, m := range inline.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// inline is a code span that holds a latlab command line.
var inline = regexp.MustCompile("`(latlab(?: [^`\n]*)?)`")

// outputLine says whether a line that starts with "latlab" is what latlab
// prints: a colon ends one of its first words.
func outputLine(l string) bool {
	f := strings.Fields(l)
	for _, w := range f[:min(4, len(f))] {
		if strings.HasSuffix(w, ":") {
			return true
		}
	}
	return false
}

// parses finds the line's command in latlab's command tree and parses its
// flags.
func parses(line string) error {
	args, err := split(strings.TrimPrefix(strings.TrimPrefix(line, "latlab"), " "))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	rootCmd := cli.NewRoot(&cli.IO{Out: &buf, Err: &buf})
	cmd, rest, err := rootCmd.Find(args)
	if err != nil {
		return err
	}
	// A word left that is no argument of a command without arguments is
	// a subcommand that does not exist.
	if cmd.HasSubCommands() && !cmd.Runnable() {
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				return &unknown{cmd.CommandPath(), a}
			}
		}
	}
	return cmd.ParseFlags(rest)
}

type unknown struct{ parent, word string }

func (u *unknown) Error() string { return u.parent + " has no subcommand " + u.word }

// mention says whether line, refused for err, is prose naming a command
// or flag rather than a command to run: it asks for help, ends with a
// flag whose value the prose gives, or holds a placeholder (FILE, D).
func mention(line string, err error) bool {
	if errors.Is(err, pflag.ErrHelp) {
		return true
	}
	f := strings.Fields(line)
	if strings.Contains(err.Error(), "flag needs an argument") && strings.HasPrefix(f[len(f)-1], "--") {
		return true
	}
	for _, w := range f {
		if placeholder.MatchString(w) {
			return true
		}
	}
	return false
}

var placeholder = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// ranHere says whether the examples test runs line (an example may show a
// mistake and latlab's answer to it).
func ranHere(line string) bool {
	for _, p := range pinned {
		if p.command == strings.TrimPrefix(line, "$ ") {
			return true
		}
	}
	return false
}
