package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/testutil"
)

// `latlab report` without -o writes report.html: a second run refuses to
// replace it until --force says so.
func TestReportKeepsExistingFile(t *testing.T) {
	dir := testutil.TempDir(t)
	t.Chdir(dir)
	if code, _, errs := runCLI(t, "sleep", "--samples", "3", "--gap", "0", "-o", "s.json"); code != 0 {
		t.Fatalf("sleep: exit %d: %s", code, errs)
	}
	if err := os.WriteFile("report.html", []byte("earlier report"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "report", "s.json")
	if code != 2 || errs != "latlab: report.html exists: add --force to overwrite it, or give -o another file\n" {
		t.Fatalf("exit %d: %q", code, errs)
	}
	if readFile(t, "report.html") != "earlier report" {
		t.Fatal("report.html was overwritten")
	}
	if code, _, errs := runCLI(t, "report", "s.json", "--force"); code != 0 || !strings.HasPrefix(readFile(t, "report.html"), "<!DOCTYPE html>") {
		t.Fatalf("--force: exit %d: %s", code, errs)
	}
	// The same for the result document of a measurement.
	code, _, errs = runCLI(t, "sleep", "--samples", "3", "--gap", "0", "-o", "s.json")
	testutil.CheckBadExit(t, "sleep -o over a file", code, errs, "s.json exists")
	// A device is not a file to keep.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("output", os.DevNull, "")
	if err := refuseOverwrite(fs.Lookup("output"), false); err != nil {
		t.Errorf("-o %s: %v", os.DevNull, err)
	}
	if runtime.GOOS == "linux" { // under Wine, os.WriteFile("NUL") fails: Invalid handle
		if code, _, errs := runCLI(t, "sleep", "--samples", "3", "--gap", "0", "-o", os.DevNull); code != 0 {
			t.Fatalf("sleep -o %s: exit %d: %s", os.DevNull, code, errs)
		}
	}
}

// Every flag that names an output file, in every command, refuses an
// existing file before the command starts, and the command has --force.
func TestEveryOutputFlagKeepsExistingFile(t *testing.T) {
	dir := testutil.TempDir(t)
	root := NewRoot(&IO{})
	checked := 0
	walk(root, func(c *cobra.Command) {
		if !c.Runnable() {
			return
		}
		for _, name := range outputFlags {
			f := c.Flags().Lookup(name)
			if f == nil {
				continue
			}
			if c.Flags().Lookup("force") == nil {
				t.Errorf("%s --%s: no --force", c.CommandPath(), name)
				continue
			}
			file := filepath.Join(dir, "existing")
			if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "latlab ")), placeholders(t, c, dir)...)
			args = append(args, "--"+name, file)
			code, _, errs := runCLI(t, args...)
			testutil.CheckBadExit(t, fmt.Sprintf("%q", args), code, errs, file+" exists: add --force")
			if readFile(t, file) != "keep" {
				t.Errorf("%q: the file was overwritten", args)
			}
			checked++
		}
	})
	if checked < 20 {
		t.Errorf("only %d output flags checked", checked)
	}
}

// placeholders are the fewest arguments c's validator accepts. Input
// files exist (an empty file in dir): the guard names a missing input
// before an output.
func placeholders(t *testing.T, c *cobra.Command, dir string) []string {
	t.Helper()
	arg := "x"
	if c.Annotations[inputArgs] != "" {
		arg = filepath.Join(dir, "input")
		if err := os.WriteFile(arg, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var args []string
	for c.Args != nil && c.Args(c, args) != nil && len(args) < 4 {
		args = append(args, arg)
	}
	return args
}

// A flag whose help says it writes a file is an output flag, or is one of
// the few that deliberately are not.
func TestOutputFlagsComplete(t *testing.T) {
	notFiles := map[string]string{
		"png":        "a directory; report names the files in it",
		"record-dir": "a directory; ui names the files in it by the time, and never replaces one",
		"force":      "this guard's own flag",
	}
	has := func(s string, words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
	}
	seen := map[string]bool{}
	walk(NewRoot(&IO{}), func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			u := strings.ToLower(f.Usage)
			if !has(u, "write", "plot", "keep") || !has(u, "file", ".svg", ".png", "path", "directory") {
				return
			}
			seen[f.Name] = true
			if !slices.Contains(outputFlags, f.Name) && notFiles[f.Name] == "" {
				t.Errorf("%s --%s (%q) writes a file but is not in outputFlags", c.CommandPath(), f.Name, f.Usage)
			}
		})
	})
	if len(seen) < 8 {
		t.Errorf("the rule recognises only %v", seen)
	}
}
