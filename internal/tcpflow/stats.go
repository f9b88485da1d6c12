package tcpflow

// DirStats are the statistics of one direction: the data it sends (and
// their fate) and the ACKs it sends.
type DirStats struct {
	Handshake *HandshakeOptions `json:"handshake,omitempty"`

	Packets            uint64  `json:"packets"`
	DataPackets        uint64  `json:"data_packets"`
	PayloadBytes       uint64  `json:"payload_bytes"`
	UniqueBytes        uint64  `json:"unique_bytes"`        // payload bytes not seen before in the capture
	RetransmittedBytes uint64  `json:"retransmitted_bytes"` // payload bytes seen before
	ResentSegments     uint64  `json:"resent_segments"`     // data segments carrying bytes seen before (latlab's reading)
	AckedBytes         uint64  `json:"acked_bytes"`         // cumulative ACK progress from the other side
	GoodputBps         float64 `json:"goodput_bps"`         // AckedBytes*8 over first data to last ACK advance
	FirstNs            int64   `json:"first_ns"`
	LastNs             int64   `json:"last_ns"`
	FirstDataNs        int64   `json:"first_data_ns,omitempty"`
	LastDataNs         int64   `json:"last_data_ns,omitempty"`
	FIN                bool    `json:"fin,omitempty"`
	RST                bool    `json:"rst,omitempty"`

	// Wireshark tcp.analysis counts (frames with the flag).
	Retransmissions         uint64 `json:"retransmissions"`
	FastRetransmissions     uint64 `json:"fast_retransmissions"`
	SpuriousRetransmissions uint64 `json:"spurious_retransmissions"` // Wireshark: data already cumulatively acked
	AnyRetransmissions      uint64 `json:"retransmissions_all"`      // frames with any of the three
	OutOfOrder              uint64 `json:"out_of_order"`
	DuplicateAcks           uint64 `json:"duplicate_acks"`
	ZeroWindows             uint64 `json:"zero_windows"`
	ZeroWindowProbes        uint64 `json:"zero_window_probes,omitempty"`
	LostSegments            uint64 `json:"lost_segments,omitempty"` // previous segment not captured
	AckedUnseen             uint64 `json:"acked_unseen,omitempty"`  // ACKed unseen segment
	KeepAlives              uint64 `json:"keep_alives,omitempty"`
	WindowFull              uint64 `json:"window_full,omitempty"`

	// Segments whose options were malformed (a length that overruns the
	// header or does not fit its kind); the options before it were used.
	MalformedOptions uint64 `json:"malformed_options,omitempty"`

	// D-SACK: retransmissions of this direction's data that a D-SACK from
	// the other side later reported as received twice.
	DSACKSpurious     uint64 `json:"dsack_spurious"`
	DSACKOnlySpurious uint64 `json:"dsack_spurious_not_acked"` // of those, not already counted by Wireshark's rule

	// SACK and D-SACK blocks this direction sent (about the other's data).
	SACKPackets uint64 `json:"sack_packets"`
	SACKBlocks  uint64 `json:"sack_blocks"`
	DSACKBlocks uint64 `json:"dsack_blocks"`

	// latlab's reading of arrival order: new data below the highest
	// sequence number seen, with how many segments overtook it and for
	// how long.
	Reordered       uint64  `json:"reordered"`
	ReorderMaxSegs  int     `json:"reorder_max_segments"`
	ReorderMeanSegs float64 `json:"reorder_mean_segments"`
	ReorderMaxNs    int64   `json:"reorder_max_ns"`
	reorderSegSum   int64

	RTT  RTTStats    `json:"rtt"`
	Rack RackSummary `json:"rack"`
}

// CountFrame adds a segment's packet, payload, flag, FIN and RST counts:
// what DirStats holds that needs nothing but the Frame. The Analyzer calls
// it for every segment of an open connection; callers use it to count the
// segments that arrive after their connection closed (Frame.AfterClose).
func (s *DirStats) CountFrame(fr *Frame) {
	now := fr.Seg.TimeNs
	s.Packets++
	if s.FirstNs == 0 {
		s.FirstNs = now
	}
	s.LastNs = now
	if fr.Seg.Len > 0 {
		s.DataPackets++
		s.PayloadBytes += uint64(fr.Seg.Len)
		if s.FirstDataNs == 0 {
			s.FirstDataNs = now
		}
		s.LastDataNs = now
	}
	if fl := fr.Flags; fl != 0 { // most segments carry no flag
		s.countFlags(fl)
	}
	if fr.Opts != nil && fr.Opts.Malformed {
		s.MalformedOptions++
	}
	if fr.Seg.Flags&FIN != 0 {
		s.FIN = true
	}
	if fr.Seg.Flags&RST != 0 {
		s.RST = true
	}
}

