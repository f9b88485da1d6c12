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
		{"pcap-tcp-pktmon-etl2pcap", "../capture/testdata/pktmon-etl2pcap-ssh.pcapng", 10},
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

// goldenBody is a golden's text from the line after the header (the file,
// its format and frames) up to the notes.
func goldenBody(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, "\nnote: "); i >= 0 {
		s = s[:i+1]
	}
	_, body, ok := strings.Cut(s, "UTC\n")
	if !ok {
		t.Fatalf("%s: no header line ending in UTC:\n%s", name, b)
	}
	return body
}

// ssh.pcap written as pktmon etl2pcap logs it (each packet at five
// components, twice as 802.11 under the Ethernet label) reads, once
// pktmon's copies are dropped, as ssh.pcap itself: its goldens were
// checked against tshark (testdata/PROVENANCE of internal/capture). Only
// the header and the notes saying what was dropped and skipped differ.
func TestPktmonEtl2pcapGoldensAreSSH(t *testing.T) {
	for _, c := range [][2]string{
		{"pcap-tcp-pktmon-etl2pcap", "pcap-tcp-ssh"},
		{"dscp-pktmon-etl2pcap-expect", "dscp-ssh-expect"},
	} {
		if got, want := goldenBody(t, c[0]), goldenBody(t, c[1]); got != want {
			t.Errorf("%s differs from %s below the header:\n%s\nwant:\n%s", c[0], c[1], got, want)
		}
	}
	for _, name := range []string{"pcap-tcp-pktmon-etl2pcap", "dscp-pktmon-etl2pcap-expect"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Join(strings.Fields(string(b)), " ")
		for _, w := range []string{"270 frames",
			`note: duplicates dropped: 108 copies of packets seen just before were not analysed (a pktmon capture: its pcapng header names the writer "Packet Monitor", pktmon's converter); --dedup off keeps them`,
			"note: 108 frames skipped: 802.11 under an Ethernet label (data frames carrying IP, as pktmon etl2pcap writes a Wi-Fi adapter's packets; tshark does not read them as IP either"} {
			if !strings.Contains(s, w) {
				t.Errorf("%s does not say %q:\n%s", name, w, b)
			}
		}
	}
}
