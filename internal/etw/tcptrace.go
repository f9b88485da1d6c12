package etw

import (
	"fmt"
	"sync"
	"time"
)

// MaxTCPEvents bounds the events a TCP trace keeps (all connections).
const MaxTCPEvents = 1_000_000

// TCPTrace records the TCP/IP provider's events while a transfer runs.
type TCPTrace struct {
	s       *Session
	done    chan error
	mu      sync.Mutex
	events  []TCPEvent
	dropped int
	bad     int
	badMsg  string
	// templates caches each event's template from the manifest by ID and
	// version (nil: TDH has none, the Windows 10 layouts decide).
	templates map[uint32]*EventInfo
	tdhErr    string
}

// StartTCPTrace starts recording (Windows, elevated) at the verbose level,
// where TcpRack is written: every keyword, since the Windows 11
// loss-recovery events read by name (NamedTCPEvents) come under keywords
// no published manifest names; the send-path, connect-path and diagnosis
// keywords carry the Windows 10 ones. Events latlab does not read are
// dropped as they arrive.
func StartTCPTrace() (*TCPTrace, error) {
	s, err := StartProvider(TCPSessionBase, TCPIPGUID, 5, TCPIPKeywordAll)
	if err != nil {
		return nil, err
	}
	t := &TCPTrace{s: s, done: make(chan error, 1)}
	if err := s.Open(t.handle); err != nil {
		_ = s.Stop()
		return nil, err
	}
	go func() { t.done <- s.Process() }()
	return t, nil
}

func (t *TCPTrace) handle(ev *Event) {
	if ev.Provider != TCPIPGUID {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok, err := t.decode(ev)
	if !ok {
		return
	}
	switch {
	case err != nil:
		t.bad++
		if t.badMsg == "" {
			t.badMsg = err.Error()
		}
	case len(t.events) >= MaxTCPEvents:
		t.dropped++
	default:
		t.events = append(t.events, e)
	}
}

// Stop ends the trace and returns its events, the clock's ticks per
// second and what the reader should know.
func (t *TCPTrace) Stop() (events []TCPEvent, freq int64, notes []string) {
	stopErr := t.s.Stop()
	var procErr error
	select {
	case procErr = <-t.done:
	case <-time.After(5 * time.Second):
		t.s.Close() // the session did not end ProcessTrace: CloseTrace does
		procErr = <-t.done
	}
	t.s.Close()
	t.s.Release()
	t.mu.Lock()
	defer t.mu.Unlock()
	if stopErr != nil {
		notes = append(notes, stopErr.Error())
	}
	if procErr != nil {
		notes = append(notes, procErr.Error())
	}
	if t.bad > 0 {
		notes = append(notes, fmt.Sprintf("%d TCP/IP events could not be decoded; the first: %s", t.bad, t.badMsg))
	}
	if t.dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d events past the first %d were not kept", t.dropped, MaxTCPEvents))
	}
	if t.tdhErr != "" {
		notes = append(notes, "the TCPIP manifest could not be read for some events (the Windows 10 layouts were used where they exist): "+t.tdhErr)
	}
	if ev, buf := t.s.Lost(); ev > 0 || buf > 0 {
		notes = append(notes, fmt.Sprintf("the session lost %d events and %d real-time buffers", ev, buf))
	}
	return t.events, t.s.Frequency(), notes
}

// maxTemplates bounds the cache: a manifest has some hundreds of events.
const maxTemplates = 4096

// decode reads an event by its template from the machine's manifest
// (TdhGetEventInformation), once per ID and version, and falls back to
// the published Windows 10 layouts (DecodeTCPIP) where TDH has none.
func (t *TCPTrace) decode(ev *Event) (TCPEvent, bool, error) {
	key := uint32(ev.ID)<<8 | uint32(ev.Version)
	info, cached := t.templates[key]
	if !cached && len(t.templates) < maxTemplates {
		var err error
		info, err = eventTemplate(ev)
		if err != nil && t.tdhErr == "" {
			t.tdhErr = err.Error()
		}
		if t.templates == nil {
			t.templates = map[uint32]*EventInfo{}
		}
		t.templates[key] = info
	}
	if info != nil {
		if e, ok, err := DecodeByTemplate(info, ev); ok && err == nil {
			return e, true, nil
		}
	}
	return DecodeTCPIP(ev)
}
