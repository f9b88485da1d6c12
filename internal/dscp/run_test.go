package dscp

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
)

// sshPcap: DSCP 18 (AF21) on the server's 24 packets, 8 (CS1) on 9 and 0
// on 21 of the client's 30 (capture/testdata/PROVENANCE).
const sshPcap = "../capture/testdata/ssh.pcap"

func scanFile(t *testing.T, path string) func(context.Context, capture.Handler) (*capture.Stats, error) {
	return func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
	}
}

func mustFilter(t *testing.T, s string) *capture.Filter {
	t.Helper()
	if s == "" {
		return nil
	}
	f, err := capture.ParseFilter(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunExpect(t *testing.T) {
	for _, c := range []struct {
		name, filter, expect string
		flows                int
		want                 *Expect // nil: no expectation
		offending            []string
		shortfall            string
	}{
		{name: "no expectation", flows: 2},
		{name: "server AF21", filter: "sport 22", expect: "AF21", flows: 1,
			want: &Expect{DSCP: 18, Name: "AF21 (18)", Matched: 24, OK: true}},
		{name: "by number", filter: "src 223.132.53.222", expect: "18", flows: 1,
			want: &Expect{DSCP: 18, Name: "AF21 (18)", Matched: 24, OK: true}},
		{name: "client not AF21", filter: "port 22", expect: "af21", flows: 2,
			want:      &Expect{DSCP: 18, Name: "AF21 (18)", Matched: 54, Offending: 30},
			offending: []string{"202.108.87.165:62146 -> 223.132.53.222:22 tcp"},
			shortfall: "expected DSCP AF21 (18) on every matching packet; 30 of 54 are marked otherwise, in 1 flow(s): " +
				"202.108.87.165:62146 -> 223.132.53.222:22 tcp [CS0 (0) x21, CS1 (8) x9]"},
		{name: "both offend", expect: "EF", flows: 2,
			want:      &Expect{DSCP: 46, Name: "EF (46)", Matched: 54, Offending: 54},
			offending: []string{"202.108.87.165:62146 -> 223.132.53.222:22 tcp", "223.132.53.222:22 -> 202.108.87.165:62146 tcp"},
			shortfall: "expected DSCP EF (46) on every matching packet; 54 of 54 are marked otherwise, in 2 flow(s): " +
				"202.108.87.165:62146 -> 223.132.53.222:22 tcp [CS0 (0) x21, CS1 (8) x9]; " +
				"223.132.53.222:22 -> 202.108.87.165:62146 tcp [AF21 (18) x24]"},
		// nothing matches: not met, but no flow offends
		{name: "no packet matched", filter: "udp", expect: "EF", flows: 0,
			want: &Expect{DSCP: 46, Name: "EF (46)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Run(context.Background(), Options{Scan: scanFile(t, sshPcap), Filter: mustFilter(t, c.filter), FilterText: c.filter, Expect: c.expect})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Flows) != c.flows || len(r.Stats) != c.flows || r.Filter != c.filter || r.Capture.IPPackets != 54 {
				t.Fatalf("%d flows, %d stats, filter %q, capture %+v", len(r.Flows), len(r.Stats), r.Filter, r.Capture)
			}
			if (r.Expect == nil) != (c.want == nil) || c.want != nil && *r.Expect != *c.want {
				t.Errorf("expect %+v, want %+v", r.Expect, c.want)
			}
			if met := c.want == nil || c.want.OK; r.Met() != met {
				t.Errorf("Met %v, want %v", r.Met(), met)
			}
			var off []string
			for _, f := range r.Offending {
				off = append(off, FlowLabel(f.Key))
			}
			if strings.Join(off, "|") != strings.Join(c.offending, "|") {
				t.Errorf("offending %q, want %q", off, c.offending)
			}
			for i, f := range r.Flows {
				isOff := false
				for _, o := range r.Offending {
					isOff = isOff || o == r.Stats[i]
				}
				if f.Offending != isOff || f.Packets != r.Stats[i].Packets {
					t.Errorf("flow %d %+v: offending %v, stats %+v", i, f, isOff, r.Stats[i])
				}
			}
			if got := r.Shortfall(); got != c.shortfall {
				t.Errorf("shortfall\n%q, want\n%q", got, c.shortfall)
			}
		})
	}
}

// The payload of the two flows, as in the document.
func TestRunFlows(t *testing.T) {
	r, err := Run(context.Background(), Options{Scan: scanFile(t, sshPcap)})
	if err != nil {
		t.Fatal(err)
	}
	c, s := r.Flows[0], r.Flows[1] // the client sent first
	if c.Src != "202.108.87.165" || c.Sport != 62146 || c.Dst != "223.132.53.222" || c.Dport != 22 || c.Proto != "tcp" ||
		c.Packets != 30 || c.Bytes != 6601 || len(c.DSCP) != 2 || c.DSCP["0"] != 21 || c.DSCP["8"] != 9 ||
		c.DSCPNames["0"] != "CS0" || c.DSCPNames["8"] != "CS1" || c.ECN["not-ect"] != 30 || len(c.ECN) != 1 ||
		c.FirstRel != 0 || c.First != "2018-12-23T10:50:09.891237Z" || c.PIDs != nil || c.VLANs != nil || c.Offending {
		t.Errorf("client %+v", c)
	}
	if s.Packets != 24 || s.DSCP["18"] != 24 || s.DSCPNames["18"] != "AF21" || s.FirstRel != 0.025681 || s.LastRel != 0.575377 {
		t.Errorf("server %+v", s)
	}
	if r.Expect != nil || !r.Met() || r.Shortfall() != "" {
		t.Errorf("no expectation: %+v, met %v, %q", r.Expect, r.Met(), r.Shortfall())
	}
}

// Process ids from etl2pcapng comments and VLAN ids are counted per flow;
// a DSCP value without a name has no entry in dscp_names.
func TestRunPIDsAndVLANs(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	scan := func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		st := &capture.Stats{Format: "pcapng", FirstNs: 1e9}
		for i, c := range []struct {
			comment string
			tos     uint8
			vlan    uint16
		}{{"PID=4", 46 << 2, 7}, {"PID=1234", 46<<2 | 3, 7}, {"PID=1234", 5 << 2, 8}} {
			rec := capture.Record{TimeNs: 1e9 + int64(i)*1e6, Comments: []string{c.comment}}
			p := capture.Packet{Src: a, Dst: b, Proto: 17, HasPorts: true, SrcPort: 3074, DstPort: 3074, TOS: c.tos, IPLen: 100, HasVLAN: true, VLAN: c.vlan}
			h(&rec, &p)
			st.Frames++
		}
		return st, nil
	}
	r, err := Run(context.Background(), Options{Scan: scan, Expect: "EF"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Flows) != 1 {
		t.Fatalf("%d flows", len(r.Flows))
	}
	f := r.Flows[0]
	if f.PIDs["4"] != 1 || f.PIDs["1234"] != 2 || f.VLANs["7"] != 2 || f.VLANs["8"] != 1 || f.Bytes != 300 ||
		f.DSCP["46"] != 2 || f.DSCP["5"] != 1 || f.DSCPNames["46"] != "EF" || len(f.DSCPNames) != 1 ||
		f.ECN["ce"] != 1 || f.ECN["not-ect"] != 2 || f.LastRel != 0.002 || !f.Offending {
		t.Errorf("flow %+v", f)
	}
	if e := r.Expect; e.Matched != 3 || e.Offending != 1 || e.OK {
		t.Errorf("expect %+v", e)
	}
}

// A bad expectation is refused before the capture is read; the scan's
// errors come back as they are.
func TestRunErrors(t *testing.T) {
	scanned := false
	scan := func(context.Context, capture.Handler) (*capture.Stats, error) {
		scanned = true
		return nil, errors.New("disk on fire")
	}
	for _, bad := range []string{"AF44", "64", "-1", "EFF"} {
		_, err := Run(context.Background(), Options{Scan: scan, Expect: bad})
		var ee *ExpectError
		if !errors.As(err, &ee) || ee.Value != bad || ee.Err == nil {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if scanned {
		t.Error("the capture was read despite a bad expectation")
	}
	if _, err := Run(context.Background(), Options{Scan: scan}); err == nil || err.Error() != "disk on fire" {
		t.Errorf("scan error: %v", err)
	}
	if _, err := Run(context.Background(), Options{}); err == nil {
		t.Error("no Scan: no error")
	}
}

func TestLabels(t *testing.T) {
	for _, c := range []struct {
		k    capture.FlowKey
		want string
	}{
		{capture.FlowKey{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), SrcPort: 5, DstPort: 6, Proto: 17}, "10.0.0.1:5 -> 10.0.0.2:6 udp"},
		{capture.FlowKey{Src: netip.MustParseAddr("2001:db8::1"), Dst: netip.MustParseAddr("ff02::1"), Proto: 58}, "[2001:db8::1] -> [ff02::1] icmpv6"},
		// a TCP flow shows its ports even when they are 0
		{capture.FlowKey{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Proto: 6}, "10.0.0.1:0 -> 10.0.0.2:0 tcp"},
	} {
		if got := FlowLabel(c.k); got != c.want {
			t.Errorf("FlowLabel %+v = %q, want %q", c.k, got, c.want)
		}
	}
	if got := Label(46); got != "EF (46)" {
		t.Errorf("Label(46) = %q", got)
	}
	if got := Label(5); got != "5" {
		t.Errorf("Label(5) = %q", got)
	}
	var f capture.FlowStats
	f.DSCP[46], f.DSCP[0], f.DSCP[10] = 3, 5, 3 // equal counts keep ascending values
	f.ECN[2], f.ECN[3] = 1, 2
	if got := DSCPSummary(&f); got != "CS0 (0) x5, AF11 (10) x3, EF (46) x3" {
		t.Errorf("DSCPSummary %q", got)
	}
	if got := ECNSummary(&f); got != "ce x2, ect0 x1" {
		t.Errorf("ECNSummary %q", got)
	}
}
