package tcpflow

import (
	"container/heap"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/result"
)

// Kind is the document `latlab pcap tcp --json` writes; its payload is a
// Data.
var Kind = result.Register[Data]("pcap-tcp", "TCP loss recovery per connection in a capture, as Wireshark flags it (latlab pcap tcp)")

// Connection is one connection in the result: what is kept of it once it
// has closed.
type Connection struct {
	Stream       int       `json:"stream"`
	A            Endpoint  `json:"a"`
	B            Endpoint  `json:"b"`
	FirstNs      int64     `json:"first_ns"`
	LastNs       int64     `json:"last_ns"`
	DurationNs   int64     `json:"duration_ns"`
	InitialRTTNs int64     `json:"initial_rtt_ns,omitempty"`
	AToB         DirStats  `json:"a_to_b"`
	BToA         DirStats  `json:"b_to_a"`
	Spurious     [2]uint64 `json:"spurious_retransmissions"`
}

// NewConnection summarises a closed connection.
func NewConnection(c *Conn) Connection {
	var j Connection
	j.fill(c)
	return j
}

// fill writes c's summary into j, every field, in place: Run writes it
// only for the connections something keeps, and straight where the
// caller keeps it (Options.ConnSlot), where it was built on the stack
// and copied twice (936 bytes each time, for each of 100,000
// connections of a --json run).
func (j *Connection) fill(c *Conn) {
	j.Stream, j.FirstNs, j.LastNs, j.DurationNs, j.InitialRTTNs = c.Stream, c.FirstNs, c.LastNs, c.LastNs-c.FirstNs, c.InitialRTT()
	j.AToB, j.BToA = c.Dir(0).Stats, c.Dir(1).Stats
	j.Spurious = [2]uint64{j.AToB.Spurious(), j.BToA.Spurious()}
	j.A, j.B = c.A, c.B
}

// PayloadBytes is the payload of both directions.
func (c *Connection) PayloadBytes() uint64 { return c.AToB.PayloadBytes + c.BToA.PayloadBytes }

// String is the endpoint as Wireshark writes it: IPv6 addresses in
// brackets.
func (e Endpoint) String() string {
	var buf [64]byte // "[" an IPv6 address "]:" a port; a zone can be longer
	b, _ := e.AppendText(buf[:0])
	return string(b)
}

// AppendText appends the endpoint as String writes it. A connection's
// endpoints are written into its line of --json's document this way, in
// place: they were made strings for each of 100,000 connections, two
// allocations each in the analysis' goroutine (a build that left them out
// took the short capture's --json run from 0.203 to 0.187 s, medians of
// 15 alternating rounds).
func (e Endpoint) AppendText(b []byte) ([]byte, error) {
	if !e.Addr.IsValid() {
		b = append(b, e.Addr.String()...)
	} else {
		v6 := e.Addr.Is6() && !e.Addr.Is4In6()
		if v6 {
			b = append(b, '[')
		}
		b = e.Addr.AppendTo(b)
		if v6 {
			b = append(b, ']')
		}
	}
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(e.Port), 10), nil
}

// MarshalText is the endpoint as String writes it: a JSON document holds
// it as a string.
func (e Endpoint) MarshalText() ([]byte, error) { return e.AppendText(nil) }

// UnmarshalText reads what MarshalText writes: an address and a port
// after the last colon, an IPv6 address in brackets (an IPv4-mapped one
// without), and "invalid IP" for the zero address.
func (e *Endpoint) UnmarshalText(b []byte) error {
	s := string(b)
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return fmt.Errorf("endpoint %q: no port after a colon", s)
	}
	port, err := strconv.ParseUint(s[i+1:], 10, 16)
	if err != nil {
		return fmt.Errorf("endpoint %q: port: %w", s, err)
	}
	host := s[:i]
	var a netip.Addr
	switch {
	case host == netip.Addr{}.String():
	case strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]"):
		if a, err = netip.ParseAddr(host[1 : len(host)-1]); err == nil && !a.Is6() {
			err = errors.New("an IPv4 address in brackets")
		}
	default:
		if a, err = netip.ParseAddr(host); err == nil && a.Is6() && !a.Is4In6() {
			err = errors.New("an IPv6 address without brackets")
		}
	}
	if err != nil {
		return fmt.Errorf("endpoint %q: %w", s, err)
	}
	*e = Endpoint{Addr: a, Port: uint16(port)}
	return nil
}

// Totals are the counts over every connection reported, plus the
// segments that came after their connection had closed.
type Totals struct {
	Connections         int    `json:"connections"`
	Segments            uint64 `json:"segments"`
	PayloadBytes        uint64 `json:"payload_bytes"`
	Retransmissions     uint64 `json:"retransmissions"` // frames with any Wireshark retransmission flag
	Resent              uint64 `json:"resent_segments"` // latlab: segments carrying bytes seen before
	FastRetransmissions uint64 `json:"fast_retransmissions"`
	Spurious            uint64 `json:"spurious_retransmissions"`
	OutOfOrder          uint64 `json:"out_of_order"`
	Reordered           uint64 `json:"reordered"`
	DuplicateAcks       uint64 `json:"duplicate_acks"`
	SACKBlocks          uint64 `json:"sack_blocks"`
	DSACKBlocks         uint64 `json:"dsack_blocks"`
	ZeroWindows         uint64 `json:"zero_windows"`
	RackAvoidHonour     uint64 `json:"rack_avoided_dsack_honouring"`
	RackAvoidIgnore     uint64 `json:"rack_avoided_dsack_ignoring"`
	NonTCP              int    `json:"non_tcp_packets"`
	TCPFragments        int    `json:"tcp_fragments_skipped,omitempty"`
	AfterClose          uint64 `json:"segments_after_close,omitempty"`
	MalformedOptions    uint64 `json:"malformed_options,omitempty"`
	// What the capture did not see: segments after a gap in the sequence
	// numbers (Wireshark's tcp.analysis.lost_segment, "previous segment
	// not captured"), each at least one segment missed, and ACKs of data
	// never seen (tcp.analysis.ack_lost_segment).
	LostSegments uint64 `json:"lost_segments"`
	AckedUnseen  uint64 `json:"acked_unseen"`
}

