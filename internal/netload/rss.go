package netload

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// RSSOptions are the work of `latlab net rss-experiment`.
type RSSOptions struct {
	// Peer runs a UDP echo server on EchoPort; "" starts one on
	// 127.0.0.1 for the run.
	Peer     string
	EchoPort int
	// Duration is the length of each phase.
	Duration time.Duration
	// Share is the part of the network work (0..1] a CPU must do to count
	// as handling it.
	Share float64
	// Root is where the interrupt counters are read (irq.WatchOptions).
	Root string
	// OnPhase, when set, is called as each phase begins.
	OnPhase func(Profile)
	// TraceDPC, when set, traces each phase's DPCs per driver module
	// (Windows, elevated).
	TraceDPC DPCTracer
	// NoTraceDPC says why there is no TraceDPC where DPCs exist.
	NoTraceDPC string
}

// RSSPhase is one load's outcome.
type RSSPhase struct {
	Profile     string        `json:"profile"`
	Sent        int64         `json:"sent"`
	Lost        int64         `json:"lost"`
	AchievedPPS float64       `json:"achieved_rate_pps"`
	RTT         stats.Summary `json:"rtt"`
	// WorkPerCPU is the network work per CPU (interrupts of the
	// interface's queues + NET_RX/NET_TX softirqs on Linux, DPCs queued on
	// Windows); WorkRole says which.
	WorkRole   string        `json:"work_role"`
	WorkPerCPU []float64     `json:"work_per_cpu"`
	BusyCPUs   []int         `json:"busy_cpus"`
	QueuesUsed []string      `json:"queues_used"`
	Interval   *irq.Interval `json:"interval"`
	// DPC is the DPC time per driver module while the phase ran, when a
	// trace could run; DPCNote says why there is none.
	DPC     []ModuleDPC `json:"dpc_by_module,omitempty"`
	DPCNote string      `json:"dpc_note,omitempty"`
}

// RSSResult is the outcome of RunRSS and the payload of a document of
// kind rss-experiment.
type RSSResult struct {
	// Measurement is filled in by Document.
	Measurement probe.Measurement `json:"measurement"`
	Peer        string            `json:"peer"`      // the echo server, host:port
	Interface   string            `json:"interface"` // the local interface the traffic left by
	Loopback    bool              `json:"loopback"`
	Queues      int               `json:"rx_queues"` // the interface's receive queues, when visible
	Phases      []RSSPhase        `json:"phases"`
	Verdict     []string          `json:"verdict"`
	Network     *irq.NetInfo      `json:"network"`
}

// Document is the rss-experiment document of r on the host facts.
func (r *RSSResult) Document(facts host.Facts) *result.Document {
	doc := KindRSSExperiment.New(facts, r)
	r.Measurement = probe.Measurement{Method: irq.Method() + "; load from latlab net udp profiles",
		ClockSource: doc.Host.ClockSource, PercentileNote: result.PercentileDefinition}
	return doc
}

// rssProfiles are the loads, in the order they run: PC-Tuning's question
// ("How many RSS Queues do you need?", https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md#how-many-rss-queues-do-you-need)
// is how a game's flow and a bulk transfer spread over the queues.
var rssProfiles = []string{"game", "bulk"}

// Validate checks the experiment's options, in the flag names of latlab
// net rss-experiment, for every caller; bad input is a badinput.Error.
func (o RSSOptions) Validate() error {
	if !(o.Share > 0 && o.Share <= 1) {
		return badinput.Errorf("invalid --share %v: accepted a fraction in (0, 1]", o.Share)
	}
	// Without a peer the run starts its own server on a free port.
	if (o.Peer != "" || o.EchoPort != 0) && (o.EchoPort < 1 || o.EchoPort > 65535) {
		return badinput.Errorf("invalid --echo-port %d: accepted 1-65535", o.EchoPort)
	}
	return nil
}

