package tcpflow

// What is kept of a connection after it closed: only what decides the
// Wireshark flags and relative numbers of a segment that comes later (a
// retransmitted FIN, the ACK of one, data that was in flight when a RST
// came) and whether a SYN on the same ports starts a new connection.
// Wireshark keeps a conversation's state for the whole capture, so latlab
// must too, to agree with it frame by frame; it keeps it small instead.
// The statistics, the RACK replay, the ranges seen and the segments in
// flight are gone: the segment counts only in Result.AfterClose.

// closedConn is a closed connection: about 160 bytes, plus 4 bytes per
// segment still unacknowledged (usually none).
type closedConn struct {
	stream     int
	tsMruSyn   int64
	tsFirstRTT int64
	flow       [2]closedFlow
	aFirst     bool // the connection's A is the key's a
}

// closedFlow is the part of a flow that wiresharkSequence and Add read.
// The end-of-connection fields (finEnd, finSent, finAcked) are left out:
// they only decide when an open connection ends.
type closedFlow struct {
	baseSeq, nextSeq, maxSeqToBeAcked, lastAck uint32
	window, dupAckNum                          uint32
	lastSegFlags                               Flag
	winScale                                   int8 // -2..14
	baseSet, isFirstAck                        bool
	nextSeqTime, lastAckTime                   int64
	lastNonDupAck                              int
	unacked                                    *unackedList // nil when empty
}

// set makes t the closed state of f. Field by field, in place: a
// closedConn built by value and copied into its chunk cost the closing
// of 100,000 short connections about 2% of the CPU.
func (t *closedFlow) set(f *flow) {
	t.baseSeq, t.nextSeq, t.maxSeqToBeAcked, t.lastAck = f.baseSeq, f.nextSeq, f.maxSeqToBeAcked, f.lastAck
	t.window, t.dupAckNum, t.lastSegFlags, t.winScale = f.window, f.dupAckNum, f.lastSegFlags, int8(f.winScale)
	t.baseSet, t.isFirstAck, t.nextSeqTime, t.lastAckTime = f.baseSet, f.isFirstAck, f.nextSeqTime, f.lastAckTime
	t.lastNonDupAck, t.unacked = f.lastNonDupAck, nil
	if f.unacked.len() > 0 {
		u := f.unacked.clip()
		t.unacked = &u
	}
}

func (t *closedFlow) flow() flow {
	f := flow{baseSeq: t.baseSeq, nextSeq: t.nextSeq, maxSeqToBeAcked: t.maxSeqToBeAcked, lastAck: t.lastAck,
		window: t.window, dupAckNum: t.dupAckNum, lastSegFlags: t.lastSegFlags, winScale: int(t.winScale),
		baseSet: t.baseSet, isFirstAck: t.isFirstAck, nextSeqTime: t.nextSeqTime, lastAckTime: t.lastAckTime,
		lastNonDupAck: t.lastNonDupAck}
	if t.unacked != nil {
		f.unacked = *t.unacked
	}
	return f
}

// set makes t the closed state of c.
func (t *closedConn) set(c *Conn) {
	t.stream, t.tsMruSyn, t.tsFirstRTT, t.aFirst = c.Stream, c.tsMruSyn, c.tsFirstRTT, !c.aKeyB
	t.flow[0].set(&c.dir[0].flow)
	t.flow[1].set(&c.dir[1].flow)
}

// revive returns a Conn carrying t's state for one late segment; it holds
// no statistics and is marked closed.
func (t *closedConn) revive(k connKey) *Conn {
	c := &Conn{Stream: t.stream, A: k.endpoint(0), B: k.endpoint(1), tsMruSyn: t.tsMruSyn, tsFirstRTT: t.tsFirstRTT, closed: true}
	if !t.aFirst {
		c.A, c.B, c.aKeyB = c.B, c.A, true
	}
	for i := range c.dir {
		c.dir[i] = &Dir{flow: t.flow[i].flow()}
	}
	return c
}

// closedSet holds the closed connections' state; the Analyzer's
// connTable finds it by key (connSlot.closed). Chunks of closedConn
// rather than a value per closed connection: one allocation per 1024,
// not one per connection for the garbage collector to trace. Chunks, not
// one slice, so that growing copies nothing and leaves no slack beyond
// the last chunk.
type closedSet struct {
	chunks [][]closedConn // closedChunk each
	n      int            // indexes handed out
	free   []int32        // indexes a deletion left unused
	spare  chan []closedConn
}

const closedChunk = 1024

func (s *closedSet) at(i int32) *closedConn { return &s.chunks[i/closedChunk][i%closedChunk] }

// add returns the index of an unused (zero) closedConn.
func (s *closedSet) add() int32 {
	var i int32
	if n := len(s.free); n > 0 {
		i = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		if s.n%closedChunk == 0 {
			s.chunks = append(s.chunks, s.newChunk())
		}
		i = int32(s.n)
		s.n++
	}
	return i
}

// del frees index i for another closed connection.
func (s *closedSet) del(i int32) {
	*s.at(i) = closedConn{} // let its unacknowledged list go
	s.free = append(s.free, i)
}
