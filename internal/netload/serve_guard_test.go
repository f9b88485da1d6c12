package netload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// serve starts a server with o on loopback until the test ends.
func serve(t *testing.T, o ServeOptions) *Server {
	t.Helper()
	o.Addr = "127.0.0.1"
	s, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop within 10s")
		}
	})
	return s
}

// waitFor polls cond for up to 10 s: it synchronises with the server's
// goroutines and times nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func addrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// A datagram whose source is the echo itself used to be echoed to itself
// for ever; now it is dropped at once.
func TestEchoIgnoresItself(t *testing.T) {
	needUDP(t)
	s := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	echo, _, _ := s.Addrs()
	if _, err := s.echo.WriteToUDPAddrPort([]byte("loop"), addrPort(t, echo)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the datagram from itself", func() bool { return s.Stats().EchoLoops+s.Stats().EchoPackets > 0 })
	if st := s.Stats(); st.EchoLoops != 1 || st.EchoPackets != 0 {
		t.Fatalf("%+v: want the datagram dropped, none echoed", st)
	}
}

// Two echo servers made to talk to each other (a forged source) used to
// play ping-pong without end; the reply coming back is dropped.
func TestEchoServersDoNotPlayPingPong(t *testing.T) {
	needUDP(t)
	a := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	b := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	bAddr, _, _ := b.Addrs()
	// As if a datagram from a's address had reached b.
	if _, err := a.echo.WriteToUDPAddrPort([]byte("ping"), addrPort(t, bAddr)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the loop to be cut", func() bool { return a.Stats().EchoLoops+b.Stats().EchoLoops > 0 })
	// b echoed it to a, a echoed it back once, b recognised its own reply.
	if sa, sb := a.Stats(), b.Stats(); sa.EchoPackets != 1 || sb.EchoPackets != 1 || sb.EchoLoops != 1 {
		t.Fatalf("a %+v, b %+v: want one echo each, then b drops its own reply", sa, sb)
	}
}

// Forged datagrams from another echo server's address start one loop
// each. Each source used to keep only its last 4 replies, so 5 of them
// looped without end (2,255 echoes in 5 s and still going); now each is
// echoed once by each server, then dropped. The wait is bounded by a
// count of echoes, so the old behaviour fails rather than hangs.
func TestEchoLoopsOfForgedDatagramsStop(t *testing.T) {
	needUDP(t)
	for _, n := range []int64{4, 5, 50} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
			b := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
			bAddr, _, _ := b.Addrs()
			for i := int64(0); i < n; i++ {
				// As if a datagram from a's address had reached b.
				if _, err := a.echo.WriteToUDPAddrPort([]byte(fmt.Sprint("forged ", i)), addrPort(t, bAddr)); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "the loops to be cut", func() bool {
				sa, sb := a.Stats(), b.Stats()
				return sa.EchoLoops+sb.EchoLoops >= n || sa.EchoPackets+sb.EchoPackets > 4*n
			})
			if sa, sb := a.Stats(), b.Stats(); sa.EchoPackets != n || sb.EchoPackets != n || sb.EchoLoops != n {
				t.Fatalf("a %+v, b %+v: want %d echoes each, then b drops its own replies", sa, sb, n)
			}
		})
	}
}

// Replies to one source are held to --echo-rate. The server's clock stands
// still, so exactly the burst is answered.
func TestEchoRateLimitLoopback(t *testing.T) {
	needUDP(t)
	s := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1, EchoRate: 10, now: func() int64 { return 1e12 }})
	echo, _, _ := s.Addrs()
	c, err := net.Dial("udp", echo)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 40; i++ {
		if _, err := fmt.Fprintf(c, "probe %d", i); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "40 datagrams", func() bool { st := s.Stats(); return st.EchoPackets+st.EchoOverRate == 40 })
	if st := s.Stats(); st.EchoPackets != 10 || st.EchoOverRate != 30 {
		t.Fatalf("%+v: want the burst of 10 answered, 30 over the rate", st)
	}
}

