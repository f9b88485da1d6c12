package netload

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
)

// UDPOptions configure a paced UDP probe run against an echo server.
type UDPOptions struct {
	To       string        // host:port of a UDP echo server
	RatePPS  float64       // intended packets per second
	Size     int           // UDP payload bytes, >= HeaderLen
	Duration time.Duration // how long to send (ignored when Count > 0)
	Count    int64         // exact number of packets to send
	DSCP     int           // DiffServ code point 0-63, -1 = leave unmarked
	// Drain is how long to keep listening for echoes after the last send.
	Drain time.Duration
	// HelloTimeout bounds the check that the peer echoes at all.
	HelloTimeout time.Duration
	// OnStart, when set, is called once the peer answered, before sending.
	OnStart func()
	// Thread sets up the pacing thread: priority and CPU (nil: normal
	// priority, not pinned). Its timer resolution is netload's choice
	// unless set.
	Thread *probe.Thread
}

// MaxPackets bounds one run's packet count: the per-packet records it keeps
// (send lag, round-trip time) must fit in memory.
const MaxPackets = 10_000_000

// UDPResult is what a run measured. Times are ns.
type UDPResult struct {
	Peer  string `json:"peer"`
	Local string `json:"local"`

	RatePPS  float64 `json:"rate_pps"`
	Size     int     `json:"size_bytes"`
	Planned  int64   `json:"planned"`
	Sent     int64   `json:"sent"`
	Received int64   `json:"received"` // distinct sequence numbers echoed
	Lost     int64   `json:"lost"`
	Dups     int64   `json:"duplicates"`
	Reorder  int64   `json:"reordered"`
	Foreign  int64   `json:"foreign"` // datagrams that were not this run's probes
	// SendErrors counts sends the OS refused (buffer full, ICMP unreachable).
	SendErrors int64 `json:"send_errors"`
	// ReceiveTimes says where an echo's arrival time comes from: the
	// kernel's receive time stamp (Linux; Windows where the system
	// stamps), or the receiving goroutine's clock when its read returned.
	ReceiveTimes string `json:"receive_times"`
	// ReceiveStampsMissing counts echoes timed by the receiving goroutine
	// although the kernel stamps them: no stamp came with the datagram,
	// or it was in the future or over a second old (Linux: the wall
	// clock was stepped).
	ReceiveStampsMissing int64 `json:"receive_stamps_missing,omitempty"`
	// ReceiveStampsUnavailable says why echoes are timed by the receiving
	// goroutine although the OS can stamp them: the socket refused
	// receive stamps (Windows before build 20348), or took them and no
	// echo carried one (Windows stamps only where the system is set up
	// for it). Empty when the stamps were used.
	ReceiveStampsUnavailable string `json:"receive_stamps_unavailable,omitempty"`

	JitterNs float64 `json:"jitter_ns"` // RFC 3550 interarrival jitter, final value

	// RTT: echo arrival - actual send, in arrival order. FromIntended:
	// echo arrival - intended send, which a stalled sender cannot hide.
	// SendLag: actual send - intended send, per sent packet.
	RTT          []int64 `json:"-"`
	FromIntended []int64 `json:"-"`
	SendLag      []int64 `json:"-"`
	// ReceiverWake: the receiving goroutine's read - the kernel's receive
	// time stamp, per echo timed by its stamp (not in RTT).
	ReceiverWake []int64 `json:"-"`

	SendElapsedNs int64  `json:"send_elapsed_ns"` // first intended send to last actual send
	ElapsedNs     int64  `json:"elapsed_ns"`      // including the drain
	Interrupted   bool   `json:"interrupted"`
	DSCP          *DSCP  `json:"dscp,omitempty"`
	PacerMethod   string `json:"pacer_method"`
	// BurstEveryNs is set when the period is below SpinMargin: the thread
	// wakes at most this often and sends every packet due, so send lags up
	// to it are by design.
	BurstEveryNs int64 `json:"burst_every_ns,omitempty"`
	// SpinMarginMaxNs is the widest margin the pacing thread woke before
	// a send time by (it widens after late wake-ups); 0 when the thread
	// did not spin.
	SpinMarginMaxNs int64 `json:"spin_margin_max_ns,omitempty"`
	// Thread is what the pacing thread got: priority, CPU, timer slack.
	Thread      probe.ThreadSetup `json:"thread"`
	ClockSource string            `json:"clock_source"`
}

