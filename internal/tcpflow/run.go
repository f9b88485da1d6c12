package tcpflow

import (
	"context"
	"errors"
	"io"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/capture"
)

// Options are the work of `latlab pcap tcp`.
type Options struct {
	// Scan reads the capture, calling h for every frame, and stops when
	// ctx is done. Run calls it once, and a second time when Graph asks
	// for the connection with most data.
	Scan func(ctx context.Context, h capture.Handler) (*capture.Stats, error)
	// Filter keeps the connections with an endpoint it matches (nil: all);
	// FilterText is its text, for the result.
	Filter     *capture.Filter
	FilterText string
	// Stream keeps only that connection (Wireshark's tcp.stream); -1: all.
	Stream int
	// Top is how many connections Result.Top keeps: those with most
	// payload. AllConnections keeps them all, 0 none.
	Top int
	// Events, if set, receives one CSV row per event of every frame
	// (EventsHeader names the columns).
	Events io.Writer
	// Graph collects Result.Graph: of Stream, or else of the connection
	// with most payload, found in a second pass over the capture.
	Graph bool
	// OnConn, if set, receives each connection as it closes. An error
	// stops the scan, and Run returns it. The Connection is Run's own,
	// reused for the next one: OnConn copies what it keeps.
	OnConn func(*Connection) error
	// ConnSlot, if set with OnConn, says where to write the next
	// connection OnConn receives: OnConn then finds it in place (a
	// pointer ConnSlot returned) rather than copying it.
	ConnSlot func() *Connection

	// inline (tests) runs the scan and the analysis in one goroutine,
	// one segment at a time: the sequential analysis the staged one
	// must equal.
	inline bool
}

// Result is the outcome of Run. The connections themselves went to
// Options.OnConn as they closed; Top keeps the ones the table shows.
type Result struct {
	Summary
	Top   []Connection // most payload first
	Graph *Graph       // when Options.Graph asked for it
}

// ErrNoConnection is returned when the connection to graph is not in the
// capture (Options.Stream names none, or the capture holds no
// connection at all).
var ErrNoConnection = errors.New("no such TCP connection")

// Validate checks the analysis' options for every caller; bad input is a
// badinput.Error. (latlab pcap tcp's --top 0 means all connections, which
// it maps to AllConnections.)
func (o Options) Validate() error {
	if o.Top < AllConnections {
		return badinput.Errorf("invalid --top %d: want 0 (all) or a positive count", o.Top)
	}
	return nil
}

