package dpcwatch

import (
	"context"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
)

// Flags are the kernel trace flags of a watch: the DPC and ISR events,
// and the image events whose rundown names the modules (xperf's DPC,
// INTERRUPT and LOADER).
const Flags = etw.FlagDPC | etw.FlagInterrupt | etw.FlagImageLoad

// FlagNames spells Flags as xperf does.
const FlagNames = "DPC+INTERRUPT+LOADER"

// Options of a watch.
type Options struct {
	// Duration ends the watch; 0 watches until ctx is done (Ctrl-C).
	Duration time.Duration
	// Every is the period of OnInterval (the live line).
	Every time.Duration
	// OnInterval, when set, receives what happened in each period.
	OnInterval func(Interval)
	// OnStart, when set, is called once the session runs.
	OnStart func(session string)
}

// Result is a finished watch.
type Result struct {
	Session string
	Report  *dpcisr.Report
	Summary Summary
}

// Run watches DPCs and ISRs until o.Duration or ctx ends. Off Windows it
// returns etw.ErrUnsupported; without elevation an *etw.AccessError; with
// the kernel logger taken an *etw.HeldError; under Wine an
// *etw.UnavailableError.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	return run(ctx, o)
}
