package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/units"
)

// addInputFlags binds the limits every reader of input files obeys
// (internal/infile). Each run starts from the defaults, so one command's
// flags never leak into the next run in the same process (tests).
func addInputFlags(root *cobra.Command) {
	infile.Reset()
	fs := root.PersistentFlags()
	fs.Var(maxInputValue{}, "max-input-size", "largest input file read (result documents, reports): e.g. 2GiB")
	f := fs.VarPF(specialValue{}, "allow-special-files", "", "read FIFOs, devices and other non-regular files given as input")
	f.NoOptDefVal = "true"
}

type maxInputValue struct{}

func (maxInputValue) String() string { return units.Size(infile.Max()) }
func (maxInputValue) Type() string   { return "size" }
func (maxInputValue) Set(s string) error {
	n, err := netload.ParseSize(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("want a size above zero, e.g. 2GiB")
	}
	infile.SetMax(n)
	return nil
}

type specialValue struct{}

func (specialValue) String() string { return strconv.FormatBool(infile.AllowSpecial()) }
func (specialValue) Type() string   { return "bool" }
func (specialValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	infile.SetAllowSpecial(b)
	return nil
}
