package dpcwatch

import (
	"context"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
)

// Flags are the kernel trace flags of a watch: the DPC and ISR events,
// the image events whose rundown names the modules, the hard page
// faults and the process and thread events that attribute them (xperf's
// DPC, INTERRUPT, LOADER, HARD_FAULTS and PROC_THREAD).
const Flags = etw.FlagDPC | etw.FlagInterrupt | etw.FlagImageLoad | etw.FlagMemoryHardFaults | etw.FlagProcess | etw.FlagThread

// FlagNames spells Flags as xperf does.
const FlagNames = "DPC+INTERRUPT+LOADER+HARD_FAULTS+PROC_THREAD"

// Options of a watch.
type Options struct {
	// Duration ends the watch; 0 watches until ctx is done (Ctrl-C).
	Duration time.Duration
	// Every is the length of the live line's intervals.
	Every time.Duration
	// OnInterval, when set, receives each interval's executions, counted
	// by their own time stamps, once the interval's events have all
	// arrived: FlushLag after its end, or when the watch ends.
	OnInterval func(Interval)
	// OnSummary, when set, receives the summary of the watch so far
	// after each live period: the live view's table of drivers (or
	// handlers) and its verdict.
	OnSummary func(Summary)
	// OnStart, when set, is called once the session runs.
	OnStart func(session string)
	// CPUs restricts a Linux watch to these CPUs; nil watches all.
	CPUs []int
	// BeforeStop, when set, is called just before tracing stops.
	BeforeStop func()
	// AfterStop, when set, is called once tracing has stopped and the
	// buffers are drained (a test reads the kernel's counters there).
	AfterStop func()
}

// Result is a finished watch.
type Result struct {
	Session string
	Report  *dpcisr.Report
	Summary Summary
	// Method says how the watch measured (set by the Linux watch).
	Method string
}

// Run watches DPCs and ISRs (on Linux softirqs and hard interrupt
// handlers) until o.Duration or ctx ends. Off Windows and Linux it
// returns etw.ErrUnsupported; without elevation (root) an
// *etw.AccessError; with the kernel logger taken an *etw.HeldError; under
// Wine an *etw.UnavailableError.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	return run(ctx, o)
}

// period hands what closed by now (ticks) to OnInterval and the summary
// so far to OnSummary.
func (o Options) period(rec *Recorder, now int64) {
	o.live(rec.Closed(now))
	if o.OnSummary != nil {
		o.OnSummary(rec.Summary(now))
	}
}

// live hands the closed intervals, oldest first, to OnInterval.
func (o Options) live(ivs []Interval) {
	if o.OnInterval == nil {
		return
	}
	for _, iv := range ivs {
		o.OnInterval(iv)
	}
}
