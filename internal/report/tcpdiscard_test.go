package report

import (
	"slices"
	"testing"

	"github.com/latlab/latlab/internal/netload"
)

// Each series keeps only the samples where the kernel reported its field,
// scaled to KiB and ms; retransmissions mark their sample's time.
func TestTCPDiscardGraph(t *testing.T) {
	sample := func(tNs int64, retrans bool, fields map[netload.Field]int64) netload.TCPSample {
		s := netload.TCPSample{TNs: tNs, Retrans: retrans}
		for f, v := range fields {
			s.V[f] = v
			s.Has |= 1 << f
		}
		return s
	}
	r := &netload.TCPResult{Written: 2_000_000, Peer: "127.0.0.1:9", SampleMethod: "TCP_INFO", Samples: []netload.TCPSample{
		sample(1e6, false, map[netload.Field]int64{netload.FCwnd: 10240, netload.FRTT: 150}),
		sample(2e6, true, map[netload.Field]int64{netload.FCwnd: 20480}),
	}}
	g := TCPDiscardGraph(r)
	if g.Title != "2.00 MB to 127.0.0.1:9: TCP state (TCP_INFO)" {
		t.Errorf("title %q", g.Title)
	}
	if c := g.Windows[0]; c.Name != "cwnd" || !slices.Equal(c.X, []float64{1, 2}) || !slices.Equal(c.Y, []float64{10, 20}) {
		t.Errorf("cwnd %+v", c)
	}
	if s := g.Windows[1]; s.Name != "send window" || len(s.X) != 0 {
		t.Errorf("send window %+v: the kernel reported none", s)
	}
	if rtt := g.RTT[0]; rtt.Name != "smoothed RTT" || !slices.Equal(rtt.X, []float64{1}) || !slices.Equal(rtt.Y, []float64{150}) {
		t.Errorf("rtt %+v", rtt)
	}
	if !slices.Equal(g.Retrans, []float64{2}) {
		t.Errorf("retransmissions at %v ms", g.Retrans)
	}
}
