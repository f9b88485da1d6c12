package tcpflow

// Graph is what the time-sequence and window graphs of one connection
// show: times in seconds from the first frame of the capture, sequence
// numbers relative. Index i of each pair is what direction i (0: A->B)
// sent.
type Graph struct {
	Stream  int
	A, B    Endpoint
	Payload [2]uint64 // payload bytes of each direction
	Data    [2][]SeqBar
	Rtx     [2][]SeqBar // retransmitted data
	Acks    [2][]Point  // cumulative ACKs (about the other direction's data)
	Window  [2][]Point  // ACK + advertised receive window
	SACKs   [2][]SeqBar // SACK blocks, at the time of the ACK that carries them
	DSACKs  [2][]SeqBar
	RtxAt   [2][]float64 // times of the retransmissions
	// Timeline is the sender's RACK state over time (times in ns of the
	// capture clock: subtract T0).
	Timeline [2][]TimelinePoint
	T0       int64 // the first frame's time, ns
	found    bool
	wscale   [2]int
}

// SeqBar is a range of sequence numbers at time T.
type SeqBar struct{ T, Lo, Hi float64 }

// Point is a value at time T.
type Point struct{ T, V float64 }

// MainDir is the direction that sent more payload (0 on a tie).
func (g *Graph) MainDir() int {
	if g.Payload[1] > g.Payload[0] {
		return 1
	}
	return 0
}

// maxGraphPoints bounds what a graph keeps of a long connection.
const maxGraphPoints = 2_000_000

// closed takes the end state of the graphed connection (OnClose).
func (g *Graph) closed(c *Conn) {
	if c.Stream != g.Stream {
		return
	}
	g.Timeline = [2][]TimelinePoint{c.Dir(0).Timeline(), c.Dir(1).Timeline()}
	g.Payload = [2]uint64{c.Dir(0).Stats.PayloadBytes, c.Dir(1).Stats.PayloadBytes}
	g.A, g.B = c.A, c.B
	g.found = true
}

func (g *Graph) add(fr *Frame, t0 int64) {
	d := fr.Dir
	g.T0 = t0
	t := float64(fr.Seg.TimeNs-t0) / 1e9
	if len(g.Data[d])+len(g.Acks[d]) > maxGraphPoints {
		return
	}
	if fr.Opts != nil && fr.Opts.HasWScale && fr.Seg.Flags&SYN != 0 {
		g.wscale[d] = min(int(fr.Opts.WScale), 14)
	}
	if fr.Seg.Len > 0 {
		v := SeqBar{T: t, Lo: float64(fr.RelSeq), Hi: float64(fr.RelSeq) + float64(fr.Seg.Len)}
		if fr.Retransmitted || fr.Flags&(FlagRetransmission|FlagFastRetransmission|FlagSpuriousRetransmission) != 0 {
			g.Rtx[d] = append(g.Rtx[d], v)
			g.RtxAt[d] = append(g.RtxAt[d], t)
		} else {
			g.Data[d] = append(g.Data[d], v)
		}
	}
	if fr.Seg.Flags&ACK != 0 {
		ack := float64(fr.RelAck)
		g.Acks[d] = append(g.Acks[d], Point{T: t, V: ack})
		win := float64(fr.Seg.Window)
		if fr.Seg.Flags&SYN == 0 {
			win *= float64(int(1) << g.wscale[d])
		}
		g.Window[d] = append(g.Window[d], Point{T: t, V: ack + win})
		if fr.Opts != nil {
			base := fr.Seg.Ack - fr.RelAck
			for i := 0; i < fr.Opts.NSACK; i++ {
				b := fr.Opts.SACK[i]
				v := SeqBar{T: t, Lo: float64(b.Left - base), Hi: float64(b.Right - base)}
				if i == 0 && fr.DSACK {
					g.DSACKs[d] = append(g.DSACKs[d], v)
				} else {
					g.SACKs[d] = append(g.SACKs[d], v)
				}
			}
		}
	}
}
