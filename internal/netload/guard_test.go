package netload

import (
	"fmt"
	"net"
	"net/netip"
	"testing"
)

func TestEchoGuard(t *testing.T) {
	self := netip.MustParseAddrPort("127.0.0.1:7007")
	g := newEchoGuard(self, 100) // burst 100
	client := netip.MustParseAddrPort("127.0.0.1:40000")
	const t0 = int64(1e12)
	for _, c := range []struct {
		name string
		from netip.AddrPort
		want int
	}{
		{"itself", self, echoLoop},
		{"itself, IPv4-mapped", netip.MustParseAddrPort("[::ffff:127.0.0.1]:7007"), echoLoop},
		{"echo port", netip.MustParseAddrPort("192.0.2.1:7"), echoLoop},
		{"chargen port", netip.MustParseAddrPort("192.0.2.1:19"), echoLoop},
		{"discard port", netip.MustParseAddrPort("192.0.2.1:9"), echoLoop},
		{"port 0", netip.MustParseAddrPort("192.0.2.1:0"), echoLoop},
		{"same port, other host", netip.MustParseAddrPort("192.0.2.1:7007"), echoAnswer},
		{"a client", client, echoAnswer},
	} {
		if got := g.check(c.from, []byte(c.name), t0); got != c.want {
			t.Errorf("%s (%s): %d, want %d", c.name, c.from, got, c.want)
		}
	}
	// Its own reply coming back is a loop through another echo server;
	// the same bytes a second later, or from another port, are a question.
	if got := g.check(client, []byte("a client"), t0+1000); got != echoLoop {
		t.Errorf("reply returned: %d", got)
	}
	if got := g.check(netip.MustParseAddrPort("127.0.0.1:40001"), []byte("a client"), t0+2000); got != echoAnswer {
		t.Errorf("same bytes from another port: %d", got)
	}
	if got := g.check(client, []byte("a client"), t0+2e9); got != echoAnswer {
		t.Errorf("same bytes 2 s later: %d", got)
	}

	// Bound to every address, any of this host's addresses on its port is
	// itself.
	all := newEchoGuard(netip.MustParseAddrPort("0.0.0.0:7007"), 0)
	for _, from := range []string{"127.0.0.1:7007", "127.0.0.5:7007", "[::1]:7007"} {
		if got := all.check(netip.MustParseAddrPort(from), []byte("x"), t0); got != echoLoop {
			t.Errorf("bound to all, from %s: %d", from, got)
		}
	}
}

// Replies to one source are held to its rate, with a burst of a second's
// worth; the clock is the guard's argument, so nothing here is timed.
func TestEchoGuardRate(t *testing.T) {
	g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 100)
	a := netip.MustParseAddrPort("198.51.100.1:5000")
	b := netip.MustParseAddrPort("198.51.100.2:5000")
	const t0 = int64(1e12)
	count := func(from netip.AddrPort, n int, now int64) (answered int) {
		for i := 0; i < n; i++ {
			if g.check(from, []byte(fmt.Sprint(from, now, i)), now) == echoAnswer {
				answered++
			}
		}
		return answered
	}
	if n := count(a, 150, t0); n != 100 {
		t.Errorf("150 at once: %d answered, want the burst of 100", n)
	}
	if n := count(b, 150, t0); n != 100 {
		t.Errorf("another source: %d answered, want its own burst of 100", n)
	}
	if n := count(a, 50, t0+50e6); n != 5 {
		t.Errorf("50 ms later: %d answered, want 5 (100/s)", n)
	}
}

// Forged sources cannot grow the guard's memory without bound.
func TestEchoGuardSourcesBounded(t *testing.T) {
	g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 1e9)
	for i := 0; i < 3*maxEchoSources; i++ {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		g.check(netip.AddrPortFrom(a, 5000), []byte("x"), int64(1e12)+int64(i))
	}
	if len(g.sources) > maxEchoSources {
		t.Fatalf("%d sources kept", len(g.sources))
	}
}

func pipeConn(t *testing.T) net.Conn {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a
}

func TestSlots(t *testing.T) {
	s := newSlots(4, 3, 0)
	p1, p2, p3 := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.4")
	const t0 = int64(1e12)
	var held []*slot
	for i := 0; i < 3; i++ {
		sl, why := s.admit(pipeConn(t), p1, t0+int64(i))
		if why != slotOK {
			t.Fatalf("p1 connection %d: %d", i, why)
		}
		held = append(held, sl)
	}
	if _, why := s.admit(pipeConn(t), p1, t0); why != slotPerPeer {
		t.Errorf("p1's 4th connection: %d, want refused per peer", why)
	}
	if _, why := s.admit(pipeConn(t), p2, t0); why != slotOK {
		t.Fatalf("p2: %d", why)
	}
	// Full: p3 takes the slot of p1's longest-idle connection.
	sl3, why := s.admit(pipeConn(t), p3, t0+10)
	if why != slotOK || !held[0].evicted || held[1].evicted || s.count() != 4 {
		t.Fatalf("p3 into a full table: %d, evicted %v %v, %d held", why, held[0].evicted, held[1].evicted, s.count())
	}
	if !s.release(held[0]) || s.count() != 4 {
		t.Errorf("release of the evicted connection: count %d", s.count())
	}
	// Now p1 holds 2, p2 and p3 1 each: a second p2 connection would leave
	// p1 and p2 even, so it is refused while nobody has been idle long.
	if _, why := s.admit(pipeConn(t), p2, t0+20); why != slotFull {
		t.Errorf("p2's second connection: %d, want refused (no busier peer)", why)
	}
	// ...and admitted once a connection has been idle for minIdleToEvict.
	s.touch(held[1], t0+20)
	s.touch(held[2], t0+20)
	if _, why := s.admit(pipeConn(t), p2, t0+20+minIdleToEvict); why != slotOK {
		t.Errorf("after an idle second: %d", why)
	}
	if s.release(sl3) || s.count() != 3 {
		t.Errorf("release of p3: count %d", s.count())
	}
}

