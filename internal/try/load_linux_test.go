package try

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/netload"
)

// A dpcisr block with --load sends the traffic to latlab net serve while
// the trace runs (here a fake trace over a loopback server), and the block
// keeps what the load sent.
func TestDPCISRUnderLoad(t *testing.T) {
	s, err := netload.Listen(netload.ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: 0, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	echo, discard, _ := s.Addrs()

	old := watch
	defer func() { watch = old }()
	var traced time.Duration
	watch = func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
		t0 := time.Now()
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
		traced = time.Since(t0)
		return dpcReport(map[string]map[int]int64{"ndis.sys": {3: 10}}, map[string]int64{"ndis.sys": 100}), nil
	}
	game, _ := netload.LookupProfile("game")
	for _, l := range []Load{
		{Kind: LoadUDP, To: echo, Profile: game},
		{Kind: LoadTCP, To: discard},
	} {
		t.Run(l.Kind, func(t *testing.T) {
			p := Probe{Kind: ProbeDPCISR, Load: l}
			if err := validateLoad(p); err != nil {
				t.Fatal(err)
			}
			before := s.Stats()
			m, err := measureProbe(context.Background(), p, 300*time.Millisecond, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			after := s.Stats()
			if m.report == nil || m.load == nil || m.load.Kind != l.Kind || m.load.Bytes <= 0 {
				t.Fatalf("report %v, load %+v", m.report != nil, m.load)
			}
			if traced < 250*time.Millisecond {
				t.Errorf("the trace ran %s of 300ms", traced)
			}
			switch l.Kind {
			case LoadUDP:
				if after.EchoPackets <= before.EchoPackets || m.load.Sent < 1 {
					t.Errorf("echo server saw %d packets, load sent %d", after.EchoPackets-before.EchoPackets, m.load.Sent)
				}
				if !strings.Contains(m.method, "under UDP game traffic to "+echo+" (128 packets/s of 256 B)") {
					t.Errorf("method %q", m.method)
				}
			case LoadTCP:
				// The discard server counts a connection's bytes as it ends.
				deadline := time.Now().Add(5 * time.Second)
				for s.Stats().DiscardBytes <= before.DiscardBytes && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if got := s.Stats().DiscardBytes - before.DiscardBytes; got <= 0 || m.load.RateBps <= 0 {
					t.Errorf("discard server got %d bytes, load wrote %d at %.0f bit/s", got, m.load.Bytes, m.load.RateBps)
				}
				if !strings.Contains(m.method, "under a TCP bulk stream to "+discard) {
					t.Errorf("method %q", m.method)
				}
			}
		})
	}
}

// A load is checked before anything changes: its kind, its peer, and that
// it goes with the dpcisr probe.
func TestValidateLoad(t *testing.T) {
	game, _ := netload.LookupProfile("game")
	for _, c := range []struct {
		p    Probe
		want string
	}{
		{Probe{Kind: ProbeDPCISR, Load: Load{Kind: "icmp", To: "127.0.0.1:7"}}, "accepted udp or tcp"},
		{Probe{Kind: ProbeDPCISR, Load: Load{Kind: LoadTCP}}, "needs --to HOST:PORT"},
		{Probe{Kind: ProbeSleep, Load: Load{Kind: LoadUDP, To: "127.0.0.1:7", Profile: game}}, "goes with --probe dpcisr"},
		{Probe{Kind: ProbeDPCISR, Load: Load{Kind: LoadUDP, To: "127.0.0.1:7", Profile: netload.Profile{RatePPS: -1, Size: 64}}}, "rate"},
	} {
		err := validateLoad(c.p)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p.Load, err, c.want)
		}
	}
}

// A peer that is not there fails the block with the load named.
func TestLoadPeerMissing(t *testing.T) {
	old := watch
	defer func() { watch = old }()
	watch = func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
		time.Sleep(d)
		return &dpcisr.Report{}, nil
	}
	_, err := measureProbe(context.Background(), Probe{Kind: ProbeDPCISR, Load: Load{Kind: LoadTCP, To: "127.0.0.1:1"}}, 50*time.Millisecond, 0, false)
	if err == nil || !strings.Contains(err.Error(), "tcp load to 127.0.0.1:1") {
		t.Errorf("missing peer: %v", err)
	}
}
