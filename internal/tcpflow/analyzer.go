package tcpflow

import (
	"cmp"
	"encoding/binary"
	"math"
	"net/netip"
	"slices"
	"time"
)

// TCP header flag bits (the 13th and 14th header bytes as one value:
// NS/AE is bit 8).
const (
	FIN = 0x01
	SYN = 0x02
	RST = 0x04
	PSH = 0x08
	ACK = 0x10
	URG = 0x20
	ECE = 0x40
	CWR = 0x80
	AE  = 0x100
)

// Segment is one TCP segment as captured.
type Segment struct {
	Frame            int
	TimeNs           int64
	Src, Dst         netip.Addr
	SrcPort, DstPort uint16
	Seq, Ack         uint32
	Flags            uint16
	Window           uint16 // as in the header, unscaled
	Len              int    // payload length from the IP header
	Options          []byte // option bytes after the fixed header
}

// Endpoint is an address and port.
type Endpoint struct {
	Addr netip.Addr
	Port uint16
}

// connKey identifies a connection whichever way a segment goes: its two
// endpoints in a fixed order. It holds no pointers (a netip.Addr holds one,
// for an IPv6 zone, which addresses decoded from packets never have), so
// that the maps keyed by it hash and compare plain bytes and the garbage
// collector need not scan their keys.
//
// The addresses are held as two words each, not as 16 bytes: the key is
// built, hashed, compared and turned back into addresses a word at a time,
// and a [16]byte written in words and then copied in 16-byte moves (as the
// compiler copies arrays) stalled each copy on a failed store forward:
// such copies were most of keyOfAddrs's and connKey.endpoint's time.
// For the same reason the two ports are one word: written as two 16-bit
// halves, they were read back by the hash as one 32-bit load, which
// waited on a failed store forward (a quarter of the long capture's CPU
// once the stalls before it were gone).
type connKey struct {
	a, b  [2]uint64 // IPv4 addresses as IPv4-mapped IPv6, big-endian halves (As16's bytes 0-7, 8-15)
	ports uint32    // a's port | b's port<<16
	v4    uint8     // bit 0: a is IPv4, bit 1: b is IPv4
}

// eq is k == *o, a word at a time: == on the struct calls the runtime's
// memequal, whose call was a third of the table lookup's instructions.
func (k *connKey) eq(o *connKey) bool {
	return k.a == o.a && k.b == o.b && k.ports == o.ports && k.v4 == o.v4
}

// endpoint returns the key's endpoint i (0: a, 1: b).
func (k *connKey) endpoint(i int) Endpoint {
	addr, port, v4 := &k.a, uint16(k.ports), k.v4&1 != 0
	if i == 1 {
		addr, port, v4 = &k.b, uint16(k.ports>>16), k.v4&2 != 0
	}
	if v4 {
		var a4 [4]byte
		binary.BigEndian.PutUint32(a4[:], uint32(addr[1]))
		return Endpoint{Addr: netip.AddrFrom4(a4), Port: port}
	}
	var a16 [16]byte
	binary.BigEndian.PutUint64(a16[:8], addr[0])
	binary.BigEndian.PutUint64(a16[8:], addr[1])
	return Endpoint{Addr: netip.AddrFrom16(a16), Port: port}
}

// keyOf returns s's key, and whether s was sent by the key's b endpoint.
func keyOf(s *Segment) (connKey, bool) {
	var k connKey
	fromB := k.set(s.Src, s.Dst, s.SrcPort, s.DstPort)
	return k, fromB
}

// set makes k the key of a segment from src to dst, and returns whether
// src is the key's b endpoint. It writes k's fields in place: a key
// returned by value was written in small stores and copied in 16-byte
// moves, which waited on a failed store forward.
func (k *connKey) set(src, dst netip.Addr, sp, dp uint16) bool {
	sh, sl, s4 := addrWords(src)
	dh, dl, d4 := addrWords(dst)
	return k.setWords(sh, sl, s4, dh, dl, d4, sp, dp)
}

