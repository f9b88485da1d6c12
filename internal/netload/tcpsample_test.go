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
func stalledPeer(t testing.TB, stall time.Duration) string {
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

// slowPeer accepts one connection and reads it at about rate bytes per
// second (a slow path), until the sender closes, and closes too.
func slowPeer(t *testing.T, rate int) string {
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
		buf := make([]byte, rate/100)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return l.Addr().String()
}

// The writer samples the TCP state itself, between writes; once a write
// blocks for long (a slow path), a deadline at each due time brings the
// next blocked writes back on time, so the samples keep their schedule
// while the writes wait for the peer.
func TestTCPSamplesWhileTheWritesBlock(t *testing.T) {
	to := slowPeer(t, 16<<20) // 16 MB/s
	const size = 24 << 20     // 1.5 s at that rate, far beyond the socket buffers
	every := 5 * time.Millisecond
	r, err := RunTCP(context.Background(), TCPOptions{To: to, Size: size, SampleEvery: every, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Written != size {
		t.Fatalf("written %d of %d", r.Written, size)
	}
	if tcpInfoMayBeMissing(r.SampleError) {
		t.Skipf("TCP state not available here: %s", r.SampleError)
	}
	for i := 1; i < len(r.Samples); i++ {
		if r.Samples[i].TNs < r.Samples[i-1].TNs {
			t.Fatalf("sample %d at %d ns, before the one before it", i, r.Samples[i].TNs)
		}
	}
	// One due every 5 ms; a loaded machine may skip some, and the first
	// write that blocks is sampled only when it returns.
	due := int(r.WallNs / int64(every))
	if len(r.Samples) < due/3 {
		t.Fatalf("%d samples over %v, want about %d", len(r.Samples), time.Duration(r.WallNs), due)
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

// Reading the TCP state, once per period on the writing goroutine,
// allocates nothing.
func TestTCPInfoReadAllocates0(t *testing.T) {
	c, err := net.Dial("tcp", stalledPeer(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	r, err := newTCPInfoReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.read(); err != nil {
		if tcpInfoMayBeMissing(err.Error()) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = r.read() }); a != 0 {
		t.Errorf("a TCP state read allocates %.0f times, want 0", a)
	}
}

// BenchmarkTCPInfoRead is the cost of one TCP state sample, which the
// writer pays once per period (1 ms by default).
func BenchmarkTCPInfoRead(b *testing.B) {
	c, err := net.Dial("tcp", stalledPeer(b, 0))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	r, err := newTCPInfoReader(rc)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.read(); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.read()
	}
}
