package netload

import (
	"hash/maphash"
	"net"
	"net/netip"
	"sync"
)

// An echo server answers whoever the source address of a datagram names,
// and that address can be forged: pointed at the server itself, at another
// echo server or at a service that answers everything, it starts a loop
// that never ends (one datagram from a forged source made 523,291 echoes
// in 5 s). echoGuard decides which datagrams are answered.

// Ports of services that answer any datagram (RFC 862 echo, 863 discard,
// 867 daytime, 865 quote of the day, 864 chargen, 868 time) and port 0,
// which no sender uses: a datagram "from" one of them is forged or a
// reply, never a question.
var reflectorPorts = map[uint16]bool{0: true, 7: true, 9: true, 13: true, 17: true, 19: true, 37: true}

// Defaults of the echo guard.
const (
	// DefaultEchoRate is the replies per second to one source address: above
	// the bulk profile's 89,286 datagrams/s, so every profile gets through.
	// The burst is a second's worth, so a sender catching up after a stall
	// loses nothing.
	DefaultEchoRate = 100_000
	// repeatWindow: a datagram equal to a reply sent to the same source
	// within this long is that reply coming back.
	repeatWindow = int64(1e9)
	// maxEchoSources bounds the per-source state (forged sources are free).
	maxEchoSources = 4096
	// maxEchoFlows bounds the per address-and-port state the same way;
	// flows beyond it share one record, which only mutes sooner.
	maxEchoFlows = 4096
	// MaxForeignReplies is the replies one peer address and port gets in
	// repeatWindow for datagrams that are not fresh latlab probes. A
	// service that answers whatever it is sent (daytime, chargen, a
	// responder on any port, with any payload) turns one forged datagram
	// into a loop at the speed of the round trip (76,847 echoes in 5 s
	// through a responder on port 17013); a flow that keeps answering
	// past this count within the window is taken for one and muted until
	// it has been silent for a window. latlab's own probes carry a run id
	// and a rising sequence number, which no loop produces, and are
	// bounded by the rate alone; any other use of the echo gets this many
	// replies a second per flow.
	MaxForeignReplies = 1000
	// maxRemembered bounds the replies remembered across every source
	// (some 40 MiB). A reply that cannot be remembered is not sent, so
	// the loop check is never skipped; the oldest are forgotten after
	// repeatWindow, which frees room.
	maxRemembered = 1 << 20
)

// Why a datagram was not answered.
const (
	echoAnswer = iota
	echoLoop   // from this server, a reflecting port, or its own reply returning
	echoRate   // over its source's rate, or no room to remember the reply
)

type echoGuard struct {
	mu    sync.Mutex
	self  netip.AddrPort      // the bound address; an unspecified IP when bound to all
	local map[netip.Addr]bool // this host's addresses, when bound to all
	rate  float64             // replies per second per source address
	burst float64
	seed  maphash.Seed

	sources    map[netip.Addr]*echoSource
	overflow   echoSource // shared by sources beyond maxEchoSources
	flows      map[netip.AddrPort]*echoFlow
	flowFull   echoFlow // shared by flows beyond maxEchoFlows
	flowSweep  int64
	muted      int64 // flows muted as loops, ever
	lastSweep  int64
	remembered int   // replies remembered, over every source
	maxRemem   int   // maxRemembered; lower in tests
	lastFull   int64 // ns of the last sweep for room
}

// echoSource remembers every reply sent to one source address within
// repeatWindow: a loop through another echo server returns each of them,
// and remembering only the last few let five forged datagrams loop for
// ever. The replies in the window are bounded by the source's token
// bucket (burst + rate x window) and by maxRemembered overall.
type echoSource struct {
	tokens float64
	filled int64      // ns when tokens was last brought up to date
	sent   []echoSent // replies in the order sent; sent[head:] are live
	head   int
	count  map[uint64]int32 // live replies by key
}