// setHeader is set for the addresses' bytes in their IP header
// (capture.Packet.SrcDst: 8 bytes for IPv4, 32 for IPv6), read as words
// in place, as addrWords gives them.
func (k *connKey) setHeader(b []byte, sp, dp uint16) bool {
	if len(b) == 32 {
		return k.setWords(binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16]), 0,
			binary.BigEndian.Uint64(b[16:24]), binary.BigEndian.Uint64(b[24:32]), 0, sp, dp)
	}
	_ = b[7]
	return k.setWords(0, 0xffff<<32|uint64(binary.BigEndian.Uint32(b[0:4])), 1,
		0, 0xffff<<32|uint64(binary.BigEndian.Uint32(b[4:8])), 1, sp, dp)
}

// setWords is set for addresses given as addrWords gives them.
func (k *connKey) setWords(sh, sl uint64, s4 uint8, dh, dl uint64, d4 uint8, sp, dp uint16) bool {
	// The addresses compared as bytes.Compare would, a word at a time.
	if sh > dh || sh == dh && (sl > dl || sl == dl && sp > dp) {
		k.a[0], k.a[1], k.b[0], k.b[1], k.ports, k.v4 = dh, dl, sh, sl, uint32(dp)|uint32(sp)<<16, d4|s4<<1
		return true
	}
	k.a[0], k.a[1], k.b[0], k.b[1], k.ports, k.v4 = sh, sl, dh, dl, uint32(sp)|uint32(dp)<<16, s4|d4<<1
	return false
}

// addrWords returns a's 16 bytes (an IPv4 address mapped, as As16 gives
// it) as two big-endian words, and 1 if a is IPv4. An IPv4 address goes
// through As4: the 16-byte array As16 returns was copied in 16-byte moves
// that waited on a failed store forward, most of keyOfAddrs's time.
func addrWords(a netip.Addr) (hi, lo uint64, v4 uint8) {
	if a.Is4() {
		b := a.As4()
		return 0, 0xffff<<32 | uint64(binary.BigEndian.Uint32(b[:])), 1
	}
	b := a.As16()
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:]), 0
}

// Frame is the analysis of one segment, handed to the Analyzer's OnFrame.
type Frame struct {
	Seg       *Segment
	Conn      *Conn
	Dir       int // 0: sent by Conn.A (the endpoint of the first packet seen), 1: by Conn.B
	Flags     Flag
	DupAckNum int // duplicate ACK number (Wireshark tcp.analysis.duplicate_ack_num)
	DupAckOf  int // the frame it duplicates (tcp.analysis.duplicate_ack_frame)
	RelSeq    uint32
	RelAck    uint32
	Opts      *TCPOptions
	// DSACK is set when the segment's SACK option carries a D-SACK block
	// (tcp.options.sack.dsack_le / _re, relative sequence numbers).
	DSACK                 bool
	DSACKLeft, DSACKRight uint32
	// SpuriousByDSACK lists earlier retransmissions (frame numbers, in the
	// other direction) that this D-SACK shows were not needed.
	SpuriousByDSACK []int
	// Reordered: new data arriving below the highest sequence number seen
	// (latlab's own reading, independent of Wireshark's time heuristics).
	Reordered     bool
	ReorderSegs   int   // segments that overtook it
	ReorderNs     int64 // time since the first of them arrived
	Retransmitted bool  // latlab: carries data seen before in this capture
	RTTNs         int64 // an RTT sample taken by this ACK (Karn's rule), 0 if none
	// RackAvoided names a retransmission (frame) that a D-SACK-honouring
	// RACK sender would not have sent; set on the D-SACK frame.
	RackAvoided []int
	// AfterClose marks a segment of a connection that had already closed
	// (and been handed to OnClose): a retransmitted FIN, the ACK of one,
	// data that was in flight when a RST came. Its flags and relative
	// numbers are Wireshark's, as for any other segment, but latlab's own
	// readings (RTT, reordering, D-SACK matching) are not made and no
	// connection counts it: DirStats.CountFrame lets the caller count it.
	AfterClose bool
}

