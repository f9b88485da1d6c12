package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/inf"
	"github.com/latlab/latlab/internal/textwrap"
)

// INF prints what `latlab inf` found: the listing of every device, or
// one device's keywords and the RSS keywords it lacks.
func INF(w io.Writer, r *inf.Result) {
	if r.Device != nil {
		INFDevice(w, r.File, r.Device)
		return
	}
	INFListing(w, r.File, r.Listing)
}

// INFRegWritten says what the .reg file written to path adds, and where.
func INFRegWritten(w io.Writer, path string, r *inf.DeviceReport) {
	fmt.Fprint(w, "\n"+infWrapText("", fmt.Sprintf("wrote %s: adds %s under the adapter's subkey %s of the network class key (replace %s with it; the file says how to find it)",
		path, strings.Join(r.MissingRSS, ", "), inf.InstancePlaceholder, inf.InstancePlaceholder)))
}

func infOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func infTarget(t inf.Target) string {
	return fmt.Sprintf("Windows %d.%d.%d %s %s", t.Major, t.Minor, t.Build, inf.ProductName(t.ProductType), t.Arch)
}

// INFListing prints every device ID with its install section per
// decoration, marking the decoration Windows would use.
func INFListing(w io.Writer, f *inf.File, l *inf.Listing) {
	fmt.Fprint(w, infWrapText("", fmt.Sprintf("latlab inf: %s (%s, %d lines)", l.File, f.Encoding, f.Lines)))
	fmt.Fprintf(w, "matching for %s\n", infTarget(l.Target))
	for _, m := range l.Manufacturers {
		fmt.Fprint(w, "\n"+infWrapText("", "manufacturer "+m.Name))
		for _, s := range m.Sections {
			mark := "  "
			state := "not used: " + s.Reason
			switch {
			case s.Chosen:
				mark, state = "=>", "used on this Windows"
			case s.Applies:
				state = "applies, but a closer match wins"
			}
			head := fmt.Sprintf("%s [%s]  ", mark, s.Section)
			if s.Describe != "" {
				// a plain NT has no architecture or version to describe:
				// the state follows its name, without an empty part before
				head += s.Describe + "; "
			}
			fmt.Fprint(w, "\n"+infWrapText("", head+state))
			if !s.Exists {
				continue
			}
			rows := [][]string{}
			for _, d := range s.Devices {
				if d.NoHardwareID {
					// the line's hardware ID field is empty: its IDs
					// are all compatible IDs
					rows = append(rows, []string{"   (none)", d.InstallSection, fmt.Sprint(d.Line)})
				}
				for i, id := range d.HardwareIDs {
					inst := d.InstallSection
					if i > 0 || d.NoHardwareID {
						inst = "(compatible ID)"
					}
					rows = append(rows, []string{"   " + id, inst, fmt.Sprint(d.Line)})
				}
			}
			switch {
			case len(rows) > 0 && infWidest(rows, 0)+infWidest(rows, 1)+infWidest(rows, 2)+6 > infCols(w):
				// An ID and its install section side by side do not fit
				// (Cirrus Logic's CL_Audio.inf: 59-character HDAUDIO IDs,
				// 40-character install sections): the install section
				// goes under its ID, and IDs and names stay whole.
				var stacked [][]string
				for _, r := range rows {
					stacked = append(stacked, []string{r[0], r[2]}, []string{"     -> " + r[1], ""})
				}
				infTable(w, []string{"   hardware ID -> install section", "line"}, stacked, []int{infWidest(stacked, 0), 0})
			case len(rows) > 0:
				infTable(w, []string{"   hardware ID", "install section", "line"}, rows, nil)
			case s.Chosen:
				// Marvell's yk60x64.inf: an empty [Marvell.NTamd64.6.1]
				// keeps the devices of [Marvell.NTamd64.6.0] off Windows 7
				// and later
				fmt.Fprint(w, infWrapText("   ", "lists no device: this INF installs none on this Windows"))
			}
		}
	}
	for _, n := range l.Notes {
		fmt.Fprint(w, infWrapText("", "note: "+n))
	}
}

