package netload

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// RunServe says where it listens before serving and returns the totals
// when its context ends; TCP only, so that it runs under Wine too.
func TestRunServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var addrs [3]string
	st, err := RunServe(ctx, ServeOptions{Addr: "127.0.0.1", EchoPort: -1, DiscardPort: 0, SinkPort: -1,
		OnReady: func(echo, discard, sink string) {
			addrs = [3]string{echo, discard, sink}
			c, err := net.Dial("tcp", discard)
			if err != nil {
				t.Error(err)
				cancel()
				return
			}
			io.WriteString(c, "hello")
			c.Close()
		},
		// The connection waits in the backlog until Serve begins, which
		// reads it to the end: then the totals count it.
		OnConn: func(ConnStats) { cancel() }})
	if err != nil {
		t.Fatal(err)
	}
	if addrs[0] != "" || addrs[1] == "" || addrs[2] != "" {
		t.Fatalf("ready with %q", addrs)
	}
	if st.DiscardConns != 1 || st.DiscardBytes != 5 {
		t.Fatalf("totals %+v", st)
	}
}

func TestRunServeBindError(t *testing.T) {
	ready := false
	_, err := RunServe(context.Background(), ServeOptions{Addr: "nowhere", EchoPort: -1, DiscardPort: 0, SinkPort: -1,
		OnReady: func(string, string, string) { ready = true }})
	if !badinput.Is(err) || ready {
		t.Fatalf("err %v, ready %v", err, ready)
	}
}