// DSCP reports what marking was asked for and what the socket got.
type DSCP struct {
	Requested int    `json:"requested"`
	Applied   bool   `json:"applied"`
	Note      string `json:"note,omitempty"`
}

const helloSeq = math.MaxUint64

// SpinMargin is how long before each send the pacing thread wakes to spin
// at low rates, and at high rates the shortest time between two wake-ups.
const SpinMargin = 100 * time.Microsecond

// paceMode is how the pacing thread waits for a packet's send time.
type paceMode int

const (
	paceSpin  paceMode = iota // wake SpinMargin early, spin to the send time
	paceSleep                 // wake at each send time
	paceBurst                 // wake at most once per SpinMargin, send every packet due
)

// paceModeFor picks the mode for a send period (ns). Spinning costs ~1% of
// a CPU at game rates but would be most of it when the margin is a large
// part of the period. Below the margin, a wake-up per packet would raise a
// timer interrupt per packet (89,286/s for the bulk profile); waking once
// per margin and sending what is due keeps every packet within a margin of
// its time, and each packet's lag is still measured against its own time.
func paceModeFor(period float64) paceMode {
	switch {
	case period >= 8*float64(SpinMargin):
		return paceSpin
	case period >= float64(SpinMargin):
		return paceSleep
	}
	return paceBurst
}

// Validate checks the options; RunUDP calls it before opening a socket,
// and a command may call it first, before creating its output files. It is
// the only check of the user's numbers; its messages name the flags of
// latlab net udp.
func (o UDPOptions) Validate() error {
	switch {
	case o.To == "":
		return badinput.Errorf("--to HOST:PORT is required (a UDP echo server, e.g. latlab net serve)")
	case math.IsNaN(o.RatePPS) || o.RatePPS <= 0:
		return badinput.Errorf("invalid --rate %v: want packets per second > 0", o.RatePPS)
	case o.RatePPS > 10_000_000:
		return badinput.Errorf("invalid --rate %v: at most 10000000 packets per second", o.RatePPS)
	case o.Size < HeaderLen || o.Size > MaxDatagram:
		return badinput.Errorf("invalid --size %d: accepted %d (the probe header) to %d bytes", o.Size, HeaderLen, MaxDatagram)
	case o.Count < 0:
		return badinput.Errorf("invalid --count %d: want a positive number (or 0 to use --duration)", o.Count)
	case o.Count == 0 && o.Duration <= 0:
		return badinput.Errorf("give a positive --duration or --count")
	case o.DSCP < -1 || o.DSCP > 63:
		return badinput.Errorf("invalid --dscp %d: accepted 0-63, or -1 for unmarked", o.DSCP)
	}
	if t := o.Thread; t != nil {
		if t.CPU < -1 || t.CPU >= sched.NumCPU() {
			return badinput.Errorf("invalid --cpus %d: this machine has CPUs 0-%d", t.CPU, sched.NumCPU()-1)
		}
		if t.Priority == sched.Realtime && (t.RTPrio < sched.MinRTPrio || t.RTPrio > sched.MaxRTPrio) {
			return badinput.Errorf("invalid --rtprio %d: accepted %d-%d", t.RTPrio, sched.MinRTPrio, sched.MaxRTPrio)
		}
	}
	if n := plannedPackets(o); n > MaxPackets && o.Count > 0 {
		return badinput.Errorf("invalid --count %d: at most %d packets per run", o.Count, MaxPackets)
	} else if n > MaxPackets {
		return badinput.Errorf("%d packets planned (--rate x --duration): at most %d per run; shorten --duration", n, MaxPackets)
	} else if n < 1 {
		return badinput.Errorf("--duration %v is shorter than one packet interval at %v packets/s", o.Duration, o.RatePPS)
	}
	return nil
}