// Analyzer follows TCP connections through a capture.
//
// A connection ends when both FINs are acknowledged or a RST is seen. It
// is closed (its statistics completed and handed to OnClose, its buffers
// freed) once the capture has gone on for a grace period after its last
// segment: one second or three times the longest RTT seen on it, whichever
// is longer, so that the segments that typically trail the end (the ACK or
// D-SACK of a retransmission, data in flight when the RST came, a FIN
// retransmitted after a timeout) still count. All that is kept of it
// afterwards is the part of Wireshark's flow state that a later segment
// needs to get Wireshark's flags and stream number (closedConn: about 200
// bytes with its map entry, plus 4 bytes per segment still
// unacknowledged, usually none; no allocation of its own: see
// closedSet). Memory thus grows with the connections open at once (each
// holding what it has in flight) plus that little per closed connection.
type Analyzer struct {
	table  connTable // open and closed connections by key
	closed closedSet
	// last is the open connection of the latest segment (table's under
	// lastKey): segments come in bursts of one connection, and comparing
	// its endpoints is cheaper than a lookup.
	last     *Conn
	lastKey  connKey
	lastHash uint64
	ending   endingQueue // connections that ended, oldest first, waiting out the grace period
	streams  int
	// OnFrame, if set, is called for every analysed segment. The Frame is
	// reused: copy what you keep.
	OnFrame func(*Frame)
	// OnLateFrame, if set, is called (after OnFrame) for each segment of
	// a connection already closed (Frame.AfterClose): what a run that
	// needs no OnFrame still counts, without a call for every segment.
	OnLateFrame func(*Frame)
	// OnClose, if set, is called with each connection when it closes (both
	// FINs acknowledged, or a RST), when a new connection on the same ports
	// replaces it, or at Finish.
	OnClose func(*Conn)
	fr      Frame
	opts    TCPOptions
	// KeepTimeline records the RACK window and bytes in flight over time
	// (for graphs) for connections for which it returns true.
	KeepTimeline func(stream int) bool
	// closeAtOnce (tests) closes a connection on the segment that ends
	// it, to show that the per-frame flags do not depend on when a
	// connection is closed.
	closeAtOnce bool
	// ReuseConns lets the Analyzer reuse a connection's memory once it
	// has closed and OnClose has returned: the *Conn handed to OnClose
	// (and Frame.Conn) must not be kept beyond the call. Connections are
	// then allocated in slabs and recycled, so that 100,000 short
	// connections are not 100,000 objects for the garbage collector to
	// trace and free, and their buffers are reused while small. A
	// connection whose timeline is kept is never reused (its Timeline
	// outlives it).
	ReuseConns bool
	slab       []connState  // the rest of the latest slab (ReuseConns)
	free       []*connState // closed connections to reuse (ReuseConns)
	hs         []HandshakeOptions
}

// connSlab is how many connections a slab holds; hsSlab, how many
// handshakes.
const (
	connSlab = 64
	hsSlab   = 256
)

// maxKeptBuf is the most elements of a buffer a recycled connection
// keeps: the buffers of a short connection are reused, those of a long
// one go back to the garbage collector, so that a reused connection costs
// what a new one would, give or take that.
const maxKeptBuf = 64

// newHandshake returns zeroed room for a SYN's options, from a slab: the
// options outlive their connection (DirStats, thus Connection, points at
// them), so the slab is never reused, only let go by the garbage collector
// once nothing points into it.
func (a *Analyzer) newHandshake() *HandshakeOptions {
	if len(a.hs) == 0 {
		a.hs = make([]HandshakeOptions, hsSlab)
	}
	h := &a.hs[0]
	a.hs = a.hs[1:]
	return h
}

// NewAnalyzer returns an Analyzer.
func NewAnalyzer() *Analyzer {
	return &Analyzer{table: newConnTable()}
}

// endingConn is a connection that ended, due to be closed at due unless
// more of its segments arrive.
type endingConn struct {
	c   *Conn
	due int64
}

// endingQueue is a first-in first-out queue of ended connections in a
// ring that grows by doubling. A slice taken from the front and appended
// to at the back (as it was) reallocates whenever its end reaches its
// capacity, however few it holds: with 100,000 short connections that
// walked through megabytes of fresh memory, whose page faults were a
// tenth of the analysis' time.
type endingQueue struct {
	ring       []endingConn // len a power of two
	head, size int
	// firstDue is the oldest connection's due time, or MaxInt64 when none
	// is queued (0 in a new queue: retireDue sets it): every segment
	// compares its time with it, one load where the queue's length and
	// front took a call and eight.
	firstDue int64
}

func (q *endingQueue) len() int { return q.size }

// front is the oldest connection; the queue must not be empty.
func (q *endingQueue) front() *endingConn { return &q.ring[q.head] }

