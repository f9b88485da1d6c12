package netload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
)

// ServeOptions configure the servers of `latlab net serve`. A port of -1
// turns that server off; 0 picks a free port.
type ServeOptions struct {
	Addr        string // IP to bind; the command defaults it to 127.0.0.1
	EchoPort    int    // UDP echo (RFC 862)
	DiscardPort int    // TCP discard (RFC 863)
	SinkPort    int    // TCP sink: discard, then report the byte count
	// OnConn, when set, is called as each TCP connection ends.
	OnConn func(ConnStats)

	// EchoRate bounds the echo's replies per second to one source address
	// (0: DefaultEchoRate).
	EchoRate float64
	// MaxConns bounds the TCP connections of both servers together,
	// MaxPerPeer those from one address, and MaxPerNet those from one
	// source network, a /24 or a /64 (0: the defaults).
	MaxConns, MaxPerPeer, MaxPerNet int
	// IdleTimeout closes a TCP connection silent this long (0: the
	// default, DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Duration stops RunServe after this long (0: when its ctx ends).
	Duration time.Duration
	// OnReady, when set, is called by RunServe once every server listens,
	// with the bound addresses ("" for a server that is off).
	OnReady func(echo, discard, sink string)

	now func() int64 // the clock of the limits; tests replace it
}

// SinkReplyPrefix starts the sink's report, sent after the client closes
// its sending side: "LLSINK <bytes> <ns from first to last byte>\n".
const SinkReplyPrefix = "LLSINK"

// Server is a set of bound listeners, ready to serve.
type Server struct {
	echo    *net.UDPConn
	discard net.Listener
	sink    net.Listener
	onConn  func(ConnStats)
	guard   *echoGuard
	slots   *slots
	idle    time.Duration
	now     func() int64

	echoPackets, echoBytes  atomic.Int64
	echoLoops, echoOverRate atomic.Int64
	tcpRefused, tcpEvicted  atomic.Int64
	tcpIdle                 atomic.Int64
	discardBytes            atomic.Int64
	sinkBytes               atomic.Int64
	discardConns            atomic.Int64
	sinkConns               atomic.Int64
}

// ConnStats describes one finished TCP connection.
type ConnStats struct {
	Service string `json:"service"`
	Remote  string `json:"remote"`
	Bytes   int64  `json:"bytes"`
	// Ns from the first received byte to the last.
	TransferNs int64  `json:"transfer_ns"`
	Error      string `json:"error,omitempty"`
}

// ServeStats sums what the servers did.
type ServeStats struct {
	EchoPackets  int64 `json:"echo_packets"`
	EchoBytes    int64 `json:"echo_bytes"`
	DiscardConns int64 `json:"discard_connections"`
	DiscardBytes int64 `json:"discard_bytes"`
	SinkConns    int64 `json:"sink_connections"`
	SinkBytes    int64 `json:"sink_bytes"`
	// Datagrams not answered: from this server's own address, from a port
	// of a service that answers everything, or the server's own reply
	// coming back (a loop through another echo server).
	EchoLoops int64 `json:"echo_dropped_loop"`
	// Datagrams not answered because their source was over --echo-rate.
	EchoOverRate int64 `json:"echo_dropped_rate"`
	// Peers (an address and a port) muted for answering every echo: more
	// than 1,000 replies in a second to datagrams that were not fresh
	// latlab probes (their datagrams count in EchoLoops from then on).
	EchoFlowsMuted int64 `json:"echo_flows_muted"`
	// TCP connections refused (the peer at --max-per-peer, or every slot
	// taken by a peer no busier), closed to give their slot to another
	// peer, and closed after --idle-timeout without data.
	TCPRefused int64 `json:"tcp_refused"`
	TCPEvicted int64 `json:"tcp_evicted"`
	TCPIdle    int64 `json:"tcp_idle_closed"`
}

