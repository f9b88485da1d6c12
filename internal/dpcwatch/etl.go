package dpcwatch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etl"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/infile"
)

// An .etl trace (wpr -start CPU, xperf -on DPC+INTERRUPT+LOADER) read by
// `latlab dpcisr TRACE.etl` and `dpcisr compare`: its PerfInfo DPC and ISR
// events go through the same decoder and recorder as a live watch, and
// the routines are attributed with the trace's own Image events.
func init() { dpcisr.RegisterETL(ReportFromETL) }

// MaxModules bounds the kernel images kept from a trace's Image events
// (a kernel trace lists a few hundred, twice: at its start and in the
// rundown at its end); reaching it is noted.
const MaxModules = 16384

// ReportFromETL reads the trace at path in two passes: the kernel-mode
// images of every Image event first (a wpr trace lists them in the rundown
// at its end as well as its start), then the executions. ctx stops either
// pass between buffers (Ctrl-C): the report then covers what was read,
// with Interrupted set.
func ReportFromETL(ctx context.Context, path string) (*dpcisr.Report, error) {
	var mods []etw.Module
	seen := map[etw.Module]bool{}
	var capped int
	own := newOwners()
	rd, err := walkETL(ctx, path, func(_ *etl.Reader, r *etl.Record) {
		if !r.Kernel {
			return
		}
		if r.Provider == etw.ThreadGUID || r.Provider == etw.ProcessGUID {
			own.add(&r.Event)
			return
		}
		if r.Provider != etw.ImageGUID {
			return
		}
		im, ok, err := etw.DecodeImage(&r.Event)
		if !ok || err != nil || im.Unload || (im.PID != 0 && im.Base < 1<<63) {
			return
		}
		m := etw.Module{Name: im.Name(), Base: im.Base, Size: im.Size}
		if len(m.Name) > etl.MaxModuleName {
			m.Name = m.Name[:etl.MaxModuleName]
		}
		if seen[m] {
			return
		}
		if len(mods) >= MaxModules {
			capped++
			return
		}
		seen[m] = true
		mods = append(mods, m)
	})
	if err != nil {
		return nil, err
	}
	if rd.Interrupted {
		return nil, interrupted(path, "while reading its kernel images, before any DPC or ISR event")
	}
	var rec *Recorder
	var first, last int64
	var faults *hardFaults
	rd, err = walkETL(ctx, path, func(rd *etl.Reader, r *etl.Record) {
		if !r.Kernel {
			return
		}
		if r.Provider == etw.PageFaultGUID {
			if faults == nil {
				// the log file header, and so the clock, precedes every event
				faults = newHardFaults(own, rd.Logfile.Frequency())
			}
			faults.add(&r.Event)
			return
		}
		if r.Provider != etw.PerfInfoGUID {
			return
		}
		x, ok, err := etw.DecodePerfInfo(&r.Event)
		if !ok {
			return
		}
		if rec == nil {
			first = r.Timestamp
			if err == nil {
				first = x.Start
			}
			// the log file header, and so the clock, precedes every event
			rec = NewRecorder(rd.Logfile.Frequency(), first, etw.NewModules(mods))
		}
		if err != nil {
			rec.Bad(err)
			return
		}
		rec.Add(x)
		last = max(last, x.End)
	})
	if err != nil {
		return nil, err
	}
	if faults == nil {
		faults = newHardFaults(own, rd.Logfile.Frequency())
	}
	hf, hfNotes := faults.result()
	anyFaults := hf.Events > 0 || hf.Bad > 0
	if rec == nil && !anyFaults && rd.Interrupted {
		return nil, interrupted(path, "before any DPC, ISR or hard page fault event")
	}
	if rec == nil && !anyFaults && (rd.Damaged > 0 || rd.Missing > 0) {
		// the events may be in the buffers it could not read
		return nil, dpcisrInput("%s: no DPC or ISR events in the buffers read, and %s (no hard page faults either)", path, rd.Unreadable())
	}
	if rec == nil && !anyFaults {
		return nil, dpcisrInput("%s holds no DPC or ISR events (PerfInfo DPC, ThreadedDPC, TimerDPC, ISR, MSI ISR) and no hard page faults: record with wpr -start CPU, or xperf -on PROC_THREAD+LOADER+DPC+INTERRUPT+%s", path, dpcisr.HardFaultFlag)
	}
	if rd.Logfile.Frequency() <= 0 {
		return nil, dpcisrInput("%s: the trace header gives no clock frequency (clock type %d)", path, rd.Logfile.ClockType)
	}
	var rep *dpcisr.Report
	var recNotes []string
	if rec != nil {
		rep = rec.Report(last)
		s := rec.Summary(last)
		rep.Notes = append(rep.Notes, fmt.Sprintf("read from the .etl trace: %d DPC and ISR events, routines attributed with %d kernel modules of the trace's Image events", s.Events, etw.NewModules(mods).Len()))
		recNotes = s.Notes
	} else {
		rep = &dpcisr.Report{Source: dpcisr.SourceETW, Sections: []dpcisr.Section{}}
		rep.Notes = append(rep.Notes, "no DPC or ISR events: recorded without the DPC and INTERRUPT kernel flags")
	}
	rep.Encoding = dpcisr.EncodingETL
	rep.HardFaults = hf
	if rd.Interrupted {
		rep.Interrupted = true
		rep.Notes = append([]string{fmt.Sprintf("interrupted after %d buffers: the report covers the events read until then", rd.Buffers)}, rep.Notes...)
	}
	if capped > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("more than %d kernel images: %d further ones are not used to attribute routines", MaxModules, capped))
	}
	rep.Notes = append(rep.Notes, recNotes...)
	rep.Notes = append(rep.Notes, hfNotes...)
	if u := rd.Unreadable(); u != "" {
		rep.Notes = append(rep.Notes, "the .etl trace: "+u)
	}
	rep.Notes = append(rep.Notes, rd.NotesBesideUnreadable()...)
	return rep, nil
}

func dpcisrInput(format string, a ...any) error {
	return badinput.Errorf(format, a...)
}

// ErrInterrupted is a read stopped (Ctrl-C) before it found anything to
// report.
var ErrInterrupted = errors.New("interrupted")

func interrupted(path, when string) error {
	return fmt.Errorf("%s: %w %s", path, ErrInterrupted, when)
}

// walkETL reads the trace at path within infile's bounds; ctx stops it
// between buffers.
func walkETL(ctx context.Context, path string, fn func(*etl.Reader, *etl.Record)) (*etl.Reader, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, dpcisrInput("cannot read %s: %v", path, err)
	}
	defer f.Close()
	rd := etl.NewReader(io.Reader(f))
	rd.Context = ctx
	err = rd.Walk(func(r *etl.Record) error { fn(rd, r); return nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rd, nil
}
