package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// The examples of the README and of the guides in docs/ are meant to run
// as written from the root of a clone: every file a command reads is in
// the repository or written by another example, and the examples on the
// repository's fixtures print what the page shows.

// docPages are the pages whose examples and wording the tests check,
// from the repository root: README.md, then the hand-written guides in
// docs/ (the generated reference under docs/reference has no examples of
// its own: it is --help).
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir("../../docs", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "reference" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel("../..", p)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return pages
}

// readmeCommand is one "$ ..." line of a code block of a page (with its
// continuation lines) and the output shown under it, up to a "..." line,
// which cuts it short.
type readmeCommand struct {
	file string
	line int
	args []string
	out  []string
	cut  bool
}

func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	for _, page := range docPages(t) {
		cmds = append(cmds, pageCommands(t, page)...)
	}
	if len(cmds) < 50 {
		t.Fatalf("only %d commands found in README.md and docs/", len(cmds))
	}
	return cmds
}

func pageCommands(t *testing.T, page string) []readmeCommand {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", page))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []readmeCommand
	var cur *readmeCommand
	inBlock, indent := false, ""
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") {
			inBlock, cur = !inBlock, nil
			continue
		}
		if !inBlock {
			continue
		}
		if cmd, ok := strings.CutPrefix(l, "$ "); ok {
			// In a list item the block, output included, is indented.
			indent = lines[i][:strings.Index(lines[i], "$")]
			start := i + 1
			for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
			}
			cmds = append(cmds, readmeCommand{file: page, line: start, args: readmeWords(cmd)})
			cur = &cmds[len(cmds)-1]
			continue
		}
		if cur == nil || cur.cut {
			continue
		}
		if l == "..." {
			cur.cut = true
			continue
		}
		cur.out = append(cur.out, strings.TrimPrefix(lines[i], indent))
	}
	return cmds
}

// readmeWords splits a command line as sh would for these examples:
// blanks and ; separate words, quotes group them, and a # starts a
// comment.
func readmeWords(s string) []string {
	var out []string
	var w strings.Builder
	quote, started := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, started = r, true
		case r == '#' && !started:
			return out
		case r == ' ' || r == '\t' || r == ';':
			if started {
				out = append(out, w.String())
				w.Reset()
				started = false
			}
		default:
			w.WriteRune(r)
			started = true
		}
	}
	if started {
		out = append(out, w.String())
	}
	return out
}

// readmeOutputs are the flags that name a file (or, --png, a directory)
// latlab writes: the guarded ones and those of doctor and report.
func readmeOutputs() map[string]bool {
	m := map[string]bool{"-o": true, "--png": true, "--bundle": true, "--html": true}
	for _, f := range outputFlags {
		m["--"+f] = true
	}
	return m
}

// inputFile matches a word that names a file a command reads.
var inputFile = regexp.MustCompile(`\.(json|pcap|pcapng|txt|inf|golden|csv)$`)

// readmeExceptions are input files the README names on purpose without
// creating them, with the reason.
var readmeExceptions = map[string]string{
	"x.json": "latlab compare /dev/zero x.json stops at /dev/zero",
}

func TestREADMEInputFilesExist(t *testing.T) {
	outs := readmeOutputs()
	made := map[string]bool{} // files and directories the examples write
	var patterns []*regexp.Regexp
	wrote := func(w string) {
		if strings.Contains(w, "$") {
			// before/run$i.json in a loop
			q := regexp.QuoteMeta(w)
			patterns = append(patterns, regexp.MustCompile("^"+regexp.MustCompile(`\\\$\w+`).ReplaceAllString(q, `[^/]+`)+"$"))
			return
		}
		made[filepath.Clean(w)] = true
	}
	cmds := readmeCommands(t)
	inputs := make([][]string, len(cmds))
	// First what every example writes: an example on one page may read
	// what an example on another page wrote.
	for ci, c := range cmds {
		isMkdir := len(c.args) > 0 && c.args[0] == "mkdir"
		for i := 0; i < len(c.args); i++ {
			w := c.args[i]
			if v, ok := strings.CutPrefix(w, ">"); ok {
				if v == "" || v == ">" {
					if i+1 < len(c.args) {
						i++
						wrote(c.args[i])
					}
				} else {
					wrote(strings.TrimPrefix(v, ">"))
				}
				continue
			}
			if outs[w] && i+1 < len(c.args) {
				i++
				wrote(c.args[i])
				continue
			}
			if f, v, ok := strings.Cut(w, "="); ok && outs[f] {
				wrote(v)
				continue
			}
			if isMkdir && !strings.HasPrefix(w, "-") && w != "mkdir" {
				wrote(w)
				continue
			}
			if inputFile.MatchString(w) && !strings.HasPrefix(w, "-") {
				inputs[ci] = append(inputs[ci], w)
			}
		}
	}
	for ci, c := range cmds {
	next:
		for _, in := range inputs[ci] {
			if readmeExceptions[in] != "" || made[filepath.Clean(in)] {
				continue
			}
			for _, p := range patterns {
				if p.MatchString(in) {
					continue next
				}
			}
			path := in
			if !filepath.IsAbs(path) {
				path = filepath.Join("../..", in)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s:%d: %s reads %s, which is neither in the repository nor written by an example", c.file, c.line, strings.Join(c.args, " "), in)
			}
		}
	}
}

