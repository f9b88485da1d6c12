package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// writeHist writes a one-thread cyclictest -h histogram: n samples at
// each of the buckets from, from+1, ... (width of them), over in all.
func writeHist(t *testing.T, dir, name string, buckets, from, width int, n, over int64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# /dev/cpu_dma_latency set to 0us\n# Histogram\n")
	var total int64
	for i := range buckets {
		c := int64(0)
		if i >= from && i < from+width {
			c = n
		}
		total += c
		fmt.Fprintf(&b, "%06d %06d\n", i, c)
	}
	fmt.Fprintf(&b, "# Total: %09d\n# Min Latencies: %05d\n# Avg Latencies: %05d\n# Max Latencies: %05d\n# Histogram Overflows: %05d\n# Histogram Overflow at cycle number:\n# Thread 0:\n",
		total, from, from, buckets+10, over)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Histograms are read by content, compared as independent samples, and
// what their overflows hide is shown as not known, in the text and the
// document.
func TestCompareCyclictestHistograms(t *testing.T) {
	dir := testutil.TempDir(t)
	a := writeHist(t, dir, "a.hist", 100, 20, 10, 100, 20) // 1000 in range, 2% over
	b := writeHist(t, dir, "b.hist", 100, 25, 10, 100, 0)
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"A = a.hist (1020 samples; cyclictest histogram, 1 thread column; order unknown,",
		"? p99: not known: a.hist has 20 of 1020 values (2%) at or above 100 µs,",
		"? mean: not known:",
		"keeps no order of its 1020 wake-ups",
		"the intervals may then be too narrow",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "lag-1 autocorrelation") {
		t.Errorf("a serial analysis of sorted data:\n%s", out)
	}
	code, out, errs = runCLI(t, "compare", a, b, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var doc struct {
		Data struct {
			Kind     string `json:"compared_kind"`
			Censored int64  `json:"censored_at_ns"`
			Runs     []map[string]any
			Pairs    []struct {
				Rows []map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Data.Runs[0]
	if doc.Data.Kind != "cyclictest-histogram" || doc.Data.Censored != 100_000 || r["order_unknown"] != true || r["serial"] != nil || r["source"] != "cyclictest histogram, 1 thread column" {
		t.Errorf("document: kind %q censored %d run %v", doc.Data.Kind, doc.Data.Censored, r)
	}
	if row := doc.Data.Pairs[0].Rows[2]; row["stat"] != "p99" || row["a"] != -1.0 || row["diff"] != nil || !strings.HasPrefix(row["unknown"].(string), "p99: not known") {
		t.Errorf("p99 row %v", row)
	}
}

func TestCompareCyclictestBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	a := writeHist(t, dir, "a.hist", 100, 20, 10, 100, 0)
	bad := filepath.Join(dir, "bad.hist")
	if err := os.WriteFile(bad, []byte("000000 1\n000000 2\n# Histogram Overflows: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := writeHist(t, dir, "big.hist", 100, 20, 10, 100_000, 0) // a million samples
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a, bad}, "latlab: " + bad + ": line 2: latency 0 after 0 (rows must increase) (accepted: a cyclictest histogram"},
		{[]string{"compare", a, big, "--max-input-size", "1KiB"}, "more than the 1 KiB cap on input files (--max-input-size raises it)"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: more than one line on stderr: %q", c.args, errs)
		}
	}
	// Two histograms are compared from their buckets, not rebuilt: the
	// budget of rebuilt samples (1 MiB / 128 bytes = 8192) does not
	// bound them.
	if code, _, errs := runCLI(t, "compare", a, big, "--max-input-size", "1MiB"); code != 0 {
		t.Errorf("a million samples against --max-input-size 1MiB: exit %d: %s", code, errs)
	}
}