// A loop through another echo server returns every reply the guard sent.
// Each source used to keep only its last 4 replies, so 5 forged datagrams
// looped for ever; now every reply within the window is remembered.
func TestEchoGuardRemembersEveryReply(t *testing.T) {
	for _, n := range []int{4, 5, 50} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 100)
			other := netip.MustParseAddrPort("127.0.0.1:7008") // another echo server
			const t0 = int64(1e12)
			for i := 0; i < n; i++ {
				if got := g.check(other, []byte(fmt.Sprint("forged ", i)), t0+int64(i)); got != echoAnswer {
					t.Fatalf("forged datagram %d: %d, want answered", i, got)
				}
			}
			// The other server echoes them all back, in order.
			for i := 0; i < n; i++ {
				if got := g.check(other, []byte(fmt.Sprint("forged ", i)), t0+1e6+int64(i)); got != echoLoop {
					t.Errorf("datagram %d returning: %d, want dropped as a loop", i, got)
				}
			}
		})
	}
}

// What is remembered per source is bounded by its rate: replies over the
// rate are not sent, so not remembered.
func TestEchoGuardMemoryBoundedByRate(t *testing.T) {
	g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 10) // burst 10
	from := netip.MustParseAddrPort("198.51.100.1:5000")
	const t0 = int64(1e12)
	for i := 0; i < 1000; i++ {
		g.check(from, []byte(fmt.Sprint(i)), t0)
	}
	s := g.sources[from.Addr()]
	if live := len(s.sent) - s.head; live != 10 || g.remembered != 10 || len(s.count) != 10 {
		t.Fatalf("%d replies held, %d counted, %d keys: want the burst of 10", live, g.remembered, len(s.count))
	}
	// A second and a bit later they are forgotten, and the memory freed.
	g.check(from, []byte("later"), t0+repeatWindow+1)
	if g.remembered != 1 || len(s.sent)-s.head != 1 {
		t.Fatalf("after the window: %d remembered, %d held", g.remembered, len(s.sent)-s.head)
	}
}

// Across sources, at most maxRemem replies are remembered; a reply that
// cannot be is not sent, so the loop check is never skipped.
func TestEchoGuardRememberedBounded(t *testing.T) {
	g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 1e6)
	g.maxRemem = 100
	const t0 = int64(1e12)
	answered := 0
	for i := 0; i < 1000; i++ {
		a := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if g.check(netip.AddrPortFrom(a, 5000), []byte("x"), t0+int64(i)) == echoAnswer {
			answered++
		}
	}
	if answered != 100 || g.remembered != 100 {
		t.Fatalf("%d answered, %d remembered: want 100", answered, g.remembered)
	}
	// Once the window has passed, there is room again.
	if got := g.check(netip.MustParseAddrPort("10.1.0.1:5000"), []byte("x"), t0+2*repeatWindow); got != echoAnswer {
		t.Fatalf("after the window: %d", got)
	}
	if g.remembered != 1 {
		t.Fatalf("%d remembered after the window, want 1", g.remembered)
	}
}

// latlab's own probes, fresh sequence numbers of one run, are bounded by
// the rate alone: a bulk flow from one port is never taken for a loop; a
// flow that repeats its probes or sends other bytes gets MaxForeignReplies
// a window, then is muted until it has been quiet for one.
func TestEchoGuardFlows(t *testing.T) {
	g := newEchoGuard(netip.MustParseAddrPort("127.0.0.1:7007"), 1e9)
	client := netip.MustParseAddrPort("127.0.0.1:40000")
	b := make([]byte, HeaderLen)
	now := int64(1e12)
	for i := range uint64(20 * MaxForeignReplies) {
		putHeader(b, header{Run: 7, Seq: i})
		if v := g.check(client, b, now); v != echoAnswer {
			t.Fatalf("probe %d: %d", i, v)
		}
		now += 11_000
	}
	other := netip.MustParseAddrPort("127.0.0.1:17013")
	for i := range MaxForeignReplies + 10 {
		v := g.check(other, fmt.Appendf(nil, "it is %d o'clock", i), now)
		if want := echoAnswer; i >= MaxForeignReplies {
			want = echoLoop
			if v != want {
				t.Fatalf("reply %d: %d, want a loop", i, v)
			}
		} else if v != want {
			t.Fatalf("reply %d: %d", i, v)
		}
		now += 10_000
	}
	if g.mutedFlows() != 1 {
		t.Errorf("%d flows muted, want 1", g.mutedFlows())
	}
	// Muted while it keeps talking, answered again after a quiet window.
	if v := g.check(other, []byte("still?"), now+repeatWindow/2); v != echoLoop {
		t.Fatalf("after half a window: %d", v)
	}
	if v := g.check(other, []byte("again"), now+3*repeatWindow); v != echoAnswer {
		t.Fatalf("after a quiet window: %d", v)
	}
	// A probe that comes back (a loop through a responder that keeps the
	// header) counts like any other bytes.
	back := netip.MustParseAddrPort("127.0.0.1:40001")
	now += 4 * repeatWindow
	putHeader(b, header{Run: 9, Seq: 5})
	g.check(back, b, now)
	for i := range MaxForeignReplies + 1 {
		b2 := append(append([]byte{}, b...), byte(i), byte(i>>8))
		v := g.check(back, b2, now+int64(i)*1000+1)
		if i == MaxForeignReplies && v != echoLoop {
			t.Fatalf("a returning probe is never taken for a loop: %d", v)
		}
	}
}
