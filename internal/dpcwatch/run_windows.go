package dpcwatch

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/etw"
)

func run(ctx context.Context, o Options) (*Result, error) {
	if !etw.Elevated() {
		return nil, &etw.AccessError{Op: "dpc watch"}
	}
	s, err := etw.StartKernel(Flags)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = s.Stop()
			s.Close()
		}
	}()
	mods, modErr := etw.LoadedModules()
	var rec *Recorder // set before Process delivers the first event
	own := newOwners()
	var faults *hardFaults // likewise
	err = s.Open(func(ev *etw.Event) {
		switch ev.Provider {
		case etw.ThreadGUID, etw.ProcessGUID:
			own.add(ev)
		case etw.PageFaultGUID:
			faults.add(ev)
		case etw.PerfInfoGUID:
			x, ok, err := etw.DecodePerfInfo(ev)
			if err != nil {
				rec.Bad(err)
			} else if ok {
				rec.Add(x)
			}
		case etw.ImageGUID:
			im, ok, err := etw.DecodeImage(ev)
			if err != nil {
				rec.Bad(err)
			} else if ok {
				rec.Image(im)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	start := etw.QPC()
	rec = NewRecorder(s.Frequency(), start, etw.NewModules(mods))
	faults = newHardFaults(own, s.Frequency())
	rec.Live(o.Every, FlushLag)
	done := make(chan error, 1)
	go func() { done <- s.Process() }()
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
	var procErr error
	finished := false
	for !finished {
		select {
		case <-tick.C:
			o.period(rec, etw.QPC())
		case <-end:
			finished = true
		case <-ctx.Done():
			finished = true
		case procErr = <-done:
			done = nil
			finished = true
		}
	}
	now := etw.QPC()
	stopErr := s.Stop()
	stopped = true
	if done != nil {
		// The session delivers what it still holds, then ProcessTrace
		// returns; if it does not, CloseTrace ends it.
		select {
		case procErr = <-done:
		case <-time.After(5 * time.Second):
			s.Close()
			procErr = <-done
		}
	}
	s.Close()
	s.Release()
	if procErr != nil {
		return nil, procErr
	}
	// Every event is in: the seconds still open get their lines.
	o.live(rec.Flush(now))
	sum := rec.Summary(now)
	if modErr != nil {
		sum.Notes = append(sum.Notes, fmt.Sprintf("no module list (%v): routines are named from the trace's image events only", modErr))
	}
	if stopErr != nil {
		sum.Notes = append(sum.Notes, stopErr.Error())
	}
	if ev, buf := s.Lost(); ev > 0 || buf > 0 {
		sum.Notes = append(sum.Notes, fmt.Sprintf("the session lost %d events and %d real-time buffers: the counts are lower bounds", ev, buf))
	}
	rep := rec.Report(now)
	hf, notes := faults.result()
	if hf.Missing != "" {
		hf.Missing = "no hard page faults during the watch (HARD_FAULTS was on)"
	}
	rep.HardFaults = hf
	sum.Notes = append(sum.Notes, notes...)
	return &Result{Session: s.Name, Report: rep, Summary: sum}, nil
}
