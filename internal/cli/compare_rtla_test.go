package cli

import (
	"encoding/json"
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
	// The document names what the first side was read from: rtla's
	// output, not a cyclictest histogram (its compared_kind was
	// "cyclictest-histogram" before rtla sides had a kind of their own).
	hist := write("c.hist", "000004 20\n000005 20\n# Histogram Overflows: 00000\n")
	for _, c := range []struct {
		files []string
		kind  string
	}{{[]string{a, b}, "rtla-timerlat-histogram"}, {[]string{a, hist}, "rtla-timerlat-histogram"}, {[]string{hist, a}, "cyclictest-histogram"}} {
		code, out, errs := runCLI(t, append([]string{"compare", "--json"}, c.files...)...)
		var doc struct {
			Data struct {
				Kind     string `json:"compared_kind"`
				Quantity string `json:"quantity"`
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Data.Kind != c.kind || doc.Data.Quantity != "wake-up latency" {
			t.Errorf("%v: exit %d, compared_kind %q, quantity %q, want %q: %s", c.files, code, doc.Data.Kind, doc.Data.Quantity, c.kind, errs)
		}
	}
	bad := write("bad.rtla", head+"1          40         0\nover:         0         0\ncount:       41        40\n")
	code, _, errs = runCLI(t, "compare", a, bad)
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "\"count:\" says 41 samples in column IRQ-000") || !strings.Contains(errs, "accepted: rtla timerlat hist or rtla osnoise hist output") {
		t.Errorf("exit %d: %q", code, errs)
	}

	// An --on-end action's output that landed inside the histogram (rtla's
	// own output waits in stdio's buffer when stdout is a file; written
	// here in rtla's layout), and an ALL: section in osnoise output, which
	// rtla osnoise hist does not write: exit 2, one line each.
	inside := write("inside.rtla", head+"1          40         0\ndone\n4           0        20\n5           0        20\nover:         0         0\n")
	oall := write("all.osnoise", "# RTLA osnoise histogram\n# Time unit is microseconds (us)\nIndex   CPU-000\n1          40 \nover:        0 \ncount:      40 \nmin:        1 \navg:     1.00 \nmax:        1 \nALL:        CPU\ncount:      40 \n")
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{a, inside}, "inside.rtla: line 6: \"done\", neither a row"},
		{[]string{oall, oall}, "an \"ALL:\" section, which rtla osnoise hist does not write"},
	} {
		code, _, errs := runCLI(t, append([]string{"compare"}, c.files...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d: %q", c.files, code, errs)
		}
	}

	// rtla osnoise hist: compared per CPU, its rate not; refused against
	// a timerlat side; shown by latlab report.
	ohead := "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\nIndex   CPU-000\n"
	oa := write("a.osnoise", ohead+"1          40 \n2          20 \nover:        0 \ncount:      60 \nmin:        1 \navg:     1.33 \nmax:        2 \n")
	ob := write("b.osnoise", ohead+"1          50 \n3          10 \nover:        0 \ncount:      60 \nmin:        1 \navg:     1.33 \nmax:        3 \n")
	code, out, errs = runCLI(t, "compare", oa, ob)
	if code != 0 || !strings.Contains(out, "CPU 0: b.osnoise vs a.osnoise: 60 interruptions and 60 interruptions") || !strings.Contains(out, "(an rtla osnoise histogram records no runtime)") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, "compare", oa, a)
	if code != 2 || !strings.Contains(errs, "a.osnoise is an rtla osnoise histogram, of operating-system noise, and a.rtla an rtla timerlat histogram") {
		t.Errorf("against timerlat: exit %d: %q", code, errs)
	}
	page := filepath.Join(dir, "r.html")
	code, out, errs = runCLI(t, "report", oa, ob, "-o", page)
	if code != 0 || !strings.Contains(out, "wrote "+page+" (2 results, 4 plots,") {
		t.Fatalf("report: exit %d: %q\n%s", code, errs, out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "60 noise occurrences on CPU 0, each an osnoise:sample_threshold event") || !strings.Contains(string(html), "no rate: rtla osnoise hist records no thread&#39;s runtime") {
		t.Errorf("report: the page lacks the osnoise sections:\n%s", html)
	}
}
