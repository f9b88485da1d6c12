package netload

// tracker does the receiver's accounting of echoed probes in arrival
// order: first arrivals, duplicates, reordering, round-trip times and the
// RFC 3550 interarrival jitter. It allocates nothing per packet.
type tracker struct {
	run       uint32
	n         uint64   // sequence numbers 0..n-1 belong to the run
	seen      []uint64 // bitmap of sequence numbers received
	rtt       []int64  // arrival - actual send, per first arrival, in arrival order
	intended  []int64  // arrival - intended send (coordinated-omission-free latency)
	unique    int64
	dups      int64
	reordered int64
	foreign   int64
	nextExp   uint64

	// RFC 3550 section 6.4.1: J += (|D(i-1,i)| - J) / 16, with D the change
	// in transit time (arrival - send) between consecutive arrivals. Here
	// transit is the round trip, both ends on the sender's clock.
	jitter      float64
	prevTransit int64
	havePrev    bool
}

func newTracker(run uint32, n uint64) *tracker {
	return &tracker{
		run: run, n: n, seen: make([]uint64, (n+63)/64),
		rtt: make([]int64, 0, n), intended: make([]int64, 0, n),
	}
}

// add records the datagram b that arrived at now.
func (t *tracker) add(b []byte, now int64) {
	h, err := parseHeader(b)
	if err == nil && h.Run == t.run && h.Seq == helloSeq {
		return // a late echo of the reachability check
	}
	if err != nil || h.Run != t.run || h.Seq >= t.n {
		t.foreign++
		return
	}
	w, bit := h.Seq/64, uint64(1)<<(h.Seq%64)
	if t.seen[w]&bit != 0 {
		t.dups++
		return
	}
	t.seen[w] |= bit
	t.unique++
	// RFC 4737: a packet is reordered when its sequence number is below
	// the next one expected from those already seen.
	if h.Seq < t.nextExp {
		t.reordered++
	} else {
		t.nextExp = h.Seq + 1
	}
	transit := now - h.Sent
	t.rtt = append(t.rtt, transit)
	t.intended = append(t.intended, now-h.Intended)
	if t.havePrev {
		d := transit - t.prevTransit
		if d < 0 {
			d = -d
		}
		t.jitter += (float64(d) - t.jitter) / 16
	}
	t.prevTransit, t.havePrev = transit, true
}
