package netload

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
)

// TCPEvents are the Microsoft-Windows-TCPIP provider's events of one
// connection, recorded while it ran (tcp-discard --etw).
type TCPEvents struct {
	Conn  *etw.TCPConnection // nil when the addresses could not be matched
	Notes []string
	// DSack is what the connection's Windows 11 loss-recovery events say
	// of D-SACKs and the reorder window.
	DSack *etw.DSackReport
}

// Retransmissions are the times of the retransmission events, for the
// graph's marks.
func (e *TCPEvents) Retransmissions() []float64 {
	if e == nil || e.Conn == nil {
		return nil
	}
	return e.Conn.Retransmissions()
}

func startTCPTrace() (*etw.TCPTrace, error) {
	tr, err := etw.StartTCPTrace()
	var ae *etw.AccessError
	switch {
	case errors.Is(err, etw.ErrUnsupported):
		return nil, badinput.Errorf("--etw is Windows-only (the Microsoft-Windows-TCPIP provider); on Linux the kernel's TCP_INFO samples are all there is")
	case errors.As(err, &ae):
		return nil, errors.New("--etw needs an elevated (Administrator) prompt: a trace session is a privileged operation")
	case err != nil:
		return nil, fmt.Errorf("--etw: %w", err)
	}
	return tr, nil
}

// stopTCPTrace stops the trace and picks the events of r's connection (r
// nil: the transfer never connected; the trace is only stopped).
func stopTCPTrace(tr *etw.TCPTrace, r *TCPResult) *TCPEvents {
	evs, freq, notes := tr.Stop()
	ev := &TCPEvents{Notes: notes}
	if r == nil {
		return ev
	}
	local, err1 := netip.ParseAddrPort(r.Local)
	peer, err2 := netip.ParseAddrPort(r.Peer)
	if err1 != nil || err2 != nil {
		ev.Notes = append(ev.Notes, fmt.Sprintf("the connection's addresses %s -> %s are not IP:port", r.Local, r.Peer))
		return ev
	}
	ev.Conn = etw.ForConnection(evs, local, peer, freq)
	ev.Notes = append(ev.Notes, ev.Conn.Notes...)
	if ev.Conn.Found {
		ev.DSack = etw.AnalyzeDSack(ev.Conn, host.Collect().Build)
	}
	return ev
}
