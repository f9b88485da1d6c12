package dpcwatch

import (
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

// ReportFromETL reads the trace at path in two passes: the kernel-mode
// images of every Image event first (a wpr trace lists them in the rundown
// at its end as well as its start), then the executions.
func ReportFromETL(path string) (*dpcisr.Report, error) {
	var mods []etw.Module
	var loads int
	_, err := walkETL(path, func(_ *etl.Reader, r *etl.Record) {
		if r.Provider != etw.ImageGUID || !r.Kernel {
			return
		}
		im, ok, err := etw.DecodeImage(&r.Event)
		if !ok || err != nil || im.Unload || (im.PID != 0 && im.Base < 1<<63) {
			return
		}
		loads++
		mods = append(mods, etw.Module{Name: im.Name(), Base: im.Base, Size: im.Size})
	})
	if err != nil {
		return nil, err
	}
	var rec *Recorder
	var first, last int64
	rd, err := walkETL(path, func(rd *etl.Reader, r *etl.Record) {
		if r.Provider != etw.PerfInfoGUID || !r.Kernel {
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
	if rec == nil && rd.Damaged > 0 {
		return nil, dpcisrInput("%s: no DPC or ISR events in the buffers read, and %s", path, rd.Unreadable())
	}
	if rec == nil {
		return nil, dpcisrInput("%s holds no DPC or ISR events (PerfInfo DPC, ThreadedDPC, TimerDPC, ISR, MSI ISR): record with wpr -start CPU, or xperf -on PROC_THREAD+LOADER+DPC+INTERRUPT", path)
	}
	if rd.Logfile.Frequency() <= 0 {
		return nil, dpcisrInput("%s: the trace header gives no clock frequency (clock type %d)", path, rd.Logfile.ClockType)
	}
	rep := rec.Report(last)
	rep.Encoding = dpcisr.EncodingETL
	s := rec.Summary(last)
	rep.Notes = append(rep.Notes, fmt.Sprintf("read from the .etl trace: %d DPC and ISR events, routines attributed with %d kernel modules of the trace's Image events", s.Events, etw.NewModules(mods).Len()))
	rep.Notes = append(rep.Notes, s.Notes...)
	if u := rd.Unreadable(); u != "" {
		rep.Notes = append(rep.Notes, "the .etl trace: "+u)
	}
	rep.Notes = append(rep.Notes, rd.Notes()...)
	return rep, nil
}

func dpcisrInput(format string, a ...any) error {
	return badinput.Errorf(format, a...)
}

// walkETL reads the trace at path within infile's bounds.
func walkETL(path string, fn func(*etl.Reader, *etl.Record)) (*etl.Reader, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, dpcisrInput("cannot read %s: %v", path, err)
	}
	defer f.Close()
	rd := etl.NewReader(io.Reader(f))
	err = rd.Walk(func(r *etl.Record) error { fn(rd, r); return nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rd, nil
}
