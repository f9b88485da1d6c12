package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

// NetUDPOptions are the flags of `latlab net udp`.
type NetUDPOptions struct {
	IO       *IO
	To       string
	Profile  string
	Rate     float64
	Size     int
	Duration time.Duration
	Count    int64
	DSCP     int
	Drain    time.Duration
	Priority string
	RTPrio   int
	CPUs     string
	JSON     bool
	Out      string

	rateSet, sizeSet bool
	settings         map[string]string
	changed          func(flag string) bool
	// probe and profile are what the flags ask for, set by validate.
	probe   netload.UDPOptions
	profile netload.Profile
}

// newNetUDPCmd builds latlab net udp. runF, when set, is given the options
// the flags map to instead of sending: the tests of the mapping.
func newNetUDPCmd(io *IO, runF func(*NetUDPOptions) error) *cobra.Command {
	o := &NetUDPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "udp --to HOST:PORT",
		Short: "paced UDP probes to an echo server: RTT distribution, RFC 3550 jitter, loss, reordering",
		Long: `Sends datagrams to a UDP echo server (latlab net serve) at a constant rate and
measures each echo. Every datagram carries a sequence number and its intended
and actual send times; the sender follows the intended schedule (a late send
is caught up, never shifts the schedule), so a stall shows as latency instead
of disappearing (no coordinated omission).

Profiles (--rate and --size override their numbers):
  game   128 packets/s of 256 B: a 128 Hz tick (VALORANT, 128-tick CS:GO;
         CS2 is 64 Hz: --rate 64), ~291 kbit/s each way at the IP layer,
         the ~300 kbit/s PC-Tuning simulated for VALORANT
  voice  50 packets/s of 160 B: G.711 with 20 ms packetisation
  bulk   1400 B paced at 1 Gbit/s of payload; a slower machine sends as fast
         as it can and the send lag shows how far behind it fell

Reports the round-trip time (echo arrival - actual send), the latency from
the intended send time, the send lag (actual - intended), RFC 3550
interarrival jitter of the echoed stream, loss, duplicates and reordering
(RFC 4737: arrived below the next expected sequence number).

--priority, --rtprio and --cpus set up the pacing thread as latlab sleep sets
up its measuring thread: a late wake-up of that thread is send lag.

--dscp N marks the datagrams (Linux: IP_TOS / IPV6_TCLASS). Windows ignores
marks set by applications unless a QoS policy allows them: see
latlab knob set qos-dscp.`,
		Example: `  latlab net udp --to 127.0.0.1:7
  latlab net udp --to 192.0.2.10:7 --profile voice --duration 60s --dscp 46
  latlab net udp --to 127.0.0.1:7007 --rate 1000 --size 200 --json -o udp.json
  latlab net udp --to 192.0.2.10:7 --priority realtime --rtprio 80 --cpus 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			o.rateSet, o.sizeSet = cmd.Flags().Changed("rate"), cmd.Flags().Changed("size")
			o.changed = cmd.Flags().Changed
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNetUDP(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.To, "to", "", "HOST:PORT of a UDP echo server (required)")
	fs.StringVar(&o.Profile, "profile", "game", "traffic profile: "+strings.Join(netload.Profiles(), ", "))
	fs.Float64Var(&o.Rate, "rate", 0, "packets per second (overrides the profile's)")
	fs.IntVar(&o.Size, "size", 0, fmt.Sprintf("UDP payload bytes, %d-%d (overrides the profile's)", netload.HeaderLen, netload.MaxDatagram))
	durationFlag(fs, &o.Duration, "duration", 10*time.Second, "how long to send")
	fs.Int64Var(&o.Count, "count", 0, "send exactly this many packets instead of --duration")
	fs.IntVar(&o.DSCP, "dscp", -1, "DiffServ code point 0-63 to mark packets with (46 = EF); -1 = unmarked")
	durationFlag(fs, &o.Drain, "drain", time.Second, "how long to wait for echoes after the last send")
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the pacing thread")
	cpusFlag(fs, &o.CPUs, "pin the pacing thread to this CPU, e.g. 2 (a list of one)")
	oldSpelling(fs, io.Err, "cpu", "cpus", "")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind udp) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	return cmd
}

// udpOptions applies --rate and --size over the profile's numbers; netload
// checks them all, with messages naming the flags.
func (o *NetUDPOptions) udpOptions() (netload.UDPOptions, netload.Profile, error) {
	p, err := netload.LookupProfile(o.Profile)
	if err != nil {
		return netload.UDPOptions{}, p, Usagef("invalid --profile: %v", err)
	}
	var rate *float64
	var size *int
	if o.rateSet {
		rate = &o.Rate
	}
	if o.sizeSet {
		size = &o.Size
	}
	p = p.Override(rate, size)
	t, err := threadFromFlags(o.changed, o.Priority, o.RTPrio, o.CPUs, 0)
	if err != nil {
		return netload.UDPOptions{}, p, err
	}
	th := &t
	return netload.UDPOptions{To: o.To, RatePPS: p.RatePPS, Size: p.Size, Duration: o.Duration, Count: o.Count, DSCP: o.DSCP, Drain: o.Drain, Thread: th}, p, nil
}

// validate checks the flags and maps them to the probe's options
// (o.probe, o.profile), before anything runs.
func (o *NetUDPOptions) validate() error {
	uo, p, err := o.udpOptions()
	if err != nil {
		return err
	}
	if err := uo.Validate(); err != nil {
		return err
	}
	o.probe, o.profile = uo, p
	return nil
}

func runNetUDP(ctx context.Context, o *NetUDPOptions) error {
	uo, p := o.probe, o.profile
	if err := checkOutputs("", "", o.Out); err != nil {
		return err
	}
	if !o.JSON && o.Count == 0 && o.Duration >= 2*time.Second {
		uo.OnStart = func() {
			fmt.Fprintf(o.IO.Err, "sending for %s (Ctrl-C stops early) ...\n", units.Duration(o.Duration))
		}
	}
	r, err := netload.RunUDP(ctx, uo)
	if err != nil {
		return err
	}
	doc, data, err := udpDocument(r, p.Name, p.About, o.settings)
	if err != nil {
		return err
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.NetUDP(w, data) })
}

func udpDocument(r *netload.UDPResult, profile, about string, settings map[string]string) (*result.Document, *netload.UDPData, error) {
	data, notes, err := netload.NewUDPData(r, profile, about)
	if err != nil {
		return nil, nil, err
	}
	doc := netload.KindUDP.New(host.Collect(), data)
	doc.Settings = settings
	doc.Notes = append(doc.Notes, notes...)
	return doc, data, nil
}