// echoFlow counts the replies to one peer address and port.
type echoFlow struct {
	start   int64 // ns the current window began
	replies int   // replies in it to datagrams that were not fresh probes
	muted   int64 // ns until which the flow is a loop; renewed by each datagram
	last    int64 // ns of its last datagram
	probed  bool  // run and seq hold the last probe seen
	run     uint32
	seq     uint64
}

// freshProbe says whether payload is a latlab probe that moves its flow
// on: the first of a run, or a sequence number past the last one (the
// hello probes use their own number). A loop returns old probes or
// other bytes, never a rising sequence of one run.
func (f *echoFlow) freshProbe(payload []byte, shared bool) bool {
	h, err := parseHeader(payload)
	if err != nil {
		return false
	}
	if shared || h.Seq == helloSeq {
		return true
	}
	if f.probed && h.Run == f.run && h.Seq <= f.seq {
		return false
	}
	f.probed, f.run, f.seq = true, h.Run, h.Seq
	return true
}

type echoSent struct {
	key uint64 // hash of the destination address, port and payload
	at  int64
}

func newEchoGuard(self netip.AddrPort, rate float64) *echoGuard {
	if rate <= 0 {
		rate = DefaultEchoRate
	}
	g := &echoGuard{self: unmap(self), rate: rate, burst: max(rate, 10), seed: maphash.MakeSeed(),
		sources: map[netip.Addr]*echoSource{}, flows: map[netip.AddrPort]*echoFlow{}, maxRemem: maxRemembered}
	if g.self.Addr().IsUnspecified() {
		g.local = map[netip.Addr]bool{}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if p, err := netip.ParsePrefix(a.String()); err == nil {
					g.local[p.Addr().Unmap()] = true
				}
			}
		}
	}
	return g
}

func unmap(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// isSelf: the datagram claims to come from this very socket.
func (g *echoGuard) isSelf(from netip.AddrPort) bool {
	if from.Port() != g.self.Port() {
		return false
	}
	a := from.Addr()
	if a == g.self.Addr() {
		return true
	}
	return g.self.Addr().IsUnspecified() && (a.IsLoopback() || a.IsUnspecified() || g.local[a])
}

// key identifies a reply: its destination (the address too, since
// sources beyond maxEchoSources share one record) and its bytes.
func (g *echoGuard) key(to netip.AddrPort, payload []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(g.seed)
	a := to.Addr().As16()
	h.Write(a[:])
	h.Write([]byte{byte(to.Port() >> 8), byte(to.Port())})
	h.Write(payload)
	return h.Sum64()
}

// check says whether to answer payload from from at now (ns), and when it
// does, remembers the reply.
func (g *echoGuard) check(from netip.AddrPort, payload []byte, now int64) int {
	from = unmap(from)
	if reflectorPorts[from.Port()] || g.isSelf(from) {
		return echoLoop
	}
	k := g.key(from, payload)
	g.mu.Lock()
	defer g.mu.Unlock()
	f, shared := g.flow(from, now)
	f.last = now
	if now < f.muted {
		f.muted = now + repeatWindow
		return echoLoop
	}
	probe := f.freshProbe(payload, shared)
	if !probe {
		if now-f.start > repeatWindow {
			f.start, f.replies = now, 0
		}
		if f.replies >= MaxForeignReplies {
			f.muted = now + repeatWindow
			f.replies = 0 // counted afresh once the flow is heard again
			g.muted++
			return echoLoop
		}
	}
	s := g.source(from.Addr(), now)
	g.expire(s, now)
	if s.count[k] > 0 {
		return echoLoop
	}
	s.tokens = min(g.burst, s.tokens+float64(now-s.filled)*g.rate/1e9)
	s.filled = now
	if s.tokens < 1 {
		return echoRate
	}
	if g.remembered >= g.maxRemem && !g.makeRoom(now) {
		return echoRate
	}
	s.tokens--
	if s.count == nil {
		s.count = map[uint64]int32{}
	}
	s.sent = append(s.sent, echoSent{key: k, at: now})
	s.count[k]++
	g.remembered++
	if !probe {
		f.replies++
	}
	return echoAnswer
}

// mutedFlows is the number of times a flow was muted as a loop.
func (g *echoGuard) mutedFlows() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.muted
}

