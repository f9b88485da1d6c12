package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/result"
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
	cmd.AddCommand(newNetServeCmd(io), newNetUDPCmd(io), newNetTCPCmd(io), newNetRSSCmd(io))
	return cmd
}

// netErr turns netload's input errors into usage errors (exit 2).
func netErr(err error) error {
	if errors.Is(err, netload.ErrInput) {
		return Usagef("%s", netload.InputMessage(err))
	}
	return err
}

// emitDoc writes a result document to -o and/or stdout.
func emitDoc(io *IO, doc *result.Document, out string, asJSON bool) error {
	if out != "" {
		if err := result.WriteFile(out, doc); err != nil {
			return err
		}
	}
	if asJSON {
		return result.Write(io.Out, doc)
	}
	return nil
}