// RunRSS runs each load against the echo server and reads the per-CPU
// counters around it. When ctx ends during a phase, the result holds the
// phases until then (that one included) and no error.
func RunRSS(ctx context.Context, o RSSOptions) (*RSSResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	target := ""
	host := o.Peer
	if host == "" {
		s, err := Listen(ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: -1, SinkPort: -1})
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() { s.Serve(sctx); close(served) }()
		defer func() { cancel(); <-served }()
		target, _, _ = s.Addrs()
		host = "127.0.0.1"
	} else {
		target = net.JoinHostPort(host, strconv.Itoa(o.EchoPort))
	}
	ifname, loop, err := RouteInterface(host)
	if err != nil {
		return nil, err
	}
	w, err := irq.NewWatcher(irq.WatchOptions{Root: o.Root, Iface: ifname})
	if err != nil {
		return nil, fmt.Errorf("rss-experiment: %w", err)
	}
	defer w.Close()
	info := w.Network()
	r := &RSSResult{Peer: target, Interface: ifname, Loopback: loop, Network: info}
	ifc := info.Iface(ifname)
	if ifc != nil {
		r.Queues = ifc.RxQueues
	}
	for _, name := range rssProfiles {
		p, _ := LookupProfile(name)
		if o.OnPhase != nil {
			o.OnPhase(p)
		}
		if _, err := w.Next(); err != nil { // start the phase's interval
			return nil, err
		}
		var u *UDPResult
		dpc, dpcNote, err := tracePhase(ctx, o.TraceDPC, o.Duration, func() error {
			var err error
			u, err = RunUDP(ctx, UDPOptions{To: target, RatePPS: p.RatePPS, Size: p.Size, Duration: o.Duration, DSCP: -1})
			return err
		})
		if err != nil {
			return nil, err
		}
		iv, err := w.Next()
		if err != nil {
			return nil, err
		}
		work, role := phaseWork(iv)
		r.Phases = append(r.Phases, RSSPhase{Profile: name, Sent: u.Sent, Lost: u.Lost, AchievedPPS: u.AchievedRatePPS(), RTT: stats.Summarize(u.RTT),
			WorkRole: role, WorkPerCPU: work, BusyCPUs: irq.BusyCPUs(iv.CPUs, work, o.Share), QueuesUsed: queuesUsed(iv), Interval: iv,
			DPC: dpc, DPCNote: dpcNote})
		if ctx.Err() != nil {
			break
		}
	}
	r.Verdict = rssVerdict(r, ifc)
	if o.TraceDPC == nil && o.NoTraceDPC != "" {
		r.Verdict = append(r.Verdict, o.NoTraceDPC)
	}
	return r, nil
}

// phaseWork is the network work per CPU: on Linux the interface's own
// interrupts (the watcher gives only those RoleNet) plus NET_RX/NET_TX
// softirqs (all interfaces: softirqs are not per device); on Windows the
// DPCs queued.
func phaseWork(iv *irq.Interval) ([]float64, string) {
	w, role := iv.NetWork()
	switch role {
	case irq.RoleNet:
		return w, "interface interrupts + NET_RX/NET_TX softirqs"
	case irq.RoleDPC:
		return w, "DPCs queued (all drivers)"
	}
	return w, role
}

// queuesUsed names the interface's interrupts that fired.
func queuesUsed(iv *irq.Interval) []string {
	out := []string{}
	for _, r := range iv.Rows {
		if r.Source != "interrupts" || r.Role != irq.RoleNet || r.Total <= 0 {
			continue
		}
		q := r.Queue
		if q == "" {
			q = "IRQ " + r.Name
		}
		out = append(out, q)
	}
	return out
}

func rssVerdict(d *RSSResult, ifc *irq.Iface) []string {
	var v []string
	switch {
	case d.Loopback:
		v = append(v, "the traffic went over loopback: there is no NIC, no receive queue and no interrupt, so RSS cannot show here; "+
			"packets are processed in NET_RX softirqs on the CPUs that send them. Run latlab net serve on another machine and give --peer.")
	case ifc == nil:
		v = append(v, fmt.Sprintf("interface %q carries the traffic but its queues are not visible (Windows: per-queue interrupts need an ETW trace); the DPC counts per CPU below are for all drivers", d.Interface))
	case ifc.Virtual:
		v = append(v, fmt.Sprintf("%s is a virtual device without hardware queues: its work runs in softirqs on the sending/receiving CPUs", ifc.Name))
	case ifc.RxQueues <= 1:
		v = append(v, fmt.Sprintf("%s (%s) has a single receive queue: every receive interrupt goes to one CPU whatever the load, so RSS cannot spread it; a multi-queue NIC (or more virtio queues) is needed to see RSS at work", ifc.Name, ifc.Driver))
	}
	for _, ph := range d.Phases {
		q := "no queue interrupt"
		if len(ph.QueuesUsed) > 0 {
			q = fmt.Sprintf("%d queue interrupt(s) active (%s)", len(ph.QueuesUsed), strings.Join(ph.QueuesUsed, ", "))
		}
		v = append(v, fmt.Sprintf("%s: network work on CPU %s; %s", ph.Profile, irq.FormatCPUList(ph.BusyCPUs), q))
		if s := dpcVerdict(ph); s != "" {
			v = append(v, s)
		} else if ph.DPCNote != "" {
			v = append(v, ph.Profile+": "+ph.DPCNote)
		}
	}
	if len(d.Phases) == 2 && !d.Loopback && ifc != nil && ifc.RxQueues > 1 {
		g, b := len(d.Phases[0].QueuesUsed), len(d.Phases[1].QueuesUsed)
		switch {
		case g <= 1 && b <= 1:
			v = append(v, "both loads used one queue: a single flow hashes to one queue, so one RSS queue is what a single game connection uses")
		case b > g:
			v = append(v, fmt.Sprintf("bulk traffic spread over %d queues against %d for the game load", b, g))
		}
	}
	return v
}
