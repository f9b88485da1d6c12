package report

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"strings"
	"testing"

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
		{"dscp-pgm", "pgm_zmtp1.pcap", "", ""},
	} {
		var b bytes.Buffer
		DSCP(&b, c.file, dscpRun(t, "../capture/testdata/"+c.file, c.filter, c.expect))
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
		"etl.pcapng: pcapng, 3 frames, 3 IP packets, 2ms from 1970-01-01 00:00:01.000000 UTC",
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