// INFDevice prints one device's install chain, its keywords, the RSS
// keywords other install sections give and it lacks, and the device in
// every decoration.
func INFDevice(w io.Writer, f *inf.File, r *inf.DeviceReport) {
	fmt.Fprint(w, infWrapText("", fmt.Sprintf("latlab inf: %s (%s) on %s", r.File, f.Encoding, infTarget(r.Target))))
	fmt.Fprint(w, infWrapText("", "device "+r.Device))
	if r.NotInstalled != "" {
		// the answer first: the RSS lines below are all "none"
		fmt.Fprint(w, infWrapText("", "not installed: "+r.NotInstalled))
	}
	if r.Model != nil {
		fmt.Fprint(w, infWrapText("", fmt.Sprintf("manufacturer %s -> [%s] (%s) -> %q line %d -> install section [%s]",
			r.Manufacturer, r.ModelsSection, inf.DecorationName(r.Decoration), r.Model.Description, r.Model.Line, r.InstallSection)))
	}
	if m := r.Match; m != nil {
		fmt.Fprint(w, infWrapText("", fmt.Sprintf("matched %s: %s (rank 0x%04X)", m.INFID, m.Kind(), m.Rank)))
		infOutranked(w, m)
	}
	rows := [][]string{}
	for _, k := range r.Keywords {
		var items []string
		for _, v := range infValues(k) { // "1=Tx Enabled" whole on a line where it fits
			items = append(items, wholeItem(v))
		}
		rng := strings.Join(items, ", ")
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
		// The keyword names the row and stays whole up to 28 columns
		// (*TCPUDPChecksumOffloadIPv4 is 26); the values and the
		// description wrap down to 12 columns, breaking a long word
		// (Broadcom's "Ethernet@WireSpeed") before a column is left out.
		infTable(w, []string{"keyword", "type", "default", "values", "shown as"}, rows,
			[]int{min(infWidest(rows, 0), 28), 0, 10, 12, 12})
	}
	fmt.Fprint(w, "\n"+infWrapText("", "RSS keywords installed: "+infOrNone(r.RSS)))
	if len(r.MissingRSS) > 0 {
		fmt.Fprintf(w, "missing here, installed by other install sections of this INF:\n")
		for _, d := range r.Donors {
			fmt.Fprint(w, infWrapText("  ", "["+d.InstallSection+"]"))
			fmt.Fprint(w, infWrapText("    ", d.RelationText()))
			fmt.Fprint(w, infWrapList("    ", d.Keywords))
		}
	} else if r.Model != nil {
		fmt.Fprintln(w, "no RSS keyword that another install section of this INF installs is missing here")
	}
	if len(r.NotInINF) > 0 {
		fmt.Fprint(w, infWrapText("", "in no install section of this INF: "+strings.Join(r.NotInINF, ", ")))
	}
	if op := r.OtherProduct; op != nil && op.Decoration != r.Decoration {
		fmt.Fprintf(w, "on %s Windows of the same version:\n", inf.ProductName(op.ProductType))
		if op.ListsDevice {
			fmt.Fprint(w, infWrapText("  ", fmt.Sprintf("[%s] -> [%s], RSS keywords:", inf.DecorationName(op.Decoration), op.InstallSection)))
			fmt.Fprint(w, infWrapList("  ", op.RSS))
		} else {
			fmt.Fprint(w, infWrapText("  ", fmt.Sprintf("[%s] does not list the device", inf.DecorationName(op.Decoration))))
		}
	}
	fmt.Fprintf(w, "\nthe device in every decoration (RSS: how many RSS keywords it gets):\n")
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
	// A decoration stays whole up to 28 columns, an install section up to
	// what the other columns leave at their narrowest (Cirrus Logic's are
	// 40 long); the last column is prose.
	dec := min(infWidest(drows, 0), 28)
	room := infCols(w) - 8 - dec - len("RSS") - 12
	infTable(w, []string{"decoration", "install section", "RSS", "on this Windows"}, drows,
		[]int{dec, max(12, min(infWidest(drows, 1), room)), 0, 12})
	for _, n := range r.Notes {
		if n != r.NotInstalled { // said first
			fmt.Fprint(w, infWrapText("", "note: "+n))
		}
	}
}

// infWidth is the width inf's text keeps to: 80 columns, or the
// terminal's when it is narrower. A wider terminal, or none (a pipe, a
// file), gets 80 columns too: a real INF's keywords, values and
// descriptions make a table of 250 columns at full width; --json has
// every value whole.
const infWidth = 80

