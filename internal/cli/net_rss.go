package cli

import (
	"github.com/spf13/cobra"
)

func newNetRSSCmd(io *IO) *cobra.Command {
	return &cobra.Command{Use: "rss-experiment", Hidden: true, RunE: func(*cobra.Command, []string) error { return Usagef("not yet") }}
}
