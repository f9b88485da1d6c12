package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// netServer runs `latlab net serve` in-process on ephemeral loopback ports.
func netServer(t *testing.T, udp bool) netload.ServeReady {
	t.Helper()
	echoPort := "0"
	if !udp {
		echoPort = "-1"
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"net", "serve", "--echo-port", echoPort, "--discard-port", "0", "--sink-port", "0", "--json", "--duration", "2m"},
			&IO{In: strings.NewReader(""), Out: pw, Err: &bytes.Buffer{}})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no ready line: %v", err)
	}
	ready := payload(t, readDoc(t, line), netload.KindServeReady)
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("net serve exited %d", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("net serve did not stop")
		}
		pr.Close()
	})
	return *ready
}

// udpWorks reports whether UDP sockets open here: not under Wine, which
// lacks the SIO_UDP_CONNRESET ioctl Go uses on Windows (error 10045).
func udpWorks(t *testing.T) bool {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err == nil {
		c.Close()
		return true
	}
	if !testutil.UnderWine() || !strings.Contains(err.Error(), "10045") {
		t.Fatal(err)
	}
	return false
}

func TestNetBadInputExit2(t *testing.T) {
	udp := udpWorks(t)
	srv := netServer(t, udp)
	if !udp {
		srv.Echo = "127.0.0.1:7"
	}
	// Each case: the arguments, then what the one-line message must name.
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"net", "udp"}, "--to"},
		{[]string{"net", "udp", "--to", srv.Echo, "--profile", "quake"}, "--profile"},
		{[]string{"net", "udp", "--to", srv.Echo, "--rate", "-5"}, "--rate"},
		{[]string{"net", "udp", "--to", srv.Echo, "--rate", "0"}, "--rate"},
		{[]string{"net", "udp", "--to", srv.Echo, "--size", "10"}, "--size"},
		{[]string{"net", "udp", "--to", srv.Echo, "--count", "-1"}, "--count"},
		{[]string{"net", "udp", "--to", srv.Echo, "--dscp", "64"}, "--dscp"},
		{[]string{"net", "udp", "--to", srv.Echo, "--cpus", "4096"}, "--cpus"},
		{[]string{"net", "udp", "--to", srv.Echo, "--priority", "urgent"}, "--priority"},
		{[]string{"net", "udp", "--to", srv.Echo, "--priority", "realtime", "--rtprio", "0"}, "--rtprio"},
		{[]string{"net", "udp", "--to", "nonsense"}, "nonsense"},
		{[]string{"net", "udp", "--to", srv.Discard, "--count", "3"}, srv.Discard}, // nothing answers UDP there
		{[]string{"net", "tcp-discard"}, "--to"},
		{[]string{"net", "tcp-discard", "--to", srv.Sink, "--size", "0"}, "--size"},
		{[]string{"net", "tcp-discard", "--to", srv.Sink, "--size", "-1MB"}, "--size"},
		{[]string{"net", "tcp-discard", "--to", srv.Sink, "--sample-every", "50us"}, "--sample-every"},
		{[]string{"net", "tcp-discard", "--to", srv.Sink, "--plot", "x.jpg"}, "x.jpg"},
		{[]string{"net", "tcp-discard", "--to", "127.0.0.1:1"}, "127.0.0.1:1"},
		{[]string{"net", "serve", "--echo-port", "-1", "--discard-port", "-1", "--sink-port", "-1"}, "--echo-port"},
		{[]string{"net", "serve", "--listen", "localhost"}, "localhost"},
		{[]string{"net", "serve", "--echo-port", "-1", "--sink-port", "-1", "--discard-port", srv.Discard[strings.LastIndexByte(srv.Discard, ':')+1:]}, "--discard-port"},
		{[]string{"net", "rss-experiment", "--share", "2"}, "--share"},
		{[]string{"net", "rss-experiment", "--plot", "x.gif"}, "x.gif"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, stderr, c.want)
		if !strings.HasPrefix(stderr, "latlab: ") {
			t.Errorf("%v: stderr %q, want it to start with latlab: ", c.args, stderr)
		}
	}
}

func TestNetUDPResultDocument(t *testing.T) {
	if !udpWorks(t) {
		t.Skip("UDP sockets unavailable under Wine (no SIO_UDP_CONNRESET)")
	}
	srv := netServer(t, true)
	dir := testutil.TempDir(t)
	out := filepath.Join(dir, "udp.json")
	code, stdout, stderr := runCLI(t, "net", "udp", "--to", srv.Echo, "--profile", "voice", "--count", "20", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "net", "udp", "--to", srv.Echo, "--profile", "voice", "--count", "20", "-o", out); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, stderr)
	}
	doc, err := result.Read(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	d := payload(t, doc, netload.KindUDP)
	if d.Summary == nil || d.Summary.Count != 20 || len(d.Samples) != 20 || d.Histogram == nil || d.CorrectedSummary == nil {
		t.Fatalf("document: kind %s summary %+v samples %d", doc.Kind, d.Summary, len(d.Samples))
	}
	if d.Profile != "voice" || d.Sent != 20 || d.Received != 20 || d.RatePPS != 50 || d.Size != 160 || d.SendLag.Count != 20 {
		t.Fatalf("data %+v", d)
	}
	if _, err := result.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	if dist, _, err := d.Values(nil); err != nil || len(dist) != 20 {
		t.Fatalf("distribution for compare: %d, %v", len(dist), err)
	}
	if d.Thread.CPU != -1 || d.Thread.Priority != "normal" {
		t.Fatalf("pacing thread %+v, want normal priority, not pinned", d.Thread)
	}
	code, stdout, _ = runCLI(t, "net", "udp", "--to", srv.Echo, "--rate", "500", "--size", "100", "--count", "50", "--cpus", "0")
	if code != 0 || !strings.Contains(stdout, "echoed 50") || !strings.Contains(stdout, "send schedule: p99 error") ||
		!strings.Contains(stdout, "pacing thread: priority normal, pinned to CPU 0") {
		t.Fatalf("human output (exit %d):\n%s", code, stdout)
	}
}

func TestNetTCPDiscardOutputs(t *testing.T) {
	srv := netServer(t, udpWorks(t))
	dir := testutil.TempDir(t)
	csv, svg, png := filepath.Join(dir, "s.csv"), filepath.Join(dir, "g.svg"), filepath.Join(dir, "g.png")
	code, stdout, stderr := runCLI(t, "net", "tcp-discard", "--to", srv.Sink, "--size", "2MB", "--csv", csv, "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "the sink confirmed 2000000 bytes") || !strings.Contains(stdout, "goodput") {
		t.Fatalf("output:\n%s", stdout)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, csv)), "\n")
	if i := strings.Index(stdout, "TCP state sampling failed: "); i >= 0 && tcpInfoMayBeMissing(stdout[i:]) {
		lines = append(lines, "(no samples on this platform)")
		lines[0] += ","
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "t_ns,retransmission,") {
		t.Fatalf("csv:\n%s", strings.Join(lines, "\n"))
	}
	if s := readFile(t, svg); !strings.Contains(s, "<svg") {
		t.Fatal("graph is not SVG")
	}
	code, stdout, stderr = runCLI(t, "net", "tcp-discard", "--to", srv.Discard, "--size", "64KiB", "--plot", png, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := payload(t, readDoc(t, stdout), netload.KindTCPDiscard)
	if d.Written != 65536 || d.SinkBytes != -1 {
		t.Fatalf("data %+v", d.TCPResult)
	}
	if b := readFile(t, png); !strings.HasPrefix(b, "\x89PNG") {
		t.Fatal("graph is not PNG")
	}
}
