package netload

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/clock"
)

// tcpSampler reads the TCP state of a connection every period, called by
// the goroutine that writes to it (see runTCP). A nil *tcpSampler samples
// nothing: sampling is off.
type tcpSampler struct {
	ctx     context.Context
	res     *TCPResult
	c       *net.TCPConn
	r       *tcpInfoReader
	start   int64
	every   int64
	next    int64 // due time of the next sample (clock ns)
	armed   int64 // the due time the connection's deadline is set to, 0 none
	stopped bool  // an error or MaxTCPSamples: no more samples
	present uint32
	samples []TCPSample
}

func newTCPSampler(ctx context.Context, res *TCPResult, c *net.TCPConn, rc syscall.RawConn, start int64, every time.Duration) *tcpSampler {
	s := &tcpSampler{ctx: ctx, res: res, c: c, start: start, every: int64(every), next: start,
		samples: make([]TCPSample, 0, 1024)}
	r, err := newTCPInfoReader(rc)
	if err != nil {
		res.SampleError = err.Error()
		s.stopped = true
		return s
	}
	s.r = r
	s.take(start) // the state at the start
	return s
}

// arm sets the connection's deadline (set: its SetWriteDeadline or
// SetReadDeadline) to the next sample's due time, so that a write or read
// blocked then returns to let the sample be taken: always for the wait
// for the peer's reply, for writes only on Windows after one was slow
// (writeStream). A context that is done keeps the deadline its AfterFunc
// set (now): arming never delays a cancellation by more than one period.
func (s *tcpSampler) arm(set func(time.Time) error) {
	if s == nil || s.stopped || s.armed == s.next || s.ctx.Err() != nil {
		return
	}
	s.armed = s.next
	_ = set(time.Now().Add(time.Duration(s.next - clock.Now())))
}

// take samples the state if one is due at now, and reports whether a
// deadline error of the write or read just made was the sampler's own (it
// had set one and the context is not done): the caller then goes on.
func (s *tcpSampler) take(now int64) bool {
	if s == nil {
		return false
	}
	own := s.armed != 0 && s.ctx.Err() == nil
	if !s.stopped && now >= s.next {
		s.read(now)
		s.next += s.every
		if now-s.next > s.every {
			// Fell behind (the machine was busy): skip to the present
			// instead of bursting readings with the same state.
			s.next = s.start + ((now-s.start)/s.every+1)*s.every
		}
	}
	if s.stopped {
		s.disarm()
	}
	return own
}

func (s *tcpSampler) read(now int64) {
	if len(s.samples) >= MaxTCPSamples {
		s.res.SampleLimitHit = true
		s.stopped = true
		return
	}
	st, err := s.r.read()
	if err != nil {
		s.res.SampleError = err.Error()
		s.stopped = true
		return
	}
	smp := TCPSample{TNs: now - s.start, TCPState: st}
	if n := len(s.samples); n > 0 && retransmitted(&s.samples[n-1].TCPState, &st) {
		smp.Retrans = true
		s.res.RetransSamples++
	}
	s.present |= st.Has
	s.samples = append(s.samples, smp)
}

// disarm clears the deadlines the sampler set, unless the context is
// done (its AfterFunc's deadline must stay).
func (s *tcpSampler) disarm() {
	if s.armed != 0 && s.ctx.Err() == nil {
		_ = s.c.SetDeadline(time.Time{})
	}
	s.armed = 0
}

// finish takes the last sample (the state after the peer closed) and
// stores the samples in the result.
func (s *tcpSampler) finish() {
	if s == nil {
		return
	}
	if !s.stopped {
		s.read(clock.Now())
		s.disarm()
	}
	s.res.Samples = s.samples
	for f := Field(0); f < numFields; f++ {
		if s.present&(1<<f) != 0 {
			s.res.Fields = append(s.res.Fields, f.String())
		}
	}
}

// readReply reads the peer's reply, at most 256 bytes up to the first
// newline (a sink's report), or nothing until it closes (a discard
// server), sampling meanwhile.
func readReply(c *net.TCPConn, sm *tcpSampler) (string, error) {
	var b [256]byte
	n := 0
	if sm != nil {
		sm.armed = 0 // a write deadline it set is not a read deadline: arm anew
	}
	for n < len(b) {
		sm.arm(c.SetReadDeadline)
		k, err := c.Read(b[n:])
		for _, ch := range b[n : n+k] {
			n++
			if ch == '\n' {
				return string(b[:n]), nil
			}
		}
		if sm.take(clock.Now()) && errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if err == io.EOF {
			return string(b[:n]), nil
		}
		if err != nil {
			return string(b[:n]), err
		}
	}
	return string(b[:n]), nil
}
