package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/dscp"
	"github.com/latlab/latlab/internal/report"
)

func init() {
	pcapSubcommands = append(pcapSubcommands, func(io *IO) *cobra.Command { return newPcapDSCPCmd(io, nil) })
}

// KindPcapDSCP is the document `latlab pcap dscp --json` writes.
var KindPcapDSCP = dscp.Kind

// PcapDSCPOptions are the flags of `latlab pcap dscp`.
type PcapDSCPOptions struct {
	IO     *IO
	File   string
	Expect string
	pcapInput

	settings map[string]string
}

// newPcapDSCPCmd builds latlab pcap dscp. runF, when set, is given the
// options the flags map to instead of reading the capture: the tests of
// the mapping.
func newPcapDSCPCmd(io *IO, runF func(*PcapDSCPOptions) error) *cobra.Command {
	o := &PcapDSCPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "dscp FILE",
		Short: "DSCP and ECN marking per flow: is my QoS policy working?",
		Long: `Counts, per flow and direction (5-tuple), the packets and bytes, the DSCP
values seen (with their names: CS0-CS7, AF11-AF43, EF, VOICE-ADMIT, LE),
the ECN codepoints (Not-ECT, ECT(0), ECT(1), CE), first and last time and,
for pcapng files converted by etl2pcapng, the process ids in the packet
comments.

--expect DSCP checks that every packet matching --filter carries that DSCP
value and exits 1, listing the offending flows, when one does not (or when
no packet matches): the scriptable "is my QoS policy working?" check.`,
		Example: `  latlab pcap dscp capture.pcapng
  latlab pcap dscp capture.pcap --filter "src 10.0.0.5 udp port 3074" --expect EF
  latlab pcap dscp capture.pcap --json | jq '.flows[] | {src, dst, dscp}'`,
		Args: o.pcapInput.fileArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runPcapDSCP(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Expect, "expect", "", "DSCP every matching packet must carry: 0-63 or a name (EF, AF41, CS1, ...); exit 1 if not")
	o.pcapInput.bind(cmd, "only flows matching a tcpdump filter, e.g. \"dst port 7007 and not host 10.0.0.1\" (host, net, port, portrange, src/dst, ip/ip6/tcp/udp/icmp, and/or/not, parentheses)")
	return cmd
}

// validate checks the flags before anything runs.
func (o *PcapDSCPOptions) validate() error {
	if err := o.pcapInput.validate(); err != nil {
		return err
	}
	if o.Expect != "" {
		if _, err := capture.ParseDSCP(o.Expect); err != nil {
			return Usagef("invalid --expect: %v", err)
		}
	}
	return nil
}

func runPcapDSCP(ctx context.Context, o *PcapDSCPOptions) error {
	opt := o.options(ctx)
	res, err := dscp.Run(ctx, dscp.Options{
		Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			opt.Context = ctx
			return o.scan(o.File, opt, h)
		},
		Filter: o.filter, FilterText: o.Filter, Expect: o.Expect,
	})
	if err != nil {
		var ee *dscp.ExpectError
		if errors.As(err, &ee) {
			return Usagef("invalid --expect: %v", ee.Err)
		}
		return err
	}
	st := res.Capture
	if err := o.emit(o.IO, KindPcapDSCP, o.settings, &res.Data, st.Notes(), func(w io.Writer) { report.DSCP(w, o.File, res) }, nil); err != nil {
		return err
	}
	if err := readErrorExit(o.File, st); err != nil {
		return err
	}
	if want := res.Expect; !res.Met() {
		if want.Matched == 0 {
			return &ExpectationError{Msg: fmt.Sprintf("expected DSCP %s, but no packet matched %s", want.Name, filterLabel(o.Filter))}
		}
		errProse(o.IO.Err, func(w io.Writer) { report.DSCPShortfall(w, res) })
		return &ExpectationError{Msg: fmt.Sprintf("DSCP expectation failed: %d of %d matching packets not marked %s", want.Offending, want.Matched, want.Name)}
	}
	return nil
}

func filterLabel(f string) string {
	if f == "" {
		return "(no filter: the file has no IP packets)"
	}
	return "--filter " + strconv.Quote(f)
}
