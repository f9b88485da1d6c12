package netload

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/testutil"
)

// needUDP skips UDP tests where Go cannot open a UDP socket: under Wine,
// which does not implement the SIO_UDP_CONNRESET ioctl Go issues for every
// Windows UDP socket (WSAEOPNOTSUPP, 10045). Anywhere else it fails.
func needUDP(t *testing.T) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err == nil {
		c.Close()
		return
	}
	if testutil.UnderWine() && strings.Contains(err.Error(), "10045") {
		t.Skipf("UDP sockets unavailable under Wine: %v", err)
	}
	t.Fatal(err)
}

// startServer serves on loopback ephemeral ports until the test ends.
func startServer(t *testing.T, udp bool) (echo, discard, sink string, stats func() ServeStats) {
	t.Helper()
	ep := 0
	if !udp {
		ep = -1
	}
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: ep, DiscardPort: 0, SinkPort: 0})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ServeStats, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop within 10s")
		}
	})
	echo, discard, sink = s.Addrs()
	return echo, discard, sink, s.Stats
}

// A game profile run sends exactly N packets and the echo server counts
// exactly N (plus the reachability check).
func TestUDPGameProfileLoopback(t *testing.T) {
	needUDP(t)
	echo, _, _, stats := startServer(t, true)
	p, _ := LookupProfile("game")
	const n = 64
	before := stats().EchoPackets
	r, err := RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: p.RatePPS, Size: p.Size, Count: n, DSCP: -1, Drain: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != n || r.Planned != n {
		t.Fatalf("sent %d planned %d, want %d", r.Sent, r.Planned, n)
	}
	if r.Received != n || r.Lost != 0 || r.Dups != 0 || r.Foreign != 0 {
		t.Fatalf("received %d lost %d dups %d foreign %d, want %d/0/0/0", r.Received, r.Lost, r.Dups, r.Foreign, n)
	}
	hellos := stats().EchoPackets - before - n
	if hellos < 1 || hellos > 10 {
		t.Fatalf("server echoed %d packets, want %d probes + 1..10 reachability checks", stats().EchoPackets-before, n)
	}
	if len(r.RTT) != n || len(r.SendLag) != n || len(r.FromIntended) != n {
		t.Fatalf("per-packet records: rtt %d lag %d intended %d", len(r.RTT), len(r.SendLag), len(r.FromIntended))
	}
	checkReceiveTimes(t, r)
	for i, v := range r.RTT {
		// The schedule is never ahead of the actual send, so the latency
		// from the intended send time is at least the round trip.
		if v <= 0 || r.FromIntended[i] < v {
			t.Fatalf("packet %d: rtt %d, from intended %d", i, v, r.FromIntended[i])
		}
	}
	for i, l := range r.SendLag {
		if l < 0 {
			t.Fatalf("packet %d sent %dns before its schedule", i, -l)
		}
	}
	if r.Thread.CPU != -1 || r.Thread.Priority != "normal" {
		t.Fatalf("default pacing thread %+v, want normal priority, not pinned", r.Thread)
	}
	if r.BurstEveryNs != 0 || !strings.Contains(r.PacerMethod, "spinning") {
		t.Fatalf("game rate paced as %q (burst every %d ns), want a wake-up and spin per packet", r.PacerMethod, r.BurstEveryNs)
	}
}

// The pacing thread is set up as asked and the result says how.
func TestUDPPinnedPacingThread(t *testing.T) {
	needUDP(t)
	echo, _, _, _ := startServer(t, true)
	cpu := sched.NumCPU() - 1
	r, err := RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: 1000, Size: 64, Count: 20, DSCP: -1,
		Thread: &probe.Thread{CPU: cpu}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 20 || r.Received != 20 {
		t.Fatalf("sent %d received %d", r.Sent, r.Received)
	}
	if r.Thread.CPU != cpu || r.Thread.Priority != "normal" {
		t.Fatalf("thread %+v, want pinned to CPU %d", r.Thread, cpu)
	}
}