func plannedPackets(o UDPOptions) int64 {
	if o.Count > 0 {
		return o.Count
	}
	return int64(math.Ceil(o.Duration.Seconds()*o.RatePPS - 1e-9))
}

// dialUDP resolves and connects, mapping the user's mistakes to a badinput.Error.
func dialUDP(to string) (*net.UDPConn, error) {
	host, port, err := net.SplitHostPort(to)
	if err != nil || host == "" || port == "" {
		return nil, badinput.Errorf("invalid address %q: want HOST:PORT, e.g. 127.0.0.1:7 or [::1]:7", to)
	}
	ra, err := net.ResolveUDPAddr("udp", to)
	if err != nil {
		return nil, badinput.Errorf("cannot resolve %q: %v", to, err)
	}
	if ra.Port == 0 {
		return nil, badinput.Errorf("invalid address %q: port 0", to)
	}
	c, err := net.DialUDP("udp", nil, ra)
	if err != nil {
		return nil, badinput.Errorf("cannot reach %s: %v", to, err)
	}
	return c, nil
}

func randomRun() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint32(b[:])
}

// hello checks that the peer echoes: a few probes outside the run's
// sequence space, sent until one comes back or the timeout passes.
func hello(c *net.UDPConn, run uint32, size int, timeout time.Duration) error {
	buf := make([]byte, size)
	rbuf := make([]byte, MaxDatagram)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		putHeader(buf, header{Run: run, Seq: helloSeq, Intended: clock.Now(), Sent: clock.Now()})
		if _, err := c.Write(buf); err != nil && !isRefused(err) {
			return badinput.Errorf("cannot send to %s: %v", c.RemoteAddr(), err)
		}
		wait := time.Now().Add(200 * time.Millisecond)
		if wait.After(deadline) {
			wait = deadline
		}
		_ = c.SetReadDeadline(wait)
		for {
			n, err := c.Read(rbuf)
			if err != nil {
				if isRefused(err) {
					return badinput.Errorf("%s refused UDP (ICMP port unreachable): nothing listens there; start `latlab net serve` on the peer", c.RemoteAddr())
				}
				break // timeout: send again
			}
			if h, err := parseHeader(rbuf[:n]); err == nil && h.Run == run && h.Seq == helloSeq {
				if n != size {
					return badinput.Errorf("%s echoed %d of %d bytes: not a UDP echo server", c.RemoteAddr(), n, size)
				}
				return nil
			}
		}
	}
	return badinput.Errorf("no echo from %s within %s: start `latlab net serve` there (UDP echo) or check the address and firewall", c.RemoteAddr(), timeout)
}

