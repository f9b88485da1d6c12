package tcpflow

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/units"
)

// EventsHeader is the first line of an events CSV file.
const EventsHeader = "time,flow,frame,event,seq,ack,detail"

// eventWriter writes one CSV row per event of a frame (Options.Events).
type eventWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newEventWriter(f io.Writer) *eventWriter {
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString(EventsHeader + "\n")
	return &eventWriter{w: w}
}

func (e *eventWriter) row(fr *Frame, t0 int64, event, detail string) {
	b := e.buf[:0]
	b = strconv.AppendFloat(b, float64(fr.Seg.TimeNs-t0)/1e9, 'f', 9, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(fr.Conn.Stream), 10)
	b = append(b, ' ')
	b = append(b, Endpoint{Addr: fr.Seg.Src, Port: fr.Seg.SrcPort}.String()...)
	b = append(b, '>')
	b = append(b, Endpoint{Addr: fr.Seg.Dst, Port: fr.Seg.DstPort}.String()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(fr.Seg.Frame), 10)
	b = append(b, ',')
	b = append(b, event...)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(fr.RelSeq), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(fr.RelAck), 10)
	b = append(b, ',')
	if strings.ContainsAny(detail, ",\"") {
		detail = strconv.Quote(detail)
	}
	b = append(b, detail...)
	b = append(b, '\n')
	e.buf = b
	e.w.Write(b)
}

func (e *eventWriter) frame(fr *Frame, t0 int64) {
	if fr.Flags != 0 {
		for _, fi := range AllFlags {
			if fr.Flags&fi.Flag == 0 {
				continue
			}
			detail := ""
			switch fi.Flag {
			case FlagDuplicateAck:
				detail = fmt.Sprintf("#%d of frame %d", fr.DupAckNum, fr.DupAckOf)
			case FlagRetransmission, FlagFastRetransmission, FlagSpuriousRetransmission, FlagOutOfOrder:
				detail = fmt.Sprintf("len %d", fr.Seg.Len)
			}
			e.row(fr, t0, fi.Event, detail)
		}
	}
	if fr.DSACK {
		e.row(fr, t0, "dsack", fmt.Sprintf("%d-%d", fr.DSACKLeft, fr.DSACKRight))
		for _, f := range fr.SpuriousByDSACK {
			e.row(fr, t0, "dsack_spurious", fmt.Sprintf("frame %d was received twice", f))
		}
		for _, f := range fr.RackAvoided {
			e.row(fr, t0, "rack_avoidable", fmt.Sprintf("frame %d: a D-SACK-honouring RACK sender would have waited", f))
		}
	}
	if fr.Reordered {
		e.row(fr, t0, "reordered", fmt.Sprintf("overtaken by %d segments, %s", fr.ReorderSegs, units.Duration(time.Duration(fr.ReorderNs))))
	}
	if fr.RTTNs > 0 {
		e.row(fr, t0, "rtt_sample", units.Duration(time.Duration(fr.RTTNs)))
	}
}

func (e *eventWriter) flush() error { return e.w.Flush() }
