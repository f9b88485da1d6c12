package dpcwatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/tracefs"
)

// LinuxMethod says how the Linux watch measures.
const LinuxMethod = "tracefs events irq:irq_handler_entry/exit, irq:softirq_entry/exit and (x86) irq_vectors:*_entry/exit in a private instance, clock mono; execution time = exit - entry time stamp, ns; a softirq's time includes the hard interrupts that interrupted it, as a DPC's does on Windows"

func run(ctx context.Context, o Options) (*Result, error) {
	if os.Geteuid() != 0 {
		return nil, &etw.AccessError{Op: "dpc watch"}
	}
	s, err := tracefs.Open(tracefs.Options{Events: tracefs.IRQEvents, Optional: tracefs.VectorEvents, CPUs: o.CPUs})
	if err != nil {
		var ae *tracefs.AccessError
		if errors.As(err, &ae) {
			return nil, &etw.AccessError{Op: "dpc watch"}
		}
		return nil, err
	}
	defer s.Close()
	faultsBefore, _, faultsErr := snapshotFaults("/proc")
	start := clock.Now()
	rec := NewLinuxRecorder(start)
	tr := tracefs.NewIRQTracker()
	add := func(x tracefs.Exec) {
		sec := Interrupt
		if x.Kind == tracefs.KindSoftIRQ {
			sec = Deferred
		}
		rec.AddNamed(sec, x.Name, Exec{CPU: uint16(x.CPU), Start: x.Start, End: x.End, Kind: x.Kind, Label: x.Label()})
	}
	drain := func() error {
		_, err := s.Drain(func(e tracefs.Event) { tr.Add(e, add) })
		return err
	}
	if o.OnStart != nil {
		o.OnStart(s.Name)
	}
	var end <-chan time.Time
	if o.Duration > 0 {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		end = t.C
	}
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	// Drained ten times a period: a 4 MiB buffer per CPU holds far more,
	// and the live line then shows what ended before it.
	pollEvery := min(o.Every/10, 100*time.Millisecond)
	poll := time.NewTicker(pollEvery)
	defer poll.Stop()
	// Each second's line is drawn by the handlers' own time stamps; a
	// second closes one poll after its end, when every CPU's buffer has
	// been drained past it.
	rec.Live(o.Every, pollEvery)
	for done := false; !done; {
		select {
		case <-poll.C:
			if err := drain(); err != nil {
				return nil, err
			}
		case <-tick.C:
			if err := drain(); err != nil {
				return nil, err
			}
			o.period(rec, clock.Now())
		case <-end:
			done = true
		case <-ctx.Done():
			done = true
		}
	}
	now := clock.Now()
	if o.BeforeStop != nil {
		o.BeforeStop()
	}
	stopErr := s.Stop()
	if err := drain(); err != nil {
		return nil, err
	}
	if o.AfterStop != nil {
		o.AfterStop()
	}
	// Every event is in: the seconds still open get their lines.
	o.live(rec.Flush(now))
	sum := rec.Summary(now)
	if stopErr != nil {
		sum.Notes = append(sum.Notes, stopErr.Error())
	}
	lost := s.Lost()
	if lost > 0 {
		sum.Notes = append(sum.Notes, fmt.Sprintf("the ring buffer lost %d events: the counts are lower bounds", lost))
	}
	if tr.Unmatched > 0 {
		// With nothing lost, an exit without its entry is a handler that
		// was running when tracing started.
		why := "handlers that began before the trace"
		if lost > 0 {
			why += ", or lost events"
		}
		sum.Notes = append(sum.Notes, fmt.Sprintf("%d exits without their entry (%s) are not counted", tr.Unmatched, why))
	}
	name := s.Name
	if err := s.Close(); err != nil {
		sum.Notes = append(sum.Notes, err.Error())
	}
	rep := rec.Report(now)
	faultsAfter, capped, err := snapshotFaults("/proc")
	if faultsErr == nil && err == nil {
		hf, notes := majorFaults(faultsBefore, faultsAfter, capped)
		rep.HardFaults = hf
		sum.Notes = append(sum.Notes, notes...)
	} else {
		sum.Notes = append(sum.Notes, fmt.Sprintf("no major page faults: /proc could not be read (%v)", errors.Join(faultsErr, err)))
	}
	return &Result{Session: name, Report: rep, Summary: sum, Method: LinuxMethod}, nil
}