func (s *DirStats) countFlags(fl Flag) {
	for _, c := range []struct {
		f Flag
		n *uint64
	}{
		{FlagRetransmission, &s.Retransmissions}, {FlagFastRetransmission, &s.FastRetransmissions},
		{FlagSpuriousRetransmission, &s.SpuriousRetransmissions}, {FlagOutOfOrder, &s.OutOfOrder},
		{FlagDuplicateAck, &s.DuplicateAcks}, {FlagZeroWindow, &s.ZeroWindows}, {FlagLostSegment, &s.LostSegments},
		{FlagAckLostSegment, &s.AckedUnseen}, {FlagKeepAlive, &s.KeepAlives}, {FlagWindowFull, &s.WindowFull},
		{FlagZeroWindowProbe, &s.ZeroWindowProbes},
	} {
		if fl&c.f != 0 {
			*c.n++
		}
	}
	if fl&(FlagRetransmission|FlagFastRetransmission|FlagSpuriousRetransmission) != 0 {
		s.AnyRetransmissions++
	}
}

// Spurious is every retransmission shown to be unnecessary: the data was
// already cumulatively acknowledged (Wireshark's rule) or a later D-SACK
// reported it received twice.
func (s *DirStats) Spurious() uint64 { return s.SpuriousRetransmissions + s.DSACKOnlySpurious }

// RTTStats summarises RTT samples taken at the capture point with Karn's
// rule (no samples from retransmitted data).
type RTTStats struct {
	Samples uint64  `json:"samples"`
	MinNs   int64   `json:"min_ns"`
	MaxNs   int64   `json:"max_ns"`
	MeanNs  float64 `json:"mean_ns"`
	SRTTNs  float64 `json:"srtt_ns"` // RFC 6298 smoothing (alpha 1/8) over the samples in order
	sum     float64
}

func (r *RTTStats) add(ns int64) {
	if ns < 0 {
		return
	}
	r.Samples++
	r.sum += float64(ns)
	r.MeanNs = r.sum / float64(r.Samples)
	if r.Samples == 1 || ns < r.MinNs {
		r.MinNs = ns
	}
	if ns > r.MaxNs {
		r.MaxNs = ns
	}
	if r.Samples == 1 {
		r.SRTTNs = float64(ns)
	} else {
		r.SRTTNs = 0.875*r.SRTTNs + 0.125*float64(ns)
	}
}

// RackSummary is the outcome of the RACK-TLP replay for this direction's
// data.
type RackSummary struct {
	Spurious         uint64 `json:"spurious_retransmissions"` // retransmissions shown unnecessary (acked before, or D-SACKed)
	AvoidedHonouring uint64 `json:"avoided_dsack_honouring"`  // of those, a RACK sender adapting reo_wnd to D-SACK would have waited out
	AvoidedIgnoring  uint64 `json:"avoided_dsack_ignoring"`   // ... one that ignores D-SACK (reo_wnd_mult stays 1)
	DSACKRounds      uint64 `json:"dsack_rounds"`             // rounds in which reo_wnd_mult grew
	MaxReoWndMult    int    `json:"max_reo_wnd_mult"`
	MaxReoWndNs      int64  `json:"max_reo_wnd_ns"`
	FinalReoWndNs    int64  `json:"final_reo_wnd_ns"`
	FinalIgnoringNs  int64  `json:"final_reo_wnd_ignoring_ns"`
	ReorderingSeen   bool   `json:"reordering_seen"`
	Recoveries       uint64 `json:"recoveries"`
}

func (s *RackSummary) finish(r *rackState) {
	s.DSACKRounds = r.dsackRounds
	s.MaxReoWndMult = r.maxMult
	s.MaxReoWndNs = r.maxWnd
	s.FinalReoWndNs = r.reoWnd(true)
	s.FinalIgnoringNs = r.reoWnd(false)
	s.ReorderingSeen = r.reorderingSeen
	s.Recoveries = r.recoveries
}
