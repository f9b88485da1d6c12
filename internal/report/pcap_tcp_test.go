package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/tcpflow"
)

// pcapTCPRun is `pcap tcp` on the capture at path, keeping the top
// connections (0: all).
func pcapTCPRun(t *testing.T, path string, top int) *tcpflow.Result {
	t.Helper()
	if top == 0 {
		top = tcpflow.AllConnections
	}
	r, err := tcpflow.Run(context.Background(), tcpflow.Options{
		Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
		},
		Stream: -1, Top: top,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ssh.pcap has a D-SACK and an RTT too long for a column of its own at
// full width; the IPv6 capture has four connections of which two are
// shown, and an ACK of data the capture never saw.
func TestPcapTCPGolden(t *testing.T) {
	g := goldie.New(t)
	for _, c := range []struct {
		name, path string
		top        int
	}{
		{"pcap-tcp-ssh", "../tcpflow/testdata/ssh.pcap", 10},
		{"pcap-tcp-ipv6-top2", "../tcpflow/testdata/corpus/zeek/ipv6-http-atomic-frag.pcap", 2},
	} {
		r := pcapTCPRun(t, c.path, c.top)
		var b bytes.Buffer
		PcapTCP(&b, filepath.Base(c.path), c.top, r, r.Notes())
		g.Assert(t, c.name, b.Bytes())
	}
}

// Every line of the pcap dscp and pcap tcp goldens fits 80 columns,
// counted as a terminal shows them (a box-drawing character or µ is one).
func TestPcapGoldensFit80Columns(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/dscp-*.golden", "testdata/pcap-tcp-*.golden"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("%d pcap goldens, want the dscp and tcp ones: %v", len(files), files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if n := text.StringWidthWithoutEscSequences(l); n > 80 {
				t.Errorf("%s:%d: %d columns: %q", f, i+1, n, l)
			}
		}
	}
}