// Validate checks the servers' options, in the flag names of latlab net
// serve, for every caller; zero limits take the defaults. Bad input is a
// badinput.Error.
func (o ServeOptions) Validate() error {
	if _, err := netip.ParseAddr(o.Addr); err != nil {
		if ap, err := netip.ParseAddrPort(o.Addr); err == nil {
			// "127.0.0.1:5201": each server has its own port flag
			return badinput.Errorf("invalid --listen %q: give the address alone (--listen %s) and the ports with --echo-port and --discard-port", o.Addr, ap.Addr())
		}
		return badinput.Errorf("invalid --listen %q: want an IP such as 127.0.0.1, ::1 or 0.0.0.0", o.Addr)
	}
	for _, p := range []struct {
		v    int
		flag string
	}{{o.EchoPort, "--echo-port"}, {o.DiscardPort, "--discard-port"}, {o.SinkPort, "--sink-port"}} {
		if p.v < -1 || p.v > 65535 {
			return badinput.Errorf("invalid %s %d: accepted 0-65535 (0 = any free port, -1 = off)", p.flag, p.v)
		}
	}
	if o.EchoPort < 0 && o.DiscardPort < 0 && o.SinkPort < 0 {
		return badinput.Errorf("every server is off: enable at least one of --echo-port, --discard-port, --sink-port")
	}
	switch {
	case o.EchoRate < 0 || o.EchoRate != o.EchoRate:
		return badinput.Errorf("invalid --echo-rate %v: want replies per second > 0", o.EchoRate)
	case o.MaxConns < 0:
		return badinput.Errorf("invalid --max-conns %d: want 1 or more", o.MaxConns)
	case o.MaxPerPeer < 0:
		return badinput.Errorf("invalid --max-per-peer %d: want 1 or more", o.MaxPerPeer)
	case o.MaxPerNet < 0:
		return badinput.Errorf("invalid --max-per-net %d: want 1 or more", o.MaxPerNet)
	case o.IdleTimeout < 0:
		return badinput.Errorf("invalid --idle-timeout %v: want a duration > 0", o.IdleTimeout)
	}
	return nil
}

// Listen binds every enabled server. Bind failures are the user's to fix
// (another port, privileges), so they are input errors naming the flag.
func Listen(o ServeOptions) (*Server, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ip := netip.MustParseAddr(o.Addr)
	s := &Server{onConn: o.OnConn, slots: newSlots(o.MaxConns, o.MaxPerPeer, o.MaxPerNet), idle: o.IdleTimeout, now: o.now}
	if s.idle == 0 {
		s.idle = DefaultIdleTimeout
	}
	if s.now == nil {
		s.now = clock.Now
	}
	fail := func(err error) (*Server, error) { s.closeAll(); return nil, err }
	if o.EchoPort >= 0 {
		c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(ip, uint16(o.EchoPort))))
		if err != nil {
			return fail(bindErr("UDP echo", "--echo-port", ip, o.EchoPort, err))
		}
		_ = c.SetReadBuffer(4 << 20)
		_ = c.SetWriteBuffer(4 << 20)
		s.echo = c
		s.guard = newEchoGuard(c.LocalAddr().(*net.UDPAddr).AddrPort(), o.EchoRate)
	}
	if o.DiscardPort >= 0 {
		l, err := net.Listen("tcp", netip.AddrPortFrom(ip, uint16(o.DiscardPort)).String())
		if err != nil {
			return fail(bindErr("TCP discard", "--discard-port", ip, o.DiscardPort, err))
		}
		s.discard = l
	}
	if o.SinkPort >= 0 {
		l, err := net.Listen("tcp", netip.AddrPortFrom(ip, uint16(o.SinkPort)).String())
		if err != nil {
			return fail(bindErr("TCP sink", "--sink-port", ip, o.SinkPort, err))
		}
		s.sink = l
	}
	return s, nil
}

