package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// rtla timerlat hist output is read by content and compared by its Thr
// columns; output it cannot read is exit 2, in one line saying what it
// takes.
func TestCompareTimerlat(t *testing.T) {
	dir := testutil.TempDir(t)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := "# RTLA timerlat histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex   IRQ-000   Thr-000\n"
	a := write("a.rtla", head+"1          40         0\n4           0        20\n5           0        20\nover:         0         0\ncount:       40        40\nmin:          1         4\navg:          1         4\nmax:          1         5\n")
	b := write("b.rtla", head+"1          40         0\n6           0        20\n7           0        20\nover:         0         0\ncount:       40        40\nmin:          1         6\navg:          1         6\nmax:          1         7\n")
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "rtla timerlat histogram, Thr columns of 1 CPU pooled") || !strings.Contains(out, "not compared: its IRQ columns") {
		t.Errorf("output:\n%s", out)
	}
	bad := write("bad.rtla", head+"1          40         0\nover:         0         0\ncount:       41        40\n")
	code, _, errs = runCLI(t, "compare", a, bad)
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "\"count:\" says 41 samples in column IRQ-000") || !strings.Contains(errs, "accepted: rtla timerlat hist output") {
		t.Errorf("exit %d: %q", code, errs)
	}
}
