package compare

import (
	"fmt"
	"math"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// Successive samples of one run are not independent (the machine's state
// drifts; a burst of interference delays several wake-ups in a row), and
// the i.i.d. bootstrap, Mann-Whitney and Kolmogorov-Smirnov tests are
// then too sure. Where a document keeps its raw samples in the order they
// were measured (sleep, wake, noise lengths), compare measures their
// dependence and, for a run measurably dependent, resamples blocks, uses
// the rank test's long-run variance (stats.Compare with OrderedA/B) and
// takes the Kolmogorov-Smirnov p-value from a multiplier bootstrap over
// the same blocks (stats.KolmogorovSmirnovSerial). Values rebuilt from a
// histogram have no order: they are compared as independent samples.

// inOrder returns s, the values of x's document, when they are its raw
// samples in measurement order; nil otherwise. The arms of a try are
// blocks of a randomized design pooled out of time order, whose design
// answers for drift: they keep the i.i.d. methods.
func inOrder(x Input, s []int64, raw bool) []int64 {
	if !raw || x.Arm {
		return nil
	}
	if o, ok := x.Doc.Data.(result.Ordered); ok && o.SamplesInOrder() {
		return s
	}
	return nil
}

// serialNotes say, for each run whose samples are measurably dependent,
// how much and what the comparison did about it.
func serialNotes(runs []RunSummary) []string {
	var notes []string
	for _, r := range runs {
		if r.Serial != nil && r.Serial.Dependent {
			notes = append(notes, serialNote(r.Label, "samples", r.Summary.Count, r.Serial))
		}
	}
	return notes
}

// serialNote says that the n values (what) of label are dependent, how
// much, and what the comparison did about it.
func serialNote(label, what string, n int64, s *stats.Serial) string {
	return fmt.Sprintf("%s: its %d %s are serially dependent (lag-1 autocorrelation %.2f, above 3/sqrt(n) = %.2f) and weigh as %s independent ones: intervals resample blocks of %d in measurement order, the Mann-Whitney test uses the long-run variance, and the Kolmogorov-Smirnov test a multiplier bootstrap over the same blocks",
		label, n, what, s.Lag1, stats.DependenceThreshold(int(n)), effective(s.EffectiveN), s.Block)
}

// effective renders an effective sample size: a whole number of samples.
func effective(n float64) string { return fmt.Sprint(int64(math.Round(n))) }
