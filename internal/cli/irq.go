package cli

import (
	"github.com/spf13/cobra"
)

func init() { register(newIRQCmd) }

func newIRQCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "irq",
		Short: "per-CPU interrupt, softirq and DPC counters and the network queue -> IRQ -> CPU mapping",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Usagef("irq needs a subcommand: watch")
		},
	}
	cmd.AddCommand(newIRQWatchCmd(io, nil))
	return cmd
}
