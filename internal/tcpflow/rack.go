package tcpflow

import "sort"

// rackState replays, from the sender's point of view, the RACK-TLP
// reordering window of RFC 8985 section 6.2 for one direction's data: the
// window min_RTT/4 x reo_wnd_mult, capped at SRTT; reo_wnd_mult grows by one
// in each round trip whose ACKs carry a D-SACK and falls back to 1 after
// reo_wnd_persist (16) loss recoveries without one. A second window is kept
// for a sender that ignores D-SACK (reo_wnd_mult stays 1): Gary Nebbett
// found Windows 11 22000.x to be such a sender, its window "completely
// inadequate" ("Windows 11 TCP/IP Congestion Control Improvements",
// https://gary-nebbett.blogspot.com/2022/01/windows-11-tcpip-congestion-control.html);
// his October 2022 update says 22H2 corrects it.
//
// Times are those of the capture, so the replay is exact for a capture
// taken at the sender and approximate elsewhere.
type rackState struct {
	minRTT, rtt    int64
	srtt           float64
	haveRTT        bool
	fack           int64
	reorderingSeen bool
	mult, persist  int
	dsackRound     int64
	haveDsackRound bool
	inRecovery     bool
	recoveryPoint  int64
	sndNxt         int64
	segsSacked     int // segments of Dir.inflight SACKed

	dsackRounds, recoveries uint64
	maxMult                 int
	maxWnd                  int64

	timeline []TimelinePoint
}

// TimelinePoint is the sender's state after an event, for --window-plot.
type TimelinePoint struct {
	TimeNs        int64 `json:"t_ns"`
	InFlight      int64 `json:"bytes_in_flight"`
	ReoWndNs      int64 `json:"reo_wnd_ns"`          // D-SACK-honouring RACK sender
	ReoWndIgnNs   int64 `json:"reo_wnd_ignoring_ns"` // sender ignoring D-SACK
	ReoWndMult    int   `json:"reo_wnd_mult"`
	Retransmitted bool  `json:"retransmission,omitempty"`
}

const (
	reoWndPersist = 16
	dupThresh     = 3
	maxTimeline   = 200000
)

// init makes r, which is zero, a new direction's RACK state.
func (r *rackState) init() { r.mult = 1 }

// reoWnd is RACK_update_reo_wnd's result (RFC 8985 6.2 step 4, last part).
func (r *rackState) reoWnd(honour bool) int64 {
	if !r.haveRTT {
		return 0
	}
	if !r.reorderingSeen {
		if r.inRecovery || r.segsSacked >= dupThresh {
			return 0
		}
	}
	m := 1
	if honour {
		m = r.mult
	}
	w := r.minRTT / 4 * int64(m)
	if s := int64(r.srtt); w > s {
		w = s
	}
	return w
}

// onSend follows a data segment sent: new data, which Conn.dataSent has
// added to d.inflight (the segments RACK tracks are those), or a
// retransmission (rtx) of data there, marked retransmitted by
// Dir.noteRtx.
func (r *rackState) onSend(seq, end, now int64, rtx bool, d *Dir, keep bool) {
	if end > r.sndNxt {
		r.sndNxt = end
	}
	if rtx {
		segs := d.inflight
		i := sort.Search(len(segs), func(i int) bool { return segs[i].end > seq })
		for ; i < len(segs) && segs[i].seq < end; i++ {
			segs[i].xmit = now
		}
		if !r.inRecovery {
			r.inRecovery = true
			r.recoveryPoint = r.sndNxt
			r.recoveries++
		}
	}
	if keep {
		r.point(now, d, rtx)
	}
}

// atRetransmit records, for an observed retransmission, when each RACK
// variant would have declared the original lost.
func (r *rackState) atRetransmit(x *rtxRec) {
	x.reoHonour = r.reoWnd(true)
	x.reoIgnore = r.reoWnd(false)
	if x.origT != 0 && r.haveRTT {
		x.rackLostAt = x.origT + r.rtt + x.reoHonour
		x.rackLostIgn = x.origT + r.rtt + x.reoIgnore
	}
}