// dialFrom opens n idle TCP connections to addr from a local address.
func dialFrom(t *testing.T, from string, addr string, n int) []net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	var cs []net.Conn
	for i := 0; i < n; i++ {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			if testutil.UnderWine() {
				t.Skipf("connecting from %s under Wine: %v", from, err)
			}
			t.Fatalf("dial from %s: %v", from, err)
		}
		t.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	return cs
}

// 200 idle connections from 20 addresses in 20 networks (any 127/8
// address is loopback) take every slot; a real tcp-discard still gets
// through, because it takes the slot of the longest-idle connection of the
// busiest peer. It used to be refused while the idle ones held their slots.
func TestTCPDiscardGetsThroughFlood(t *testing.T) {
	s := serve(t, ServeOptions{EchoPort: -1, DiscardPort: 0, SinkPort: -1})
	_, discard, _ := s.Addrs()
	for p := 2; p < 22; p++ {
		dialFrom(t, fmt.Sprintf("127.0.%d.2", p), discard, 10)
	}
	waitFor(t, "every slot taken", func() bool { return s.slots.count() == DefaultMaxConns })
	const size = 1_000_000
	if _, err := RunTCP(context.Background(), TCPOptions{To: discard, Size: size, Timeout: 30 * time.Second}); err != nil {
		t.Fatalf("tcp-discard during the flood: %v", err)
	}
	waitFor(t, "the discard server to count the bytes", func() bool { return s.Stats().DiscardBytes == size })
	if st := s.Stats(); st.TCPEvicted == 0 {
		t.Errorf("%+v: no connection gave up its slot", st)
	}
}

// One address gets --max-per-peer connections; the next is closed.
func TestTCPPerPeerLimit(t *testing.T) {
	s := serve(t, ServeOptions{EchoPort: -1, DiscardPort: 0, SinkPort: -1, MaxPerPeer: 3})
	_, discard, _ := s.Addrs()
	dialFrom(t, "127.0.0.2", discard, 3)
	waitFor(t, "3 connections", func() bool { return s.slots.count() == 3 })
	extra := dialFrom(t, "127.0.0.2", discard, 1)[0]
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); err == nil {
		t.Fatal("the 4th connection from one address was served")
	}
	waitFor(t, "the refusal counted", func() bool { return s.Stats().TCPRefused == 1 })
	if n := s.slots.count(); n != 3 {
		t.Errorf("%d connections hold slots, want 3", n)
	}
}

// A connection that sends nothing for --idle-timeout is closed.
func TestTCPIdleTimeout(t *testing.T) {
	s := serve(t, ServeOptions{EchoPort: -1, DiscardPort: 0, SinkPort: -1, IdleTimeout: 50 * time.Millisecond})
	_, discard, _ := s.Addrs()
	c := dialFrom(t, "127.0.0.1", discard, 1)[0]
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read from an idle connection: %v, want the server to close it", err)
	}
	waitFor(t, "the idle close counted", func() bool { return s.Stats().TCPIdle == 1 })
}

// The idle timeout counts from the last byte: a connection that sends a
// byte every tenth of the timeout for longer than the timeout stays open
// (the read deadline is set once and moved when it expires). The margin
// is wide: a pause of 2 s between two writes would fail it.
func TestTCPIdleTimeoutFromLastByte(t *testing.T) {
	s := serve(t, ServeOptions{EchoPort: -1, DiscardPort: -1, SinkPort: 0, IdleTimeout: 2 * time.Second})
	_, _, sink := s.Addrs()
	c := dialFrom(t, "127.0.0.1", sink, 1)[0].(*net.TCPConn)
	const n = 15
	for range n {
		if _, err := c.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if b, _, err := ParseSinkReply(strings.TrimSpace(string(reply))); err != nil || b != n {
		t.Fatalf("sink replied %q (%v), want %d bytes", reply, err, n)
	}
	if k := s.Stats().TCPIdle; k != 0 {
		t.Errorf("%d connections closed as idle, want 0", k)
	}
}

// The server stops while a peer is still sending: closing a connection
// waits for a read in progress, so the sink's reads must come back.
func TestTCPServeStopsWhileSending(t *testing.T) {
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: -1, SinkPort: 0})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	_, _, sink := s.Addrs()
	c := dialFrom(t, "127.0.0.1", sink, 1)[0]
	go func() {
		buf := make([]byte, 128<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	waitFor(t, "data at the sink", func() bool { return s.Stats().SinkBytes > 8<<20 })
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop within 10s while a peer was sending")
	}
}