func bindErr(service, flag string, ip netip.Addr, port int, err error) error {
	where := netip.AddrPortFrom(ip, uint16(port)).String()
	switch {
	case errors.Is(err, syscall.EADDRINUSE) || isWinErrno(err, 10048):
		return badinput.Errorf("%s: %s is in use; choose another port with %s", service, where, flag)
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || isWinErrno(err, 10013):
		return badinput.Errorf("%s: no permission to bind %s (ports below 1024 need root or CAP_NET_BIND_SERVICE); choose a port >= 1024 with %s", service, where, flag)
	case errors.Is(err, syscall.EADDRNOTAVAIL) || isWinErrno(err, 10049):
		return badinput.Errorf("%s: %s is not an address of this machine", service, ip)
	}
	return badinput.Errorf("%s: cannot bind %s: %v", service, where, err)
}

// isWinErrno matches Winsock error numbers (WSAEADDRINUSE 10048, ...),
// which syscall.Errno carries on Windows.
func isWinErrno(err error, n uintptr) bool {
	var e syscall.Errno
	return errors.As(err, &e) && uintptr(e) == n
}

// Addrs returns the bound address of each enabled server.
func (s *Server) Addrs() (echo, discard, sink string) {
	if s.echo != nil {
		echo = s.echo.LocalAddr().String()
	}
	if s.discard != nil {
		discard = s.discard.Addr().String()
	}
	if s.sink != nil {
		sink = s.sink.Addr().String()
	}
	return
}

func (s *Server) closeAll() {
	if s.echo != nil {
		s.echo.Close()
	}
	if s.discard != nil {
		s.discard.Close()
	}
	if s.sink != nil {
		s.sink.Close()
	}
}

// Serve runs every server until ctx ends, then closes them and the open
// connections and returns the totals.
func (s *Server) Serve(ctx context.Context) ServeStats {
	var wg sync.WaitGroup
	var connMu sync.Mutex
	open := map[net.Conn]struct{}{}
	track := func(c net.Conn, add bool) {
		connMu.Lock()
		defer connMu.Unlock()
		if add {
			open[c] = struct{}{}
		} else {
			delete(open, c)
		}
	}
	if s.echo != nil {
		wg.Add(1)
		go func() { defer wg.Done(); s.serveEcho() }()
	}
	for _, l := range []struct {
		l    net.Listener
		sink bool
	}{{s.discard, false}, {s.sink, true}} {
		if l.l == nil {
			continue
		}
		wg.Add(1)
		go func(l net.Listener, sink bool) {
			defer wg.Done()
			for {
				c, err := l.Accept()
				if err != nil {
					if errors.Is(err, net.ErrClosed) {
						return
					}
					// Out of descriptors, say: wait rather than stop serving.
					time.Sleep(10 * time.Millisecond)
					continue
				}
				var peer netip.Addr
				if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
					peer = a.AddrPort().Addr()
				}
				sl, why := s.slots.admit(c, peer, s.now())
				if why != slotOK {
					s.tcpRefused.Add(1)
					c.Close()
					continue
				}
				track(c, true)
				wg.Add(1)
				go func() {
					defer wg.Done()
					st := s.serveTCP(sl, sink)
					if s.slots.release(sl) {
						s.tcpEvicted.Add(1)
						st.Error = "closed: its slot went to a peer with fewer connections"
					}
					track(c, false)
					if s.onConn != nil {
						s.onConn(st)
					}
				}()
			}
		}(l.l, l.sink)
	}
	<-ctx.Done()
	s.closeAll()
	connMu.Lock()
	for c := range open {
		c.Close()
	}
	connMu.Unlock()
	wg.Wait()
	return s.Stats()
}

