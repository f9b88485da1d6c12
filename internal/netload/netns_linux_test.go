package netload

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

// netnsPair creates two network namespaces joined by a veth pair, named
// with this process's PID, with 198.18.0.1 (client) and 198.18.0.2
// (server) from the RFC 2544 benchmarking range. Both ends live in
// namespaces the test owns, so no packet touches the host's network.
func netnsPair(t *testing.T) (client, server string) {
	t.Helper()
	testutil.NeedRoot(t)
	testutil.NeedTool(t, "ip")
	pid := os.Getpid()
	client, server = fmt.Sprintf("llc%d", pid), fmt.Sprintf("lls%d", pid)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", client).Run()
		_ = exec.Command("ip", "netns", "del", server).Run()
	})
	run("netns", "add", client)
	run("netns", "add", server)
	va, vb := fmt.Sprintf("lva%d", pid), fmt.Sprintf("lvb%d", pid)
	run("-n", client, "link", "add", va, "type", "veth", "peer", "name", vb, "netns", server)
	run("-n", client, "addr", "add", "198.18.0.1/30", "dev", va)
	run("-n", server, "addr", "add", "198.18.0.2/30", "dev", vb)
	for _, ns := range []struct{ ns, dev string }{{client, va}, {server, vb}} {
		run("-n", ns.ns, "link", "set", ns.dev, "up")
		run("-n", ns.ns, "link", "set", "lo", "up")
	}
	return client, server
}

// inNetns runs fn on a thread that entered the named namespace; sockets
// fn creates belong to it. The thread is discarded afterwards.
func inNetns(t *testing.T, name string, fn func()) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread stays in the namespace and exits
		f, err := os.Open("/var/run/netns/" + name)
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", name, err)
			return
		}
		fn()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestNetnsGameAndDiscard(t *testing.T) {
	client, server := netnsPair(t)
	var s *Server
	inNetns(t, server, func() {
		var err error
		s, err = Listen(ServeOptions{Addr: "198.18.0.2", EchoPort: 0, DiscardPort: 0, SinkPort: 0})
		if err != nil {
			t.Error(err)
		}
	})
	if s == nil {
		t.FailNow()
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan ServeStats, 1)
	go func() { served <- s.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	echo, discard, sink := s.Addrs()

	const n = 100
	p, _ := LookupProfile("game")
	var ur *UDPResult
	var err error
	inNetns(t, client, func() {
		ur, err = RunUDP(context.Background(), UDPOptions{To: echo, RatePPS: p.RatePPS, Size: p.Size, Count: n, DSCP: 46, Drain: 2 * time.Second})
	})
	if err != nil {
		t.Fatal(err)
	}
	if ur.Sent != n || ur.Received != n || ur.Lost != 0 {
		t.Fatalf("sent %d received %d lost %d", ur.Sent, ur.Received, ur.Lost)
	}
	if got := s.Stats().EchoPackets - int64(n); got < 1 || got > 10 {
		t.Fatalf("server echoed %d, want %d probes + 1..10 reachability checks", s.Stats().EchoPackets, n)
	}
	if ur.DSCP == nil || !ur.DSCP.Applied {
		t.Fatalf("dscp %+v", ur.DSCP)
	}

	const size = 4_000_000
	var tr *TCPResult
	inNetns(t, client, func() {
		tr, err = RunTCP(context.Background(), TCPOptions{To: sink, Size: size, SampleEvery: time.Millisecond, Timeout: time.Minute})
	})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Written != size || tr.SinkBytes != size {
		t.Fatalf("written %d, sink got %d, want %d", tr.Written, tr.SinkBytes, size)
	}
	if len(tr.Samples) == 0 || tr.SampleError != "" {
		t.Fatalf("no TCP_INFO samples (%s)", tr.SampleError)
	}
	final := tr.Samples[len(tr.Samples)-1]
	for _, f := range []Field{FCwnd, FRTT, FMinRTT, FTotalRetrans} {
		if _, ok := final.Get(f); !ok {
			t.Errorf("final TCP_INFO lacks %s", f)
		}
	}
	inNetns(t, client, func() {
		tr, err = RunTCP(context.Background(), TCPOptions{To: discard, Size: 123457, SampleEvery: time.Millisecond})
	})
	if err != nil || tr.Written != 123457 {
		t.Fatalf("discard: %v, written %d", err, tr.Written)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().DiscardBytes != 123457 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.Stats().DiscardBytes; got != 123457 {
		t.Fatalf("discard server counted %d", got)
	}
}

// DSCP marks reach the wire: a receiver with IP_RECVTOS sees them.
func TestDSCPMarkSeenByReceiver(t *testing.T) {
	s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll()
	rc, _ := s.echo.SyscallConn()
	_ = rc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVTOS, 1) })
	echo, _, _ := s.Addrs()
	c, err := dialUDP(echo)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := setDSCP(c, 46); !d.Applied {
		t.Fatalf("dscp %+v", d)
	}
	if _, err := c.Write(make([]byte, HeaderLen)); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 100), make([]byte, 100)
	_ = s.echo.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, oobn, _, _, err := s.echo.ReadMsgUDP(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		t.Fatalf("no TOS control message: %v", err)
	}
	if tos := msgs[0].Data[0]; tos>>2 != 46 {
		t.Fatalf("received TOS %#x, DSCP %d, want 46", tos, tos>>2)
	}
}