// The examples on the repository's fixtures print what the README shows.
// Files they write go to a temporary directory, and the README's names
// for them are put back into the output.
func TestREADMEFixtureExamplesOutput(t *testing.T) {
	var cmds []readmeCommand
	for _, c := range readmeCommands(t) {
		if len(c.args) > 1 && c.args[0] == "latlab" && strings.Contains(strings.Join(c.args, " "), "testdata/") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 6 {
		t.Fatalf("%d examples on fixtures, want the pcap, dpcisr, inf and input-cap ones", len(cmds))
	}
	outs := readmeOutputs()
	dir := testutil.TempDir(t)
	t.Chdir("../..")
	for _, c := range cmds {
		args := append([]string(nil), c.args[1:]...)
		var renames [][2]string
		for i := 0; i+1 < len(args); i++ {
			if !outs[args[i]] {
				continue
			}
			if filepath.Base(args[i+1]) == args[i+1] {
				// A bare name is written where the README's reader would
				// write it, so that lines naming it wrap as shown.
				name := args[i+1]
				os.Remove(name)
				t.Cleanup(func() { os.Remove(name) })
				continue
			}
			tmp := filepath.Join(dir, filepath.Base(args[i+1]))
			os.Remove(tmp)
			renames = append(renames, [2]string{tmp, args[i+1]})
			args[i+1] = tmp
		}
		_, out, errs := runCLI(t, args...)
		got := out + errs
		for _, r := range renames {
			got = strings.ReplaceAll(got, r[0], r[1])
		}
		// The pages show a build without VCS information ("dev"); a
		// binary built from a clone (-buildvcs) names its pseudo-version.
		if v := result.Version(); v != "dev" {
			got = strings.ReplaceAll(got, v, "dev")
		}
		gl := strings.Split(strings.TrimRight(got, "\n"), "\n")
		want := c.out
		for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
			want = want[:len(want)-1]
		}
		if c.cut && len(gl) > len(want) {
			gl = gl[:len(want)]
		}
		if strings.Join(gl, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d: latlab %s prints\n%s\nthe page shows\n%s", c.file, c.line, strings.Join(args, " "), strings.Join(gl, "\n"), strings.Join(want, "\n"))
		}
	}
}

// The `knob explain` examples of the pages print what latlab prints: an
// explanation depends on no system, so the page cannot keep an old one (a
// page once showed "NDIS DPCs ran longer at higher levels" after the
// explanation had changed).
func TestDocsKnobExplainExamplesOutput(t *testing.T) {
	n := 0
	for _, c := range readmeCommands(t) {
		if len(c.args) < 3 || c.args[0] != "latlab" || c.args[1] != "knob" || c.args[2] != "explain" || c.cut {
			continue
		}
		if len(c.args) > 3 && isRegFile(c.args[3]) {
			continue // a path from the repository's root: docexamples runs it there
		}
		n++
		_, out, errs := runCLI(t, c.args[1:]...)
		got := strings.TrimRight(out+errs, "\n")
		want := c.out
		for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
			want = want[:len(want)-1]
		}
		if got != strings.Join(want, "\n") {
			t.Errorf("%s:%d: latlab %s prints\n%s\nthe page shows\n%s", c.file, c.line, strings.Join(c.args[1:], " "), got, strings.Join(want, "\n"))
		}
	}
	if n < 3 {
		t.Fatalf("%d knob explain examples found", n)
	}
}
