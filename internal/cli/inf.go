package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/inf"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/regfile"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(newINFCmd) }

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

	settings map[string]string
}

func newINFCmd(io *IO) *cobra.Command {
	o := &INFOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "inf FILE.inf",
		Short: "which advanced properties (keywords) a driver INF installs for a device, and which RSS keywords it leaves out",
		Long: `Reads a driver INF the way Windows' SetupAPI does and follows a device's install
chain: [Manufacturer] -> the models section whose TargetOSVersion decoration best
matches --os/--product/--arch -> the device's install section (with the platform
extension Windows picks) -> every AddReg= line, Include= and Needs= -> the HKR
Ndi\Params\<keyword> entries (ParamDesc, type, default, min, max, enum values)
and the HKR,,<keyword> values the driver reads.

With --device it prints the keywords the device gets on that Windows and which
standardized RSS keywords (*RSSProfile, *MaxRssProcessors, *RssBaseProcNumber ...)
other install sections of the same INF install but the device's does not: the
reason an adapter shows no RSS processor settings on client Windows. Each is
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
code) and compatible IDs (with REV, bare, ...), and the line whose ID comes
first in that list wins, a line's own hardware ID before its compatible IDs.
When the ID given lacks a part (REV, SUBSYS) that decides between lines with
different install sections, latlab lists those lines instead of picking one.`,
		Example: `  latlab inf e2f.inf
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03"
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" --reg-out add-rss.reg
  latlab inf e2f.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" --product server --json
  latlab inf netrtl.inf --lang 0407`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
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
	fs.BoolVar(&o.JSON, "json", false, "write JSON")
	return cmd
}

// parseINF reads and parses the INF at path.
func parseINF(path string) (*inf.File, error) {
	fh, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return inf.Parse(fh, filepath.Base(path))
}

// readINF parses an INF; every failure is bad input (exit 2) naming the
// file and line.
func readINF(path string) (*inf.File, error) {
	f, err := parseINF(path)
	var pe *inf.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, Usagef("%s: %v", path, err)
	case err != nil:
		return nil, Usagef("cannot read %s: %v", path, unwrapPathErr(err))
	}
	return f, nil
}

