package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/rtla"
)

// TimerlatKind is the kind of a side read from `rtla timerlat hist` output:
// not a result document, but its Thr columns compared as a cyclictest
// histogram (Cyclictest, with Timerlat set), so a comparison whose first
// side is one says, in its compared_kind, that it read rtla's output.
const TimerlatKind = "rtla-timerlat-histogram"

// Timerlat is what a side read from `rtla timerlat hist` output keeps
// beside the histogram it is compared as (Cyclictest.H, its Thr columns):
// the file as read.
//
// rtla counts up to three latencies per CPU, and a side compares one, the
// thread's (the Thr columns). The timerlat tracer's documentation
// (Documentation/trace/timerlat-tracer.rst) says: "Like cyclictest, the
// tracer sets a periodic timer that wakes up a thread. The thread then
// computes a *wakeup latency* value as the difference between the *current
// time* and the *absolute time* that the timer was set to expire": what
// cyclictest and latlab wake measure. The IRQ columns are "the *timer
// latency* observed at the *hardirq* context before the activation of the
// thread", another quantity. The Usr columns of user-space threads (-u)
// are, by the same page, "the return from user-space latency, which is
// the total latency" (rtla-timerlat(1): "adding so the measurement for the
// kernel-to-user and user-to-kernel"): the thread's latency plus a round
// trip through user space, which neither cyclictest nor latlab wake
// counts, and which kernel threads (-k) do not have; Thr is there in both.
type Timerlat struct {
	File *rtla.Histogram
}

// readTimerlat reads path as rtla timerlat hist or osnoise hist output
// (osnoise.go); ok is false when the file has nothing of either (it is
// then read as a cyclictest histogram).
func readTimerlat(path string) (d *result.Document, ok bool, err error) {
	h, err := rtla.ReadFile(path)
	switch {
	case errors.Is(err, rtla.ErrNotRTLA):
		return nil, false, nil
	case errors.Is(err, infile.ErrLimit):
		return nil, true, badinput.Errorf("cannot read %s: %v", path, err)
	case err != nil:
		return nil, true, badinput.Errorf("%v (accepted: %s)", err, rtla.Accepted)
	}
	if h.Osnoise {
		// The bucket size is the file's, every column's alike: checked
		// on the first, so that a file compare cannot read is refused
		// here, as bad input.
		if cpus := h.CPUs(rtla.Noise); len(cpus) > 0 {
			if _, _, err := h.CPU(rtla.Noise, cpus[0]); err != nil {
				return nil, true, badinput.Errorf("%s: %v", path, err)
			}
		}
		return &result.Document{Kind: OsnoiseKind, Data: &Osnoise{File: h}}, true, nil
	}
	if !h.Has(rtla.Thread) {
		return nil, true, badinput.Errorf("%s: no Thr column (rtla --no-thread): compare takes the thread's latency (the Thr columns), which cyclictest and latlab wake measure; the IRQ and Usr latencies are other quantities", path)
	}
	thr, err := h.Cyclictest(rtla.Thread)
	if err != nil {
		return nil, true, badinput.Errorf("%s: the Thr columns: %v", path, err)
	}
	return &result.Document{Kind: TimerlatKind, Data: &Cyclictest{H: thr, Timerlat: &Timerlat{File: h}}}, true, nil
}

// isTimerlat reports whether x was read from rtla timerlat hist output.
func isTimerlat(x Input) bool { return x.Doc.Kind == TimerlatKind }

// histName names what a histogram side was read from.
func histName(x Input) string {
	if isTimerlat(x) {
		return "an rtla timerlat histogram"
	}
	return "a cyclictest histogram"
}

// source says what a histogram run was read from.
func (c *Cyclictest) source() string {
	if t := c.Timerlat; t != nil {
		cpus := "1 CPU"
		if c.H.Threads > 1 {
			cpus = fmt.Sprintf("%d CPUs", c.H.Threads)
		}
		return fmt.Sprintf("rtla timerlat histogram, Thr columns of %s pooled", cpus)
	}
	if c.H.Threads == 1 {
		return "cyclictest histogram, 1 thread column"
	}
	return fmt.Sprintf("cyclictest histogram, %d thread columns pooled", c.H.Threads)
}

