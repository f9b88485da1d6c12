// Package refdoc writes latlab's reference from its command tree: a
// Markdown page per command (docs/reference/, checked in), a man page per
// command, and the shell completions (both made at release time). All of
// it comes from the same cobra commands that print --help, so it cannot
// say something the binary does not; nothing in it depends on the clock
// or the machine, so the same commit gives the same bytes.
package refdoc

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/latlab/latlab/internal/cli"
)

// MarkdownDir is where the checked-in reference of the running OS's build
// lives, from the module root: the commands' help differs by OS (the
// sleep methods, timer resolution or timer slack, their defaults), so
// each OS's build writes and checks its own (docs/reference/linux,
// docs/reference/windows).
const MarkdownDir = "docs/reference/" + runtime.GOOS

// Regenerate is the command that rewrites MarkdownDir: the Windows pages
// are written by the Windows build, on Windows or under Wine.
var Regenerate = map[string]string{
	"linux":   "go run ./scripts/docgen",
	"windows": "GOOS=windows go run -exec scripts/wine/exec ./scripts/docgen",
}[runtime.GOOS]

var osName = map[string]string{"linux": "Linux", "windows": "Windows"}[runtime.GOOS]

// tree builds the command tree as the binary does, with nothing of this
// machine in it, and marks every command so that cobra adds no
// "auto generated on <date>" line.
func tree() *cobra.Command {
	root := cli.NewRoot(&cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard, Root: "/"})
	var mark func(*cobra.Command)
	mark = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			mark(s)
		}
	}
	mark(root)
	return root
}

// Markdown writes a page per command into dir (which must exist), named
// as cobra names them (latlab_timer_set.md), and an index, README.md.
// Hidden commands (the completion internals) get no page, as cobra
// decides.
func Markdown(dir string) error {
	root := tree()
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("writing the Markdown reference: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# latlab command reference (%s)\n\n", osName)
	fmt.Fprintf(&b, "The text of `latlab <command> --help` as latlab for %s prints it,\n", osName)
	b.WriteString("generated from the command tree. Do not edit these pages: change the\n")
	fmt.Fprintf(&b, "command and regenerate them with `%s`", Regenerate)
	if runtime.GOOS == "windows" {
		b.WriteString(" (under Wine;\non Windows, `go run ./scripts/docgen`)")
	}
	b.WriteString("; a test fails when they are\nstale.\n\n")
	var list func(c *cobra.Command, depth int)
	list = func(c *cobra.Command, depth int) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		base := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		fmt.Fprintf(&b, "%s- [%s](%s): %s\n", strings.Repeat("  ", depth), c.CommandPath(), base, c.Short)
		for _, s := range c.Commands() {
			list(s, depth+1)
		}
	}
	list(root, 0)
	return os.WriteFile(filepath.Join(dir, "README.md"), b.Bytes(), 0o644)
}

// Man writes a man page per command into dir (which must exist):
// latlab.1, latlab-timer.1, latlab-timer-set.1 and so on, dated date and
// naming version as their source, gzip-compressed with no name and no
// time stamp in the header (gzip -9n, as Debian policy asks) when gz.
func Man(dir string, date time.Time, version string, gz bool) error {
	root := tree()
	header := &doc.GenManHeader{
		Section: "1",
		Date:    &date,
		Source:  strings.TrimSpace("latlab " + version),
		Manual:  "latlab manual",
	}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("writing the man pages: %w", err)
	}
	if !gz {
		return nil
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := gzipFile(p); err != nil {
			return err
		}
	}
	return nil
}

// ManPages are the names of the files Man writes with gz: one per
// command that cobra writes a page for.
func ManPages() []string {
	var names []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			return
		}
		names = append(names, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1.gz")
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(tree())
	sort.Strings(names)
	return names
}

// gzipFile replaces p by p.gz, compressed at the best level with an empty
// header (no file name, no modification time).
func gzipFile(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	w, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(p+".gz", out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Remove(p)
}

// Shells are the shells `latlab completion` writes a script for, and the
// file each script is written to by Completions: the names the packages
// install them under (bash-completion and fish find a command's script by
// the command's name, zsh by _name).
var Shells = []struct{ Shell, File string }{
	{"bash", "latlab.bash"},
	{"zsh", "_latlab"},
	{"fish", "latlab.fish"},
	{"powershell", "latlab.ps1"},
}

// Completions writes what `latlab completion <shell>` prints, for each of
// Shells, into dir (which must exist).
func Completions(dir string) error {
	for _, s := range Shells {
		var out, errs bytes.Buffer
		io := &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errs, Root: "/"}
		if code := cli.Run(context.Background(), []string{"completion", s.Shell}, io); code != 0 {
			return fmt.Errorf("latlab completion %s: exit %d: %s", s.Shell, code, strings.TrimSpace(errs.String()))
		}
		if err := os.WriteFile(filepath.Join(dir, s.File), out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
