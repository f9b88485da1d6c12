package irq

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

var updateReal = flag.Bool("update", false, "rewrite testdata/real/*/*.golden from what the parsers read")

// realFiles are the /proc/interrupts and /proc/softirqs files captured on
// real machines and kept in testdata/real (each folder beside its
// licence; where they come from is in testdata/PROVENANCE).
func realFiles(t testing.TB) []string {
	paths, err := filepath.Glob("testdata/real/*/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		b := filepath.Base(p)
		if (strings.HasPrefix(b, "interrupts") || strings.HasPrefix(b, "softirqs")) && filepath.Ext(b) != ".golden" {
			out = append(out, p)
		}
	}
	return out
}

// Each real file is read as the golden file beside it says: the CPU
// columns, then every row with its kind, per-CPU counts, total, chip,
// description and handlers. The goldens were checked against a reading
// made without this package (testdata/PROVENANCE says how).
func TestParseRealFiles(t *testing.T) {
	paths := realFiles(t)
	if len(paths) != 5 {
		t.Errorf("%d real files, want the 5 testdata/PROVENANCE lists", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			parse := ParseInterrupts
			if strings.HasPrefix(filepath.Base(p), "softirqs") {
				parse = ParseSoftirqs
			}
			c, err := parse(f)
			if err != nil {
				t.Fatal(err)
			}
			got := renderCounters(c)
			testutil.Golden(t, p+".golden", got, *updateReal, "-update")
		})
	}
}

// renderCounters writes a reading one line a row:
// name|kind|per-CPU counts ("-" if none)|total|chip|description|handlers.
func renderCounters(c *Counters) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cpus %s\n", strings.Trim(fmt.Sprint(c.CPUs), "[]"))
	for _, r := range c.Rows {
		per := "-"
		if r.PerCPU != nil {
			per = strings.Trim(fmt.Sprint(r.PerCPU), "[]")
		}
		fmt.Fprintf(&b, "%s|%s|%s|%d|%s|%s|%s\n", r.Name, r.Kind, per, r.Total, r.Chip, r.Desc, strings.Join(r.Actions, ";"))
	}
	return b.String()
}
