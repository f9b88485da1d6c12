package try

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/netload"
)

// The research measured NDIS DPCs under load: the GamingPCSetup interrupt
// moderation runs under "30sec simulation +900Mbps, TCP, 100MB transfers"
// (djdallmann, CONTENT/RESEARCH/NETWORK/README.md), the PC-Tuning RSS
// queue runs under ~300 kb/s of simulated game traffic and then 1 Gbps
// (valleyofdoom, docs/research.md "How many RSS Queues do you need?"). A
// dpcisr block with a Load sends that traffic to a latlab net serve peer
// while the kernel trace runs, so the DPC times of the block are those of
// the NIC's driver and NDIS under the traffic: the UDP profiles of
// latlab net udp, or a TCP bulk stream as latlab net tcp-discard sends.

// Load kinds.
const (
	LoadUDP = "udp"
	LoadTCP = "tcp"
)

// Load is the traffic each dpcisr block generates.
type Load struct {
	Kind string // "", LoadUDP or LoadTCP
	To   string // HOST:PORT: the echo port (udp) or the discard port (tcp)
	// Profile is the UDP shape (net udp's --profile); unused for tcp.
	Profile netload.Profile
}

// LoadOutcome is what a block's load sent.
type LoadOutcome struct {
	Kind string `json:"kind"`
	To   string `json:"to"`
	// UDP: packets sent and echoes missing; TCP: bytes written.
	Sent    int64   `json:"sent"`
	Lost    int64   `json:"lost,omitempty"`
	Bytes   int64   `json:"bytes"`
	RateBps float64 `json:"rate_bits_per_s"`
}

func validateLoad(p Probe) error {
	l := p.Load
	switch l.Kind {
	case "":
		return nil
	case LoadUDP, LoadTCP:
	default:
		return badinput.Errorf("unknown --load %q: accepted udp or tcp", l.Kind)
	}
	if p.Kind != ProbeDPCISR {
		return badinput.Errorf("--load goes with --probe dpcisr (the udp probe is itself the traffic)")
	}
	if l.To == "" {
		return badinput.Errorf("--load %s needs --to HOST:PORT of latlab net serve (its echo port for udp, its discard port for tcp)", l.Kind)
	}
	if l.Kind == LoadUDP {
		o := netload.UDPOptions{To: l.To, RatePPS: l.Profile.RatePPS, Size: l.Profile.Size, DSCP: -1, Duration: time.Second}
		if err := o.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// tcpLoadSize is what a TCP load block may send at most: more than a
// 100 Gbit/s link carries in an hour-long block, so the block's end, not
// the size, stops it.
const tcpLoadSize = 1 << 46

// runLoad sends the load for d, or until ctx ends.
func runLoad(ctx context.Context, l Load, d time.Duration) (*LoadOutcome, error) {
	out := &LoadOutcome{Kind: l.Kind, To: l.To}
	switch l.Kind {
	case LoadUDP:
		r, err := netload.RunUDP(ctx, netload.UDPOptions{To: l.To, RatePPS: l.Profile.RatePPS, Size: l.Profile.Size,
			DSCP: -1, Duration: d, Drain: udpDrain})
		if err != nil {
			if badinput.Is(err) {
				return nil, err
			}
			return nil, err
		}
		out.Sent, out.Lost, out.Bytes = r.Sent, r.Lost, r.Sent*int64(r.Size)
		if r.SendElapsedNs > 0 {
			out.RateBps = float64(out.Bytes) * 8 / (float64(r.SendElapsedNs) / 1e9)
		}
	case LoadTCP:
		lctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		start := time.Now()
		r, err := netload.RunTCP(lctx, netload.TCPOptions{To: l.To, Size: tcpLoadSize, Timeout: d + time.Minute})
		if r != nil {
			out.Bytes, out.Sent = r.Written, r.Written
			if el := time.Since(start); el > 0 {
				out.RateBps = float64(r.Written) * 8 / el.Seconds()
			}
		}
		// The block's end cuts the stream: that is how a TCP load ends.
		if err != nil && lctx.Err() == nil {
			if badinput.Is(err) {
				return nil, err
			}
			return nil, err
		}
	default:
		return nil, fmt.Errorf("internal: load %q", l.Kind)
	}
	return out, nil
}

// underLoad runs f (the block's trace) while the load runs, and returns
// what the load sent; the load starts first, so the trace sees it whole.
func underLoad(ctx context.Context, l Load, d time.Duration, f func(context.Context) error) (*LoadOutcome, error) {
	if l.Kind == "" {
		return nil, f(ctx)
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		o   *LoadOutcome
		err error
	}
	ch := make(chan done, 1)
	go func() {
		o, err := runLoad(lctx, l, d)
		ch <- done{o, err}
	}()
	ferr := f(ctx)
	cancel() // the trace is over: so is the load
	ld := <-ch
	if ferr != nil {
		return ld.o, ferr
	}
	if ld.err != nil {
		return nil, fmt.Errorf("%s load to %s: %w", l.Kind, l.To, ld.err)
	}
	return ld.o, nil
}

// loadWords names the load in a method line.
func loadWords(l Load) string {
	if l.Kind == LoadTCP {
		return "a TCP bulk stream to " + l.To
	}
	name := "UDP"
	if l.Profile.Name != "" {
		name += " " + l.Profile.Name
	}
	return fmt.Sprintf("%s traffic to %s (%g packets/s of %d B)", name, l.To, l.Profile.RatePPS, l.Profile.Size)
}
