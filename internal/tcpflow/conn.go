package tcpflow

import (
	"sort"
)

// Limits that keep per-connection memory bounded by the data in flight
// even on captures that miss one direction.
const (
	maxInflight  = 20000 // segments remembered for RTT and RACK
	maxRtxRing   = 4096  // retransmissions remembered for D-SACK matching
	maxSeenRange = 4096  // disjoint received ranges remembered
	reorderRing  = 256   // recent segments for the reordering extent
	recentStart  = 16    // the ring's first size (kept when reused: maxKeptBuf)
)

// Conn is one TCP connection (Wireshark's tcp.stream).
type Conn struct {
	Stream  int
	A, B    Endpoint // A sent the first packet seen
	FirstNs int64
	LastNs  int64

	dir        [2]*Dir
	tsMruSyn   int64
	tsFirstRTT int64
	timeline   bool
	ended      bool // both FINs acknowledged, or a RST seen
	closed     bool
	replaced   bool // closed for a new connection on the same ports while ending
	aKeyB      bool // A is its key's b endpoint (connKey.set), which tells a segment's direction
	// entry is its key's in the Analyzer's table (entries never move):
	// closing it needs no lookup, whose cache miss on a slot last read a
	// second of capture time before was 3% of the run's time with
	// 100,000 short connections.
	entry *connSlot
	st    *connState // the slab slot to recycle it into (Analyzer.ReuseConns), or nil
}

// Dir returns the state of one direction: 0 is A->B, 1 is B->A.
func (c *Conn) Dir(i int) *Dir { return c.dir[i] }

// InitialRTT is the handshake RTT at the capture point (last SYN to first
// pure ACK), 0 if not seen.
func (c *Conn) InitialRTT() int64 { return c.tsFirstRTT }

// Dir is one direction of a connection: Wireshark's per-flow state plus
// latlab's statistics for the data this side sends and the ACKs it sends.
type Dir struct {
	flow

	Stats DirStats

	// latlab's own tracking, in unwrapped sequence numbers relative to
	// the ISN (seq 1 = first data byte).
	ref      int64 // unwrap reference
	haveHigh bool
	high     int64       // highest end of data seen
	seen     [][2]int64  // disjoint sorted ranges of data seen, above the cumulative ACK
	recent   []recentSeg // ring of the last reorderRing data segments, grown as needed
	recentN  int
	inflight []sentSeg // new data sent, not yet cumulatively acked (Karn RTT, RACK)
	rtx      []rtxRec  // ring of recent retransmissions (D-SACK matching)
	rtxNext  int
	// rtxUncovered counts the entries of rtx no ACK or SACK has covered
	// yet (valid, coverT 0): an ACK looks for delivery evidence only
	// when there are some. Looking at every remembered retransmission on
	// every ACK cost a tenth of the analysis of long connections, each
	// with a few hundred retransmissions, and up to 4096 on each ACK.
	rtxUncovered int
	cumAck       int64 // highest cumulative ACK from the other side, unwrapped
	haveCum      bool
	firstAck     int64
	lastAckNs    int64
	sackedNow    int64 // bytes SACKed above the cumulative ACK in the latest ACK

	rack rackState
}

// flow is Wireshark's per-direction state (tcp_flow_t and
// tcp_analyze_seq_flow_info_t): everything the per-frame flags depend on.
// It outlives the rest of a connection's state (see Analyzer.retire), so
// that segments arriving after the close get Wireshark's flags too.
type flow struct {
	baseSeq         uint32
	baseSet         bool
	nextSeq         uint32
	nextSeqTime     int64
	maxSeqToBeAcked uint32
	lastAck         uint32
	lastAckTime     int64
	window          uint32
	winScale        int
	isFirstAck      bool
	// dupAckNum is unsigned, as Wireshark's (guint32 dupacknum): its
	// "ACKed unseen segment" branch stores -1 (dupAckUnseen), which the
	// fast-retransmission test (>= 2) then reads as a large count. See
	// wiresharkSequence.
	dupAckNum     uint32
	lastNonDupAck int
	lastSegFlags  Flag
	unacked       unackedList

	// The end of the connection: the sequence number after this side's
	// FIN, and whether the other side has acknowledged it.
	finEnd   uint32
	finSent  bool
	finAcked bool
}

