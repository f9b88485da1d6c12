package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/testutil"
)

// Readers of result documents are bounded: a device is refused unless
// allowed, a file above --max-input-size is refused naming the flag, and
// each run starts from the default limits.
func TestInputLimits(t *testing.T) {
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 300, 1.5e6, 2e4, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 300, 1.0e6, 2e4, 2, 1e6)
	for _, c := range []struct {
		args []string
		want string // "" for a run that succeeds
	}{
		{[]string{"compare", os.DevNull, a}, "latlab: cannot read " + os.DevNull + ": a character device, not a regular file (--allow-special-files reads it)\n"},
		{[]string{"report", os.DevNull, "-o", dir + "/r.html"}, "not a regular file (--allow-special-files reads it)"},
		{[]string{"dpcisr", os.DevNull}, "not a regular file (--allow-special-files reads it)"},
		{[]string{"dpcisr", "compare", dir, a}, "a directory, not a file"},
		{[]string{"inf", os.DevNull}, "not a regular file (--allow-special-files reads it)"},
		{[]string{"compare", "--allow-special-files", os.DevNull, a}, "not a latlab result document: empty input"},
		{[]string{"compare", a, b, "--max-input-size", "1KiB"}, "more than the 1 KiB cap on input files (--max-input-size raises it)\n"},
		// (compare and report take a directory as a group of results)
		{[]string{"inf", dir}, "a directory, not a file"},
		// etl reads the trace in its own package: the same errors, exit 2
		{[]string{"etl", os.DevNull}, "latlab: cannot read " + os.DevNull + ": a character device, not a regular file (--allow-special-files reads it)\n"},
		{[]string{"etl", dir}, "latlab: cannot read " + dir + ": a directory, not a file\n"},
		{[]string{"etl", filepath.Join(dir, "none.etl")}, "latlab: cannot read " + filepath.Join(dir, "none.etl") + ": "},
		{[]string{"etl", a}, "latlab: " + a + ": not an .etl trace"},
		{[]string{"compare", a, b, "--max-input-size", "-1"}, `invalid value "-1" for --max-input-size`},
		{[]string{"compare", a, b, "--max-input-size", "1MiB"}, ""},
		{[]string{"compare", a, b}, ""},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: more than one line on stderr: %q", c.args, errs)
		}
	}
	if infile.Max() != infile.DefaultMax || infile.AllowSpecial() {
		t.Errorf("limits leak past a run: %d %v", infile.Max(), infile.AllowSpecial())
	}
}

// A report that is UTF-8 up to a byte that is not is Windows-1252 as a
// whole; reading it line by line, dpcisr must go back to the start of
// the file it opened to read it so.
func TestDPCISRLateANSI(t *testing.T) {
	p := filepath.Join(testutil.TempDir(t), "r.txt")
	in := "DPC Info\nPilote réseau\nTotal = 1 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 1, or 100.00%\nTotal, 1\nfin \xe9\n"
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "dpcisr", p, "--json")
	if code != 0 || !strings.Contains(out, `"encoding": "windows-1252"`) || !strings.Contains(out, `"label": "Pilote rÃ©seau"`) {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
}
