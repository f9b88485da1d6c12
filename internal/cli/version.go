package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

func init() { register(newVersionCmd) }

// VersionOptions are the flags of `latlab version`.
type VersionOptions struct {
	IO   *IO
	JSON bool
}

func newVersionCmd(io *IO) *cobra.Command {
	o := &VersionOptions{IO: io}
	c := &cobra.Command{
		Use:   "version",
		Short: "the version, commit, Go version and platform of this latlab",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(o, buildinfo.Get())
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the facts as JSON")
	return c
}

func runVersion(o *VersionOptions, in buildinfo.Info) error {
	if o.JSON {
		return writeDoc(o.IO, result.KindVersion.New(host.Collect(), &in), nil)
	}
	_, err := fmt.Fprint(o.IO.Out, in.Long())
	return err
}
