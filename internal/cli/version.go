package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

func init() { register(func(io *IO) *cobra.Command { return newVersionCmd(io, nil) }) }

// VersionOptions are the flags of `latlab version`.
type VersionOptions struct {
	IO   *IO
	JSON bool
}

// newVersionCmd builds latlab version. runF, when set, is given the
// options the flags map to instead of printing: the tests of the mapping.
func newVersionCmd(io *IO, runF func(*VersionOptions) error) *cobra.Command {
	o := &VersionOptions{IO: io}
	c := &cobra.Command{
		Use:   "version",
		Short: "the version, commit, Go version and platform of this latlab",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
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