func (t *Totals) add(d *DirStats) {
	t.Segments += d.Packets
	t.PayloadBytes += d.PayloadBytes
	t.Retransmissions += d.AnyRetransmissions
	t.Resent += d.ResentSegments
	t.FastRetransmissions += d.FastRetransmissions
	t.Spurious += d.Spurious()
	t.OutOfOrder += d.OutOfOrder
	t.Reordered += d.Reordered
	t.DuplicateAcks += d.DuplicateAcks
	t.SACKBlocks += d.SACKBlocks
	t.DSACKBlocks += d.DSACKBlocks
	t.ZeroWindows += d.ZeroWindows
	t.RackAvoidHonour += d.Rack.AvoidedHonouring
	t.RackAvoidIgnore += d.Rack.AvoidedIgnoring
	t.MalformedOptions += d.MalformedOptions
	t.LostSegments += d.LostSegments
	t.AckedUnseen += d.AckedUnseen
}

// Summary is the part of the result that is complete only at the end of
// the capture.
type Summary struct {
	Capture *capture.Stats `json:"capture"`
	// AfterClose counts the segments that came after their connection
	// had been closed and reported (Frame.AfterClose).
	AfterClose *DirStats `json:"after_close,omitempty"`
	Totals     Totals    `json:"totals"`
	Filter     string    `json:"filter,omitempty"`
}

// Data is the payload of a pcap-tcp result document. It is written as a
// stream: the connections as they close (so in the order they closed,
// not by stream number), then the Summary.
type Data struct {
	Connections []Connection `json:"connections"`
	Summary
}

// Notes are the sentences a reader should see with the result: the
// capture's and the analysis's.
func (r *Result) Notes() []string {
	var n []string
	if r.Capture != nil {
		n = r.Capture.Notes()
	}
	t := &r.Totals
	if t.TCPFragments > 0 {
		n = append(n, fmt.Sprintf("%d IP fragments of TCP segments are not segments themselves: each reassembled segment is analysed in the frame of the fragment that completes it", t.TCPFragments))
	}
	if t.MalformedOptions > 0 {
		n = append(n, fmt.Sprintf("%d segments carry malformed TCP options (a length that overruns the header or does not fit the option): the options before the bad one were used", t.MalformedOptions))
	}
	if t.AfterClose > 0 {
		n = append(n, fmt.Sprintf("%d segments came more than a second (or three RTTs) after their connection had ended (both FINs acknowledged, or a RST): "+
			"they are in the totals, in after_close and in --events with Wireshark's flags, but in no connection's counts", t.AfterClose))
	}
	return n
}

// topConns keeps the n connections with most payload (ties: the lower
// stream number first), or all of them when n is AllConnections, so that
// the table need not hold every connection of a large capture.
type topConns struct {
	n    int
	kept connHeap
}

// AllConnections as Options.Top keeps every connection in Result.Top.
const AllConnections = -1

// wantsConn reports whether add would keep the connection of that
// payload (both directions) and stream.
func (t *topConns) wantsConn(payload uint64, stream int) bool {
	if t.n == AllConnections {
		return true
	}
	if t.n <= 0 {
		return false
	}
	if len(t.kept) < t.n {
		return true
	}
	// worse(&t.kept[0], the connection)
	if b := t.kept[0].PayloadBytes(); b != payload {
		return b < payload
	}
	return t.kept[0].Stream > stream
}

func (t *topConns) add(c *Connection) {
	switch {
	case t.n == 0:
	case t.n == AllConnections || len(t.kept) < t.n:
		heap.Push(&t.kept, *c)
	case worse(&t.kept[0], c):
		t.kept[0] = *c
		heap.Fix(&t.kept, 0)
	}
}

// sorted returns the kept connections, most payload first.
func (t *topConns) sorted() []Connection {
	s := []Connection(t.kept)
	sort.Slice(s, func(i, j int) bool { return worse(&s[j], &s[i]) })
	t.kept = nil
	return s
}

// worse orders connections for the table: less payload, then the higher
// stream number, comes later.
func worse(x, y *Connection) bool {
	if bx, by := x.PayloadBytes(), y.PayloadBytes(); bx != by {
		return bx < by
	}
	return x.Stream > y.Stream
}

// connHeap is a min-heap: the connection that would be shown last on top.
type connHeap []Connection

func (h connHeap) Len() int           { return len(h) }
func (h connHeap) Less(i, j int) bool { return worse(&h[i], &h[j]) }
func (h connHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *connHeap) Push(x any)        { *h = append(*h, x.(Connection)) }
func (h *connHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
