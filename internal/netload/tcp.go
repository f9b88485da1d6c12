package netload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/etw"
)

// TCPOptions configure a bulk send to a discard or sink server.
type TCPOptions struct {
	To          string
	Size        int64         // bytes to send
	SampleEvery time.Duration // TCP state sampling period; 0 = no sampling
	Timeout     time.Duration // bound on the whole transfer
	// ETW records the Microsoft-Windows-TCPIP provider's events while the
	// transfer runs (Windows, elevated); TCPResult.Events holds the
	// connection's.
	ETW bool
}

// MaxTCPSamples bounds the state samples kept for one transfer.
const MaxTCPSamples = 1_000_000

// TCPSample is the socket's TCP state at TNs after the first write.
type TCPSample struct {
	TNs int64 `json:"t_ns"`
	TCPState
	Retrans bool `json:"-"` // a retransmission counter grew since the previous sample
}

// TCPResult is what a transfer measured. Times are ns.
type TCPResult struct {
	Peer    string `json:"peer"`
	Local   string `json:"local"`
	Size    int64  `json:"size_bytes"`
	Written int64  `json:"written_bytes"`

	ConnectNs int64 `json:"connect_ns"`
	// WriteNs: first write until the last write returned (the data is in
	// the kernel). WallNs: first write until the peer closed its side after
	// ours, so every byte reached the peer application.
	WriteNs    int64   `json:"write_ns"`
	WallNs     int64   `json:"wall_ns"`
	GoodputBps float64 `json:"goodput_bits_per_s"`

	// SinkBytes is what a latlab sink reported receiving; -1 when the peer
	// is a plain discard server, which reports nothing.
	SinkBytes      int64 `json:"sink_bytes"`
	SinkTransferNs int64 `json:"sink_transfer_ns,omitempty"`

	SampleMethod   string      `json:"sample_method"`
	SampleEveryNs  int64       `json:"sample_every_ns"`
	Samples        []TCPSample `json:"-"`
	Fields         []string    `json:"fields_present"`
	RetransSamples int         `json:"retransmission_samples"`
	SampleLimitHit bool        `json:"sample_limit_hit,omitempty"`
	SampleError    string      `json:"sample_error,omitempty"`
	ClockSource    string      `json:"clock_source"`

	// Events are the connection's TCP/IP events when TCPOptions.ETW was
	// set; the document carries them as data.etw.
	Events *TCPEvents `json:"-"`
}

// Validate checks the options; RunTCP calls it before connecting, and a
// command may call it first, before creating its output files. It is the
// only check of the user's numbers; its messages name the flags of
// latlab net tcp-discard.
func (o TCPOptions) Validate() error {
	switch {
	case o.To == "":
		return badinput.Errorf("--to HOST:PORT is required (a TCP discard or sink server, e.g. latlab net serve)")
	case o.Size <= 0:
		return badinput.Errorf("invalid --size %d: want at least 1 byte, e.g. 10MB", o.Size)
	case o.SampleEvery < 0:
		return badinput.Errorf("invalid --sample-every %v: want 0 (off) or a period of at least 100us", o.SampleEvery)
	case o.SampleEvery > 0 && o.SampleEvery < 100*time.Microsecond:
		return badinput.Errorf("invalid --sample-every %v: too short, at least 100us (or 0 = off)", o.SampleEvery)
	}
	return nil
}