// maxUnacked is Wireshark's TCP_MAX_UNACKED_SEGMENTS: the most segments
// of one direction it remembers until they are acknowledged. A segment
// sent while that many are remembered is not added, and then its SYN or
// FIN does not advance the next expected sequence number (see
// wiresharkSequence): the ACK of such a FIN is "ACKed unseen segment".
const maxUnacked = 10_000

// unackedList is Wireshark's list of a direction's unacknowledged segments
// (tcp_analyze_seq_flow_info_t.segments). Only its length decides a flag,
// and an ACK removes the segments that end at or below it, so only their
// ends are kept, in the order sent.
type unackedList struct {
	ends []uint32 // ends[head:] are live
	head int
	// ordered: each live end is above the one before it and the span is
	// under 2^30, so an ACK near them removes a prefix.
	ordered bool
}

func (l *unackedList) len() int { return len(l.ends) - l.head }

func (l *unackedList) add(end uint32) {
	switch n := l.len(); {
	case n == 0:
		l.ordered = true
	case l.ordered:
		l.ordered = seqGT(end, l.ends[len(l.ends)-1]) && end-l.ends[l.head] < 1<<30
	}
	l.ends = append(l.ends, end)
}

// ack removes the segments that ack covers: those whose end is not beyond
// it in sequence space, as Wireshark's loop over the list decides, for any
// ack (a SYN's zero included).
func (l *unackedList) ack(ack uint32) {
	n := l.len()
	if n == 0 {
		return
	}
	first, last := l.ends[l.head], l.ends[len(l.ends)-1]
	if l.ordered && int32(ack-first) > -(1<<30) && int32(ack-last) < 1<<30 {
		// ack is within 2^30 of every end, so end-ack has its true sign
		// and grows with end: the covered ends are a prefix.
		for l.head < len(l.ends) && seqLE(l.ends[l.head], ack) {
			l.head++
		}
		if l.head == len(l.ends) {
			l.ends, l.head = l.ends[:0], 0
		} else if l.head > 1024 && l.head > len(l.ends)/2 {
			l.ends = append(l.ends[:0], l.ends[l.head:]...)
			l.head = 0
		}
		return
	}
	kept := l.ends[:0]
	for _, e := range l.ends[l.head:] {
		if seqGT(e, ack) {
			kept = append(kept, e)
		}
	}
	l.ends, l.head = kept, 0
	l.ordered = true
	for i := 1; i < len(kept) && l.ordered; i++ {
		l.ordered = seqGT(kept[i], kept[i-1]) && kept[i]-kept[0] < 1<<30
	}
}

// clip returns the list holding only its live ends, in as little memory.
func (l unackedList) clip() unackedList {
	if l.len() == 0 {
		return unackedList{}
	}
	l.ends = append([]uint32(nil), l.ends[l.head:]...)
	l.head = 0
	return l
}

type recentSeg struct {
	seq int64
	t   int64
}

// sentSeg is a segment of new data in flight: for the RTT samples of
// Karn's rule (t) and for the RACK replay (xmit, sacked), in one array
// (Dir.inflight) since both follow the same segments.
type sentSeg struct {
	seq, end int64
	t        int64 // first transmission
	xmit     int64 // latest transmission (RACK's xmit_ts)
	frame    int
	rtx      bool // retransmitted
	sacked   bool
}

type rtxRec struct {
	seq, end    int64
	t           int64
	frame       int
	origT       int64 // first transmission of this data
	coverT      int64 // first ACK/SACK covering it, 0 if none yet
	wsSpurious  bool  // Wireshark: already cumulatively acked when sent
	dsack       bool  // a later D-SACK covered it
	reoHonour   int64 // reordering window of a D-SACK-honouring RACK sender then
	reoIgnore   int64 // ... of one that ignores D-SACK
	rackLostAt  int64 // when RACK (honouring) would have marked the original lost
	rackLostIgn int64
	valid       bool
}

func newDir() *Dir {
	d := initialDir()
	return &d
}

// initialDir is a direction before its first segment.
func initialDir() Dir {
	var d Dir
	d.init()
	return d
}

// init makes d, which is zero, a new direction's (initialDir). In place:
// connState.reset and the slabs set a recycled or new Dir with it instead
// of building an 888-byte Dir on the stack and copying it (4% of the
// CPU on 100,497 short connections).
func (d *Dir) init() {
	d.flow.window, d.flow.winScale = 0xFFFFFFFF, -1
	d.rack.init()
}