func TestUDPUnreachablePeerIsInputError(t *testing.T) {
	needUDP(t)
	// A port nothing listens on: bind one, note it, close it.
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	echo, _, _ := s.Addrs()
	s.closeAll()
	_, err = RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: 50, Size: 160, Count: 5, DSCP: -1, HelloTimeout: time.Second})
	if !badinput.Is(err) {
		t.Fatalf("err = %v, want an input error", err)
	}
}

func TestTCPSinkExactBytes(t *testing.T) {
	_, _, sink, stats := startServer(t, false)
	const size = 3_000_001
	r, err := RunTCP(context.Background(), TCPOptions{To: sink, Size: size, SampleEvery: time.Millisecond, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Written != size || r.SinkBytes != size {
		t.Fatalf("written %d, sink received %d, want %d", r.Written, r.SinkBytes, size)
	}
	switch {
	case len(r.Samples) > 0:
		if _, ok := r.Samples[len(r.Samples)-1].Get(FCwnd); !ok {
			t.Fatal("final sample has no congestion window")
		}
		if r.SampleError != "" {
			t.Fatalf("samples and an error: %s", r.SampleError)
		}
	case tcpInfoMayBeMissing(r.SampleError):
		t.Logf("TCP state not available here: %s", r.SampleError)
	default:
		t.Fatalf("no TCP state samples, error %q", r.SampleError)
	}
	if r.GoodputBps <= 0 || r.WallNs < r.WriteNs {
		t.Fatalf("goodput %v wall %d write %d", r.GoodputBps, r.WallNs, r.WriteNs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for stats().SinkBytes != size && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := stats().SinkBytes; got != size {
		t.Fatalf("server counted %d bytes, want %d", got, size)
	}
}

func TestTCPDiscardExactBytes(t *testing.T) {
	_, discard, _, stats := startServer(t, false)
	const size = 1_000_000
	r, err := RunTCP(context.Background(), TCPOptions{To: discard, Size: size, SampleEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Written != size || r.SinkBytes != -1 {
		t.Fatalf("written %d sink %d", r.Written, r.SinkBytes)
	}
	deadline := time.Now().Add(5 * time.Second)
	for stats().DiscardBytes != size && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := stats().DiscardBytes; got != size {
		t.Fatalf("discard server counted %d bytes, want %d", got, size)
	}
}

func TestTCPRefusedIsInputError(t *testing.T) {
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: 0, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, d, _ := s.Addrs()
	s.closeAll()
	_, err = RunTCP(context.Background(), TCPOptions{To: d, Size: 10})
	if !badinput.Is(err) {
		t.Fatalf("err = %v, want input error", err)
	}
}

func TestListenPortInUse(t *testing.T) {
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: 0, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll()
	_, d, _ := s.Addrs()
	port := d[len("127.0.0.1:"):]
	var p int
	for _, c := range port {
		p = p*10 + int(c-'0')
	}
	_, err = Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: p, SinkPort: -1})
	if !badinput.Is(err) {
		t.Fatalf("err = %v, want input error", err)
	}
	t.Log(err)
}

// Above 10,000 packets/s the sender paces in bursts; every packet still
// goes out, never before its time, and the result says it paced so.
func TestUDPBurstPacingLoopback(t *testing.T) {
	needUDP(t)
	echo, _, _, _ := startServer(t, true)
	r, err := RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: 20_000, Size: 64, Count: 400, DSCP: -1, Drain: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 400 || len(r.SendLag) != 400 || r.BurstEveryNs != int64(SpinMargin) || !strings.Contains(r.PacerMethod, "at most once per") {
		t.Fatalf("sent %d, lags %d, burst every %d, method %q", r.Sent, len(r.SendLag), r.BurstEveryNs, r.PacerMethod)
	}
	for i, l := range r.SendLag {
		if l < 0 {
			t.Fatalf("packet %d sent %dns before its schedule", i, -l)
		}
	}
}
