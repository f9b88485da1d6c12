package report

import (
	"fmt"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/units"
)

// TCPDiscardGraph lays out the TCP state samples of `net tcp-discard` for
// TCPGraphPlot: the windows in KiB and the RTTs in µs over ms since the
// first write, with the samples where a retransmission counter grew.
func TCPDiscardGraph(r *netload.TCPResult) TCPGraph {
	g := TCPGraph{Title: fmt.Sprintf("%s to %s: TCP state (%s)", units.Bytes(r.Written), r.Peer, r.SampleMethod)}
	series := func(f netload.Field, name string, scale float64) Series {
		t, v := r.FieldSeries(f)
		s := Series{Name: name}
		for i := range t {
			s.X = append(s.X, float64(t[i])/1e6)
			s.Y = append(s.Y, float64(v[i])/scale)
		}
		return s
	}
	g.Windows = []Series{
		series(netload.FCwnd, "cwnd", 1024),
		series(netload.FSndWnd, "send window", 1024),
		series(netload.FBytesInFlight, "in flight", 1024),
		series(netload.FSsthresh, "ssthresh", 1024),
	}
	g.RTT = []Series{series(netload.FRTT, "smoothed RTT", 1), series(netload.FMinRTT, "min RTT", 1)}
	for _, s := range r.Samples {
		if s.Retrans {
			g.Retrans = append(g.Retrans, float64(s.TNs)/1e6)
		}
	}
	return g
}
