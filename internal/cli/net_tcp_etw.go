package cli

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/netload"
)

// tcpETW is the --etw part of tcp-discard: the TCP/IP provider's events
// of the connection, recorded while it ran.
type tcpETW struct {
	trace *etw.TCPTrace
	conn  *etw.TCPConnection
	notes []string
}

func startTCPETW(on bool) (*tcpETW, error) {
	if !on {
		return nil, nil
	}
	tr, err := etw.StartTCPTrace()
	var ae *etw.AccessError
	switch {
	case errors.Is(err, etw.ErrUnsupported):
		return nil, Usagef("--etw is Windows-only (the Microsoft-Windows-TCPIP provider); on Linux the kernel's TCP_INFO samples are all there is")
	case errors.As(err, &ae):
		return nil, fmt.Errorf("--etw needs an elevated (Administrator) prompt: a trace session is a privileged operation")
	case err != nil:
		return nil, fmt.Errorf("--etw: %w", err)
	}
	return &tcpETW{trace: tr}, nil
}

// finish stops the trace and picks the connection's events.
func (t *tcpETW) finish(r *netload.TCPResult) {
	if t == nil || t.trace == nil {
		return
	}
	evs, freq, notes := t.trace.Stop()
	t.trace = nil
	t.notes = notes
	if r == nil {
		return
	}
	local, err1 := netip.ParseAddrPort(r.Local)
	peer, err2 := netip.ParseAddrPort(r.Peer)
	if err1 != nil || err2 != nil {
		t.notes = append(t.notes, fmt.Sprintf("the connection's addresses %s -> %s are not IP:port", r.Local, r.Peer))
		return
	}
	t.conn = etw.ForConnection(evs, local, peer, freq)
	t.notes = append(t.notes, t.conn.Notes...)
}

// addToDocument puts the events beside the transfer in the document's data.
func (t *tcpETW) addToDocument(d *netload.TCPData) {
	if t != nil {
		d.ETW = t.conn
	}
}

// documentNotes are the trace's notes for the document.
func (t *tcpETW) documentNotes() []string {
	if t == nil {
		return nil
	}
	return t.notes
}

// retransmissions are the ETW retransmission marks for the graph.
func (t *tcpETW) retransmissions() []float64 {
	if t == nil || t.conn == nil {
		return nil
	}
	return t.conn.Retransmissions()
}

func (t *tcpETW) print(w io.Writer) {
	if t == nil {
		return
	}
	fmt.Fprintln(w, "\nTCP/IP events (ETW, Microsoft-Windows-TCPIP):")
	if t.conn == nil || !t.conn.Found {
		fmt.Fprintln(w, "  the connection was not found among the events")
	} else if t.conn.Total == 0 {
		fmt.Fprintln(w, "  none for this connection: no retransmission, RACK, tail loss probe, loss recovery or window restart")
	} else {
		var names []string
		for n := range t.conn.Counts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "  %-32s %d\n", n, t.conn.Counts[n])
		}
		if wnd, ok := t.conn.ReorderingWindow(); ok {
			fmt.Fprintf(w, "  last RACK reordering window (RackReoWind): %d\n", wnd)
		}
	}
	for _, n := range t.notes {
		for _, l := range wrapHanging("  note: "+strings.TrimSpace(n), 4, 80) {
			fmt.Fprintln(w, l)
		}
	}
}
