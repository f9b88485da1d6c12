package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// On Linux every wake-up is later than its deadline and every counted
// interruption at least its threshold: --stop-above 1ns stops a run at
// its first sample, which the text says first and the document holds.
func TestStopAboveRealRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	for _, c := range []struct {
		args  []string
		first string
	}{
		{[]string{"wake", "--loops", "5000", "--stop-above", "1ns"}, "a wake-up "},
		{[]string{"noise", "--cpus", "0", "--duration", "20s", "--stop-above", "1ns"}, " interruption, above --stop-above 1ns (CPU 0)"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		first, _, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(first, "stopped at ") || !strings.Contains(first, c.first) || strings.Contains(out, "trace") || strings.Contains(out, "interrupted:") {
			t.Errorf("%v: text\n%s", c.args, out)
		}
		code, out, errOut = runCLI(t, append(c.args, "--json")...)
		if code != 0 {
			t.Fatalf("%v --json: exit %d: %s", c.args, code, errOut)
		}
		var doc struct {
			Data struct {
				Interrupted  bool `json:"interrupted"`
				StoppedAbove *struct {
					ThresholdNs int64 `json:"threshold_ns"`
					Sample      struct {
						ValueNs int64 `json:"value_ns"`
						Index   int64 `json:"index"`
					} `json:"sample"`
				} `json:"stopped_above"`
			} `json:"data"`
			Settings map[string]string `json:"settings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		s := doc.Data.StoppedAbove
		if s == nil || s.ThresholdNs != 1 || s.Sample.Index != 0 || s.Sample.ValueNs < 1 || doc.Data.Interrupted || doc.Settings["stop-above"] != "1ns" {
			t.Errorf("%v --json: %+v %+v", c.args, doc.Data, s)
		}
	}
}
