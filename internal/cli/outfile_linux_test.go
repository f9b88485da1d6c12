package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

// The attacks of issue 26 on root's output files, against every output
// flag of every command (doctor --bundle's .zip included): a link to a
// victim with --force, a dangling link without it, a FIFO. Each is
// refused with exit 2 before the command works, the victim is intact, no
// file appears where a link pointed, and nothing hangs.
func TestEveryOutputFlagRefusesLinksAndFIFOs(t *testing.T) {
	dir := testutil.TempDir(t)
	victim := filepath.Join(dir, "victim")
	checked := map[string]bool{}
	walk(NewRoot(&IO{}), func(c *cobra.Command) {
		if !c.Runnable() {
			return
		}
		for _, name := range outputFlags {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			checked[name] = true
			base := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "latlab ")), placeholders(t, c, dir)...)
			ext := ".json"
			if name == "bundle" {
				ext = ".zip"
			}
			for _, attack := range []string{"link", "dangling", "fifo"} {
				if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "out-"+attack+ext)
				created := filepath.Join(dir, "created")
				os.Remove(out)
				os.Remove(created)
				args := append(append([]string{}, base...), "--"+name, out)
				want := "a symbolic link"
				switch attack {
				case "link":
					if err := os.Symlink(victim, out); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--force")
				case "dangling":
					if err := os.Symlink(created, out); err != nil {
						t.Fatal(err)
					}
				case "fifo":
					if err := unix.Mkfifo(out, 0o666); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--force")
					want = "a FIFO, not a regular file"
				}
				type res struct {
					code int
					errs string
				}
				done := make(chan res, 1)
				go func() {
					code, _, errs := runCLI(t, args...)
					done <- res{code, errs}
				}()
				var r res
				select {
				case r = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%q hangs", args)
				}
				testutil.CheckBadExit(t, fmt.Sprintf("%s %q", attack, args), r.code, r.errs, "refusing to write "+out+": it is "+want)
				if readFile(t, victim) != "precious" {
					t.Fatalf("%s %q: the victim was overwritten", attack, args)
				}
				if _, err := os.Lstat(created); err == nil {
					t.Fatalf("%s %q: the dangling link's target was created", attack, args)
				}
			}
		}
	})
	for _, n := range []string{"output", "bundle", "html", "histfile", "plot", "csv", "events", "raw", "reg-out", "result", "etl"} {
		if !checked[n] {
			t.Errorf("--%s not checked", n)
		}
	}
}

// report --png DIR used to overwrite a linked DIR/NAME.png: it refuses,
// with or without --force, before writing anything; an existing PNG needs
// --force.
func TestReportPNGDirRefusesLinks(t *testing.T) {
	dir := testutil.TempDir(t)
	t.Chdir(dir)
	if code, _, errs := runCLI(t, "sleep", "--samples", "3", "--gap", "0", "-o", "s.json"); code != 0 {
		t.Fatalf("sleep: exit %d: %s", code, errs)
	}
	if code, out, errs := runCLI(t, "report", "s.json", "-o", "first.html", "--png", "plots"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	} else if !strings.Contains(out, "PNG plot") {
		t.Fatalf("no PNG written: %s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join("plots", "*.png"))
	if len(pngs) == 0 {
		t.Fatal("no PNGs")
	}
	// An existing PNG needs --force.
	code, _, errs := runCLI(t, "report", "s.json", "-o", "second.html", "--png", "plots")
	testutil.CheckBadExit(t, "existing PNG", code, errs, "exists: add --force to overwrite it, or give --png another directory")
	if _, err := os.Stat("second.html"); err == nil {
		t.Errorf("the HTML was written before the PNGs were refused")
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pngs[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, pngs[0]); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"report", "s.json", "-o", "third.html", "--png", "plots"}
		if force {
			args = append(args, "--force")
		}
		// Without --force the PNGs beside it are refused first.
		code, _, errs := runCLI(t, args...)
		if code != 2 || force && !strings.Contains(errs, "is a symbolic link") {
			t.Errorf("%q: exit %d %q", args, code, errs)
		}
		if readFile(t, victim) != "precious" {
			t.Fatalf("%q: the victim was overwritten", args)
		}
	}
}
