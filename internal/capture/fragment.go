package capture

import (
	"net/netip"
	"time"
)

// Reassembly limits: what an IP fragment reassembly may hold at once. A
// datagram whose fragments do not all arrive within them is not
// reassembled (it is counted as incomplete); its fragments are still
// counted in the flow tables.
const (
	// MaxFragDatagrams is how many datagrams are reassembled at once.
	MaxFragDatagrams = 1024
	// MaxFragBytes is how many bytes they may hold together, as the Linux
	// kernel bounds its own reassembly (net.ipv4.ipfrag_high_thresh).
	MaxFragBytes = 4 << 20
	// FragTimeout is how long, in capture time from its first fragment, a
	// datagram waits for the others: RFC 8200's 60 seconds, longer than
	// the 30 a Linux host waits.
	FragTimeout = 60 * time.Second
	// maxDatagram is the largest datagram payload an IP header can
	// describe (IPv4's 16-bit length; IPv6's fragmentable part).
	maxDatagram = 65535
	// maxHoles bounds the separate ranges a datagram may be received in
	// (each new one costs a pass over the others): real datagrams have a
	// few, a hostile capture could send thousands of 8-byte pieces.
	maxHoles = 256
)

// fragKey identifies a datagram's fragments as Wireshark does: the
// addresses, the identification, IPv4's protocol, and for IPv4 between
// private addresses the VLAN.
type fragKey struct {
	src, dst netip.Addr
	id       uint32
	proto    uint8 // IPv4 only
	v6       bool
	vlan     uint16 // IPv4 with a private or link-local address only
}

type span struct{ start, end int }

// datagram is one datagram being reassembled.
type datagram struct {
	key   fragKey
	first int64  // capture time of its first fragment
	buf   []byte // the payload so far, up to the furthest fragment's end
	have  []span // the ranges received, sorted and merged
	total int    // the payload length, once the last fragment came; -1 before
	held  int    // bytes of buf counted against MaxFragBytes
	live  bool   // in the table
	gen   uint32 // incremented when the struct is reused
}

type queued struct {
	dg  *datagram
	gen uint32
}

// reassembler puts fragmented datagrams back together, within the limits
// above. A datagram is complete with the fragment that fills its last gap
// (in any order): the payload is then handed out for that frame, as
// Wireshark shows a reassembled datagram in the frame of the fragment
// that completes it. Where fragments overlap, the bytes that came first
// are kept.
type reassembler struct {
	m     map[fragKey]*datagram
	queue []queued // datagrams in the order they were started
	head  int
	bytes int
	free  []*datagram // structs (and buffers) to reuse
	done  []*datagram // completed for the current frame; reused from the next
	// started and completed count datagrams, for the notes.
	started, completed int
}

// next readies the reassembler for a new frame: the datagrams completed
// for the previous one are no longer referenced.
func (r *reassembler) next() {
	for _, dg := range r.done {
		r.recycle(dg)
	}
	r.done = r.done[:0]
}

// reset forgets every datagram in progress (and the counts).
func (r *reassembler) reset() {
	for _, q := range r.queue[r.head:] {
		if q.dg.live && q.dg.gen == q.gen {
			r.remove(q.dg)
			r.recycle(q.dg)
		}
	}
	r.next()
	r.queue, r.head = r.queue[:0], 0
	r.started, r.completed = 0, 0
}

// incomplete is how many datagrams were started and not completed.
func (r *reassembler) incomplete() int { return r.started - r.completed }