// notes are what a histogram side's run says of itself.
func (c *Cyclictest) notes(label string) []string {
	t := c.Timerlat
	if t == nil {
		return cyclictestNotes(label, c.H)
	}
	h, f := c.H, t.File
	buckets := "1 µs buckets"
	if f.Nano {
		buckets = "its ns buckets summed into 1 µs buckets"
	}
	cpus := "CPU"
	if c.H.Threads > 1 {
		cpus = "CPUs"
	}
	notes := []string{fmt.Sprintf("%s: an rtla timerlat histogram (its Thr columns, the timerlat thread's wake-up latency, of %s %s pooled; %s, each value at its bucket's middle) keeps no order of its %d wake-ups: the serial-dependence analysis is not run, and the intervals and tests assume independent wake-ups; a timerlat run's wake-ups are often serially dependent, and the intervals may then be too narrow",
		label, cpus, cpuset.FormatList(f.CPUs(rtla.Thread)), buckets, h.Samples())}
	left := []string{}
	if f.Has(rtla.IRQ) {
		left = append(left, "its IRQ columns (the timer interrupt's latency, before the thread runs: another quantity)")
	}
	if f.Has(rtla.User) {
		left = append(left, "its Usr columns (the return from user space: the thread's latency and a round trip through user space, which cyclictest and latlab wake do not count)")
	}
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf("%s: not compared: %s", label, strings.Join(left, "; ")))
	}
	if h.Overflows > 0 {
		n := fmt.Sprintf("%s: %d of its %d wake-ups (%s) are in rtla's \"over:\" row, at or above the histogram's range, taken as %d µs (one past its last row): their values are not known, and no statistic they could reach is given",
			label, h.Overflows, h.Samples(), pct(float64(h.Overflows)/float64(h.Samples())), h.RangeUs)
		if m, ok := largest(f, rtla.Thread); ok {
			n += fmt.Sprintf(" (rtla's \"max:\": %s)", m)
		}
		notes = append(notes, n)
	}
	settings := fmt.Sprintf("%s: rtla timerlat hist records neither its period (-p) nor its threads' priority (-P)", label)
	if f.Duration != "" {
		settings += fmt.Sprintf(" (it records the run's duration: %s)", f.Duration)
	}
	notes = append(notes, settings+": whether the runs measured alike is not known from the files: check the command lines")
	return append(notes, rtlaEnd(label, f, "wake-ups", "-a, -i or -T", "wake-up")...)
}

// rtlaEnd are the notes of what rtla said after its histogram: events
// missed (the histogram holds only the samples it processed, what) and a
// stop at a threshold (flags, ending at the sample one that crossed it).
func rtlaEnd(label string, f *rtla.Histogram, what, flags, one string) []string {
	var notes []string
	switch {
	case f.Missed < 0:
		notes = append(notes, fmt.Sprintf("%s: rtla reported an unknown number of events missed: the histogram holds only the %s it processed", label, what))
	case f.Missed > 0:
		notes = append(notes, fmt.Sprintf("%s: rtla reported %d events missed: the histogram holds only the %s it processed", label, f.Missed, what))
	}
	if f.Stopped {
		notes = append(notes, fmt.Sprintf("%s: rtla's run stopped at a threshold (\"hit stop tracing\": %s): it ends at the %s that crossed it", label, flags, one))
	}
	return notes
}

// largest is rtla's "max:" over the columns of c with samples, written
// with its unit.
func largest(f *rtla.Histogram, c rtla.Context) (string, bool) {
	if f.Max == nil {
		return "", false
	}
	m := int64(-1)
	for j, col := range f.Columns {
		if col.Context == c && f.Count[j] > 0 {
			m = max(m, f.Max[j])
		}
	}
	if m < 0 {
		return "", false
	}
	if f.Nano {
		return fmt.Sprintf("%d ns", m), true
	}
	return fmt.Sprintf("%d µs", m), true
}
