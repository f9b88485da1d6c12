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

// cpuWindow is how many cycles latlab_probe_cpu_ratio and
// latlab_process_cpu_ratio average over: a minute at the default cycle.
const cpuWindow = 60

// maxStretch bounds how far a cycle is stretched to keep the process
// within the duty: the health check calls a probe that has not finished
// a cycle for ten cycles stuck.
const maxStretch = 8

// prober runs the probes in low-duty bursts on one prepared thread. Each
// cycle measures one probe (in turn) for duty x cycle, observes the
// samples into the histograms, and pauses for the rest of the cycle. The
// duty bounds the whole process's CPU share, not only the probe thread's:
// the HTTP server, the settings reader and the Go runtime's own threads
// (the collector, sysmon) run on other threads and cost CPU too (the
// probe thread alone was a tenth of the process). So a cycle is stretched
// until the process's CPU time over the window, this cycle included, is
// at most duty x the window's wall time; the stretch is bounded (maxStretch
// cycles), so when the rest of the process alone uses more than the duty
// (a scraper asking many times a second) the probe slows down to one
// cycle in maxStretch and latlab_process_cpu_ratio shows the excess.
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

	processRatio atomic.Uint64 // math.Float64bits of the last process share

	// CPU shares over the last cpuWindow cycles
	win cpuWin
}

// cpuWin keeps the probe thread's and the process's CPU time and the
// wall time of the last cpuWindow cycles.
type cpuWin struct {
	cpuNs, procNs, wallNs    [cpuWindow]int64
	sumCPU, sumProc, sumWall int64
	slot                     int
}

// add records one cycle and returns the window's probe-thread and
// process CPU shares.
func (w *cpuWin) add(cpu, proc, wall int64) (probeShare, procShare float64) {
	w.sumCPU += cpu - w.cpuNs[w.slot]
	w.sumProc += proc - w.procNs[w.slot]
	w.sumWall += wall - w.wallNs[w.slot]
	w.cpuNs[w.slot], w.procNs[w.slot], w.wallNs[w.slot] = cpu, proc, wall
	w.slot = (w.slot + 1) % cpuWindow
	if w.sumWall <= 0 {
		return 0, 0
	}
	return float64(w.sumCPU) / float64(w.sumWall), float64(w.sumProc) / float64(w.sumWall)
}

// length is how long the cycle that has so far cost the probe thread cpu
// and the process proc must last: at least cycle, at least cpu/duty (the
// probe thread within the duty in every cycle), and long enough that the
// process's CPU over the window with this cycle in place of its oldest
// is at most duty x the window's wall time (a scrape or a settings read
// that costs more in one cycle is paid for over the window); at most
// maxStretch cycles.
func (w *cpuWin) length(cycle time.Duration, duty float64, cpu, proc int64) time.Duration {
	oldProc := w.sumProc - w.procNs[w.slot]
	oldWall := w.sumWall - w.wallNs[w.slot]
	need := max(float64(cpu)/duty, float64(oldProc+proc)/duty-float64(oldWall))
	return max(cycle, time.Duration(min(need, float64(maxStretch*cycle))))
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
		cpu0, proc0 := threadCPU(), processCPU()
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
		if p.o.Observe != nil {
			p.o.Observe(name, buf[:n], overruns)
		}
		cpu := threadCPU() - cpu0
		// The rest of the process keeps running during the pause, so
		// the length is worked out again after it until the cycle is
		// long enough for what the process has spent by then.
		var proc time.Duration
		for {
			proc = processCPU() - proc0
			length := p.win.length(cycle, p.o.Duty, int64(cpu), int64(proc))
			d := time.Duration(begin + length.Nanoseconds() - clock.Now())
			if d <= 0 {
				break
			}
			pause.Reset(d)
			select {
			case <-ctx.Done():
				return nil
			case <-pause.C:
			}
		}
		r, rp := p.win.add(int64(cpu), int64(proc), clock.Now()-begin)
		p.ratio.Store(math.Float64bits(r))
		p.processRatio.Store(math.Float64bits(rp))
		p.m.addCPU(cpu, r, rp)
		p.cycles.Add(1)
		p.last.Store(time.Now().UnixNano())
	}
}

// lastRatio is the probe thread's CPU share over the last minute of
// cycles, as latlab_probe_cpu_ratio exports it.
func (p *prober) lastRatio() float64 { return math.Float64frombits(p.ratio.Load()) }

// lastProcessRatio is the whole process's CPU share over the last minute
// of cycles, as latlab_process_cpu_ratio exports it.
func (p *prober) lastProcessRatio() float64 { return math.Float64frombits(p.processRatio.Load()) }

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