// pop removes the oldest connection and returns it; the queue must not be
// empty.
func (q *endingQueue) pop() endingConn {
	e := q.ring[q.head]
	q.ring[q.head] = endingConn{} // let the Conn go
	q.head = (q.head + 1) & (len(q.ring) - 1)
	q.size--
	q.firstDue = math.MaxInt64
	if q.size > 0 {
		q.firstDue = q.ring[q.head].due
	}
	return e
}

func (q *endingQueue) push(c *Conn, due int64) {
	if q.size == len(q.ring) {
		ring := make([]endingConn, max(64, 2*len(q.ring)))
		n := copy(ring, q.ring[q.head:])
		copy(ring[n:], q.ring[:q.head])
		q.ring, q.head = ring, 0
	}
	e := &q.ring[(q.head+q.size)&(len(q.ring)-1)]
	e.c, e.due = c, due
	if q.size == 0 {
		q.firstDue = due
	}
	q.size++
}

// minCloseGrace is the shortest wait between a connection's last segment
// after it ended and its close: above the minimum retransmission timeout of
// common stacks (200 ms on Linux, 300 ms on Windows), so a FIN retransmitted
// because the last ACK was lost after the capture point is still counted.
const minCloseGrace = int64(time.Second)

func (a *Analyzer) closeGrace(c *Conn) int64 {
	if a.closeAtOnce {
		return 0
	}
	g := c.tsFirstRTT
	for _, d := range c.dir {
		g = max(g, d.Stats.RTT.MaxNs)
	}
	return max(minCloseGrace, 3*g)
}

// retireDue closes the ended connections whose grace period is over at now
// (called when now has reached ending.firstDue).
func (a *Analyzer) retireDue(now int64) {
	for a.ending.len() > 0 && a.ending.front().due <= now {
		e := a.ending.pop()
		if e.c.replaced {
			// Replaced by a new connection on the same ports (and closed
			// then): this was the last reference to it.
			a.recycle(e.c)
			continue
		}
		if e.c.entry.conn != e.c {
			continue // no longer open
		}
		if due := e.c.LastNs + a.closeGrace(e.c); due > now {
			a.ending.push(e.c, due) // it had more segments
			continue
		}
		a.retire(e.c)
	}
	if a.ending.len() == 0 {
		a.ending.firstDue = math.MaxInt64
	}
}

// retire closes c, which has ended, and keeps only its Wireshark state.
func (a *Analyzer) retire(c *Conn) {
	a.close(c)
	sl := c.entry
	a.table.setConn(sl, nil)
	if a.last == c {
		a.last = nil
	}
	a.putClosed(sl, c)
	a.recycle(c)
}

// putClosed stores c's state as the closed connection of sl's key.
func (a *Analyzer) putClosed(sl *connSlot, c *Conn) {
	i := sl.closed - 1
	if sl.closed == 0 {
		i = a.closed.add()
		a.table.setClosed(sl, i+1)
	}
	a.closed.at(i).set(c)
}

// recycle keeps the memory of c, which has closed and which nothing
// refers to any more (not conns, last, ending, nor, with ReuseConns, the
// caller), for a new connection.
func (a *Analyzer) recycle(c *Conn) {
	if c.st == nil || c.timeline {
		return
	}
	st := c.st
	st.reset() // c is st.c: now a new connection's
	a.free = append(a.free, st)
}

// reset makes st a new connection's state, keeping its buffers' memory
// if small.
func (st *connState) reset() {
	// Only the buffers are kept aside, not whole Dirs: a [2]Dir on the
	// stack is 1.8 kB more to clear for every new connection.
	var keep [2]struct {
		seen     [][2]int64
		recent   []recentSeg
		inflight []sentSeg
		rtx      []rtxRec
		ends     []uint32
	}
	for i := range st.d {
		d, k := &st.d[i], &keep[i]
		k.seen = keepBuf(d.seen)
		k.recent = keepBuf(d.recent)
		k.inflight = keepBuf(d.inflight)
		k.rtx = keepBuf(d.rtx)
		k.ends = keepBuf(d.unacked.ends)
	}
	*st = connState{}
	for i := range st.d {
		d, k := &st.d[i], &keep[i]
		d.init()
		d.seen, d.recent, d.inflight, d.rtx = k.seen, k.recent, k.inflight, k.rtx
		d.unacked.ends = k.ends
	}
}