// HandshakeOptions are the options of a SYN or SYN-ACK.
type HandshakeOptions struct {
	MSS           int  `json:"mss,omitempty"`
	WindowScale   int  `json:"window_scale"` // -1: not offered
	SACKPermitted bool `json:"sack_permitted"`
	Timestamps    bool `json:"timestamps"`
	ECN           bool `json:"ecn_setup,omitempty"` // ECE+CWR on the SYN / ECE on the SYN-ACK
}

func (d *Dir) handshake(s *Segment, o *TCPOptions, h *HandshakeOptions) {
	*h = HandshakeOptions{WindowScale: -1, SACKPermitted: o.SACKPermitted, Timestamps: o.HasTS}
	if o.HasMSS {
		h.MSS = int(o.MSS)
	}
	if o.HasWScale {
		h.WindowScale = int(o.WScale)
	}
	if s.Flags&ACK == 0 {
		h.ECN = s.Flags&(ECE|CWR) == ECE|CWR
	} else {
		h.ECN = s.Flags&ECE != 0
	}
	d.Stats.Handshake = h
}

func unwrap(ref *int64, v uint32) int64 {
	x := *ref + int64(int32(v-uint32(*ref)))
	if x > *ref {
		*ref = x
	}
	return x
}

// extended is latlab's analysis beyond Wireshark's flags.
func (c *Conn) extended(fwd, rev *Dir, s *Segment, fr *Frame) {
	fwd.Stats.CountFrame(fr)
	rel := s.Seq - fwd.baseSeq
	if s.Len > 0 {
		seq := unwrap(&fwd.ref, rel)
		end := seq + int64(s.Len)
		c.dataSent(fwd, rev, s, fr, seq, end)
	}
	if s.Flags&ACK != 0 && rev.baseSet {
		c.ackSent(fwd, rev, s, fr)
	}
}

// dataSent tracks a data segment of fwd: new data, retransmission (data
// seen before) or reordering (new data below the highest seen).
func (c *Conn) dataSent(fwd, rev *Dir, s *Segment, fr *Frame, seq, end int64) {
	now := s.TimeNs
	st := &fwd.Stats
	overlap := fwd.seenOverlap(seq, end)
	acked := fwd.haveCum && end <= fwd.cumAck
	switch {
	case overlap || acked:
		fr.Retransmitted = true
		st.ResentSegments++
		st.RetransmittedBytes += uint64(s.Len)
		fwd.noteRtx(seq, end, s.Frame, now, fr.Flags&FlagSpuriousRetransmission != 0 || acked)
	case fwd.haveHigh && seq < fwd.high:
		fr.Reordered = true
		st.Reordered++
		n, first := 0, int64(0)
		for _, r := range fwd.recent {
			if r.seq > seq {
				n++
				if first == 0 || r.t < first {
					first = r.t
				}
			}
		}
		fr.ReorderSegs, fr.ReorderNs = n, now-first
		if n > st.ReorderMaxSegs {
			st.ReorderMaxSegs = n
		}
		if fr.ReorderNs > st.ReorderMaxNs {
			st.ReorderMaxNs = fr.ReorderNs
		}
		st.reorderSegSum += int64(n)
		st.UniqueBytes += uint64(end - seq)
	default:
		st.UniqueBytes += uint64(end - seq)
	}
	if !overlap && !acked {
		if len(fwd.inflight) < maxInflight {
			fwd.inflight = append(fwd.inflight, sentSeg{seq: seq, end: end, t: now, xmit: now, frame: s.Frame})
			if n := len(fwd.inflight); n > 1 && fwd.inflight[n-2].seq > seq {
				sort.Slice(fwd.inflight, func(i, j int) bool { return fwd.inflight[i].seq < fwd.inflight[j].seq })
			}
		}
	}
	if r := (recentSeg{seq: seq, t: now}); len(fwd.recent) < reorderRing {
		if n := len(fwd.recent); n == cap(fwd.recent) {
			// Room for a short connection's segments, then for the
			// whole ring at once: doubling from one segment to the
			// ring's 256 cost a long capture 7% of its analysis.
			c := recentStart
			if n >= recentStart {
				c = reorderRing
			}
			fwd.recent = append(make([]recentSeg, 0, c), fwd.recent...)
		}
		fwd.recent = append(fwd.recent, r)
	} else {
		fwd.recent[fwd.recentN%reorderRing] = r
	}
	fwd.recentN++
	fwd.addSeen(seq, end)
	if !fwd.haveHigh || end > fwd.high {
		fwd.high, fwd.haveHigh = end, true
	}
	fwd.rack.onSend(seq, end, now, fr.Retransmitted, fwd, c.timeline)
}

