package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/result"
)

// The arms of a dpcisr try are DPC/ISR reports in xperf's power-of-two µs
// buckets: each arm's complete blocks pooled into one. A histogram of
// buckets holds no samples to bootstrap, so they are compared as latlab
// dpcisr compare compares reports (dpcisr.Compare): per section, the
// module's histograms side by side, the cumulative shares at 1, 2, 4, 8
// and 16 µs, and Pearson's chi-squared test of homogeneity over the
// buckets, adjacent sparse buckets pooled until every expected count is
// at least 5. No test, no verdict: a section whose executions all fall
// in one pooled range says so.
//
// compare takes the arms of a try only; reports given as themselves are
// latlab dpcisr compare's, which reads xperf's text too and takes
// --module.

func isDPCISR(kind string) bool { return kind == dpcisr.Kind.Name() }

// dpcisrCompatible refuses DPC/ISR reports given as themselves, and arms
// that follow different modules.
func dpcisrCompatible(in []Input) error {
	for _, x := range in {
		if !x.Arm {
			return fmt.Errorf("%w: %s is a dpcisr result: compare DPC/ISR reports with latlab dpcisr compare (latlab compare takes the arms of a dpcisr try)", ErrIncompatible, x.Label)
		}
		if len(x.More) > 0 {
			return fmt.Errorf("%w: %s groups %d results, but DPC/ISR reports are compared one per side", ErrIncompatible, x.Label, len(x.More)+1)
		}
		if _, ok := dpcisr.Kind.Of(x.Doc); !ok {
			return fmt.Errorf("%w: %s: a dpcisr result without its data", ErrIncompatible, x.Label)
		}
	}
	a, _ := dpcisr.Kind.Of(in[0].Doc)
	for _, x := range in[1:] {
		b, _ := dpcisr.Kind.Of(x.Doc)
		if !strings.EqualFold(a.Module, b.Module) {
			return fmt.Errorf("%w: %s follows the DPCs of %s and %s those of %s: compare tries that follow the same module (--module)",
				ErrIncompatible, in[0].Label, moduleName(a.Module), x.Label, moduleName(b.Module))
		}
	}
	return nil
}

func moduleName(m string) string {
	if m == "" {
		return "every module"
	}
	return m
}

// compareDPCISR compares the reports of the inputs by the module of the
// first (the module the try's block test follows).
func compareDPCISR(in []Input) (*Result, error) {
	first, _ := dpcisr.Kind.Of(in[0].Doc)
	var runs []dpcisr.Labeled
	res := &Result{Kind: in[0].Doc.Kind, Quantity: Quantity(in[0].Doc.Kind), Level: 1 - dpcisr.Alpha,
		Quantile: result.PercentileDefinition, Pairs: []Pair{}, Ranking: []int{}}
	for _, x := range in {
		v, _ := dpcisr.Kind.Of(x.Doc)
		runs = append(runs, dpcisr.Labeled{Label: x.Label, Report: v.ReportOf()})
		res.Runs = append(res.Runs, RunSummary{Label: x.Label, Settings: distinguishing(x.Doc, in[0].Doc)})
	}
	c, err := dpcisr.Compare(runs, first.Module)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrIncompatible, err)
	}
	res.DPCISR = c
	res.Notes = append(res.Notes, "DPC/ISR times are compared as latlab dpcisr compare compares reports: Pearson's chi-squared test of homogeneity over the buckets (adjacent sparse buckets pooled until every expected count is at least 5), at the 5% level; faster means a larger share at or below every bucket bound; Cramér's V says how big the difference is")
	if n := c.HolmNote(); n != "" {
		res.Notes = append(res.Notes, n)
	}
	return res, nil
}

// inputNotes are the inputs' own notes, each once, in the order given.
func inputNotes(in []Input) []string {
	var out []string
	for _, x := range in {
		for _, n := range x.Notes {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}