func (r *rackState) onAck(now, cum int64, blocks [][2]int64, dsack bool, d *Dir, keep bool) {
	// Steps 2 and 3: newly delivered segments update RACK.rtt and fack,
	// and reveal reordering. (RACK.xmit_ts and end_seq serve step 5's loss
	// detection, which the replay does not run: it computes when the
	// original would have been marked lost, in atRetransmit.)
	deliver := func(s *sentSeg) {
		rtt := now - s.xmit
		if s.rtx && r.haveRTT && rtt < r.minRTT {
			// ambiguous: probably the original's ACK
		} else if rtt >= 0 {
			r.rtt = rtt
			if !r.haveRTT || rtt < r.minRTT {
				r.minRTT = rtt
			}
			if !r.haveRTT {
				r.srtt = float64(rtt)
			} else {
				r.srtt = 0.875*r.srtt + 0.125*float64(rtt)
			}
			r.haveRTT = true
		}
		if r.fack < s.end {
			r.fack = s.end
		} else if s.end < r.fack && !s.rtx {
			r.reorderingSeen = true
		}
	}
	// The segments cumulatively acknowledged leave d.inflight here
	// (Conn.ackSent has taken its RTT sample from them).
	segs := d.inflight
	k := 0
	for k < len(segs) && segs[k].end <= cum {
		if segs[k].sacked {
			r.segsSacked--
		} else {
			deliver(&segs[k])
		}
		k++
	}
	if k == len(segs) {
		segs = segs[:0] // all of them: no call to move nothing
		d.inflight = segs
	} else if k > 0 {
		segs = append(segs[:0], segs[k:]...)
		d.inflight = segs
	}
	for _, b := range blocks {
		i := sort.Search(len(segs), func(i int) bool { return segs[i].end > b[0] })
		for ; i < len(segs) && segs[i].seq < b[1]; i++ {
			s := &segs[i]
			if !s.sacked && s.seq >= b[0] && s.end <= b[1] {
				s.sacked = true
				r.segsSacked++
				deliver(s)
			}
		}
	}
	// Step 4: RACK_update_reo_wnd.
	exiting := false
	if r.inRecovery && cum >= r.recoveryPoint {
		r.inRecovery = false
		exiting = true
	}
	if r.haveDsackRound && cum >= r.dsackRound {
		r.haveDsackRound = false
	}
	if !r.haveDsackRound && dsack {
		r.dsackRound, r.haveDsackRound = r.sndNxt, true
		r.mult++
		r.persist = reoWndPersist
		r.dsackRounds++
		if r.mult > r.maxMult {
			r.maxMult = r.mult
		}
	} else if exiting {
		r.persist--
		if r.persist <= 0 {
			r.mult = 1
		}
	}
	if r.maxMult == 0 {
		r.maxMult = 1
	}
	if w := r.reoWnd(true); w > r.maxWnd {
		r.maxWnd = w
	}
	if keep {
		r.point(now, d, false)
	}
}

func (r *rackState) point(now int64, d *Dir, rtx bool) {
	if len(r.timeline) >= maxTimeline {
		return
	}
	inflight := r.sndNxt - d.cumAck - d.sackedNow
	if !d.haveCum {
		inflight = r.sndNxt
	}
	if inflight < 0 {
		inflight = 0
	}
	p := TimelinePoint{TimeNs: now, InFlight: inflight, ReoWndNs: r.reoWnd(true), ReoWndIgnNs: r.reoWnd(false), ReoWndMult: r.mult, Retransmitted: rtx}
	if n := len(r.timeline); n > 0 && !rtx {
		q := r.timeline[n-1]
		if q.InFlight == p.InFlight && q.ReoWndNs == p.ReoWndNs && q.ReoWndIgnNs == p.ReoWndIgnNs && q.ReoWndMult == p.ReoWndMult {
			return
		}
	}
	r.timeline = append(r.timeline, p)
}

// Timeline returns the recorded sender timeline of a direction (only for
// connections selected with Analyzer.KeepTimeline).
func (d *Dir) Timeline() []TimelinePoint { return d.rack.timeline }
