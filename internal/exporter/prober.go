package exporter

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
)

// cpuWindow is how many cycles latlab_probe_cpu_ratio averages over: a
// minute at the default cycle.
const cpuWindow = 60

// prober runs the probes in low-duty bursts on one prepared thread. Each
// cycle measures one probe (in turn) for duty x cycle, observes the
// samples into the histograms, and pauses for the rest of the cycle; a
// cycle whose CPU time divided by the duty exceeds the cycle length is
// stretched to that, so the probe thread's CPU share stays at or under
// the duty whatever the bursts and the observing cost.
type prober struct {
	o       Options
	m       *metrics
	cycles  atomic.Int64
	last    atomic.Int64 // time.Now().UnixNano() at the end of the last cycle
	failure atomic.Pointer[string]
	ratio   atomic.Uint64 // math.Float64bits of the last CPU share
	done    chan struct{}
	// ready is closed once the probes are calibrated. The calibration
	// sets the probe thread's timer slack to 1 ns for a moment, and that
	// thread can be the process's main thread, whose slack
	// /proc/self/timerslack_ns shows: nothing reads it before.
	ready      chan struct{}
	calibrated atomic.Bool // set when the calibration is over, before ready

	// cpu share over the last cpuWindow cycles
	cpuNs, wallNs [cpuWindow]int64
	sumCPU, sumW  int64
	slot          int
}

func newProber(o Options, m *metrics) *prober {
	return &prober{o: o, m: m, done: make(chan struct{}), ready: make(chan struct{})}
}

// run measures until ctx ends; an error is a probe that cannot run at all
// (a priority the OS refused, a CPU that went away).
func (p *prober) run(ctx context.Context) error {
	defer close(p.done)
	// The Linux wait is a raw system call that keeps the thread's
	// scheduler slot while it sleeps; one more slot keeps the HTTP server
	// and the settings reader running beside it.
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + 1)
	defer runtime.GOMAXPROCS(prev)
	// Only the probe thread is raised: the HTTP server beside it parses
	// what anyone sends, TLS and bcrypt included, and realtime it could
	// starve the machine.
	prio := sched.Normal
	if p.o.RTPrio > 0 {
		prio = sched.Realtime
	}
	setup, err := probe.OnThread(probe.Thread{Priority: prio, RTPrio: p.o.RTPrio, CPU: p.o.CPU, ThreadOnly: true}, func(setup probe.ThreadSetup) error {
		if setup.PriorityNote != "" {
			p.o.logger().Warn(setup.PriorityNote)
		}
		w, err := probe.NewWaiter()
		if err != nil {
			return err
		}
		defer w.Close()
		var s *probe.Sleeper
		for _, name := range p.o.Probes {
			switch name {
			case ProbeWake:
				o, err := probe.WaiterOverhead(w)
				if err != nil {
					return err
				}
				p.m.setOverhead(ProbeWake, o)
			case ProbeSleep:
				if s, err = probe.NewSleeper(probe.SleepMethods()[0]); err != nil {
					return err
				}
				defer s.Close()
				o, err := s.Overhead()
				if err != nil {
					return err
				}
				p.m.setOverhead(ProbeSleep, o)
			}
		}
		p.calibrated.Store(true)
		close(p.ready)
		return p.loop(ctx, w, s)
	})
	if err != nil {
		err = fmt.Errorf("probe thread (cpu %d, %s): %w", p.o.CPU, setup.Priority, err)
		msg := err.Error()
		p.failure.Store(&msg)
	}
	return err
}

func (p *prober) loop(ctx context.Context, w probe.Waiter, s *probe.Sleeper) error {
	cycle, burst, interval := p.o.cycle(), p.o.burst(), p.o.Interval
	buf := make([]int64, int(burst/interval)+2)
	pause := time.NewTimer(time.Hour)
	defer pause.Stop()
	for k := 0; ; k++ {
		if ctx.Err() != nil {
			return nil
		}
		begin := clock.Now()
		cpu0 := threadCPU()
		name := p.o.Probes[k%len(p.o.Probes)]
		// No collection during a burst: a stop-the-world pause would
		// land in the samples. Other goroutines may allocate meanwhile;
		// a burst is short enough that the heap barely grows.
		gc := debug.SetGCPercent(-1)
		var n int
		var overruns int64
		var err error
		switch name {
		case ProbeWake:
			n, overruns, _, err = probe.WakeBurst(w, clock.Now()+interval.Nanoseconds(), interval, burst, buf)
		case ProbeSleep:
			n, _, err = probe.SleepBurst(s, interval, begin+burst.Nanoseconds(), buf)
		}
		debug.SetGCPercent(gc)
		if err != nil {
			return err // recorded as the prober's failure, as a setup error is
		}
		switch name {
		case ProbeWake:
			p.m.observeWake(buf[:n], overruns)
		case ProbeSleep:
			p.m.observeSleep(buf[:n])
		}
		cpu := threadCPU() - cpu0
		length := max(cycle, time.Duration(float64(cpu)/p.o.Duty))
		if d := time.Duration(begin + length.Nanoseconds() - clock.Now()); d > 0 {
			pause.Reset(d)
			select {
			case <-ctx.Done():
				return nil
			case <-pause.C:
			}
		}
		r := p.account(int64(cpu), clock.Now()-begin)
		p.ratio.Store(math.Float64bits(r))
		p.m.addCPU(cpu, r)
		p.cycles.Add(1)
		p.last.Store(time.Now().UnixNano())
	}
}

// account adds one cycle's CPU and wall time to the window and returns
// the window's CPU share.
func (p *prober) account(cpu, wall int64) float64 {
	p.sumCPU += cpu - p.cpuNs[p.slot]
	p.sumW += wall - p.wallNs[p.slot]
	p.cpuNs[p.slot], p.wallNs[p.slot] = cpu, wall
	p.slot = (p.slot + 1) % cpuWindow
	if p.sumW <= 0 {
		return 0
	}
	return float64(p.sumCPU) / float64(p.sumW)
}

// lastRatio is the probe thread's CPU share over the last minute of
// cycles, as latlab_probe_cpu_ratio exports it.
func (p *prober) lastRatio() float64 { return math.Float64frombits(p.ratio.Load()) }

// health says whether the probe thread is measuring: it failed, has not
// finished a cycle yet, or has not finished one for ten cycles.
func (p *prober) health(now time.Time) (ok bool, msg string) {
	if f := p.failure.Load(); f != nil {
		return false, *f
	}
	last := p.last.Load()
	if last == 0 {
		return false, "starting: no probe cycle has finished yet"
	}
	if age := now.Sub(time.Unix(0, last)); age > 10*p.o.cycle() {
		return false, fmt.Sprintf("no probe cycle has finished for %s", age.Round(time.Second))
	}
	return true, fmt.Sprintf("ok: %d probe cycles", p.cycles.Load())
}
