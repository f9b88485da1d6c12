package try

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
)

// measured is one block's raw outcome.
type measured struct {
	samples     []int64
	interrupted int   // waits resumed after a signal
	overruns    int64 // wake: deadlines that passed while the thread was late
	lost        int64 // udp: probes without an echo
	method      string
	setup       probe.ThreadSetup
	overhead    *probe.Overhead
	warmupNs    int64
	starved     bool           // wake: the thread's only wake-up, the warm-up, is the sample
	report      *dpcisr.Report // dpcisr
	load        *LoadOutcome   // dpcisr with a load
	noise       []NoiseBlock   // noise: one per CPU, in the probe's order
	unrun       bool           // noise: a thread did not run before the block's end
	notes       []string       // noise: what of the system setup could not be done
}

// udpDrain is how long a UDP block waits for the last echoes: a block is
// short, and an echo later than this is lost for the statistics anyway.
const udpDrain = 250 * time.Millisecond

// measure is the probe a block runs; tests put a fake in its place.
var measure = measureProbe

// measureProbe runs the probe for d. threadRes is the timer request of the
// measuring thread (Linux timer slack; 0 = none); calibrate asks the sleep
// probe to time its own overhead first. A cancelled ctx ends the block
// early with what was measured.
func measureProbe(ctx context.Context, p Probe, d, threadRes time.Duration, calibrate bool) (measured, error) {
	var m measured
	switch p.Kind {
	case ProbeSleep:
		o := p.Sleep
		o.Samples = 0 // until the block's time is up
		o.Thread.Resolution = threadRes
		o.SkipOverhead = !calibrate
		// The block's time starts with its first sample, not before the
		// probe's own setup (a garbage collection, a thread, the overhead
		// calibration), which would eat a short block.
		bctx, cancel := context.WithCancel(ctx)
		defer cancel()
		first := make(chan int64, 1)
		o.Live = first
		go func() {
			select {
			case <-first:
			case <-bctx.Done():
				return
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				cancel()
			case <-bctx.Done():
			}
		}()
		r, err := probe.Sleep(bctx, o)
		if err != nil {
			return m, fmt.Errorf("sleep probe: %w", err)
		}
		m.samples, m.interrupted, m.setup, m.warmupNs = r.Slept, r.Interrupted, r.Setup, r.WarmupNs
		m.method = r.Method
		if calibrate {
			m.overhead = &r.Overhead
		}
	case ProbeWake:
		o := p.Wake
		o.Duration, o.Loops = d, 0
		o.Resolution = threadRes
		if len(o.CPUs) == 0 {
			o.CPUs = []int{-1}
		}
		r, err := probe.Wake(ctx, o)
		if err != nil {
			return m, fmt.Errorf("wake probe: %w", err)
		}
		for _, th := range r.Threads {
			m.samples = append(m.samples, th.Latencies...)
			m.overruns += th.Overruns
			m.interrupted += th.Interrupted
		}
		m.samples, m.starved = starvedSample(r, m.samples)
		m.setup, m.warmupNs = r.Threads[0].Setup, r.Threads[0].WarmupNs
		m.method = "absolute-deadline wake-ups every " + o.Interval.String()
		if calibrate {
			m.overhead = &r.Overhead
		}
	case ProbeUDP:
		o := p.UDP
		o.Duration, o.Count = d, 0
		if o.Drain <= 0 {
			o.Drain = udpDrain
		}
		th := probe.Thread{CPU: -1}
		if o.Thread != nil {
			th = *o.Thread
		}
		th.Resolution = threadRes
		o.Thread = &th
		r, err := netload.RunUDP(ctx, o)
		if err != nil {
			if badinput.Is(err) {
				return m, err
			}
			return m, fmt.Errorf("udp probe: %w", err)
		}
		m.samples, m.lost, m.setup = r.RTT, r.Lost, r.Thread
		m.method = "UDP echo round trip, sends paced by " + r.PacerMethod
	case ProbeDPCISR:
		var r *dpcisr.Report
		lo, err := underLoad(ctx, p.Load, d, func(ctx context.Context) error {
			var err error
			r, err = watch(ctx, d)
			return err
		})
		if err != nil {
			if badinput.Is(err) {
				return m, err
			}
			return m, fmt.Errorf("dpcisr probe: %w", err)
		}
		m.report, m.method, m.load = r, dpcMethod, lo
		if lo != nil {
			m.method += ", under " + loadWords(p.Load)
		}
	case ProbeNoise:
		o := p.Noise
		o.Duration = d
		r, err := probe.Noise(ctx, o)
		if err != nil {
			if badinput.Is(err) {
				return m, err
			}
			return m, fmt.Errorf("noise probe: %w", err)
		}
		m.setup, m.method, m.notes = r.Threads[0].Setup, probe.NoiseMethod, r.Notes
		for i := range r.Threads {
			if th := &r.Threads[i]; th.RuntimeNs() <= 0 {
				// The thread's first read came after the block's end: it
				// measured nothing, and a block of no runtime on a CPU
				// has no rate there.
				m.unrun = !th.Stopped
				return m, nil
			}
		}
		// A block's samples are the interruptions' lengths on all its
		// CPUs; each CPU's counts are its own.
		for i := range r.Threads {
			th := &r.Threads[i]
			m.samples = append(m.samples, th.Lengths...)
			m.noise = append(m.noise, *noiseBlock(o.CPUs[i], th))
		}
	default:
		return m, fmt.Errorf("internal: probe %q", p.Kind)
	}
	return m, nil
}

// starvedSample is the block's samples when its thread was held off its
// CPU for the whole block: no wake-up came before the block's end, and
// the one that came after it (the warm-up, never a sample otherwise) is
// then the block's only sample. Left empty, the block would be left out
// as incomplete, and an arm that starves the thread would lose exactly
// its worst blocks.
func starvedSample(r *probe.WakeResult, samples []int64) ([]int64, bool) {
	if _, longest := r.Starved(); len(samples) == 0 && longest > 0 {
		return []int64{longest}, true
	}
	return samples, false
}