// flow returns the record of a peer address and port, making room for a
// new one by forgetting those silent for a window (neither muted nor
// counting any more); shared is set for the record flows beyond
// maxEchoFlows share.
func (g *echoGuard) flow(ap netip.AddrPort, now int64) (*echoFlow, bool) {
	if f, ok := g.flows[ap]; ok {
		return f, false
	}
	if len(g.flows) >= maxEchoFlows && now-g.flowSweep > repeatWindow/10 {
		g.flowSweep = now
		for k, f := range g.flows {
			if now-f.last > repeatWindow && now >= f.muted {
				delete(g.flows, k)
			}
		}
	}
	if len(g.flows) >= maxEchoFlows {
		return &g.flowFull, true
	}
	f := &echoFlow{start: now}
	g.flows[ap] = f
	return f, false
}

// expire forgets the replies to s older than repeatWindow.
func (g *echoGuard) expire(s *echoSource, now int64) {
	for s.head < len(s.sent) && now-s.sent[s.head].at > repeatWindow {
		k := s.sent[s.head].key
		if s.count[k]--; s.count[k] <= 0 {
			delete(s.count, k)
		}
		s.head++
		g.remembered--
	}
	switch {
	case s.head == len(s.sent):
		// Nothing live: give the memory back (a burst may have grown it).
		s.sent, s.head, s.count = nil, 0, nil
	case s.head > 1024 && s.head > len(s.sent)/2:
		s.sent = s.sent[:copy(s.sent, s.sent[s.head:])]
		s.head = 0
	}
}

// makeRoom expires every source's old replies, at most once a
// millisecond (a full table of fresh replies would otherwise be swept for
// every datagram); it says whether there is room now.
func (g *echoGuard) makeRoom(now int64) bool {
	if now-g.lastFull >= 1e6 {
		g.lastFull = now
		for _, s := range g.sources {
			g.expire(s, now)
		}
		g.expire(&g.overflow, now)
	}
	return g.remembered < g.maxRemem
}

// source returns the state of a source address, making room for a new
// one by forgetting those idle for a second (whose buckets are full and
// whose replies are past the repeat window).
func (g *echoGuard) source(a netip.Addr, now int64) *echoSource {
	if s, ok := g.sources[a]; ok {
		return s
	}
	if len(g.sources) >= maxEchoSources && now-g.lastSweep > repeatWindow/10 {
		g.lastSweep = now
		for k, s := range g.sources {
			if now-s.filled > repeatWindow {
				g.expire(s, now)
				delete(g.sources, k)
			}
		}
	}
	if len(g.sources) >= maxEchoSources {
		if g.overflow.filled == 0 {
			g.overflow = echoSource{tokens: g.burst, filled: now}
		}
		return &g.overflow
	}
	s := &echoSource{tokens: g.burst, filled: now}
	g.sources[a] = s
	return s
}

// TCP connection slots. Without limits, 5,000 idle connections held every
// slot and real clients were refused. Now each peer address may hold only
// so many connections, and each source network (a /24 of IPv4, a /64 of
// IPv6: what one host or one user of a host can draw addresses from;
// every 127.0.0.x is this host's) only so many more, so 128 loopback
// addresses cannot hold every slot; a connection silent for the idle
// timeout is closed; and when every slot (or its network's share) is
// taken a newcomer takes the slot of the longest-idle connection of the
// busiest peer (of its network), as long as that peer holds more
// connections than the newcomer's would after it, or that connection has
// been idle for minIdleToEvict.

// Defaults of the TCP servers.
const (
	DefaultMaxConns    = 128
	DefaultMaxPerPeer  = 16
	DefaultMaxPerNet   = 32   // a quarter of the slots: four networks to fill them
	DefaultIdleTimeout = 60e9 // ns
	minIdleToEvict     = int64(1e9)
)