func runINF(_ context.Context, o *INFOptions) error {
	t, err := inf.ParseTarget(o.OS, o.Product, o.Arch)
	if err != nil {
		return Usagef("invalid --os/--product/--arch: %v", err)
	}
	if o.RegOut != "" && o.Device == "" {
		return Usagef("--reg-out needs --device: the .reg file adds one device's missing keywords")
	}
	f, err := readINF(o.File)
	if err != nil {
		return err
	}
	if o.Lang != "" && f.Section("Strings."+o.Lang) == nil {
		return Usagef("%s has no [Strings.%s]; its languages: %s", o.File, o.Lang, orNone(f.Languages()))
	}
	dir := filepath.Dir(o.File)
	load := func(name string) (*inf.File, error) { // Include= files, next to the INF
		p := filepath.Join(dir, filepath.Base(name))
		g, err := parseINF(p)
		var pe *inf.ParseError
		switch {
		case errors.As(err, &pe):
			return nil, fmt.Errorf("%s: %v", filepath.Base(p), err)
		case err != nil:
			return nil, fmt.Errorf("not found next to %s", filepath.Base(o.File))
		}
		return g, nil
	}
	if o.Device == "" {
		l, err := inf.List(f, t, o.Lang, load)
		if err != nil {
			return Usagef("%s: %v", o.File, err)
		}
		if o.JSON {
			return writeDoc(o.IO, inf.KindList.New(l), o.settings)
		}
		printListing(o.IO.Out, f, l)
		return nil
	}
	rep, err := inf.Analyze(f, o.Device, t, o.Lang, load)
	if err != nil {
		return Usagef("%s: %v", o.File, err)
	}
	if o.RegOut != "" {
		if len(rep.MissingRSS) == 0 {
			return Usagef("%s: no RSS keyword that another install section of this INF installs is missing for %s on this Windows; no .reg file written", o.File, o.Device)
		}
		var b bytes.Buffer
		if _, err := inf.WriteReg(&b, rep); err != nil {
			return err
		}
		if err := os.WriteFile(o.RegOut, regfile.Encode(b.String()), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", o.RegOut, err)
		}
	}
	if o.JSON {
		return writeDoc(o.IO, inf.KindDevice.New(rep), o.settings)
	}
	printDevice(o.IO.Out, f, rep)
	if o.RegOut != "" {
		fmt.Fprint(o.IO.Out, "\n"+wrapText("", fmt.Sprintf("wrote %s: adds %s under the adapter's subkey %s of the network class key (replace %s with it; the file says how to find it)",
			o.RegOut, strings.Join(rep.MissingRSS, ", "), inf.InstancePlaceholder, inf.InstancePlaceholder)))
	}
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func targetLine(t inf.Target) string {
	return fmt.Sprintf("Windows %d.%d.%d %s %s", t.Major, t.Minor, t.Build, inf.ProductName(t.ProductType), t.Arch)
}

func printListing(w io.Writer, f *inf.File, l *inf.Listing) {
	fmt.Fprintf(w, "latlab inf: %s (%s, %d lines)\nmatching for %s\n", l.File, f.Encoding, f.Lines, targetLine(l.Target))
	for _, m := range l.Manufacturers {
		fmt.Fprintf(w, "\nmanufacturer %s\n", m.Name)
		for _, s := range m.Sections {
			mark := "  "
			state := "not used: " + s.Reason
			switch {
			case s.Chosen:
				mark, state = "=>", "used on this Windows"
			case s.Applies:
				state = "applies, but a closer match wins"
			}
			fmt.Fprint(w, "\n"+wrapText("", fmt.Sprintf("%s [%s]  %s; %s", mark, s.Section, s.Describe, state)))
			if !s.Exists {
				continue
			}
			rows := [][]string{}
			for _, d := range s.Devices {
				for i, id := range d.HardwareIDs {
					inst := d.InstallSection
					if i > 0 {
						inst = "(compatible ID)"
					}
					rows = append(rows, []string{"   " + id, inst, fmt.Sprint(d.Line)})
				}
			}
			if len(rows) > 0 {
				report.TableLeft(w, []string{"   hardware ID", "install section", "line"}, rows)
			}
		}
	}
	for _, n := range l.Notes {
		fmt.Fprint(w, wrapText("", "note: "+n))
	}
}

func printDevice(w io.Writer, f *inf.File, r *inf.DeviceReport) {
	fmt.Fprintf(w, "latlab inf: %s (%s) on %s\ndevice %s\n", r.File, f.Encoding, targetLine(r.Target), r.Device)
	if r.Model != nil {
		fmt.Fprint(w, wrapText("", fmt.Sprintf("manufacturer %s -> [%s] (%s) -> %q line %d -> install section [%s]",
			r.Manufacturer, r.ModelsSection, inf.DecorationName(r.Decoration), r.Model.Description, r.Model.Line, r.InstallSection)))
	}
	if m := r.Match; m != nil {
		fmt.Fprint(w, wrapText("", fmt.Sprintf("matched %s: %s (rank 0x%04X)", m.INFID, m.Kind(), m.Rank)))
	}
	rows := [][]string{}
	for _, k := range r.Keywords {
		vals := []string{}
		for _, v := range k.Values {
			vals = append(vals, v.Value+"="+v.Desc)
		}
		rng := strings.Join(vals, ", ")
		if rng == "" && (k.Min != "" || k.Max != "") {
			rng = k.Min + ".." + k.Max
			if k.Step != "" && k.Step != "1" {
				rng += " step " + k.Step
			}
		}
		def := k.Default
		if k.Value != nil && k.Value.Data != k.Default {
			def += " (installs " + k.Value.Data + ")"
		}
		name := k.Name
		if inf.IsRSS(k.Name) {
			name += " (RSS)"
		}
		rows = append(rows, []string{name, k.Type, def, rng, k.ParamDesc})
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "\nkeywords (%d):\n", len(rows))
		report.TableLeft(w, []string{"keyword", "type", "default", "values", "shown as"}, rows)
	}
	fmt.Fprint(w, "\n"+wrapText("", "RSS keywords installed: "+orNone(r.RSS)))
	if len(r.MissingRSS) > 0 {
		fmt.Fprintf(w, "missing here, installed by other install sections of this INF:\n")
		for _, d := range r.Donors {
			fmt.Fprintf(w, "  [%s]\n", d.InstallSection)
			fmt.Fprint(w, wrapText("    ", d.RelationText()))
			fmt.Fprint(w, wrapList("    ", d.Keywords))
		}
	} else if r.Model != nil {
		fmt.Fprintln(w, "no RSS keyword that another install section of this INF installs is missing here")
	}
	if len(r.NotInINF) > 0 {
		fmt.Fprint(w, wrapText("", "in no install section of this INF: "+strings.Join(r.NotInINF, ", ")))
	}
	if op := r.OtherProduct; op != nil && op.Decoration != r.Decoration {
		fmt.Fprintf(w, "on %s Windows of the same version:\n  [%s] ", inf.ProductName(op.ProductType), inf.DecorationName(op.Decoration))
		if op.ListsDevice {
			fmt.Fprintf(w, "-> [%s], RSS keywords:\n%s", op.InstallSection, wrapList("  ", op.RSS))
		} else {
			fmt.Fprintln(w, "does not list the device")
		}
	}
	fmt.Fprintf(w, "\nthe device in every decoration:\n")
	drows := [][]string{}
	for _, d := range r.Decorations {
		mark := ""
		switch {
		case d.Chosen:
			mark = "used"
		case d.Applies:
			mark = "applies, outranked"
		default:
			mark = d.Reason
		}
		drows = append(drows, []string{inf.DecorationName(d.Decoration), d.InstallSection, fmt.Sprint(len(d.RSS)), mark})
	}
	report.TableLeft(w, []string{"decoration", "install section", "RSS keywords", "on this Windows"}, drows)
	for _, n := range r.Notes {
		fmt.Fprint(w, wrapText("", "note: "+n))
	}
}

// wrapList joins items with ", " in lines of at most 80 columns, each
// starting with indent.
func wrapList(indent string, items []string) string {
	if len(items) == 0 {
		return indent + "none\n"
	}
	var b strings.Builder
	line := indent
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if line != indent && len(line)+1+len(it) > 80 {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	b.WriteString(line + "\n")
	return b.String()
}

// wrapText breaks text at spaces into lines of at most 80 columns; lines
// after the first are indented two more columns.
func wrapText(indent, text string) string {
	var b strings.Builder
	line, next := indent, indent
	if indent == "" {
		next = "  "
	}
	for _, word := range strings.Fields(text) {
		if line != indent && line != next && len(line)+1+len(word) > 80 {
			b.WriteString(line + "\n")
			line = next
		}
		if line != indent && line != next {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}