// Run follows every TCP connection of a capture. Memory grows with the
// connections open at once (each holding what it has in flight), with a
// fixed amount per closed connection (Wireshark's flow state, which a
// late segment needs) and with Top, never with the data. On an error from
// Scan the Result covers what was analysed before it.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Scan == nil {
		return nil, errors.New("tcpflow.Run: no capture to scan")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &Result{Summary: Summary{Filter: o.FilterText}}
	var after DirStats
	var t0 int64
	var ev *eventWriter
	if o.Events != nil {
		ev = newEventWriter(o.Events)
	}
	a := NewAnalyzer()
	// Nothing below keeps a *Conn beyond OnFrame or OnClose: OnClose
	// copies the connection into j (its handshake options live apart
	// from the Conn), the events are written from the Frame at once, and
	// the graph's connection, whose Timeline it keeps, is never reused.
	a.ReuseConns = true
	var gr *Graph
	if o.Graph && o.Stream >= 0 {
		gr = &Graph{Stream: o.Stream}
		a.KeepTimeline = func(s int) bool { return s == o.Stream }
	}
	top := topConns{n: o.Top}
	best, bestBytes := -1, uint64(0)
	var sinkErr error
	wanted := func(c *Conn) bool {
		return (o.Stream < 0 || c.Stream == o.Stream) && connMatches(o.Filter, c)
	}
	a.OnLateFrame = func(fr *Frame) {
		if wanted(fr.Conn) {
			after.CountFrame(fr)
		}
	}
	if ev != nil || gr != nil {
		// Only then: the tables alone need nothing of every segment, and
		// a call and the filter for each were 2% of their instructions.
		a.OnFrame = func(fr *Frame) {
			if !wanted(fr.Conn) {
				return
			}
			if ev != nil {
				ev.frame(fr, t0)
			}
			if gr != nil {
				gr.add(fr, t0)
			}
		}
	}
	// j is the summary of the connection that closed: one for the run,
	// not one on the heap for each of 100,000 connections.
	j := new(Connection)
	a.OnClose = func(c *Conn) {
		if !wanted(c) {
			return
		}
		// The summary is made only for a connection something keeps:
		// copying a connection's statistics into it for each of
		// 100,000 connections cost the tables 6% of the analysis.
		ab, ba := &c.Dir(0).Stats, &c.Dir(1).Stats
		b := ab.PayloadBytes + ba.PayloadBytes
		keep := o.OnConn != nil || top.wantsConn(b, c.Stream)
		dst := j
		if keep {
			if o.OnConn != nil && o.ConnSlot != nil {
				dst = o.ConnSlot()
			}
			dst.fill(c)
		}
		if gr != nil {
			gr.closed(c)
		}
		r.Totals.Connections++
		r.Totals.add(ab)
		r.Totals.add(ba)
		if keep {
			top.add(dst)
		}
		if best < 0 || b > bestBytes || b == bestBytes && c.Stream < best {
			best, bestBytes = c.Stream, b
		}
		if o.OnConn != nil && sinkErr == nil {
			if sinkErr = o.OnConn(dst); sinkErr != nil {
				cancel()
			}
		}
	}
	// The segment and its options, which the Frame points at: they stay
	// unchanged until the next segment, as addParsed wants.
	var seg Segment
	var opts TCPOptions
	sp := newSpares()
	a.use(sp)
	st, err := scanInStages(ctx, o.Scan, o.inline, a.table.seed, sp, func(b *segBatch) {
		t0 = b.t0
		if sinkErr != nil {
			return // the scan is stopping: nothing more is wanted
		}
		for i := range b.segs {
			e := &b.segs[i]
			e.segment(&seg, a.OnFrame != nil)
			opts.parse(e.opt[:e.nopt])
			a.addParsed(&seg, &opts, &e.key, e.hash, e.rev)
		}
	})
	r.Totals.TCPFragments += st.tcpFragments
	r.Totals.NonTCP += st.nonTCP
	if err != nil {
		return r, err
	}
	a.Finish()
	if sinkErr != nil {
		return r, sinkErr
	}
	if ev != nil {
		if err := ev.flush(); err != nil {
			return r, err
		}
	}
	r.Capture = st.Stats
	r.Totals.AfterClose = after.Packets
	r.Totals.add(&after)
	if after.Packets > 0 {
		r.AfterClose = &after
	}
	r.Top = top.sorted()

	if o.Graph {
		if gr == nil { // a second pass for the connection with most data
			if best < 0 {
				return r, ErrNoConnection
			}
			gr = &Graph{Stream: best}
			a2 := NewAnalyzer()
			a2.ReuseConns = true // as for a
			a2.KeepTimeline = func(s int) bool { return s == best }
			a2.OnFrame = func(fr *Frame) {
				if fr.Conn.Stream == best {
					gr.add(fr, t0)
				}
			}
			a2.OnClose = gr.closed
			var seg Segment
			if _, err := o.Scan(ctx, func(rec *capture.Record, p *capture.Packet) {
				if FromCapture(rec, p, &seg) {
					a2.Add(&seg)
				}
			}); err != nil {
				return r, err
			}
			a2.Finish()
		}
		if !gr.found {
			return r, ErrNoConnection
		}
		r.Graph = gr
	}
	return r, nil
}

func connMatches(f *capture.Filter, c *Conn) bool {
	if f == nil {
		return true
	}
	k := capture.FlowKey{Src: c.A.Addr, Dst: c.B.Addr, SrcPort: c.A.Port, DstPort: c.B.Port, Proto: 6}
	r := capture.FlowKey{Src: c.B.Addr, Dst: c.A.Addr, SrcPort: c.B.Port, DstPort: c.A.Port, Proto: 6}
	return f.Match(k) || f.Match(r)
}