// Why a connection was refused or ended early.
const (
	slotOK = iota
	slotPerPeer
	slotPerNet
	slotFull
)

type slots struct {
	mu      sync.Mutex
	max     int
	perPeer int
	perNet  int
	conns   map[*slot]struct{}
	byPeer  map[netip.Addr]int
	byNet   map[netip.Prefix]int
}

type slot struct {
	c       net.Conn
	peer    netip.Addr
	net     netip.Prefix
	last    int64 // ns of the last activity; under slots.mu
	evicted bool  // its slot went to a newcomer; under slots.mu
}

func newSlots(max, perPeer, perNet int) *slots {
	if max <= 0 {
		max = DefaultMaxConns
	}
	if perPeer <= 0 {
		perPeer = DefaultMaxPerPeer
	}
	if perNet <= 0 {
		perNet = DefaultMaxPerNet
	}
	return &slots{max: max, perPeer: perPeer, perNet: perNet, conns: map[*slot]struct{}{},
		byPeer: map[netip.Addr]int{}, byNet: map[netip.Prefix]int{}}
}

// sourceNet is the network a peer address is counted in: its /24 (IPv4)
// or /64 (IPv6).
func sourceNet(a netip.Addr) netip.Prefix {
	bits := 64
	if a.Is4() {
		bits = 24
	}
	p, _ := a.Prefix(bits)
	return p
}

// admit gives c a slot, closing the connection it evicts if any; nil and
// the reason when c is refused.
func (s *slots) admit(c net.Conn, peer netip.Addr, now int64) (*slot, int) {
	peer = peer.Unmap()
	pnet := sourceNet(peer)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.byPeer[peer]
	if n >= s.perPeer {
		return nil, slotPerPeer
	}
	switch {
	case s.byNet[pnet] >= s.perNet:
		if !s.evict(n, now, func(v *slot) bool { return v.net == pnet }) {
			return nil, slotPerNet
		}
	case len(s.conns) >= s.max:
		if !s.evict(n, now, func(*slot) bool { return true }) {
			return nil, slotFull
		}
	}
	sl := &slot{c: c, peer: peer, net: pnet, last: now}
	s.conns[sl] = struct{}{}
	s.byPeer[peer]++
	s.byNet[pnet]++
	return sl, slotOK
}

// evict frees the slot of the longest-idle connection of the busiest peer
// among those in, for a newcomer whose peer holds n: only when that peer
// holds more than the newcomer's would after it, or the connection has
// been idle for minIdleToEvict. It says whether a slot was freed.
func (s *slots) evict(n int, now int64, in func(*slot) bool) bool {
	var victim *slot
	for v := range s.conns {
		if !in(v) {
			continue
		}
		if victim == nil || s.byPeer[v.peer] > s.byPeer[victim.peer] ||
			(s.byPeer[v.peer] == s.byPeer[victim.peer] && v.last < victim.last) {
			victim = v
		}
	}
	if victim == nil || !(s.byPeer[victim.peer] > n+1 || now-victim.last >= minIdleToEvict) {
		return false
	}
	victim.evicted = true
	s.drop(victim)
	victim.c.Close()
	return true
}

// touch records activity on a connection.
func (s *slots) touch(sl *slot, now int64) {
	s.mu.Lock()
	sl.last = now
	s.mu.Unlock()
}

// release frees the slot of a connection that ended; it says whether the
// connection had been evicted.
func (s *slots) release(sl *slot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[sl]; ok {
		s.drop(sl)
	}
	return sl.evicted
}

func (s *slots) drop(sl *slot) {
	delete(s.conns, sl)
	if s.byPeer[sl.peer]--; s.byPeer[sl.peer] <= 0 {
		delete(s.byPeer, sl.peer)
	}
	if s.byNet[sl.net]--; s.byNet[sl.net] <= 0 {
		delete(s.byNet, sl.net)
	}
}

// count is the number of connections holding a slot.
func (s *slots) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
