package tcpflow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

// generated is a capture made up on the fly, with no file: n short
// connections (handshake, one data segment each way, the close), `open`
// of them at once, a segment every millisecond. Connection i sends
// payload(i) bytes from the client.
type generated struct {
	n, open int
	payload func(i int) int
}

func (g generated) scan(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
	st := &capture.Stats{Format: "pcap"}
	var rec capture.Record
	var p capture.Packet
	hdr := make([]byte, 20)
	t0 := int64(1_700_000_000_000_000_000)
	emit := func(i int, toServer bool, seq, ack uint32, flags uint16, n int) {
		cli := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		srv := netip.AddrFrom4([4]byte{192, 168, 0, 1})
		cport, sport := uint16(10000+i%50000), uint16(443)
		p = capture.Packet{Src: srv, Dst: cli, Proto: 6, HasPorts: true, SrcPort: sport, DstPort: cport, TCPHeader: hdr, TCPPayloadLen: n}
		if toServer {
			p.Src, p.Dst, p.SrcPort, p.DstPort = cli, srv, cport, sport
		}
		binary.BigEndian.PutUint16(hdr[0:], p.SrcPort)
		binary.BigEndian.PutUint16(hdr[2:], p.DstPort)
		binary.BigEndian.PutUint32(hdr[4:], seq)
		binary.BigEndian.PutUint32(hdr[8:], ack)
		hdr[12], hdr[13] = 5<<4, byte(flags)
		binary.BigEndian.PutUint16(hdr[14:], 1000)
		st.Frames++
		rec = capture.Record{Frame: st.Frames, TimeNs: t0 + int64(st.Frames)*1e6, StartNs: t0 + 1e6}
		h(&rec, &p)
	}
	const c, s = 1000, 5000
	for first := 0; first < g.n; first += g.open {
		if ctx.Err() != nil {
			st.Interrupted = true
			break
		}
		wave := min(g.open, g.n-first)
		for step := 0; step < 9; step++ {
			for i := first; i < first+wave; i++ {
				n := uint32(g.payload(i))
				switch step {
				case 0:
					emit(i, true, c, 0, SYN, 0)
				case 1:
					emit(i, false, s, c+1, SYN|ACK, 0)
				case 2:
					emit(i, true, c+1, s+1, ACK, 0)
				case 3:
					emit(i, true, c+1, s+1, ACK|PSH, int(n))
				case 4:
					emit(i, false, s+1, c+1+n, ACK|PSH, 10)
				case 5:
					emit(i, true, c+1+n, s+11, ACK, 0)
				case 6:
					emit(i, true, c+1+n, s+11, FIN|ACK, 0)
				case 7:
					emit(i, false, s+11, c+2+n, FIN|ACK, 0)
				case 8:
					emit(i, true, c+2+n, s+12, ACK, 0)
				}
			}
		}
	}
	return st, nil
}