// RunServe is the work of `latlab net serve`: it binds the servers,
// says where they listen and serves until ctx ends or o.Duration has
// passed, then returns the totals. Only binding can fail.
func RunServe(ctx context.Context, o ServeOptions) (ServeStats, error) {
	s, err := Listen(o)
	if err != nil {
		return ServeStats{}, err
	}
	if o.OnReady != nil {
		o.OnReady(s.Addrs())
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	return s.Serve(ctx), nil
}

// Stats returns the totals so far.
func (s *Server) Stats() ServeStats {
	return ServeStats{
		EchoPackets: s.echoPackets.Load(), EchoBytes: s.echoBytes.Load(),
		DiscardConns: s.discardConns.Load(), DiscardBytes: s.discardBytes.Load(),
		SinkConns: s.sinkConns.Load(), SinkBytes: s.sinkBytes.Load(),
		EchoLoops: s.echoLoops.Load(), EchoOverRate: s.echoOverRate.Load(), EchoFlowsMuted: s.guardMuted(),
		TCPRefused: s.tcpRefused.Load(), TCPEvicted: s.tcpEvicted.Load(), TCPIdle: s.tcpIdle.Load(),
	}
}

// guardMuted is the number of flows the echo guard muted as loops.
func (s *Server) guardMuted() int64 {
	if s.guard == nil {
		return 0
	}
	return s.guard.mutedFlows()
}

// serveEcho returns datagrams to their senders unchanged (RFC 862),
// except those echoGuard stops.
func (s *Server) serveEcho() {
	buf := make([]byte, MaxDatagram)
	for {
		n, from, err := s.echo.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. an ICMP error for an earlier reply
		}
		switch s.guard.check(from, buf[:n], s.now()) {
		case echoLoop:
			s.echoLoops.Add(1)
			continue
		case echoRate:
			s.echoOverRate.Add(1)
			continue
		}
		s.echoPackets.Add(1)
		s.echoBytes.Add(int64(n))
		_, _ = s.echo.WriteToUDPAddrPort(buf[:n], from)
	}
}

// serveTCP reads until the peer closes its side. The sink then writes its
// report, so the sender learns how many bytes arrived.
func (s *Server) serveTCP(sl *slot, sink bool) ConnStats {
	c := sl.c
	defer c.Close()
	st := ConnStats{Service: "discard", Remote: c.RemoteAddr().String()}
	counter, conns := &s.discardBytes, &s.discardConns
	if sink {
		st.Service = "sink"
		counter, conns = &s.sinkBytes, &s.sinkConns
	}
	conns.Add(1)
	// Reads of 256 KiB: with iperf3's 128 KiB, transfers from net
	// tcp-discard on a busy 2-CPU machine were 9% slower (median of 11
	// alternating rounds). The read deadline is set once and moved only
	// when it expires while data still came in: set before every read,
	// it was a change to the runtime's timers per read.
	buf := make([]byte, 256<<10)
	var first, last int64
	got := func(n int) {
		last = clock.Now()
		if first == 0 {
			first = last
		}
		st.Bytes += int64(n)
		counter.Add(int64(n))
		s.slots.touch(sl, s.now())
	}
	start := clock.Now()
	_ = c.SetReadDeadline(time.Now().Add(s.idle))
	for {
		eof, err := readSome(c, buf, got)
		if eof { // the peer closed its side
			break
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Silent for s.idle since the last byte (or the start)?
			quiet := clock.Now() - max(last, start)
			if left := s.idle - time.Duration(quiet); left > 0 {
				_ = c.SetReadDeadline(time.Now().Add(left))
				continue
			}
			s.tcpIdle.Add(1)
			st.Error = fmt.Sprintf("closed after %s without data", s.idle)
			break
		}
		st.Error = err.Error()
		break
	}
	if first != 0 {
		st.TransferNs = last - first
	}
	if sink && st.Error == "" {
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.WriteString(c, SinkReplyPrefix+" "+strconv.FormatInt(st.Bytes, 10)+" "+strconv.FormatInt(st.TransferNs, 10)+"\n")
	}
	return st
}

// ParseSinkReply reads the sink's report.
func ParseSinkReply(line string) (bytes, transferNs int64, err error) {
	var p string
	if _, err := fmt.Sscanf(line, "%s %d %d", &p, &bytes, &transferNs); err != nil || p != SinkReplyPrefix {
		return 0, 0, fmt.Errorf("not a sink report: %q", line)
	}
	return bytes, transferNs, nil
}

// readConn reads c once through net.Conn, handing the byte count to got,
// and says whether the peer closed its side.
func readConn(c net.Conn, buf []byte, got func(int)) (eof bool, err error) {
	n, err := c.Read(buf)
	if n > 0 {
		got(n)
	}
	if err == io.EOF {
		return true, nil
	}
	return false, err
}
