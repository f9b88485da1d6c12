package etl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"sort"
	"time"

	"github.com/latlab/latlab/internal/badinput"
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
	// Interrupted says the read was stopped (Ctrl-C): the summary covers
	// what was read until then.
	Interrupted bool `json:"interrupted,omitempty"`
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
	// Name is the event type's name where latlab reads it (a kernel
	// class's opcode: PageFault 32 is HardFault).
	Name string `json:"name,omitempty"`
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
		// A missing, unreadable or refused file is the user's input, as
		// for every command that reads a file: exit 2, naming it.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, badinput.Errorf("cannot read %s: %w", o.File, err)
	}
	defer f.Close()
	s, err := Summarize(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.File, err)
	}
	s.File = o.File
	return s, nil
}

// Bounds of the summary's tables: a crafted trace cannot make them grow
// without end. Each is far above what a real trace holds (a kernel trace
// lists a few hundred images and a few dozen providers); reaching one is
// noted.
const (
	MaxProviders = 4096
	// MaxCounts bounds the opcode and event id counts of all providers
	// together (a kernel and CLR trace of the corpus has about 600);
	// events past it count in their provider's total only.
	MaxCounts  = 8192
	MaxModules = 16384
	// MaxModuleName bounds an image's file name (Windows paths reach 32767
	// UTF-16 units; kernel images are named far shorter).
	MaxModuleName = 1024
	// MaxTCBs bounds the TCP control blocks whose events are counted.
	MaxTCBs = 65536
)

// Summarize reads a trace from r; ctx stops it between buffers (Ctrl-C),
// and the summary then covers what was read, marked Interrupted.
func Summarize(ctx context.Context, r io.Reader) (*Summary, error) {
	rd := NewReader(r)
	rd.Context = ctx
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
	var dpc, hard, packets int64
	var n int64
	var capped struct {
		provEvents, countEvents, mods, names, tcbs int64
	}
	var counts int
	tcp := newTCPCounter()
	var tcpBad int
	var tcpBadMsg string
	err := rd.Walk(func(rec *Record) error {
		n++
		k := key{g: rec.Provider, kernel: rec.Kernel}
		if rec.Kernel && rec.Provider == (etw.GUID{}) {
			k.hook = uint8(rec.HookID >> 8)
		}
		a := provs[k]
		if a == nil && len(provs) >= MaxProviders {
			capped.provEvents++
		} else {
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
				a.p.Name = clipRunes(rec.ProviderTraitsName(), MaxModuleName)
			}
			a.p.Events++
			v := int(rec.ID)
			if rec.classic() {
				v = int(rec.Opcode)
			}
			if _, ok := a.ops[v]; ok || counts < MaxCounts {
				if !ok {
					counts++
				}
				a.ops[v]++
			} else {
				capped.countEvents++
			}
		}
		switch {
		case rec.Kernel && rec.Provider == etw.ImageGUID:
			if im, ok, err := etw.DecodeImage(&rec.Event); ok && err == nil && !im.Unload && im.PID == 0 {
				file := im.FileName
				if len(file) > MaxModuleName {
					file = clipRunes(file, MaxModuleName)
					capped.names++
				}
				m := Module{Name: clipRunes(im.Name(), MaxModuleName), File: file, Base: im.Base, Size: im.Size}
				if mods[m] || len(mods) < MaxModules {
					mods[m] = true
				} else {
					capped.mods++
				}
			}
		case rec.Kernel && rec.Provider == etw.PerfInfoGUID:
			if _, ok, _ := etw.DecodePerfInfo(&rec.Event); ok {
				dpc++
			}
		case rec.Kernel && rec.Provider == etw.PageFaultGUID && rec.Opcode == etw.TypeHardFault:
			hard++
		case rec.Provider == etw.TCPIPGUID && rec.Kind == HeaderEvent:
			e, ok, err := etw.DecodeTCPIP(&rec.Event)
			switch {
			case !ok:
			case err != nil:
				tcpBad++
				if tcpBadMsg == "" {
					tcpBadMsg = fmt.Sprintf("offset %d: %v", rec.Offset, err)
				}
			default:
				tcp.add(e)
			}
		case IsPacketEvent(rec):
			packets++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Summary{Events: n, Providers: []Provider{}, Modules: []Module{}, Uses: []Use{}, Interrupted: rd.Interrupted}
	if rd.Interrupted {
		s.Notes = append(s.Notes, fmt.Sprintf("interrupted after %d buffers and %d events: the summary covers those", rd.Buffers, n))
	}
	if u := rd.Unreadable(); u != "" {
		s.Notes = append(s.Notes, u)
	}
	s.Notes = append(s.Notes, rd.NotesBesideUnreadable()...)
	if capped.provEvents > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("more than %d providers: %d events of further providers are counted in the total only", MaxProviders, capped.provEvents))
	}
	if capped.countEvents > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("more than %d opcodes and event ids in all: %d events are counted in their provider's total only", MaxCounts, capped.countEvents))
	}
	if capped.mods > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("more than %d kernel images: %d further image events are not listed", MaxModules, capped.mods))
	}
	if capped.names > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d image file names longer than %d characters are cut there", capped.names, MaxModuleName))
	}
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
			n := ""
			if a.p.Kernel {
				n = kernelOpcodeName(a.p.GUID, v)
			}
			cs = append(cs, Count{Value: v, Events: c, Name: n})
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
	switch {
	case dpc > 0 && hard > 0:
		s.Uses = append(s.Uses, Use{"latlab dpcisr FILE", fmt.Sprintf("%d DPC and ISR events, attributed through %d kernel modules; %d hard page faults (PageFault HardFault), per process", dpc, len(s.Modules), hard)})
	case dpc > 0:
		s.Uses = append(s.Uses, Use{"latlab dpcisr FILE", fmt.Sprintf("%d DPC and ISR events, attributed through %d kernel modules", dpc, len(s.Modules))})
	case hard > 0:
		s.Uses = append(s.Uses, Use{"latlab dpcisr FILE", fmt.Sprintf("%d hard page faults (PageFault HardFault), per process", hard)})
	}
	if packets > 0 {
		s.Uses = append(s.Uses, Use{"latlab pcap dscp|tcp FILE", fmt.Sprintf("%d packet events (NDIS-PacketCapture 1001, PktMon 160 and 170)", packets)})
	}
	s.TCP = tcp.conns()
	s.Notes = append(s.Notes, tcp.notes...)
	if tcpBad > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d Microsoft-Windows-TCPIP events could not be decoded; the first at %s", tcpBad, tcpBadMsg))
	}
	if tcp.events > 0 {
		s.Uses = append(s.Uses, Use{"latlab etl FILE", fmt.Sprintf("%d Microsoft-Windows-TCPIP events in %d connection(s), decoded as net tcp-discard --etw decodes them (above)", tcp.events, len(s.TCP))})
	}
	return s, nil
}