// keepBuf returns b emptied, or nil if it is large.
func keepBuf[T any](b []T) []T {
	if cap(b) > maxKeptBuf {
		return nil
	}
	return b[:0]
}

// allocConn returns a new connection's state: a recycled one, or the next
// of a slab (ReuseConns), or else one of its own.
func (a *Analyzer) allocConn() *connState {
	if !a.ReuseConns {
		st := &connState{}
		for i := range st.d {
			st.d[i] = initialDir()
		}
		return st
	}
	if n := len(a.free); n > 0 {
		st := a.free[n-1]
		a.free[n-1] = nil
		a.free = a.free[:n-1]
		st.c.st = st
		return st
	}
	if len(a.slab) == 0 {
		a.slab = make([]connState, connSlab)
		for i := range a.slab {
			for j := range a.slab[i].d {
				a.slab[i].d[j].init()
			}
		}
	}
	st := &a.slab[0]
	a.slab = a.slab[1:]
	st.c.st = st
	return st
}

// Finish closes every open connection (OnClose) in stream order.
func (a *Analyzer) Finish() {
	open := make([]*Conn, 0, a.table.open)
	a.table.each(func(c *Conn) { open = append(open, c) })
	// stream order for deterministic output
	slices.SortFunc(open, func(x, y *Conn) int { return cmp.Compare(x.Stream, y.Stream) })
	for _, c := range open {
		a.close(c)
	}
	seed := a.table.seed // the scan stage may still hash with it
	a.table = newConnTable()
	a.table.seed = seed
	a.closed = closedSet{}
	a.ending = endingQueue{}
	a.last = nil
	a.slab, a.free, a.hs = nil, nil, nil
}

func (a *Analyzer) close(c *Conn) {
	c.finish()
	if a.OnClose != nil {
		a.OnClose(c)
	}
}

// connState is a connection and its two directions in one allocation:
// with 100,000 short connections, three heap objects each made work for
// the garbage collector (about 17% of the time) and spread each
// connection's state over three places in memory. They live and die
// together: nothing keeps a direction beyond its connection.
type connState struct {
	c Conn
	d [2]Dir
}

// newConn opens the connection of key k (hash h) whose first segment s
// was sent by k's b endpoint if rev: that is its A.
func (a *Analyzer) newConn(k connKey, h uint64, s *Segment, rev bool) *Conn {
	st := a.allocConn()
	c := &st.c
	src, dst := k.endpoint(0), k.endpoint(1)
	if rev {
		src, dst = dst, src
	}
	c.Stream, c.A, c.B, c.FirstNs, c.aKeyB = a.streams, src, dst, s.TimeNs, rev
	a.streams++
	for i := range c.dir {
		c.dir[i] = &st.d[i]
	}
	if a.KeepTimeline != nil && a.KeepTimeline(c.Stream) {
		c.timeline = true
	}
	if sl := a.table.find(h, &k); sl != nil && sl.conn != nil {
		old := sl.conn
		a.close(old)
		if old.ended {
			old.replaced = true // ending holds it: recycled when it leaves
		} else {
			a.recycle(old)
		}
	}
	sl := a.table.slot(h, &k)
	c.entry = sl
	if sl.closed != 0 {
		a.closed.del(sl.closed - 1)
		a.table.setClosed(sl, 0)
	}
	a.table.setConn(sl, c)
	a.last, a.lastKey, a.lastHash = c, k, h
	return c
}

// Add analyses one segment.
func (a *Analyzer) Add(s *Segment) {
	a.opts.parse(s.Options)
	k, fromB := keyOf(s)
	a.addParsed(s, &a.opts, &k, a.table.hashKey(&k), fromB)
}

