package report

import (
	"fmt"
	"io"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/units"
)

// stopLines say why a run ended at a --stop-above sample, first of its
// output: the line of the stop, the answer a run with a stop threshold
// is for, then, when the run's trace was frozen there, where to read it.
// sample says what the sample was, given its value ("a wake-up 1.42ms
// late"); where names its thread when the CPU does not (several
// unpinned threads); explained what the explanations below hold.
func stopLines(w io.Writer, s *probe.StoppedAbove, sample, where, explained string) {
	if s == nil {
		return
	}
	// One line for any threshold up to a second and a run of a day; a
	// longer one (a threshold typed to the nanosecond) wraps.
	writeHanging(w, stopLine(s, sample, where), 2)
	if s.TraceFrozen {
		fmt.Fprintf(w, "kernel trace frozen at the stop: %s is explained below\n", explained)
	}
}

// stopLine is stopLines' first line.
func stopLine(s *probe.StoppedAbove, sample, where string) string {
	return fmt.Sprintf("stopped at %s: %s, above --stop-above %s%s",
		units.NsShort(float64(s.Sample.AtNs)), sample, units.FlagDuration(time.Duration(s.ThresholdNs)), where)
}

// wakeStopLines are stopLines of a wake document.
func wakeStopLines(w io.Writer, d *probe.WakeData) {
	if d.StoppedAbove != nil {
		sample, where := wakeStopSample(d)
		stopLines(w, d.StoppedAbove, sample, where, "what delayed it")
	}
}

// wakeStopSample says what stopped a wake run and where it came.
func wakeStopSample(d *probe.WakeData) (sample, where string) {
	s := d.StoppedAbove
	switch {
	case s.Sample.CPU >= 0:
		where = fmt.Sprintf(" (CPU %d)", s.Sample.CPU)
	case len(d.Threads) > 1:
		where = fmt.Sprintf(" (T%d)", s.Sample.Thread)
	}
	return fmt.Sprintf("a wake-up %s late", units.NsShort(float64(s.Sample.ValueNs))), where
}

// noiseStopLines are stopLines of a noise document.
func noiseStopLines(w io.Writer, d *probe.NoiseData) {
	if d.StoppedAbove != nil {
		sample, where := noiseStopSample(d)
		stopLines(w, d.StoppedAbove, sample, where, "what ran in it")
	}
}

// noiseStopSample says what stopped a noise run and where it came.
func noiseStopSample(d *probe.NoiseData) (sample, where string) {
	s := d.StoppedAbove
	return fmt.Sprintf("a %s interruption", units.NsShort(float64(s.Sample.ValueNs))), fmt.Sprintf(" (CPU %d)", s.Sample.CPU)
}

// htmlStopLine is the stop's line for the HTML report, "" for a run not
// stopped by --stop-above: the page says it first, as the text does.
func htmlStopLine(d any) string {
	switch d := d.(type) {
	case *probe.WakeData:
		if d.StoppedAbove != nil {
			sample, where := wakeStopSample(d)
			return stopLine(d.StoppedAbove, sample, where)
		}
	case *probe.NoiseData:
		if d.StoppedAbove != nil {
			sample, where := noiseStopSample(d)
			return stopLine(d.StoppedAbove, sample, where)
		}
	}
	return ""
}