func (d *Dir) noteRtx(seq, end int64, frame int, now int64, alreadyAcked bool) {
	// Karn: RTT samples of retransmitted data are ambiguous.
	i := sort.Search(len(d.inflight), func(i int) bool { return d.inflight[i].end > seq })
	origT := int64(0)
	for ; i < len(d.inflight) && d.inflight[i].seq < end; i++ {
		d.inflight[i].rtx = true
		if origT == 0 {
			origT = d.inflight[i].t
		}
	}
	r := rtxRec{seq: seq, end: end, t: now, frame: frame, origT: origT, wsSpurious: alreadyAcked, valid: true}
	d.rack.atRetransmit(&r)
	d.rtxUncovered++
	if len(d.rtx) < maxRtxRing {
		d.rtx = append(d.rtx, r)
	} else {
		old := &d.rtx[d.rtxNext]
		if old.valid && old.coverT == 0 {
			d.rtxUncovered--
		}
		d.finishRtx(old)
		d.rtx[d.rtxNext] = r
		d.rtxNext = (d.rtxNext + 1) % maxRtxRing
	}
}

func (d *Dir) seenOverlap(seq, end int64) bool {
	if n := len(d.seen); n == 0 || d.seen[n-1][1] <= seq {
		return false // new data (the search's answer, without its calls)
	}
	i := sort.Search(len(d.seen), func(i int) bool { return d.seen[i][1] > seq })
	return i < len(d.seen) && d.seen[i][0] < end
}

func (d *Dir) addSeen(seq, end int64) {
	s := d.seen
	// Data in order first, as the search and merge below would take it:
	// it ends the last range, or starts a new one after it.
	if n := len(s); n > 0 && s[n-1][1] == seq && end >= seq {
		s[n-1][1] = end
		return
	} else if n == 0 || s[n-1][1] < seq {
		if n < maxSeenRange {
			d.seen = append(s, [2]int64{seq, end})
		}
		return
	}
	i := sort.Search(len(s), func(i int) bool { return s[i][1] >= seq })
	j := i
	for j < len(s) && s[j][0] <= end {
		if s[j][0] < seq {
			seq = s[j][0]
		}
		if s[j][1] > end {
			end = s[j][1]
		}
		j++
	}
	if i == j {
		if len(s) >= maxSeenRange {
			return
		}
		s = append(s, [2]int64{})
		copy(s[i+1:], s[i:])
		s[i] = [2]int64{seq, end}
	} else {
		s[i] = [2]int64{seq, end}
		s = append(s[:i+1], s[j:]...)
	}
	d.seen = s
}

