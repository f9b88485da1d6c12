package etl

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/result"
)

// Kind is the result kind of `latlab etl --json`.
var Kind = result.Register[Summary]("etl", "what an .etl trace holds: header facts, events per provider or kernel class, kernel modules, the commands that can read it (latlab etl)")

// Summary is what a trace holds, as `latlab etl` reports it.
type Summary struct {
	File   string `json:"file"`
	Header Facts  `json:"header"`
	// Events counts every event read, the logger's own EventTrace events
	// included.
	Events    int64      `json:"events"`
	Providers []Provider `json:"providers"`
	// Modules are the kernel-mode images (process 0) of the Image events:
	// loads and the rundown, one entry per base, size and file.
	Modules []Module `json:"modules"`
	// TCP are the connections of the Microsoft-Windows-TCPIP events,
	// decoded as latlab net tcp-discard --etw decodes them: found by
	// their TcpConnectTcbComplete event, then by its Tcb.
	TCP []TCPConn `json:"tcp,omitempty"`
	// Uses are the latlab commands that can read the trace.
	Uses  []Use    `json:"uses"`
	Notes []string `json:"notes,omitempty"`
}

// Facts are the trace header's facts.
type Facts struct {
	OS              string    `json:"os"` // "10.0"
	Build           uint32    `json:"build"`
	CPUs            uint32    `json:"cpus"`
	PointerSize     uint32    `json:"pointer_size"`
	Clock           string    `json:"clock"`
	ClockFrequency  int64     `json:"clock_frequency_hz"`
	TimerResolution float64   `json:"timer_resolution_ms"`
	CPUSpeedMHz     uint32    `json:"cpu_speed_mhz"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	LoggerName      string    `json:"logger_name"`
	LogFileMode     uint32    `json:"log_file_mode"`
	BufferSize      uint32    `json:"buffer_size"`
	Buffers         int       `json:"buffers"`
	BuffersWritten  uint32    `json:"buffers_written"`
	CompressedBufs  int       `json:"compressed_buffers,omitempty"`
	DamagedBuffers  int       `json:"damaged_buffers,omitempty"`
	EventsLost      uint32    `json:"events_lost"`
	BuffersLost     uint32    `json:"buffers_lost"`
}

// Provider is the events of one provider or classic kernel class.
type Provider struct {
	GUID   string `json:"guid"` // lower case, no braces
	Name   string `json:"name"`
	Kernel bool   `json:"kernel,omitempty"` // a classic kernel class (hook ids)
	Events int64  `json:"events"`
	// Opcodes counts classic events (kernel classes, EVENT_TRACE_HEADER
	// and instance events) by event type; IDs counts manifest events by
	// event id.
	Opcodes []Count `json:"opcodes,omitempty"`
	IDs     []Count `json:"ids,omitempty"`
}

// Count is the events of one opcode or event id.
type Count struct {
	Value  int   `json:"value"`
	Events int64 `json:"events"`
}

// Module is a kernel image as the Image events give it.
type Module struct {
	Name string `json:"name"` // file name without folder, as xperf names modules
	File string `json:"file"` // as the kernel spells it
	Base uint64 `json:"base"`
	Size uint64 `json:"size"`
}

// TCPConn is one connection's TCP/IP events: counts by event name.
type TCPConn struct {
	Local  string         `json:"local"`
	Remote string         `json:"remote"`
	Events int            `json:"events"`
	Counts map[string]int `json:"counts"`
}

// MaxTCPConns bounds the connections listed.
const MaxTCPConns = 1000

// Use is a latlab command that reads the trace, and what it reads.
type Use struct {
	Command string `json:"command"`
	Reads   string `json:"reads"`
}

// Options are the inputs of Run.
type Options struct {
	File string
}

// Run reads the trace and summarises it.
func Run(ctx context.Context, o Options) (*Summary, error) {
	f, err := infile.Open(o.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Summarize(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(o.File), err)
	}
	s.File = o.File
	return s, nil
}

// Summarize reads a trace from r.
func Summarize(ctx context.Context, r io.Reader) (*Summary, error) {
	rd := NewReader(r)
	type key struct {
		g      etw.GUID
		kernel bool
		hook   uint8 // the group, for classes latlab cannot name
	}
	type acc struct {
		p       Provider
		classic bool
		ops     map[int]int64
	}
	provs := map[key]*acc{}
	mods := map[Module]bool{}
	var dpc, packets int64
	var n int64
	var tcpEvents []etw.TCPEvent
	var tcpBad int
	var tcpBadMsg string
	err := rd.Walk(func(rec *Record) error {
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		k := key{g: rec.Provider, kernel: rec.Kernel}
		if rec.Kernel && rec.Provider == (etw.GUID{}) {
			k.hook = uint8(rec.HookID >> 8)
		}
		a := provs[k]
		if a == nil {
			a = &acc{ops: map[int]int64{}, classic: rec.classic()}
			a.p.GUID, a.p.Kernel = GUIDString(rec.Provider), rec.Kernel
			if rec.Kernel {
				a.p.Name = kernelClass(rec.HookID).name
			} else {
				a.p.Name = ProviderName(rec.Provider)
			}
			provs[k] = a
		}
		if a.p.Name == "" {
			a.p.Name = rec.ProviderTraitsName()
		}
		a.p.Events++
		if rec.classic() {
			a.ops[int(rec.Opcode)]++
		} else {
			a.ops[int(rec.ID)]++
		}
		switch {
		case rec.Kernel && rec.Provider == etw.ImageGUID:
			if im, ok, err := etw.DecodeImage(&rec.Event); ok && err == nil && !im.Unload && im.PID == 0 {
				mods[Module{Name: im.Name(), File: im.FileName, Base: im.Base, Size: im.Size}] = true
			}
		case rec.Kernel && rec.Provider == etw.PerfInfoGUID:
			if _, ok, _ := etw.DecodePerfInfo(&rec.Event); ok {
				dpc++
			}
		case rec.Provider == etw.TCPIPGUID && rec.Kind == HeaderEvent:
			e, ok, err := etw.DecodeTCPIP(&rec.Event)
			switch {
			case !ok:
			case err != nil:
				tcpBad++
				if tcpBadMsg == "" {
					tcpBadMsg = fmt.Sprintf("offset %d: %v", rec.Offset, err)
				}
			case len(tcpEvents) < etw.MaxTCPEvents:
				tcpEvents = append(tcpEvents, e)
			}
		case IsPacketEvent(rec):
			packets++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Summary{Events: n, Providers: []Provider{}, Modules: []Module{}, Uses: []Use{}}
	if u := rd.Unreadable(); u != "" {
		s.Notes = append(s.Notes, u)
	}
	s.Notes = append(s.Notes, rd.Notes()...)
	if lf := rd.Logfile; lf != nil {
		s.Header = Facts{
			OS: fmt.Sprintf("%d.%d", lf.OSMajor, lf.OSMinor), Build: lf.Build, CPUs: lf.CPUs,
			PointerSize: lf.PointerSize, Clock: lf.ClockName(), ClockFrequency: lf.Frequency(),
			TimerResolution: float64(lf.TimerResolution) / 1e4, CPUSpeedMHz: lf.CPUSpeedMHz,
			Start: lf.StartTime, End: lf.EndTime, LoggerName: lf.LoggerName, LogFileMode: lf.LogFileMode,
			BufferSize: lf.BufferSize, BuffersWritten: lf.BuffersWritten,
			EventsLost: lf.EventsLost, BuffersLost: lf.BuffersLost,
		}
	}
	s.Header.Buffers, s.Header.CompressedBufs, s.Header.DamagedBuffers = rd.Buffers, rd.Compressed, rd.Damaged
	for _, a := range provs {
		var cs []Count
		for v, c := range a.ops {
			cs = append(cs, Count{Value: v, Events: c})
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Value < cs[j].Value })
		if a.classic {
			a.p.Opcodes = cs
		} else {
			a.p.IDs = cs
		}
		s.Providers = append(s.Providers, a.p)
	}
	sort.Slice(s.Providers, func(i, j int) bool {
		a, b := s.Providers[i], s.Providers[j]
		if a.Events != b.Events {
			return a.Events > b.Events
		}
		if a.GUID != b.GUID {
			return a.GUID < b.GUID
		}
		return a.Name < b.Name
	})
	for m := range mods {
		s.Modules = append(s.Modules, m)
	}
	sort.Slice(s.Modules, func(i, j int) bool {
		a, b := s.Modules[i], s.Modules[j]
		if a.Base != b.Base {
			return a.Base < b.Base
		}
		if a.Size != b.Size {
			return a.Size < b.Size
		}
		return a.File < b.File
	})
	if dpc > 0 {
		s.Uses = append(s.Uses, Use{"latlab dpcisr FILE", fmt.Sprintf("%d DPC and ISR events, attributed through %d kernel modules", dpc, len(s.Modules))})
	}
	if packets > 0 {
		s.Uses = append(s.Uses, Use{"latlab pcap dscp|tcp FILE", fmt.Sprintf("%d packet events (NDIS-PacketCapture 1001, PktMon 160 and 170)", packets)})
	}
	s.TCP = tcpConns(tcpEvents, rd.Logfile)
	if tcpBad > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d Microsoft-Windows-TCPIP events could not be decoded; the first at %s", tcpBad, tcpBadMsg))
	}
	if len(tcpEvents) > 0 {
		s.Uses = append(s.Uses, Use{"latlab etl FILE", fmt.Sprintf("%d Microsoft-Windows-TCPIP events in %d connection(s), decoded as net tcp-discard --etw decodes them (above)", len(tcpEvents), len(s.TCP))})
	}
	return s, nil
}

// Document is the result document of the summary, stamped with the
// facts of the machine that read the trace.
func (s *Summary) Document(h host.Facts) *result.Document { return Kind.New(h, s) }

// tcpConns groups TCP/IP events by connection, as ForConnection does for
// tcp-discard's own connection.
func tcpConns(evs []etw.TCPEvent, lf *Logfile) []TCPConn {
	var out []TCPConn
	seen := map[string]bool{}
	var freq int64
	if lf != nil {
		freq = lf.Frequency()
	}
	for _, e := range evs {
		if e.ID != 1033 || len(out) >= MaxTCPConns {
			continue
		}
		key := e.Local.String() + " " + e.Remote.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		c := etw.ForConnection(evs, e.Local, e.Remote, freq)
		out = append(out, TCPConn{Local: e.Local.String(), Remote: e.Remote.String(), Events: c.Total, Counts: c.Counts})
	}
	return out
}
