package cli

import (
	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/report"
)

func init() { register(newNetCmd) }

func newNetCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "net",
		Short: "network load: UDP latency/jitter probes, TCP bulk sends with live TCP state, servers, RSS experiment",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Usagef("net needs a subcommand: serve, udp, tcp-discard or rss-experiment")
		},
	}
	cmd.AddCommand(newNetServeCmd(io, nil), newNetUDPCmd(io, nil), newNetTCPCmd(io, nil), newNetRSSCmd(io, nil))
	return cmd
}

// checkOutputs checks before a long run that every file it will write can
// be written, and that the plot's name (given with plotFlag) asks for a
// format latlab draws (.svg or .png); writePlot renders it at the end.
func checkOutputs(plotFlag, plot string, files ...string) error {
	if plot != "" {
		if _, err := report.PlotFormat(plot); err != nil {
			return Usagef("invalid %s: %v", plotFlag, err)
		}
	}
	for _, p := range append([]string{plot}, files...) {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	return nil
}