// ackSent processes the ACK (and SACK) that fwd sends about rev's data.
func (c *Conn) ackSent(fwd, rev *Dir, s *Segment, fr *Frame) {
	now := s.TimeNs
	o := fr.Opts
	ack := unwrap(&rev.ref, s.Ack-rev.baseSeq)
	st := &fwd.Stats
	if o.NSACK > 0 {
		st.SACKBlocks += uint64(o.NSACK)
		st.SACKPackets++
	}
	if fr.DSACK {
		st.DSACKBlocks++
	}
	advanced := !rev.haveCum || ack > rev.cumAck
	if advanced {
		if !rev.haveCum {
			rev.firstAck = ack
		}
		rev.cumAck, rev.haveCum = ack, true
		rev.lastAckNs = now
		// RTT (Karn): the newest segment this ACK completes, if it was
		// never retransmitted.
		k := 0
		var last *sentSeg
		for k < len(rev.inflight) && rev.inflight[k].end <= ack {
			last = &rev.inflight[k]
			k++
		}
		if last != nil && !last.rtx && last.end == ack {
			fr.RTTNs = now - last.t
			rev.Stats.RTT.add(fr.RTTNs)
		}
		// rev.rack.onAck, below, removes them from rev.inflight.
		// forget received ranges below the cumulative ACK
		i := 0
		for i < len(rev.seen) && rev.seen[i][1] <= ack {
			i++
		}
		if i == len(rev.seen) {
			rev.seen = rev.seen[:0] // all of it: no call to move nothing
		} else if i > 0 {
			rev.seen = append(rev.seen[:0], rev.seen[i:]...)
		}
		if len(rev.seen) > 0 && rev.seen[0][0] < ack {
			rev.seen[0][0] = ack
		}
	}
	// SACK blocks above the ACK, unwrapped
	var blocks [4][2]int64
	nb := 0
	rev.sackedNow = 0
	for i := 0; i < o.NSACK; i++ {
		if i == 0 && fr.DSACK {
			continue
		}
		l := ack + int64(int32(o.SACK[i].Left-s.Ack))
		r := ack + int64(int32(o.SACK[i].Right-s.Ack))
		if r > l {
			blocks[nb] = [2]int64{l, r}
			nb++
			if l >= ack {
				rev.sackedNow += r - l
			}
		}
	}
	// delivery evidence for remembered retransmissions
	for i := 0; i < len(rev.rtx) && rev.rtxUncovered > 0; i++ {
		r := &rev.rtx[i]
		if !r.valid || r.coverT != 0 {
			continue
		}
		covered := r.end <= ack
		for b := 0; b < nb && !covered; b++ {
			covered = blocks[b][0] <= r.seq && r.end <= blocks[b][1]
		}
		if covered && now != 0 { // at time 0 it stays uncovered, as coverT says
			r.coverT = now
			rev.rtxUncovered--
		}
	}
	if fr.DSACK {
		l := ack + int64(int32(o.SACK[0].Left-s.Ack))
		r := ack + int64(int32(o.SACK[0].Right-s.Ack))
		for i := range rev.rtx {
			x := &rev.rtx[i]
			if x.valid && !x.dsack && x.t <= now && x.seq < r && l < x.end {
				x.dsack = true
				rev.Stats.DSACKSpurious++
				if !x.wsSpurious {
					rev.Stats.DSACKOnlySpurious++
				}
				fr.SpuriousByDSACK = append(fr.SpuriousByDSACK, x.frame)
				if x.wouldWait(true) {
					fr.RackAvoided = append(fr.RackAvoided, x.frame)
				}
			}
		}
	}
	rev.rack.onAck(now, ack, blocks[:nb], fr.DSACK, rev, c.timeline)
}

// wouldWait reports whether a RACK sender (honouring D-SACK or not) would
// have waited long enough for the original transmission's delivery to be
// reported, instead of retransmitting.
func (r *rtxRec) wouldWait(honour bool) bool {
	if r.coverT == 0 || r.origT == 0 {
		return false
	}
	if r.coverT <= r.t {
		return true // delivered before it was resent: no RACK sender resends SACKed data
	}
	lost := r.rackLostAt
	if !honour {
		lost = r.rackLostIgn
	}
	return lost > 0 && r.coverT <= lost
}

func (d *Dir) finishRtx(r *rtxRec) {
	if !r.valid || !r.dsack && !r.wsSpurious {
		return
	}
	d.Stats.Rack.Spurious++
	if r.wouldWait(true) {
		d.Stats.Rack.AvoidedHonouring++
	}
	if r.wouldWait(false) {
		d.Stats.Rack.AvoidedIgnoring++
	}
}

func (c *Conn) finish() {
	if c.closed {
		return
	}
	c.closed = true
	for _, d := range c.dir {
		for i := range d.rtx {
			d.finishRtx(&d.rtx[i])
		}
		if c.st != nil {
			// To be reused (Analyzer.ReuseConns): connState.reset
			// keeps the buffers if small.
			d.rtx, d.inflight, d.seen = d.rtx[:0], d.inflight[:0], d.seen[:0]
		} else {
			d.rtx, d.inflight, d.seen = nil, nil, nil
		}
		d.rtxUncovered = 0
		st := &d.Stats
		st.Rack.finish(&d.rack)
		if d.haveCum && d.cumAck > d.firstAck {
			st.AckedBytes = uint64(d.cumAck - d.firstAck)
			if dur := d.lastAckNs - st.FirstDataNs; dur > 0 && st.FirstDataNs > 0 {
				st.GoodputBps = float64(st.AckedBytes) * 8 / (float64(dur) / 1e9)
			}
		}
		if st.Reordered > 0 {
			st.ReorderMeanSegs = float64(st.reorderSegSum) / float64(st.Reordered)
		}
	}
}
