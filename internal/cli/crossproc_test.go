package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/testutil"
)

// crossprocRun runs the experiment with a real child process (this test
// binary acting as latlab) and short holds.
func crossprocRun(t *testing.T, extra ...string) *crossproc.Result {
	t.Helper()
	plot := testutil.TempDir(t) + "/c.svg"
	args := append([]string{"crossproc", "--periods", "1,5", "--hold", "300ms", "--settle", "20ms", "--json", "--plot", plot}, extra...)
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc := readDoc(t, out)
	var r crossproc.Result
	if doc.Kind != crossproc.Kind || json.Unmarshal(doc.Data, &r) != nil {
		t.Fatalf("kind %s", doc.Kind)
	}
	if len(r.Rows) != 3 || r.Rows[0].RequestedNs != 0 || r.Rows[1].RequestedNs != 1e6 || r.Rows[2].RequestedNs != 5e6 {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, row := range r.Rows {
		if row.Slept.Count < 5 || row.Slept.P50 < 1e6 {
			t.Errorf("row %+v", row)
		}
	}
	for _, row := range r.Rows[1:] {
		if row.ChildGrantedNs <= 0 {
			t.Errorf("the child did not report a grant: %+v", row)
		}
	}
	if s := readFile(t, plot); !strings.Contains(s, "<svg") {
		t.Error("plot")
	}
	if r.Verdict.Text == "" {
		t.Error("no verdict")
	}
	return &r
}

func TestCrossprocBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"crossproc", "--periods", "0"},
		{"crossproc", "--periods", "5-1"},
		{"crossproc", "--periods", "x"},
		{"crossproc", "--hold", "0"},
		{"crossproc", "--hold", "100ms", "--settle", "200ms"},
		{"crossproc", "--plot", "c.jpg"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d out %q err %q", args, code, out, errs)
		}
	}
}

func TestParsePeriods(t *testing.T) {
	p, err := parsePeriods("1-3,5,10ms")
	if err != nil || len(p) != 5 || p[0] != 1e6 || p[4] != 10e6 {
		t.Fatal(p, err)
	}
}
