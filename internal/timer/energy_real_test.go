package timer

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

var updateReal = flag.Bool("update", false, "rewrite testdata/real/*/*.golden from what ParseEnergyReport reads")

// Real reports written by powercfg, copied unchanged from public
// repositories with their licences (testdata/real/*/PROVENANCE): each is
// read as the golden file beside it says, and to the entries its
// PROVENANCE lists, read by hand.
func TestParseEnergyReportReal(t *testing.T) {
	tests := []struct {
		dir, labels   string
		current, maxP int64 // maxP -1: the report gives none
		want          []wantReq
	}{
		// English, build 26220: HTML cells on lines of their own, and a
		// "Calling Module Stack" of one labelled row and five unlabelled.
		{"craole-cc-dotDots", "", 156250, -1, []wantReq{{4620, "msedge.exe", 10000, 6}}},
		// Spanish, no outstanding request: only the current resolution,
		// read by shape.
		{"erevecov-sonda", "by shape", 156250, -1, nil},
	}
	dirs, err := filepath.Glob("testdata/real/*/energy-report.html")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != len(tests) {
		t.Errorf("%d real reports, want the %d this test lists", len(dirs), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			p := filepath.Join("testdata/real", tc.dir, "energy-report.html")
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := ParseEnergyReport(f)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != "html" || rep.Labels != tc.labels {
				t.Errorf("format %q labels %q", rep.Format, rep.Labels)
			}
			if rep.CurrentPeriod100ns == nil || *rep.CurrentPeriod100ns != tc.current {
				t.Errorf("current %v, want %d", rep.CurrentPeriod100ns, tc.current)
			}
			if (rep.MaxPeriod100ns == nil) != (tc.maxP < 0) || rep.MaxPeriod100ns != nil && *rep.MaxPeriod100ns != tc.maxP {
				t.Errorf("max %v, want %d", rep.MaxPeriod100ns, tc.maxP)
			}
			if len(rep.Requests) != len(tc.want) {
				t.Fatalf("%d requests: %+v", len(rep.Requests), rep.Requests)
			}
			for i, w := range tc.want {
				r := rep.Requests[i]
				if r.PID != w.pid || r.Process != w.process || r.Period100ns == nil || *r.Period100ns != w.period || len(r.Modules) != w.modules {
					t.Errorf("request %d: %+v, want %+v", i, r, w)
				}
			}
			got, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			testutil.Golden(t, p+".golden", string(got), *updateReal, "-update")
		})
	}
}
