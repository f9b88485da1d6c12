package report

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/dscp"
)

func dscpRun(t *testing.T, path, filter, expect string) *dscp.Result {
	t.Helper()
	var flt *capture.Filter
	if filter != "" {
		var err error
		if flt, err = capture.ParseFilter(filter); err != nil {
			t.Fatal(err)
		}
	}
	r, err := dscp.Run(context.Background(), dscp.Options{
		Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
		},
		Filter: flt, FilterText: filter, Expect: expect,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The goldens are what `latlab pcap dscp` printed for these captures
// (run in capture/testdata) before the printer moved here.
func TestDSCPGolden(t *testing.T) {
	g := goldie.New(t)
	for _, c := range []struct{ name, file, filter, expect string }{
		{"dscp-ssh-expect", "ssh.pcap", "port 22", "af21"},
		{"dscp-pktmon-etl2pcap-expect", "pktmon-etl2pcap-ssh.pcapng", "port 22", "af21"},
		{"dscp-pgm", "pgm_zmtp1.pcap", "", ""},
		{"dscp-ipv6", "../tcpflow/testdata/corpus/zeek/ipv6-http-atomic-frag.pcap", "", ""},
	} {
		var b bytes.Buffer
		path := c.file
		if !strings.Contains(path, "/") {
			path = "../capture/testdata/" + path
		}
		DSCP(&b, filepath.Base(c.file), dscpRun(t, path, c.filter, c.expect))
		g.Assert(t, c.name, b.Bytes())
	}
}

// Process ids get a column and a line saying what they are; a filter that
// keeps nothing says so; an empty capture has no span.
func TestDSCPText(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	scan := func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		st := &capture.Stats{Format: "pcapng", FirstNs: 1e9, LastNs: 1e9 + 2e6, Frames: 3, IPPackets: 3}
		for i, pid := range []string{"PID=4", "PID=1234", "PID=1234"} {
			rec := capture.Record{TimeNs: 1e9 + int64(i)*1e6, Comments: []string{pid}}
			p := capture.Packet{Src: a, Dst: b, Proto: 17, HasPorts: true, SrcPort: 3074, DstPort: 3074, TOS: 46 << 2, IPLen: 100}
			h(&rec, &p)
		}
		return st, nil
	}
	r, err := dscp.Run(context.Background(), dscp.Options{Scan: scan})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	DSCP(&out, "etl.pcapng", r)
	for _, want := range []string{
		"etl.pcapng: pcapng, 3 frames, 3 IP packets,\n  2ms from 1970-01-01 00:00:01.000000 UTC",
		"PID", "1234 x2, 4 x1", "EF (46) x3", "PID: the process id in the etl2pcapng packet comment",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "!") {
		t.Errorf("a flow marked offending without an expectation:\n%s", out.String())
	}
	r = dscpRun(t, "../capture/testdata/ssh.pcap", "udp", "EF")
	out.Reset()
	DSCP(&out, "ssh.pcap", r)
	if s := out.String(); !strings.Contains(s, "filter: udp (0 flow directions match)") || !strings.Contains(s, "\nno IP flows match\n") {
		t.Errorf("nothing kept:\n%s", s)
	}
	if got := CaptureSpan(&capture.Stats{}); got != "empty" {
		t.Errorf("empty capture: %q", got)
	}
}

// What the flow table could not track is said: the packets of the flow
// directions past its cap, with their marks and how many missed
// --expect, and the packets of process ids past a flow's cap.
func TestDSCPTextUntracked(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	f := &capture.FlowStats{Key: capture.FlowKey{Src: a, Dst: b, Proto: 17, SrcPort: 1, DstPort: 53}, Packets: 7, Bytes: 700,
		PIDs: map[int]uint64{4: 2}, OtherPIDs: 5, FirstNs: 1e9, LastNs: 1e9}
	f.DSCP[46] = 7
	u := &capture.FlowStats{Packets: 9, Bytes: 900}
	u.DSCP[46], u.DSCP[0] = 6, 3
	u.ECN[0] = 9
	r := &dscp.Result{Data: dscp.Data{Capture: &capture.Stats{Format: "pcap", Frames: 16, IPPackets: 16, FirstNs: 1e9, LastNs: 1e9},
		Filter: "dport 53", Flows: []dscp.Flow{{}}, Untracked: &dscp.Untracked{MaxFlows: capture.MaxFlows, Packets: 9, Bytes: 900}},
		Stats: []*capture.FlowStats{f}, UntrackedStats: u, UntrackedOffending: 3}
	var out bytes.Buffer
	DSCP(&out, "many.pcap", r)
	joined := strings.Join(strings.Fields(out.String()), " ") // the note is wrapped
	for _, want := range []string{
		"filter: dport 53 (1 flow directions match, and more not tracked)",
		"not tracked: 9 packets (900 bytes) of flow directions first seen after latlab tracked 65536; DSCP EF (46) x6, CS0 (0) x3, ECN not-ect x9; 3 not marked as --expect requires",
		"4 x2, others x5", "others: packets of process ids beyond the 16 a flow keeps",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
}

// A flow whose marks take more than one line keeps them under it, the
// next flow's line coming after them and after its process ids, all
// within 80 columns.
func TestDSCPTextWrapsLongMarks(t *testing.T) {
	a, b := netip.MustParseAddr("2001:db8:aaaa:bbbb:cccc:dddd:eeee:1"), netip.MustParseAddr("2001:db8:aaaa:bbbb:cccc:dddd:eeee:2")
	scan := func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		st := &capture.Stats{Format: "pcapng", FirstNs: 1e9, LastNs: 1e9 + 2e6, Frames: 14, IPPackets: 14}
		for i, tos := range []uint8{0, 8, 10, 18, 26, 34, 46, 48, 56, 1, 2, 3} {
			rec := capture.Record{TimeNs: 1e9 + int64(i)*1e5, Comments: []string{fmt.Sprintf("PID=%d", 1000+i)}}
			p := capture.Packet{Src: a, Dst: b, Proto: 6, HasPorts: true, SrcPort: 50000, DstPort: 443, TOS: tos<<2 | uint8(i%4), IPLen: 100}
			h(&rec, &p)
		}
		for i := range 2 {
			rec := capture.Record{TimeNs: 1e9 + 2e6, Comments: []string{"PID=4"}}
			p := capture.Packet{Src: b, Dst: a, Proto: 6, HasPorts: true, SrcPort: 443, DstPort: 50000, TOS: 46 << 2, IPLen: 60 + i}
			h(&rec, &p)
		}
		return st, nil
	}
	r, err := dscp.Run(context.Background(), dscp.Options{Scan: scan, Expect: "EF"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	DSCP(&out, "long.pcapng", r)
	s := out.String()
	for i, l := range strings.Split(s, "\n") {
		if n := text.StringWidthWithoutEscSequences(l); n > 80 {
			t.Errorf("line %d: %d columns: %q", i+1, n, l)
		}
	}
	first := strings.Index(s, "! [2001:db8:aaaa:bbbb:cccc:dddd:eeee:1]:50000 ->")
	marks := strings.Index(s, "CS7 (56) x1")
	pids := strings.Index(s, "PID 1000 x1,")
	second := strings.Index(s, "\n [2001:db8:aaaa:bbbb:cccc:dddd:eeee:2]:443 ->")
	if first < 0 || marks < first || pids < marks || second < pids || strings.Count(s, "PID 4 x2") != 1 {
		t.Errorf("flows, marks and process ids out of order:\n%s", s)
	}
	// A terminal of 50 columns: the lines fit it, the columns left out
	// are named after the last flow's process ids.
	out.Reset()
	DSCP(WithWidth(&out, 50), "long.pcapng", r)
	narrow := out.String()
	for i, l := range strings.Split(narrow, "\n") {
		if n := text.StringWidthWithoutEscSequences(l); n > 50 {
			t.Errorf("at 50 columns, line %d: %d columns: %q", i+1, n, l)
		}
	}
	if p, n := strings.Index(narrow, "PID 4 x2"), strings.Index(narrow, "(not shown"); p < 0 || n < p {
		t.Errorf("at 50 columns, the last process ids after the note:\n%s", narrow)
	}
	// --expect's shortfall on stderr wraps as the table, between marks
	out.Reset()
	DSCPShortfall(&out, r)
	s = out.String()
	if strings.Count(s, "\n") < 3 || strings.Join(strings.Fields(s), " ") != r.Shortfall() {
		t.Errorf("shortfall not wrapped, or changed:\n%s", s)
	}
	for i, l := range strings.Split(s, "\n") {
		if n := text.StringWidthWithoutEscSequences(l); n > 80 || i > 0 && l != "" && !strings.HasPrefix(l, "  ") {
			t.Errorf("shortfall line %d: %d columns: %q", i+1, n, l)
		}
		if strings.HasSuffix(l, "(56)") || strings.HasSuffix(l, "CS7") {
			t.Errorf("shortfall line %d cuts a mark: %q", i+1, l)
		}
	}
}
