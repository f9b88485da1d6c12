package dscp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/host"
)

// manyFlows scans one packet of each of n UDP flows to port 53 (EF on the
// even ones, CS1 on the odd), after noise flows to port 9 the filter
// leaves out.
func manyFlows(n, noise int) func(context.Context, capture.Handler) (*capture.Stats, error) {
	return func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		st := &capture.Stats{Format: "pcap", FirstNs: 1e9}
		a := netip.MustParseAddr("10.0.0.1")
		send := func(i int, port uint16, tos uint8) {
			b := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			rec := capture.Record{TimeNs: 1e9 + int64(st.Frames)}
			p := capture.Packet{Src: a, Dst: b, Proto: 17, HasPorts: true, SrcPort: uint16(i), DstPort: port, TOS: tos, IPLen: 80}
			h(&rec, &p)
			st.Frames++
			st.IPPackets++
		}
		for i := 0; i < noise; i++ {
			send(i, 9, 0)
		}
		for i := 0; i < n; i++ {
			tos := uint8(46 << 2)
			if i%2 == 1 {
				tos = 8 << 2
			}
			send(i, 53, tos)
		}
		st.LastNs = 1e9 + int64(st.Frames)
		return st, nil
	}
}

// More flow directions than latlab tracks: the first capture.MaxFlows are
// listed, the packets of the rest are added up, said so, and counted in
// the expectation; flows the filter leaves out take no room.
func TestRunUntrackedFlows(t *testing.T) {
	const extra = 300
	r, err := Run(context.Background(), Options{Scan: manyFlows(capture.MaxFlows+extra, 1000), Filter: mustFilter(t, "dport 53"), FilterText: "dport 53", Expect: "EF"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Flows) != capture.MaxFlows || len(r.Stats) != capture.MaxFlows {
		t.Fatalf("%d flows listed, want %d", len(r.Flows), capture.MaxFlows)
	}
	u := r.Untracked
	if u == nil || u.MaxFlows != capture.MaxFlows || u.Packets != extra || u.Bytes != 80*extra || u.DSCP["46"] != extra/2 || u.DSCP["8"] != extra/2 {
		t.Fatalf("untracked %+v", u)
	}
	e := r.Expect
	if e.Matched != capture.MaxFlows+extra || e.Offending != (capture.MaxFlows+extra)/2 || e.OK || r.UntrackedOffending != extra/2 {
		t.Errorf("expect %+v, untracked offending %d", e, r.UntrackedOffending)
	}
	if s := r.Shortfall(); !strings.HasSuffix(s, "and 32748 more flow(s); and 150 packets of flows not tracked (more than 65536) [CS1 (8) x150, EF (46) x150]") {
		t.Errorf("shortfall ends %q", s[max(0, len(s)-120):])
	}
	b, err := json.Marshal(Kind.New(host.Facts{}, &r.Data))
	if err != nil || !bytes.Contains(b, []byte(`"untracked":{"max_flows":65536,"packets":300`)) {
		t.Errorf("the document does not say what was not tracked (%v)", err)
	}

	// Exactly as many as are tracked: nothing untracked, the expectation
	// met; the filtered-out flows did not take room.
	r, err = Run(context.Background(), Options{Scan: manyFlows(capture.MaxFlows, 1000), Filter: mustFilter(t, "dport 53")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Untracked != nil || len(r.Flows) != capture.MaxFlows {
		t.Errorf("%d flows, untracked %+v", len(r.Flows), r.Untracked)
	}
}