// add adds the fragment data at byte offset off of datagram k; last is set
// on the fragment that ends the datagram (no more-fragments flag). It
// returns the datagram's payload once this fragment completes it; the
// slice is valid until the next frame.
func (r *reassembler) add(k fragKey, off int, data []byte, last bool, now int64) ([]byte, bool) {
	r.expire(now)
	end := off + len(data)
	if end > maxDatagram || len(data) == 0 {
		return nil, false
	}
	dg := r.m[k]
	if dg == nil {
		for len(r.m) >= MaxFragDatagrams && r.evictOldestBut(nil) {
		}
		dg = r.newDatagram()
		dg.key, dg.first, dg.total, dg.live = k, now, -1, true
		if r.m == nil {
			r.m = map[fragKey]*datagram{}
		}
		r.m[k] = dg
		r.queue = append(r.queue, queued{dg, dg.gen})
		r.started++
		r.compact()
	}
	size := cap(dg.buf)
	if end > size {
		size = min(max(end, 2*size), maxDatagram)
	}
	for r.bytes+size-dg.held > MaxFragBytes && r.evictOldestBut(dg) {
	}
	if size > cap(dg.buf) {
		nb := make([]byte, len(dg.buf), size)
		copy(nb, dg.buf)
		dg.buf = nb
	}
	r.bytes += size - dg.held
	dg.held = size
	if end > len(dg.buf) {
		dg.buf = dg.buf[:end]
	}
	// Copy into the gaps only: the bytes that came first stay.
	pos := off
	for _, s := range dg.have {
		if s.end <= pos {
			continue
		}
		if s.start >= end {
			break
		}
		if s.start > pos {
			copy(dg.buf[pos:s.start], data[pos-off:])
		}
		pos = max(pos, s.end)
	}
	if pos < end {
		copy(dg.buf[pos:end], data[pos-off:])
	}
	dg.have = mergeSpan(dg.have, span{off, end})
	if len(dg.have) > maxHoles {
		r.remove(dg)
		r.recycle(dg)
		return nil, false
	}
	if last && dg.total < 0 {
		dg.total = end
	}
	if dg.total < 0 || len(dg.have) == 0 || dg.have[0].start != 0 || dg.have[0].end < dg.total {
		return nil, false
	}
	r.remove(dg)
	r.done = append(r.done, dg)
	r.completed++
	return dg.buf[:dg.total], true
}

// mergeSpan inserts s into the sorted, disjoint spans, merging what
// touches it.
func mergeSpan(have []span, s span) []span {
	i := 0
	for i < len(have) && have[i].end < s.start {
		i++
	}
	j := i
	for j < len(have) && have[j].start <= s.end {
		s.start, s.end = min(s.start, have[j].start), max(s.end, have[j].end)
		j++
	}
	if i == j {
		have = append(have, span{})
		copy(have[i+1:], have[i:])
		have[i] = s
		return have
	}
	have[i] = s
	return append(have[:i+1], have[j:]...)
}

func (r *reassembler) newDatagram() *datagram {
	if n := len(r.free); n > 0 {
		dg := r.free[n-1]
		r.free = r.free[:n-1]
		return dg
	}
	return &datagram{}
}

// remove takes a datagram out of the table.
func (r *reassembler) remove(dg *datagram) {
	delete(r.m, dg.key)
	dg.live = false
	r.bytes -= dg.held
	dg.held = 0
}

// recycle keeps a removed datagram's struct and buffer for reuse (a few:
// the rest is left to the garbage collector).
func (r *reassembler) recycle(dg *datagram) {
	dg.gen++
	dg.have = dg.have[:0]
	dg.buf = dg.buf[:0]
	if len(r.free) < 16 {
		r.free = append(r.free, dg)
	}
}

// expire drops the datagrams that waited longer than FragTimeout.
func (r *reassembler) expire(now int64) {
	for r.head < len(r.queue) {
		q := r.queue[r.head]
		if q.dg.live && q.dg.gen == q.gen {
			if now-q.dg.first <= int64(FragTimeout) {
				return
			}
			r.remove(q.dg)
			r.recycle(q.dg)
		}
		r.head++
	}
}

// evictOldestBut drops the oldest datagram in progress other than keep;
// false when there is none.
func (r *reassembler) evictOldestBut(keep *datagram) bool {
	for i := r.head; i < len(r.queue); i++ {
		q := r.queue[i]
		if !q.dg.live || q.dg.gen != q.gen || q.dg == keep {
			continue
		}
		r.remove(q.dg)
		r.recycle(q.dg)
		return true
	}
	return false
}

// compact drops the queue entries of datagrams no longer in progress
// once they outnumber the live ones, so the queue stays proportional to
// the table.
func (r *reassembler) compact() {
	if len(r.queue)-r.head <= 2*len(r.m)+64 {
		return
	}
	n := 0
	for _, q := range r.queue[r.head:] {
		if q.dg.live && q.dg.gen == q.gen {
			r.queue[n] = q
			n++
		}
	}
	clear(r.queue[n:])
	r.queue, r.head = r.queue[:n], 0
}