// addParsed analyses one segment whose options o has parsed already
// (s.Options is not read again), whose key is *key and the key's hash h
// (connTable.hashKey); fromB says the segment's source is the key's b
// endpoint. The segment's addresses and ports are not read unless OnFrame
// is set: the key and rev tell its connection and direction. o must stay unchanged until the next segment: the
// Frame points at it.
func (a *Analyzer) addParsed(s *Segment, o *TCPOptions, key *connKey, h uint64, fromB bool) {
	if s.TimeNs >= a.ending.firstDue {
		a.retireDue(s.TimeNs)
	}
	// The last connection's hash first: on a capture of many
	// connections in flight the next segment is seldom the last one's,
	// and one comparison then tells so where the key's took seven.
	var c *Conn
	var closed int32
	if l := a.last; l != nil && h == a.lastHash && key.eq(&a.lastKey) {
		c = l
	} else {
		if sl := a.table.find(h, key); sl != nil {
			c, closed = sl.conn, sl.closed
		}
		a.last, a.lastKey, a.lastHash = c, *key, h
	}
	late := false
	if c == nil {
		if closed != 0 {
			c, late = a.closed.at(closed-1).revive(*key), true
		} else {
			c = a.newConn(*key, h, s, fromB)
		}
	}
	fr := &a.fr
	*fr = Frame{Seg: s}
	d := 0
	if fromB != c.aKeyB { // sent by B
		d = 1
	}
	fwd, rev := c.dir[d], c.dir[1-d]
	// The flags once: stores through fr and the connection's pointers
	// could change s for all the compiler knows, and it loaded them again
	// for each test. A SYN's tests are made under one test of SYN.
	flags := s.Flags
	if flags&SYN != 0 && fwd.baseSet {
		// Port reuse (Wireshark: a SYN whose sequence number differs from the
		// base of the conversation starts a new one).
		switch {
		case flags&ACK != 0:
			if s.Seq != fwd.baseSeq {
				fwd.baseSeq = s.Seq
				fr.Flags |= FlagReusedPorts
			}
		case s.Seq != fwd.baseSeq:
			c = a.newConn(*key, h, s, fromB)
			d = 0
			fwd, rev = c.dir[0], c.dir[1]
			fr.Flags |= FlagReusedPorts
		default:
			// A repeated SYN: restore nextseq (Wireshark issue 17616).
			fwd.nextSeq = fwd.maxSeqToBeAcked
		}
	}
	fr.Conn, fr.Dir = c, d
	if s.TimeNs > c.LastNs {
		c.LastNs = s.TimeNs
	}

	// Relative sequence numbers: the ISN from the SYN, or seq-1.
	if !fwd.baseSet {
		if flags&SYN != 0 {
			fwd.baseSeq = s.Seq
		} else {
			fwd.baseSeq = s.Seq - 1
		}
		fwd.baseSet = true
	}
	if !rev.baseSet && flags&ACK != 0 {
		rev.baseSeq = s.Ack - 1
		rev.baseSet = true
	}

	fr.Flags |= wiresharkSequence(c, fwd, rev, s, fr)

	// Handshake timing (Wireshark: the initial RTT, used by its
	// out-of-order heuristic, is from the last SYN to the first pure ACK).
	if flags&SYN != 0 {
		if flags&ACK == 0 {
			c.tsMruSyn = s.TimeNs
		}
		fwd.isFirstAck = true
	} else if flags&ACK != 0 {
		if c.tsMruSyn != 0 && c.tsFirstRTT == 0 {
			c.tsFirstRTT = s.TimeNs - c.tsMruSyn // 0 stays "unset", as in Wireshark
		}
		fwd.isFirstAck = false
	}

	// Options.
	fr.Opts = o
	if o.HasWScale {
		sh := int(o.WScale)
		if sh > 14 {
			sh = 14
		}
		fwd.winScale = sh
	}
	if flags&SYN != 0 {
		fwd.handshake(s, o, a.newHandshake())
		// verify_tcp_window_scaling
		if fwd.winScale == -1 {
			fwd.winScale, rev.winScale = -2, -2
		} else if flags&ACK != 0 && rev.winScale == -2 {
			fwd.winScale = -2
		}
	}
	if o.SACKOptions > 0 {
		ackCmp := s.Ack
		if flags&ACK == 0 {
			ackCmp = s.Ack + rev.baseSeq
		}
		if IsDSACK(o, ackCmp) {
			fr.DSACK = true
			fr.DSACKLeft, fr.DSACKRight = o.SACK[0].Left-rev.baseSeq, o.SACK[0].Right-rev.baseSeq
		}
	}
	fr.RelSeq = s.Seq - fwd.baseSeq
	fr.RelAck = s.Ack
	if flags&ACK != 0 {
		fr.RelAck = s.Ack - rev.baseSeq
	}

	// The end of the connection.
	if flags&FIN != 0 {
		if end := s.Seq + uint32(s.Len) + 1; !fwd.finSent || seqGT(end, fwd.finEnd) {
			fwd.finEnd, fwd.finSent = end, true
		}
	}
	if flags&ACK != 0 && rev.finSent && seqGE(s.Ack, rev.finEnd) {
		rev.finAcked = true
	}

	if c.closed {
		fr.AfterClose = true
	} else {
		c.extended(fwd, rev, s, fr)
	}

	if a.OnFrame != nil {
		a.OnFrame(fr)
	}
	if fr.AfterClose && a.OnLateFrame != nil {
		a.OnLateFrame(fr)
	}
	switch {
	case c.closed:
		if late {
			a.putClosed(a.table.slot(h, key), c)
		}
	case !c.ended && (fwd.finAcked && rev.finAcked || flags&RST != 0):
		c.ended = true
		if a.closeAtOnce {
			a.retire(c)
		} else {
			a.ending.push(c, c.LastNs+a.closeGrace(c))
		}
	}
}

