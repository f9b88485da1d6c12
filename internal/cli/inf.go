package cli

import (
	"context"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/inf"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(func(io *IO) *cobra.Command { return newINFCmd(io, nil) }) }

// INFOptions are the flags of `latlab inf`.
type INFOptions struct {
	IO      *IO
	File    string
	Device  string
	OS      string
	Product string
	Arch    string
	Lang    string
	RegOut  string
	JSON    bool
	// IncludeDirs: where Include= files are looked for after the INF's own
	// folder (--include-dir), before %SystemRoot%\INF on Windows.
	IncludeDirs []string

	settings map[string]string
}

// newINFCmd builds latlab inf. runF, when set, is given the options the
// argument and flags map to instead of reading the INF: the tests of the
// mapping.
func newINFCmd(io *IO, runF func(*INFOptions) error) *cobra.Command {
	o := &INFOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "inf FILE.inf",
		Short: "which advanced properties (keywords) a driver INF installs for a device, and which RSS keywords it leaves out",
		Long: `Reads a driver INF the way Windows' SetupAPI does and follows a device's install
chain: [Manufacturer] -> the models section whose TargetOSVersion decoration
best matches --os/--product/--arch -> the device's install section (with the
platform extension Windows picks) -> every AddReg= line, through Include=
(from the INF's folder, then --include-dir, then %SystemRoot%\INF on Windows)
and Needs= -> the HKR Ndi\Params\<keyword> entries (ParamDesc, type, default,
min, max, enum values) and the HKR,,<keyword> values the driver reads.

With --device it prints the keywords the device gets on that Windows and which
standardized RSS keywords (*RSSProfile, *MaxRssProcessors, *RssBaseProcNumber
...) other install sections of the same INF install but the device's does not:
the reason an adapter shows no RSS processor settings on client Windows. Each is
taken from the closest donor: the same device under another decoration (another
product type or build), then a sibling adapter whose install section installs
the same driver (in the same models section first), then any other install
section. --reg-out writes a .reg file that adds those keywords, with the donor's
Ndi\Params definitions, under the adapter's class key, with NNNN standing for
the adapter's instance number.

Without --device it lists every device ID with its install section per
decoration, marking the one Windows would use.

Decorations are ranked as Windows does: the architecture must match (on x64
only NTamd64 sections count), the OS version and build must not be newer than
--os, a product type must equal --product; among those, higher major.minor
wins, then a section with a product type, then one with a suite mask, then the
higher build.

The device's line is chosen as Windows does: from the ID given latlab builds
the device's hardware IDs (with SUBSYS and REV, with SUBSYS, with the class
code) and compatible IDs (with REV, bare, ...) and ranks every line naming
one of them as Windows does: a hardware ID of the device before a compatible
one, the line's hardware ID before its compatible IDs, then the ID earlier in
the device's list, except that where both IDs are compatible IDs the one
earlier on the line goes first.
A USB or HDAUDIO ID gets the hardware IDs Microsoft documents for its bus
and no compatible IDs; an ID of any other bus (ROOT, VMBUS, ACPI, SD,
PCMCIA ...) is matched as written. A note of the report says which.
When the ID given lacks a part (REV, SUBSYS) that decides between lines with
different install sections, latlab lists those lines instead of picking one;
when they share the matched line's install section, it lists them after the
match: Windows ranks them higher on a device whose full ID has their parts.`,
		Example: `  latlab inf e2f.inf
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03"
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" --reg-out add-rss.reg
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" --product server --json
  latlab inf netrtl.inf --lang 0407`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			if err := o.infOptions().Validate(); err != nil {
				return Usage(err)
			}
			if runF != nil {
				return runF(o)
			}
			return runINF(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Device, "device", "", `hardware ID of the device, best the first of the Hardware Ids Device Manager shows, e.g. "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" (quote it: & and \ are special to shells)`)
	fs.StringVar(&o.OS, "os", "10.0.22631", "Windows version major.minor.build to match decorations against")
	fs.StringVar(&o.Product, "product", "workstation", "workstation, server or dc")
	fs.StringVar(&o.Arch, "arch", "amd64", "amd64, x86, arm64, arm or ia64")
	fs.StringVar(&o.Lang, "lang", "", "LANGID of a localized [Strings.LANGID] section, e.g. 0407")
	fs.StringVar(&o.RegOut, "reg-out", "", "with --device: write a .reg file adding the missing RSS keywords")
	fs.StringArrayVar(&o.IncludeDirs, "include-dir", nil, `a folder holding the system INFs that Include= names, looked in after the INF's own folder (repeatable; on Windows %SystemRoot%\INF comes last)`)
	fs.BoolVar(&o.JSON, "json", false, "write JSON")
	return cmd
}

// infOptions maps the argument and flags to inf.Run's options.
func (o *INFOptions) infOptions() inf.Options {
	return inf.Options{
		File: o.File, Device: o.Device, OS: o.OS, Product: o.Product, Arch: o.Arch, Lang: o.Lang,
		Reg: o.RegOut != "", IncludeDirs: append(slices.Clone(o.IncludeDirs), inf.SystemINFDirs()...),
	}
}

func runINF(ctx context.Context, o *INFOptions) error {
	res, err := inf.Run(ctx, o.infOptions())
	if badinput.Is(err) {
		return Usage(err)
	} else if err != nil {
		return err
	}
	if o.RegOut != "" {
		if err := outfile.WriteBytes(o.RegOut, res.Reg); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeDoc(o.IO, res.Document(host.Collect()), o.settings)
	}
	humanOut(o.IO.Out, func(w io.Writer) { report.INF(w, res) })
	if o.RegOut != "" {
		report.INFRegWritten(o.IO.Out, o.RegOut, res.Device)
	}
	return nil
}