func dialTCP(ctx context.Context, to string) (*net.TCPConn, error) {
	host, port, err := net.SplitHostPort(to)
	if err != nil || host == "" || port == "" {
		return nil, badinput.Errorf("invalid address %q: want HOST:PORT, e.g. 127.0.0.1:9", to)
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", to)
	if err != nil {
		var dnsErr *net.DNSError
		switch {
		case errors.As(err, &dnsErr):
			return nil, badinput.Errorf("cannot resolve %q: %v", to, dnsErr.Err)
		case errors.Is(err, syscall.ECONNREFUSED) || isWinErrno(err, 10061):
			return nil, badinput.Errorf("%s refused the connection: nothing listens there; start `latlab net serve` (TCP discard or sink) on the peer", to)
		case errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err):
			return nil, badinput.Errorf("no answer from %s within 5s: check the address and firewall", to)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		return nil, badinput.Errorf("cannot connect to %s: %v", to, err)
	}
	return c.(*net.TCPConn), nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// RunTCP sends Size bytes to a discard or sink server while sampling the
// socket's TCP state, then half-closes and waits for the peer to close.
func RunTCP(ctx context.Context, o TCPOptions) (*TCPResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var trace *etw.TCPTrace
	if o.ETW {
		var err error
		if trace, err = startTCPTrace(); err != nil {
			return nil, err
		}
	}
	r, err := runTCP(ctx, o)
	if trace != nil {
		ev := stopTCPTrace(trace, r) // also when the transfer failed: the session must end
		if r != nil {
			r.Events = ev
		}
	}
	return r, err
}

func runTCP(ctx context.Context, o TCPOptions) (*TCPResult, error) {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	t0 := clock.Now()
	c, err := dialTCP(ctx, o.To)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res := &TCPResult{Peer: c.RemoteAddr().String(), Local: c.LocalAddr().String(), Size: o.Size, SinkBytes: -1,
		SampleMethod: tcpInfoMethod, SampleEveryNs: o.SampleEvery.Nanoseconds(), ClockSource: clock.Source()}
	res.ConnectNs = clock.Now() - t0
	stopConn := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	defer stopConn()

	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	start := clock.Now()
	// The TCP state is sampled by the writer itself, between writes, not
	// by a thread of its own: a sampling thread woke a thousand times a
	// second on CPUs the sender and the receiver were using, and its
	// getsockopt(TCP_INFO) waited for the socket lock the sender held
	// through each write, which cost about a tenth of the throughput on
	// two CPUs. Between writes the lock is free and the CPU is the
	// writer's anyway. A write that blocks comes back for its sample on
	// time: on Linux by waiting for room in the socket buffer with a
	// timeout at the next due time, as iperf3's loop does (writeStream);
	// on Windows by a write deadline at each due time, set only on a slow
	// path (a write took more than half a period) for a second after each
	// such write, since on a fast path that deadline's timer would wake
	// another thread every period for nothing.
	var sm *tcpSampler
	if o.SampleEvery > 0 {
		sm = newTCPSampler(ctx, res, c, rc, start, o.SampleEvery)
	}

	buf := make([]byte, 128<<10)
	werr := writeStream(ctx, c, rc, sm, o.Size, buf, res)
	res.WriteNs = clock.Now() - start
	if werr == nil {
		werr = c.CloseWrite()
	}
	var reply string
	if werr == nil {
		// A discard server sends nothing and closes; a sink reports first.
		line, err := readReply(c, sm)
		if err != nil {
			werr = fmt.Errorf("waiting for the peer to close: %w", err)
		}
		reply = strings.TrimSpace(line)
	}
	res.WallNs = clock.Now() - start
	sm.finish()
	if werr != nil {
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return res, fmt.Errorf("transfer to %s not finished within %s (%d of %d bytes written)", o.To, o.Timeout, res.Written, o.Size)
			}
			return res, ctx.Err()
		}
		return res, fmt.Errorf("send to %s after %d of %d bytes: %w", o.To, res.Written, o.Size, werr)
	}
	if reply != "" {
		b, ns, err := ParseSinkReply(reply)
		if err != nil {
			return res, fmt.Errorf("%s answered %q: not a discard or latlab sink server", o.To, reply)
		}
		res.SinkBytes, res.SinkTransferNs = b, ns
	}
	if res.WallNs > 0 {
		res.GoodputBps = float64(res.Written) * 8 / (float64(res.WallNs) / 1e9)
	}
	return res, nil
}

// Delivered checks what a latlab sink confirmed against what was
// written: a transfer that lost bytes on the way is an error even though
// every write succeeded. A plain discard server confirms nothing (nil).
func (r *TCPResult) Delivered() error {
	if r.SinkBytes >= 0 && r.SinkBytes != r.Written {
		return fmt.Errorf("the sink received %d bytes, %d were sent", r.SinkBytes, r.Written)
	}
	return nil
}

// WriteCSV writes every TCP state sample: t_ns, retransmission (1 when a
// retransmission counter grew since the previous sample) and a column per
// field present in any sample; a field a sample lacks is an empty cell.
func (r *TCPResult) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var has uint32
	for _, s := range r.Samples {
		has |= s.Has
	}
	var cols []Field
	for _, f := range Fields() {
		if has&(1<<f) != 0 {
			cols = append(cols, f)
		}
	}
	bw.WriteString("t_ns,retransmission")
	for _, c := range cols {
		bw.WriteString("," + c.String())
	}
	bw.WriteString("\n")
	for _, s := range r.Samples {
		bw.WriteString(strconv.FormatInt(s.TNs, 10))
		if s.Retrans {
			bw.WriteString(",1")
		} else {
			bw.WriteString(",0")
		}
		for _, c := range cols {
			bw.WriteString(",")
			if v, ok := s.Get(c); ok {
				bw.WriteString(strconv.FormatInt(v, 10))
			}
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
