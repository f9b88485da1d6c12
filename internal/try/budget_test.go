package try

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// histBlocks is a try result of two arms whose blocks keep histograms of
// n samples each, as a long run stores them.
func histBlocks(t *testing.T, blocks int, n int64) *Result {
	t.Helper()
	h := stats.NewHistogram()
	if err := h.RecordValues(1_000_000, n); err != nil {
		t.Fatal(err)
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Probe: probe.KindSleep.Name(), Arms: []Arm{{Label: "current", Baseline: true}, {Label: "1", Value: "1"}}}
	for i := 0; i < blocks; i++ {
		hh := *enc
		r.Runs = append(r.Runs, Block{Index: i, Round: i / 2, Arm: i % 2, Complete: true, Histogram: &hh})
	}
	return r
}

// The arms of a try result are rebuilt within the budget of the command
// that reads them: blocks each well under the limit hit it together.
func TestArmsShareTheBudget(t *testing.T) {
	defer infile.Reset()
	infile.SetMax(16 << 20) // 131,072 samples
	r := histBlocks(t, 4, 30_000)
	b := result.NewBudget()
	for arm := 0; arm < 2; arm++ {
		if _, err := ArmSamples(r, arm, b); err != nil {
			t.Fatalf("arm %d: %v", arm, err)
		}
	}
	if b.Used() != 120_000 {
		t.Errorf("%d samples charged, want 120000", b.Used())
	}
	// The same blocks through CompareInputs, on a budget half used.
	doc := Kind.New(host.Facts{}, &Data{Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1_000_000}, Result: *histBlocks(t, 4, 30_000)})
	b = result.NewBudget()
	if _, err := ArmSamples(histBlocks(t, 2, 30_000), 0, b); err != nil {
		t.Fatal(err)
	}
	if _, err := CompareInputs("try.json", doc, b); err == nil || !strings.Contains(err.Error(), "more than the 131072") {
		t.Errorf("CompareInputs past the budget: %v, want the limit named", err)
	}
	if _, err := CompareInputs("try.json", doc, nil); err != nil {
		t.Errorf("alone: %v", err)
	}
}
