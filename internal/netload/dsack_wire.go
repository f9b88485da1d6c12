package netload

import (
	"fmt"
	"net/netip"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/tcpflow"
)

// DSackRun is the part of a tcp-discard document (net tcp-discard --etw)
// that a capture of the same connection can check: the connection's
// endpoints and what its TcpReceiveSack events counted.
type DSackRun struct {
	Local, Peer netip.AddrPort
	DSack       *etw.DSackReport
}

// DSackRunOf reads it from a document; bad input when the document is not
// a tcp-discard result with the D-SACK report of --etw.
func DSackRunOf(d *result.Document) (*DSackRun, error) {
	data, ok := KindTCPDiscard.Of(d)
	if !ok || data.TCPResult == nil {
		return nil, badinput.Errorf("not a tcp-discard result (kind %q): --etw-result takes the document of latlab net tcp-discard --etw", d.Kind)
	}
	if data.DSack == nil {
		return nil, badinput.Errorf("the tcp-discard result has no D-SACK report: it was run without --etw, or its connection was not found among the events")
	}
	local, err1 := netip.ParseAddrPort(data.Local)
	peer, err2 := netip.ParseAddrPort(data.Peer)
	if err1 != nil || err2 != nil {
		return nil, badinput.Errorf("the tcp-discard result's endpoints %q -> %q are not IP:port", data.Local, data.Peer)
	}
	return &DSackRun{Local: local, Peer: peer, DSack: data.DSack}, nil
}

// Match says whether c is this run's connection, and if so which of its
// directions the peer sent (0: A to B, 1: B to A). It matches by both
// ports, so that a capture taken behind NAT (on the peer, say) still
// finds it; exact addresses are not required.
func (r *DSackRun) Match(c *tcpflow.Connection) (peerDir int, ok bool) {
	switch a, b := c.A.Port, c.B.Port; {
	case a == r.Peer.Port() && b == r.Local.Port():
		return 0, true
	case b == r.Peer.Port() && a == r.Local.Port():
		return 1, true
	}
	return 0, false
}

// CompareCapture compares the run's counted D-SACKs with the D-SACK blocks
// the peer sent in c (its direction's DSACKBlocks), the comparison Gary
// Nebbett made against the raw packets (etw.DSackReport.CompareWire).
func (r *DSackRun) CompareCapture(c *tcpflow.Connection) error {
	dir, ok := r.Match(c)
	if !ok {
		return fmt.Errorf("connection %s - %s is not %s - %s", c.A, c.B, r.Local, r.Peer)
	}
	st := c.AToB
	if dir == 1 {
		st = c.BToA
	}
	r.DSack.CompareWire(st.DSACKBlocks)
	return nil
}