func TestRunReportsEveryConnectionOnce(t *testing.T) {
	g := generated{n: 500, open: 50, payload: func(i int) int { return 100 + i%7 }}
	var streams []int
	r, err := Run(context.Background(), Options{Scan: g.scan, Stream: -1, Top: 3, OnConn: func(c *Connection) error {
		streams = append(streams, c.Stream)
		if c.AToB.Packets != 6 || c.BToA.Packets != 3 || !c.AToB.FIN {
			t.Errorf("stream %d: %d / %d packets; want 6 / 3 with a FIN", c.Stream, c.AToB.Packets, c.BToA.Packets)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(streams)
	if len(streams) != 500 || streams[0] != 0 || streams[499] != 499 || len(slices.Compact(streams)) != 500 {
		t.Errorf("%d connections reported; want streams 0..499 once each", len(streams))
	}
	if r.Totals.Connections != 500 || r.Totals.Segments != 4500 || r.Capture.Frames != 4500 {
		t.Errorf("totals %+v, %d frames", r.Totals, r.Capture.Frames)
	}
	// the table: most payload first (106 bytes: streams 6, 13, 20, ...),
	// the lower stream first on a tie
	var top []int
	for _, c := range r.Top {
		top = append(top, c.Stream)
	}
	if !slices.Equal(top, []int{6, 13, 20}) {
		t.Errorf("top %v; want [6 13 20]", top)
	}
}

func TestRunTopAllKeepsEveryConnection(t *testing.T) {
	g := generated{n: 40, open: 8, payload: func(i int) int { return 1 + i }}
	r, err := Run(context.Background(), Options{Scan: g.scan, Stream: -1, Top: AllConnections})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Top) != 40 || r.Top[0].Stream != 39 || r.Top[39].Stream != 0 {
		t.Errorf("%d kept, first %d, last %d; want 40, 39, 0", len(r.Top), r.Top[0].Stream, r.Top[len(r.Top)-1].Stream)
	}
	r, _ = Run(context.Background(), Options{Scan: g.scan, Stream: -1})
	if len(r.Top) != 0 || r.Totals.Connections != 40 {
		t.Errorf("Top 0: %d kept of %d; want none", len(r.Top), r.Totals.Connections)
	}
}

// An error from the consumer of the connections stops the scan.
func TestRunStopsOnConsumerError(t *testing.T) {
	g := generated{n: 5000, open: 10, payload: func(int) int { return 10 }}
	errFull := errors.New("disk full")
	calls := 0
	r, err := Run(context.Background(), Options{Scan: g.scan, Stream: -1, OnConn: func(*Connection) error {
		calls++
		return errFull
	}})
	if !errors.Is(err, errFull) || calls != 1 || r.Capture != nil {
		t.Errorf("error %v after %d calls; want %v after 1", err, calls, errFull)
	}
}

func TestRunFiltersStreamsAndGraphs(t *testing.T) {
	scan := func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		b, err := os.ReadFile("testdata/closing.pcap")
		if err != nil {
			return nil, err
		}
		return capture.Scan(bytes.NewReader(b), capture.ScanOptions{Context: ctx}, h)
	}
	var ev bytes.Buffer
	r, err := Run(context.Background(), Options{Scan: scan, Stream: 1, Top: 10, Events: &ev, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Connections != 1 || r.Totals.Segments != 7 || r.AfterClose != nil || len(r.Top) != 1 || r.Top[0].Stream != 1 {
		t.Errorf("--stream 1: totals %+v, after close %+v, top %d", r.Totals, r.AfterClose, len(r.Top))
	}
	if g := r.Graph; g == nil || g.Stream != 1 || g.MainDir() != 1 || len(g.Data[1]) != 2 {
		t.Errorf("graph %+v; want stream 1, the server's 2 data segments", g)
	}
	if lines := strings.Split(strings.TrimSpace(ev.String()), "\n"); lines[0] != EventsHeader || !strings.HasPrefix(lines[1], "0.122000000,1 10.0.0.1:40001>10.0.0.2:80,15,rtt_sample,") {
		t.Errorf("events:\n%s", ev.String())
	}
	// the whole capture: the graph is of the connection with most data,
	// found in a second pass
	r, err = Run(context.Background(), Options{Scan: scan, Stream: -1, Graph: true})
	if err != nil || r.Graph.Stream != 1 || r.AfterClose == nil || r.AfterClose.Packets != 2 || r.Totals.AfterClose != 2 {
		t.Errorf("graph of stream %d, after close %+v, err %v; want 1, 2 packets", r.Graph.Stream, r.AfterClose, err)
	}
	if _, err := Run(context.Background(), Options{Scan: scan, Stream: 7, Graph: true}); !errors.Is(err, ErrNoConnection) {
		t.Errorf("--stream 7: %v", err)
	}
	if _, err := Run(context.Background(), Options{Stream: -1}); err == nil {
		t.Error("no scan: no error")
	}
}

// A document of many connections, streamed as they close and read back as
// it is written, holds each of them and the summary.
func TestRunStreamedDocumentReadsBack(t *testing.T) {
	// about 9 MB (10,000 made 37 MB): some 35 of the stream's 256 KiB
	// writes, each read as it is written
	const n = 2_500
	g := generated{n: n, open: 200, payload: func(i int) int { return 1 + i%1400 }}
	pr, pw := io.Pipe()
	var sent uint64
	go func() {
		doc, err := result.StreamDocument(host.Facts{}, Kind.Name())
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		s, err := result.NewStream(pw, doc, "connections")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		r, err := Run(context.Background(), Options{Scan: g.scan, Stream: -1, OnConn: func(c *Connection) error {
			sent += c.PayloadBytes()
			return s.Add(c)
		}})
		if err == nil {
			err = s.Close(&r.Summary, r.Notes())
		}
		pw.CloseWithError(err)
	}()
	d, err := result.Read(pr)
	if err != nil {
		t.Fatal(err)
	}
	data, ok := Kind.Of(d)
	if !ok {
		t.Fatalf("a %s document holding %T", d.Kind, d.Data)
	}
	var got uint64
	seen := make([]bool, n)
	for _, c := range data.Connections {
		got += c.PayloadBytes()
		seen[c.Stream] = true
	}
	if len(data.Connections) != n || slices.Contains(seen, false) || got != sent || data.Totals.Connections != n ||
		data.Totals.PayloadBytes != sent || data.Capture == nil || data.Capture.Frames != 9*n {
		t.Errorf("%d connections, %d payload bytes (sent %d), totals %+v", len(data.Connections), got, sent, data.Totals)
	}
}

// Memory grows by a fixed, small amount per closed connection (what a
// late segment needs of Wireshark's state), not by what the connection
// carried: measured as the live heap after a collection, between the
// 4,000th and the 24,000th connection reported.
func TestClosedConnectionsCostLittle(t *testing.T) {
	const n, from = 24_000, 4_000
	g := generated{n: n, open: 100, payload: func(i int) int { return 1 + i%1400 }}
	heapNow := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var seen int
	var at [2]uint64
	_, err := Run(context.Background(), Options{Scan: g.scan, Stream: -1, Top: 10, OnConn: func(*Connection) error {
		seen++
		switch seen {
		case from:
			at[0] = heapNow()
		case n - 200: // before Finish, with the last connections still open
			at[1] = heapNow()
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	per := float64(int64(at[1])-int64(at[0])) / float64(n-200-from)
	t.Logf("%.0f bytes per closed connection", per)
	if per > 300 {
		t.Errorf("%.0f bytes of heap per closed connection; want at most 300", per)
	}
}

// A scan that fails part-way returns its error with what was analysed
// before it, so that a document under way can be ended.
func TestRunScanErrorKeepsWhatWasDone(t *testing.T) {
	g := generated{n: 1000, open: 10, payload: func(int) int { return 10 }}
	errRead := errors.New("input/output error")
	reported := 0
	r, err := Run(context.Background(), Options{Stream: -1, OnConn: func(*Connection) error { reported++; return nil },
		Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			g.scan(ctx, h)
			return nil, errRead
		}})
	if !errors.Is(err, errRead) || r == nil || r.Totals.Connections != reported || reported < 800 {
		t.Errorf("error %v, result %+v after %d connections reported", err, r, reported)
	}
}