// flakyListener fails its first Accept, as accept(2) does when the
// process is out of file descriptors.
type flakyListener struct {
	net.Listener
	failed bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if !l.failed {
		l.failed = true
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: errors.New("too many open files")}
	}
	return l.Listener.Accept()
}

// A failed accept used to end the server's accept loop for good.
func TestTCPAcceptErrorDoesNotStopServer(t *testing.T) {
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: 0, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.discard = &flakyListener{Listener: s.discard}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	_, discard, _ := s.Addrs()
	if _, err := RunTCP(context.Background(), TCPOptions{To: discard, Size: 1000, Timeout: 10 * time.Second}); err != nil {
		t.Fatalf("after a failed accept: %v", err)
	}
}

// Issue 40: one datagram naming a responder that answers everything with
// bytes of its own, on no standard port, looped without end (76,847
// echoes in 5 s, none counted as a loop). Now the flow is muted once it
// has had MaxForeignReplies replies within the window. The responder stops
// by itself after 3 s or 20x that many datagrams, so the old behaviour
// fails rather than hangs.
func TestEchoLoopThroughAnyResponderStops(t *testing.T) {
	needUDP(t)
	s := serve(t, ServeOptions{EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	echo, _, _ := s.Addrs()
	r, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.LocalAddr().(*net.UDPAddr).Port < 1024 {
		t.Skip("the responder needs a port no reflector list names")
	}
	to := addrPort(t, echo)
	// The forged datagram: as if the responder had asked.
	if _, err := r.WriteToUDPAddrPort([]byte("what time is it?"), to); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	got := 0
	deadline := time.Now().Add(3 * time.Second)
	for got < 20*MaxForeignReplies && time.Now().Before(deadline) {
		_ = r.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := r.Read(buf); err != nil {
			break // silence: the loop was cut
		}
		got++
		// A different answer every time, as daytime or chargen give.
		if _, err := r.WriteToUDPAddrPort([]byte(fmt.Sprintf("it is %d o'clock", got)), to); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if got > MaxForeignReplies || st.EchoLoops == 0 || st.EchoFlowsMuted != 1 {
		t.Fatalf("the responder got %d echoes (%+v): want at most %d, then the flow muted", got, st, MaxForeignReplies)
	}
}

// Issue 40: 128 busy connections from 128 addresses of one /24 (one per
// address, so the per-address limit never bites, and none idle, so none
// can be evicted) held every slot, and a connection from elsewhere was
// refused. Now one network holds at most DefaultMaxPerNet slots and the
// newcomer gets one of the rest.
func TestTCPPerNetworkLimit(t *testing.T) {
	s := serve(t, ServeOptions{EchoPort: -1, DiscardPort: 0, SinkPort: -1})
	_, discard, _ := s.Addrs()
	var flood []net.Conn
	for p := 2; p < 2+DefaultMaxConns; p++ {
		flood = append(flood, dialFrom(t, fmt.Sprintf("127.0.0.%d", p), discard, 1)...)
	}
	// Keep every one of them busy until the test ends.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, c := range flood {
				_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
				_, _ = c.Write([]byte{0})
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); <-done }()
	waitFor(t, "the flood to be admitted or refused", func() bool {
		st := s.Stats()
		return int(st.TCPRefused)+s.slots.count() >= DefaultMaxConns
	})
	if n := s.slots.count(); n > DefaultMaxPerNet {
		t.Errorf("one /24 holds %d slots, want at most %d", n, DefaultMaxPerNet)
	}
	c := dialFrom(t, "127.0.1.1", discard, 1)[0]
	if _, err := c.Write([]byte("real work")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection from another network was closed: %v (%+v)", err, s.Stats())
	}
}