// infTable writes a table fitted to infWidth, or to w's width when that
// is narrower, as TableLeft does (text columns wrap, then columns are
// left out from the right), each column narrowed no further than its
// floor (0: its longest word, see tableSpec).
func infTable(w io.Writer, header []string, rows [][]string, floor []int) {
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = make([]string, len(r))
		for j, c := range r {
			safe[i][j] = safeText(c)
		}
	}
	tableSpec{header: header, rows: safe, floor: floor}.write(WithWidth(w, infCols(w)))
}

// infCols is the width inf's tables fit: infWidth, or w's width when that
// is narrower.
func infCols(w io.Writer) int {
	cols := WidthOf(w)
	if cols <= 0 || cols > infWidth {
		cols = infWidth
	}
	return cols
}

// infWidest is the width of column i's widest cell.
func infWidest(rows [][]string, i int) int {
	n := 0
	for _, r := range rows {
		n = max(n, text.StringWidthWithoutEscSequences(cell(r, i)))
	}
	return n
}

// infMaxValues is how many of an enum's values the keyword table shows:
// Broadcom's bcmwl63.inf has a Country keyword of 98 countries, which
// took 85 lines; the JSON has them all.
const infMaxValues = 12

// infValues are an enum keyword's values as the table shows them: up to
// infMaxValues, the default among them, and a count of the rest.
func infValues(k inf.Keyword) []string {
	var out []string
	hidden := 0
	for i, v := range k.Values {
		if i < infMaxValues-1 || len(k.Values) <= infMaxValues || v.Value == k.Default {
			out = append(out, v.Value+"="+v.Desc)
			continue
		}
		hidden++
	}
	if hidden > 0 {
		out = append(out, fmt.Sprintf("and %d more (--json)", hidden))
	}
	return out
}

// infOutranked says which lines would outrank the match on a device whose
// full ID has the parts the ID given lacks: the first three, the rest
// counted (a Broadcom INF lists dozens of SUBSYS lines for one DEV).
func infOutranked(w io.Writer, m *inf.Match) {
	if len(m.OutrankedBy) == 0 {
		return
	}
	var needs []string
	for _, o := range m.OutrankedBy {
		for _, n := range o.Needs {
			if !slices.Contains(needs, n) {
				needs = append(needs, n)
			}
		}
	}
	lines, them := "this line names", "it"
	if len(m.OutrankedBy) > 1 {
		lines, them = "these lines name", "them"
	}
	lacks := strings.Join(needs, " and ")
	fmt.Fprint(w, infWrapText("", fmt.Sprintf("the ID given lacks %s: on a device whose full ID has the %s %s, Windows ranks %s above the matched line, with the same install section:",
		lacks, lacks, lines, them)))
	for i, o := range m.OutrankedBy {
		if i == 3 {
			fmt.Fprint(w, infWrapText("  ", fmt.Sprintf("and %d more (--json)", len(m.OutrankedBy)-i)))
			break
		}
		fmt.Fprint(w, infWrapText("  ", fmt.Sprintf("line %d %s (rank 0x%04X)", o.Line, o.INFID, o.Rank)))
	}
}

// infWrapList joins items with ", " in lines of at most 80 columns, each
// starting with indent (textwrap.List: an item is never cut).
func infWrapList(indent string, items []string) string {
	if len(items) == 0 {
		return indent + "none\n"
	}
	safe := make([]string, len(items))
	for i, it := range items {
		safe[i] = safeText(it)
	}
	return strings.Join(textwrap.List(indent, safe, 80), "\n") + "\n"
}

// infWrapText breaks text at spaces into lines of at most 80 columns
// (textwrap.Hanging); lines after the first keep indent, or are indented two
// columns when there is none. Control characters are escaped first
// (safeText): an INF's section names and strings can hold them (SetupAPI
// reads "[Test\r\b\tSection]"), and they are measured as printed.
func infWrapText(indent, text string) string {
	text = safeText(text)
	if strings.TrimSpace(text) == "" {
		return indent + "\n"
	}
	next := len(indent)
	if indent == "" {
		next = 2
	}
	return strings.Join(textwrap.Hanging(indent+strings.Join(strings.Fields(text), " "), next, 80), "\n") + "\n"
}