// dupAckUnseen is the -1 that Wireshark's "ACKed unseen segment" branch
// stores in its unsigned duplicate-ACK counter: 2^32-1 once stored.
const dupAckUnseen = ^uint32(0)

// wiresharkSequence is tcp_analyze_sequence_number of Wireshark 4.0
// (epan/dissectors/packet-tcp.c), on absolute sequence numbers and the
// unscaled window, as Wireshark calls it: statement for statement, but
// for its tests of a segment with no payload (keep-alive, window update,
// keep-alive ACK, zero-window-probe ACK, duplicate ACK), which share most
// of their conditions and are made once here, in the order and with the
// outcome of Wireshark's sequence of tests (each one's comment names it).
// Testing each condition anew for every segment was a sixth of the
// function's instructions.
func wiresharkSequence(c *Conn, fwd, rev *Dir, s *Segment, fr *Frame) Flag {
	var fl Flag
	seq, ack, seglen, flags, window := s.Seq, s.Ack, uint32(s.Len), s.Flags, uint32(s.Window)
	now := s.TimeNs
	plain := flags&(SYN|FIN|RST) == 0

	zwp := false
	// ZERO WINDOW PROBE
	if seglen == 1 && seq == fwd.nextSeq && rev.window == 0 {
		fl |= FlagZeroWindowProbe
		zwp = true
		goto finishedFwd
	}
	// ZERO WINDOW
	if window == 0 && plain {
		fl |= FlagZeroWindow
	}
	// LOST PACKET
	if fwd.nextSeq != 0 && seqGT(seq, fwd.nextSeq) && flags&RST == 0 {
		fl |= FlagLostSegment
	}
	if !plain {
		goto finishedFwd // every test below wants none of SYN, FIN, RST
	}
	if seglen > 0 {
		// KEEP ALIVE
		if seglen == 1 && seq == fwd.nextSeq-1 {
			fl |= FlagKeepAlive
		}
		// WINDOW FULL
		if rev.winScale != -1 {
			sh := 0
			if !rev.isFirstAck && rev.winScale != -2 {
				sh = rev.winScale
			}
			if seq+seglen == rev.lastAck+(rev.window<<uint(sh)) {
				fl |= FlagWindowFull
			}
		}
		goto finishedFwd // the rest are of segments with no payload
	}
	// KEEP ALIVE (its seq is not nextseq: none of the tests below holds)
	if seq == fwd.nextSeq-1 {
		fl |= FlagKeepAlive
		goto finishedFwd
	}
	if seq != fwd.nextSeq || ack != fwd.lastAck {
		goto finishedFwd
	}
	switch {
	case window == 0:
		// ZERO WINDOW PROBE ACK (WINDOW UPDATE, KEEP ALIVE ACK and
		// DUPLICATE ACK want a window)
		if fwd.window == 0 && rev.lastSegFlags&FlagZeroWindowProbe != 0 {
			fl |= FlagZeroWindowProbeAck
		}
	case window != fwd.window:
		// WINDOW UPDATE (the ACK tests after it want the same window)
		fl |= FlagWindowUpdate
	case rev.lastSegFlags&FlagKeepAlive != 0:
		// KEEP ALIVE ACK (whose goto skips DUPLICATE ACK)
		fl |= FlagKeepAliveAck
	default:
		// DUPLICATE ACK
		if fwd.dupAckNum == dupAckUnseen {
			fwd.dupAckNum = 1
		} else {
			fwd.dupAckNum++
		}
		fl |= FlagDuplicateAck
		fr.DupAckNum = int(fwd.dupAckNum)
		fr.DupAckOf = fwd.lastNonDupAck
	}

finishedFwd:
	if ack != fwd.lastAck {
		fwd.lastNonDupAck = s.Frame
		fwd.dupAckNum = 0
	}
	// ACKED LOST PACKET
	if rev.maxSeqToBeAcked != 0 && seqGT(ack, rev.maxSeqToBeAcked) && flags&ACK != 0 {
		if seqLT(rev.maxSeqToBeAcked, rev.nextSeq) {
			rev.maxSeqToBeAcked = rev.nextSeq
			fl |= FlagAckLostSegment
		} else {
			if rev.dupAckNum == 0 {
				fl |= FlagAckLostSegment
			}
			rev.dupAckNum = dupAckUnseen
		}
	}

	// RETRANSMISSION / FAST RETRANSMISSION / OUT-OF-ORDER
	if seglen > 0 || flags&(SYN|FIN) != 0 {
		seqNotAdvanced := fwd.nextSeq != 0 && seqLT(seq, fwd.nextSeq)
		if fl&FlagKeepAlive != 0 {
			goto finishedRetrans
		}
		if seglen > 1 && fwd.nextSeq-1 == seq {
			seqNotAdvanced = false
		}
		// Spurious: all of it is below the other side's cumulative ACK.
		if seglen > 0 && rev.lastAck != 0 && seqLE(seq+seglen, rev.lastAck) {
			fl |= FlagSpuriousRetransmission
			goto finishedRetrans
		}
		// Fast retransmission: >= 2 duplicate ACKs in the other direction
		// for this sequence number, the last within 20 ms. After an "ACKed
		// unseen segment" the other direction's counter holds
		// dupAckUnseen, which passes this test too: Wireshark 4.0 flags
		// the retransmissions that follow one (zeek's tcp/reassembly.pcap,
		// frames 8, 10 and 12) as fast, and so does latlab, to agree with
		// it frame by frame.
		if seqNotAdvanced && rev.dupAckNum >= 2 && rev.lastAck == seq && uint64(now-rev.lastAckTime) < 20_000_000 {
			fl |= FlagFastRetransmission
			goto finishedRetrans
		}
		// Out of order: within the initial RTT (3 ms if unknown) of the
		// segment that advanced nextseq, and not ending at nextseq.
		{
			t := now - fwd.nextSeqTime
			thres := int64(3_000_000)
			if c.tsFirstRTT != 0 {
				thres = c.tsFirstRTT
			}
			sf := uint32(0)
			if flags&(SYN|FIN) != 0 {
				sf = 1
			}
			if seqNotAdvanced && uint64(t) < uint64(thres) && fwd.nextSeq != seq+seglen+sf {
				fl |= FlagOutOfOrder
				goto finishedRetrans
			}
		}
		if seqNotAdvanced {
			fl |= FlagRetransmission
		}
	}
finishedRetrans:
	// A SYN or FIN counts for the next expected sequence number only when
	// the segment is remembered, under maxUnacked.
	nextseq := seq + seglen
	if (seglen > 0 || flags&(SYN|FIN) != 0) && fwd.unacked.len() < maxUnacked {
		if flags&(SYN|FIN) != 0 {
			nextseq++
		}
		fwd.unacked.add(nextseq)
	}
	if seqGT(nextseq, fwd.nextSeq) || fwd.nextSeq == 0 {
		if !zwp {
			fwd.nextSeq = nextseq
			fwd.nextSeqTime = now
		}
	}
	if seq == fwd.maxSeqToBeAcked || fwd.maxSeqToBeAcked == 0 {
		if !zwp {
			fwd.maxSeqToBeAcked = fwd.nextSeq
		}
	}
	fwd.window = window
	fwd.lastAck = ack
	fwd.lastAckTime = now
	fwd.lastSegFlags = fl
	rev.unacked.ack(ack)
	return fl
}
