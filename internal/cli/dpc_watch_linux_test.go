package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// On Linux the watch traces softirqs and hard interrupts through tracefs
// and writes the same dpcisr document as on Windows: dpcisr, dpcisr
// compare and report read it.
func TestDPCWatchLinux(t *testing.T) {
	testutil.NeedRoot(t)
	dir := testutil.TempDir(t)
	a, b, page := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "a.html")
	code, out, errs := runCLI(t, "dpc", "watch", "--duration", "1s", "-o", a, "--html", page)
	if code != 0 || !strings.Contains(out, "softirqs and") || !strings.Contains(out, "hardirq by longest execution") ||
		!strings.Contains(out, "LOC (local_timer)") || !strings.Contains(out, "verdict: ") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("wider than 80 columns: %q", l)
		}
	}
	if code, out, errs = runCLI(t, "dpc", "watch", "--duration", "1s", "--quiet", "--cpus", "0", "-o", b); code != 0 {
		t.Fatalf("--cpus 0: exit %d %s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "dpcisr", a)
	if code != 0 || !strings.Contains(out, "tracefs trace of latlab dpc watch") || !strings.Contains(out, "== softirq") || !strings.Contains(out, "== hardirq") {
		t.Errorf("dpcisr: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "dpcisr", "compare", a, b)
	if code != 0 || !strings.Contains(out, "== hardirq") {
		t.Errorf("dpcisr compare: exit %d\n%s%s", code, out, errs)
	}
	if st, err := os.Stat(page); err != nil || st.Size() < 1000 {
		t.Errorf("--html: %v", err)
	}
	if code, out, errs = runCLI(t, "report", a, "-o", filepath.Join(dir, "r.html")); code != 0 {
		t.Errorf("report: exit %d %s%s", code, out, errs)
	}
	code, _, errs = runCLI(t, "dpc", "watch", "--cpus", "999")
	testutil.CheckBadExit(t, "--cpus 999", code, errs, "invalid --cpus")
}