func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// RunUDP sends probes on the intended schedule (packet i at start + i/rate,
// never later because an earlier one was slow: a late sender catches up
// instead of shifting the schedule) and measures their echoes.
func RunUDP(ctx context.Context, o UDPOptions) (*UDPResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Drain <= 0 {
		o.Drain = time.Second
	}
	if o.HelloTimeout <= 0 {
		o.HelloTimeout = 2 * time.Second
	}
	c, err := dialUDP(o.To)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res := &UDPResult{Peer: c.RemoteAddr().String(), Local: c.LocalAddr().String(), RatePPS: o.RatePPS, Size: o.Size,
		PacerMethod: PacerMethod(), ClockSource: clock.Source()}
	mode := paceModeFor(1e9 / o.RatePPS)
	switch mode {
	case paceBurst:
		res.PacerMethod += fmt.Sprintf(", waking at most once per %s and sending every packet due", SpinMargin)
		res.BurstEveryNs = int64(SpinMargin)
	}
	if o.DSCP >= 0 {
		res.DSCP = setDSCP(c, o.DSCP)
	}
	// Large socket buffers keep bursts (bulk profile) from being dropped
	// by this host before they reach the network.
	_ = c.SetReadBuffer(4 << 20)
	_ = c.SetWriteBuffer(4 << 20)
	rx := newRxStamper(c) // before the hello: every echo queued from then on is stamped
	res.ReceiveTimes, res.ReceiveStampsUnavailable = receiveTimes(rx)
	run := randomRun()
	if err := hello(c, run, o.Size, o.HelloTimeout); err != nil {
		return nil, err
	}
	if o.OnStart != nil {
		o.OnStart()
	}
	n := plannedPackets(o)
	res.Planned = n
	tr := newTracker(run, uint64(n))
	lag := make([]int64, n)
	var wake []int64
	if rxStamping(rx) {
		wake = make([]int64, 0, n)
	}
	var stampsMissing int64

	var sent, got atomic.Int64
	var sendDone atomic.Bool
	var stop atomic.Bool
	cancelStop := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer cancelStop()

	raw, err := newRawSender(c)
	if err != nil {
		return nil, err
	}
	// No collection while the pacing thread is held (probe.HoldThread):
	// its stop-the-world would wait for the hold, and the receiver with
	// it. Everything the run keeps is allocated above. Turning it off
	// stops the world and waits for a collection under way, so it comes
	// before the schedule's start.
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)

	period := 1e9 / o.RatePPS
	start := clock.Now() + int64(time.Millisecond) // time to start the threads
	recvDone := make(chan struct{})
	_ = c.SetReadDeadline(time.Now().Add(time.Duration(float64(n)*period) + o.Drain + 10*time.Second))
	go func() {
		defer close(recvDone)
		rbuf := make([]byte, MaxDatagram)
		for {
			k, kernelNs, err := rx.read(rbuf)
			var stampNow, now int64
			if wake != nil {
				stampNow, now = rxClocks()
			} else {
				now = clock.Now()
			}
			if err != nil {
				if isRefused(err) {
					continue // an ICMP error from a lost peer; the loss shows in the counts
				}
				return // deadline (drain over) or closed
			}
			if wake != nil {
				if d := stampNow - kernelNs; kernelNs != 0 && d >= 0 && d <= maxRxDelay {
					now -= d
					if len(wake) < cap(wake) { // more than n: duplicates
						wake = append(wake, d)
					}
				} else {
					stampsMissing++
				}
			}
			tr.add(rbuf[:k], now)
			got.Store(tr.unique)
			if sendDone.Load() && tr.unique >= sent.Load() {
				return
			}
		}
	}()

	var sendErrs int64
	var lastSend int64
	th := defaultThread
	if o.Thread != nil {
		th = *o.Thread
	}
	var sp spinner
	res.Thread, err = onPacedThread(th, func(w probe.Waiter, got probe.ThreadSetup) error {
		buf := make([]byte, o.Size)
		sp = newSpinner(period, got.Priority == sched.Realtime.String())
		var err error
		res.Interrupted, err = pace(w, clock.Now, mode, start, period, n, &stop, &sp, func(i, due, t int64, held bool) bool {
			putHeader(buf, header{Run: run, Seq: uint64(i), Intended: due, Sent: t})
			if held {
				done, err := raw.send(buf)
				if !done {
					return false
				}
				if err != nil {
					sendErrs++
				}
			} else if _, err := c.Write(buf); err != nil {
				sendErrs++
			}
			lag[i] = t - due
			lastSend = t
			sent.Store(i + 1)
			return true
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if mode == paceSpin {
		res.PacerMethod += sp.describe()
		res.SpinMarginMaxNs = sp.widest
	}
	sendDone.Store(true)
	if got.Load() >= sent.Load() {
		_ = c.SetReadDeadline(time.Now()) // every echo is already in
	} else {
		_ = c.SetReadDeadline(time.Now().Add(o.Drain))
	}
	select {
	case <-recvDone:
	case <-ctx.Done():
		_ = c.SetReadDeadline(time.Now())
		<-recvDone
		res.Interrupted = true
	}
	end := clock.Now()
	res.Sent = sent.Load()
	res.SendErrors = sendErrs
	res.SendLag = lag[:res.Sent]
	res.SendElapsedNs = lastSend - start
	res.ElapsedNs = end - start
	res.Received = tr.unique
	res.Lost = res.Sent - tr.unique
	res.Dups, res.Reorder, res.Foreign = tr.dups, tr.reordered, tr.foreign
	res.JitterNs = tr.jitter
	res.RTT, res.FromIntended = tr.rtt, tr.intended
	res.ReceiverWake, res.ReceiveStampsMissing = wake, stampsMissing
	noStampCame(res)
	return res, nil
}

// noStampCame makes a run whose socket took receive stamps, and whose
// every echo came without a usable one, a run timed at the read (as
// compare and the text output read ReceiveTimes) that says why: on
// Windows, where the system is not set up to stamp, that is every run.
func noStampCame(r *UDPResult) {
	if r.ReceiveTimes != rxStampMethod || len(r.ReceiverWake) > 0 || r.ReceiveStampsMissing == 0 {
		return
	}
	r.ReceiveTimes, r.ReceiveStampsUnavailable = userReceiveTimes, rxStampsNone
	r.ReceiverWake, r.ReceiveStampsMissing = nil, 0
}

// userReceiveTimes is ReceiveTimes where the kernel does not stamp.
const userReceiveTimes = "the receiving goroutine's clock when its read returned (after Go's network poller woke it)"

// maxRxDelay bounds how old a kernel receive stamp may be when the
// receiving goroutine reads it: an older one (or one in the future) means
// the clock the stamp is on was stepped between the two (Linux: the wall
// clock), or the stamp is not on that clock (Windows: a network adapter's
// hardware stamp is on the adapter's clock, not QPC).
const maxRxDelay = int64(time.Second)

// rxStamping says whether r's echoes carry the kernel's receive stamp.
func rxStamping(r *rxStamper) bool { return r.stamping() }

// receiveTimes is a run's ReceiveTimes and ReceiveStampsUnavailable as
// the socket's receive stamps stand before the first echo.
func receiveTimes(r *rxStamper) (method, unavailable string) {
	if rxStamping(r) {
		return rxStampMethod, ""
	}
	return userReceiveTimes, r.unavailable()
}

// pace keeps the send schedule: packet i (0..n-1) is due at start +
// i*period on now's timeline, and send(i, due, t, held) sends it at t,
// never before due. A late packet is sent at once; the schedule does not
// shift. It returns true when stop ended the run early, and the error of a
// wait that failed, which ends the run.
//
// The thread is held (probe.HoldThread) for the run, as the wake probe's
// is, and let go for a wait when a stop-the-world waits for it
// (probe.Yielder.WaitUntil); send is first
// called with held true and must then not block nor use the runtime's
// system calls; when it cannot send that way it returns false, and is
// called again with held false, the hold let go meanwhile.
func pace(w probe.Waiter, now func() int64, mode paceMode, start int64, period float64, n int64, stop *atomic.Bool, sp *spinner, send func(i, due, t int64, held bool) bool) (bool, error) {
	y := probe.NewYielder(now())
	defer y.Stop()
	h := probe.HoldThread()
	defer func() { h.Release() }()
	var lastWake int64
	for i := int64(0); i < n; i++ {
		if stop.Load() {
			return true, nil
		}
		due := start + int64(float64(i)*period)
		if now() < due {
			var err error
			switch mode {
			case paceSpin:
				if sp.sleeps() {
					_, err = y.WaitUntil(&h, w, due, now)
					sp.observe()
				} else {
					_, err = y.WaitUntil(&h, w, due-sp.margin, now)
					sp.spin(now, due)
				}
			case paceSleep:
				_, err = y.WaitUntil(&h, w, due, now)
			case paceBurst:
				_, err = y.WaitUntil(&h, w, max(due, lastWake+int64(SpinMargin)), now)
				lastWake = now()
			}
			if err != nil {
				return false, fmt.Errorf("pacing thread: %w", err)
			}
		}
		if !send(i, due, now(), true) {
			h.Release()
			send(i, due, now(), false)
			h = probe.HoldThread()
		}
		y.Plan(now(), start+int64(float64(i+1)*period))
	}
	return false, nil
}

// A spin the scheduler preempted costs the packet what it was meant to
// save: at normal priority on a busy machine the thread that spins uses
// its share of the CPU, is put back behind the load in the middle of the
// spin, and sends a time slice late (a lost round: send lag p99 26 times
// cyclictest's). Waking at the send time instead lets the scheduler's
// preference for a thread that slept do its work. So the pacer spins only
// while its spins are not preempted: after one that was, it sleeps to the
// send time for spinBackoffMin sends, twice as many after each further
// preempted spin (up to spinBackoffMax), then tries a spin again (once calm,
// below, where its switches are counted: see spinner.sleeps); a
// clean spin halves the next back-off. A round's p99 is lost once more
// than 1% of its sends come a time slice late: with a first back-off of
// 16 sends a 5 s game round (640 sends) under load tried, and lost, six
// spins (sends 0, 17, 50, 115, 244, 501), 0.94%, one short of its p99;
// with 128 (a second at the game's rate) it tries three (0, 129, 386),
// and the p99 is left to the wake-ups, as cyclictest's is.
//
// A spin that is never preempted still costs its CPU time, and on
// Linux's EEVDF scheduler (6.6 and later) that cost shows at the next
// wake-up instead. A thread at normal priority that woke 100 µs early
// and spun ran 95 µs a period (perf sched, 5 s beside two CPU hogs), and
// 1% of its wake-ups waited 2.9 ms or more for the CPU (p99 of the
// scheduling delay; cyclictest, running 4 µs a period, 24 µs): the hog
// kept the CPU to the end of its slice, probably because EEVDF places a
// waking thread by the CPU time it is owed, and one that spins is often
// owed none. So a wake-up that came after the send time turns spinning
// off as a preempted spin does. The pacing thread's short slice
// (paceSlice) makes late wake-ups rare; in 8 alternating loaded rounds
// the slice alone still lost one (send lag p99 745 µs), the slice with
// this back-off none of 24.
//
// Both rules are for a busy CPU; on an idle one they undo what the spin
// is for. On an idle 2-CPU guest 0-5 of the game profile's spins in 5 s
// had a gap over 20 µs with no switch to another thread (the
// hypervisor's, or an interrupt's), and 1% of the wake-ups of even
// cyclictest's SCHED_FIFO thread came 104-180 µs late (the virtual CPU's
// exit from idle): each turned spinning off for a second or more, and
// the send lag's p50 was 35-146 µs. So the thread counts the sends that
// followed an involuntary switch of its own (threadSwitches: 7-22 of 640
// in 5 s on the idle guest; beside two CPU hogs a round was calm for its
// first 15 spins at most), and while at most calmSwitches of its
// latest 64 did (calm), a gap stops spinning only if the thread was
// switched out during it, and a wake-up later than the margin widens the
// margin (as a realtime thread's, below) instead; a wake-up later than
// the widest margin stops spinning, and any back-off sets the margin back
// to SpinMargin. Where the switches are not counted (Windows) the thread
// is never calm. Idle, in 3 alternating rounds of each profile, the send
// lag's p50 went from 67-146 µs to 0.2-0.5 µs and its p99 from 151-212
// µs to 1-32 µs (one round 162); beside two hogs, in 33 alternating
// rounds, this rule lost 2 rounds and the one before it 1 (send lag p99
// over cyclictest's lateness; the host was busy then, cyclictest's p99
// reaching 0.5-1 ms in the same batches).
const (
	// spinPreempted is a gap between two clock readings of a spin that
	// only losing the CPU explains (a reading takes tens of ns).
	spinPreempted  = int64(20 * time.Microsecond)
	spinBackoffMin = 128
	spinBackoffMax = 4096
	// calmSwitches: at most this many of the latest 64 sends followed an
	// involuntary switch of the pacing thread on a calm CPU
	calmSwitches = 8
)

// At realtime priority neither reason to stop spinning holds: only a
// thread of higher priority preempts a spin, and a realtime thread's
// wake-up waits for no thread at normal priority whatever it spent. What
// makes its sends late is a wake-up later than the margin (and a calm
// thread's at normal priority, above): on an idle
// 2-CPU guest 1% of the wake-ups of cyclictest's SCHED_FIFO thread came
// 119-134 µs late (the virtual CPU's exit from idle), and a pacer that
// woke 100 µs early sent with a p99 of 121-139 µs, 0.96-1.14x cyclictest's
// lateness in 5 alternating rounds. So a realtime pacer (spinner.adapt)
// spins on every send and widens its margin to the latest wake-up's
// lateness plus marginGuard as soon as a wake-up comes later than the
// margin allowed for; the margin then shrinks back toward SpinMargin by
// 1/marginDecay of its excess a send (at 128 Hz, to half in about 3 s),
// so that a single slow wake-up does not keep it spinning longer for the
// rest of the run. It never exceeds maxSpinMargin, nor an eighth of the
// period (paceModeFor spins only at periods of 8 margins or more): a
// wake-up later than that is sent late, as before.
const (
	marginGuard   = int64(20 * time.Microsecond)
	marginDecay   = 512
	maxSpinMargin = int64(500 * time.Microsecond)
)

// spinner is the pacing thread's spinning state (paceSpin).
type spinner struct {
	off     int64 // sends left that sleep to the send time instead of spinning
	backoff int64 // how many the next preempted spin turns off
	margin  int64 // how long before the send time the thread wakes
	// adapt: a realtime thread, whose margin follows its late wake-ups
	// (see marginGuard), and which never stops spinning
	adapt     bool
	maxMargin int64 // the widest margin
	widest    int64 // the widest margin used
	// switches reads the thread's involuntary switches into usage
	// (threadSwitches, or a test's count): -1 where they are not counted
	switches     func(*threadUsage) int64
	usage        threadUsage
	lastSwitches int64  // at the latest send; -1 if not counted
	recent       uint64 // a bit a send, the latest lowest: 1 if the thread was switched out since the send before
	// probe: a back-off has ended, and spinning resumes once the thread
	// is calm (see sleeps)
	probe bool
}

// newSpinner returns the spinning state for a send period (ns); adapt as
// the thread runs at realtime priority.
func newSpinner(period float64, adapt bool) spinner {
	return spinner{backoff: spinBackoffMin, margin: int64(SpinMargin), adapt: adapt,
		maxMargin: max(int64(SpinMargin), min(maxSpinMargin, int64(period/8))), widest: int64(SpinMargin),
		switches: threadSwitches, lastSwitches: -1}
}

// describe says how the thread paced its sends (UDPResult.PacerMethod).
func (s *spinner) describe() string {
	d := fmt.Sprintf(", waking %s early, more after a late wake-up (up to %s; %s at most in this run), and spinning to the send time",
		SpinMargin, time.Duration(s.maxMargin), time.Duration(s.widest))
	if !s.adapt {
		d += " while spins are not preempted; the margin widens only while no other thread takes the CPU"
	}
	return d
}

// observe notes whether the thread was switched out for another since
// the send before (s.recent), and returns its count of switches.
func (s *spinner) observe() int64 {
	if s.adapt {
		return -1
	}
	sw := s.switches(&s.usage)
	switched := uint64(0)
	if sw < 0 || s.lastSwitches >= 0 && sw != s.lastSwitches {
		switched = 1
	}
	s.recent = s.recent<<1 | switched
	s.lastSwitches = sw
	return sw
}

// calm reports whether the thread has had its CPU to itself of late: its
// switches are counted, and few of its latest sends followed one.
func (s *spinner) calm() bool {
	return s.lastSwitches >= 0 && bits.OnesCount64(s.recent) <= calmSwitches
}

// spin waits on the clock until due, having woken to spin s.margin
// before it, and sets what the next sends do: a gap between two readings
// longer than spinPreempted (the thread lost the CPU) stops spinning for
// a while, and so does a wake-up with no time left to spin (see
// spinBackoffMin); a calm thread's and a realtime thread's margin widens
// after a late wake-up instead.
func (s *spinner) spin(now func() int64, due int64) {
	prev := now()
	late := prev - (due - s.margin) // after the wake-up asked for
	sw := s.observe()
	gap := false
	for prev < due {
		t := now()
		if t-prev > spinPreempted {
			gap = true
		}
		prev = t
	}
	switch {
	case s.adapt:
		s.adjust(late)
	case s.calm():
		if late > s.maxMargin || gap && s.switches(&s.usage) != sw {
			s.backOff()
			return
		}
		s.backoff = max(s.backoff/2, spinBackoffMin)
		s.adjust(late)
	case gap || late >= s.margin:
		s.backOff()
	default:
		s.backoff = max(s.backoff/2, spinBackoffMin)
	}
}

// sleeps reports whether the next send sleeps to its time instead of
// spinning: during a back-off, and after it until the thread is calm
// where its switches are counted. A spin tried at the end of a back-off
// on a busy CPU is preempted (the reason the back-off began) and sends a
// time slice late: traced beside two CPU hogs (perf: sched_switch, the
// timers and the send's write), two spins in each of two 5 s rounds of
// the game profile lost the CPU for 3.9-4.0 ms before their send. At 640
// sends a round's p99 is its 7th latest send, and 1% of the wake-ups of
// either the pacer or cyclictest there waited 1-3 ms for the CPU (the
// pacer's 5-11 of about 636 in a round, cyclictest's 4-10), so two more
// late sends decide whether the p99 is a fast wake-up's or a time slice.
// The thread's involuntary switches say the CPU is busy without spending
// a send on it: beside the hogs the pacing thread was switched out
// 460-515 times in a round, on the idle guest 7-22. With the probe
// waiting for calm, two rounds traced the same way had 0 and 1 such
// spins (the first send's).
func (s *spinner) sleeps() bool {
	if s.off > 0 {
		s.off--
		return true
	}
	if s.probe && s.lastSwitches >= 0 && !s.calm() {
		return true
	}
	s.probe = false
	return false
}

// backOff turns spinning off for the next s.backoff sends, doubles the
// back-off after it and sets the margin back to SpinMargin.
func (s *spinner) backOff() {
	s.probe = true
	s.off = s.backoff
	s.backoff = min(2*s.backoff, spinBackoffMax)
	s.margin = int64(SpinMargin)
}

// adjust sets the margin for the next wake-up from this one's lateness
// (ns after the time it asked for).
func (s *spinner) adjust(late int64) {
	if want := late + marginGuard; want > s.margin {
		s.margin = min(want, s.maxMargin)
		s.widest = max(s.widest, s.margin)
		return
	}
	s.margin -= (s.margin - int64(SpinMargin)) / marginDecay
}

// AchievedRatePPS is the send rate actually reached.
func (r *UDPResult) AchievedRatePPS() float64 {
	if r.SendElapsedNs <= 0 || r.Sent < 2 {
		return 0
	}
	return float64(r.Sent-1) / (float64(r.SendElapsedNs) / 1e9)
}