// clipRunes cuts s to at most n runes.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Document is the result document of the summary, stamped with the
// facts of the machine that read the trace.
func (s *Summary) Document(h host.Facts) *result.Document { return Kind.New(h, s) }

// tcpCounter groups TCP/IP events by connection as etw.ForConnection does
// for tcp-discard's own connection, in one pass and without keeping the
// events: a connection is found by its first TcpConnectTcbComplete event
// (1033), which gives its Tcb; its events are the others with that Tcb,
// wherever they are in the trace.
type tcpCounter struct {
	events int64
	byTcb  map[uint64]*tcbCount
	order  []tcpKey // connections in the order their 1033 event came
	seen   map[tcpKey]bool
	tcbOf  map[tcpKey]uint64 // by the normalised addresses: the first 1033's Tcb
	capped int64
	notes  []string
}

type tcpKey struct{ local, remote netip.AddrPort }

type tcbCount struct {
	total  int
	counts map[string]int
}

func newTCPCounter() *tcpCounter {
	return &tcpCounter{byTcb: map[uint64]*tcbCount{}, seen: map[tcpKey]bool{}, tcbOf: map[tcpKey]uint64{}}
}

func (t *tcpCounter) add(e etw.TCPEvent) {
	t.events++
	norm := func(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
	if e.ID == 1033 {
		k := tcpKey{e.Local, e.Remote}
		if !t.seen[k] && len(t.order) < MaxTCPConns {
			t.seen[k] = true
			t.order = append(t.order, k)
		}
		nk := tcpKey{norm(e.Local), norm(e.Remote)}
		if _, ok := t.tcbOf[nk]; !ok && len(t.tcbOf) < MaxTCPConns {
			t.tcbOf[nk] = e.Tcb
		}
		return
	}
	c := t.byTcb[e.Tcb]
	if c == nil {
		if len(t.byTcb) >= MaxTCBs {
			t.capped++
			return
		}
		c = &tcbCount{counts: map[string]int{}}
		t.byTcb[e.Tcb] = c
	}
	c.total++
	c.counts[e.Name]++
}

func (t *tcpCounter) conns() []TCPConn {
	var out []TCPConn
	norm := func(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
	for _, k := range t.order {
		c := TCPConn{Local: k.local.String(), Remote: k.remote.String(), Counts: map[string]int{}}
		if n := t.byTcb[t.tcbOf[tcpKey{norm(k.local), norm(k.remote)}]]; n != nil {
			c.Events = n.total
			for name, v := range n.counts {
				c.Counts[name] = v
			}
		}
		out = append(out, c)
	}
	if len(t.order) >= MaxTCPConns {
		t.notes = append(t.notes, fmt.Sprintf("the first %d TCP connections are listed", MaxTCPConns))
	}
	if t.capped > 0 {
		t.notes = append(t.notes, fmt.Sprintf("more than %d TCP control blocks: %d events of further ones are not counted", MaxTCBs, t.capped))
	}
	return out
}
