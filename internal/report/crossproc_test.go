package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/stats"
)

// crossproc says its verdict first, under the head, then the table of
// what each hold measured: the verdict once came after the table.
func TestCrossprocVerdictFirst(t *testing.T) {
	r := &crossproc.Result{Method: "nanosleep", DurationNs: 1e6, HoldNs: 1e9, Requester: "prctl(PR_SET_TIMERSLACK) on the requester's thread",
		Rows: []crossproc.Row{{Slept: stats.Summary{Count: 5, P50: 1_083_000}}, {RequestedNs: 1e6, ChildGrantedNs: 1e6, Slept: stats.Summary{Count: 5, P50: 1_084_000}}}}
	r.Verdict = crossproc.Classify(r.Rows, 1e6, crossproc.Facts{})
	var b bytes.Buffer
	Crossproc(&b, r)
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "latlab crossproc: ") || lines[1] != "verdict: "+r.Verdict.Text {
		t.Errorf("the verdict is not under the head:\n%s", b.String())
	}
	// 5 sleeps a hold: too few for a median, and the row says so.
	if !strings.Contains(r.Verdict.Text, "too few sleeps") || !strings.Contains(b.String(), "(too few)") && !strings.Contains(b.String(), "too few sleeps with no request") {
		t.Errorf("output:\n%s", b.String())
	}
}
