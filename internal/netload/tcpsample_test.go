package netload

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// stalledPeer accepts one connection and reads nothing for stall, then
// everything until the sender closes, and closes too.
func stalledPeer(t *testing.T, stall time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		time.Sleep(stall)
		_, _ = io.Copy(io.Discard, c)
	}()
	return l.Addr().String()
}

// The writer samples the TCP state itself: while its write is blocked
// (the peer reads nothing and the buffers are full) the sampler's
// deadline still brings it back on time, and the transfer goes on
// afterwards with every byte written.
func TestTCPSamplesWhileTheWriteIsBlocked(t *testing.T) {
	const stall = 300 * time.Millisecond
	to := stalledPeer(t, stall)
	const size = 64 << 20 // far beyond the socket buffers
	r, err := RunTCP(context.Background(), TCPOptions{To: to, Size: size, SampleEvery: 5 * time.Millisecond, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Written != size {
		t.Fatalf("written %d of %d", r.Written, size)
	}
	if tcpInfoMayBeMissing(r.SampleError) {
		t.Skipf("TCP state not available here: %s", r.SampleError)
	}
	during := 0
	for i, s := range r.Samples {
		if s.TNs < int64(stall) {
			during++
		}
		if i > 0 && s.TNs < r.Samples[i-1].TNs {
			t.Fatalf("sample %d at %d ns, before the one before it", i, s.TNs)
		}
	}
	// 60 are due in the stall; a loaded machine may skip some.
	if during < 15 {
		t.Fatalf("%d samples during the %v stall, want about %d", during, stall, stall/(5*time.Millisecond))
	}
}

// The sampler's deadlines never hide the transfer's own: a peer that
// never reads still ends the transfer at --timeout, with the bytes
// written so far.
func TestTCPTimeoutWhileSampling(t *testing.T) {
	to := stalledPeer(t, time.Minute)
	t0 := time.Now()
	r, err := RunTCP(context.Background(), TCPOptions{To: to, Size: 1 << 30, SampleEvery: time.Millisecond, Timeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("stopped after %v, want about 300ms", d)
	}
	if r == nil || r.Written == 0 || r.Written >= 1<<30 {
		t.Fatalf("result %+v", r)
	}
}
