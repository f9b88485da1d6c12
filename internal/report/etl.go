package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/latlab/latlab/internal/etl"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

// ETL prints what `latlab etl` found in a trace, within 80 columns. The
// trace's own text (logger, provider, event and image names, notes) and
// the file's name are escaped (safeText) before they are laid out: the
// columns and the wrapped lines are measured as they print.
func ETL(w io.Writer, s *etl.Summary) {
	h := s.Header
	fmt.Fprintf(w, "latlab etl: %s\n\n", safeText(s.File))
	ptr := "?"
	if h.PointerSize > 0 {
		ptr = strconv.Itoa(int(h.PointerSize*8)) + "-bit"
	}
	rows := [][]string{
		{"Windows", fmt.Sprintf("%s build %d, %s", h.OS, h.Build, ptr)},
		{"CPUs", fmt.Sprintf("%d at %d MHz", h.CPUs, h.CPUSpeedMHz)},
		{"clock", fmt.Sprintf("%s, %d Hz; timer resolution %s ms", h.Clock, h.ClockFrequency, strconv.FormatFloat(h.TimerResolution, 'f', -1, 64))},
		{"logger", safeText(h.LoggerName)},
		{"start", etlTime(h.Start)},
		{"end", fmt.Sprintf("%s (%s)", etlTime(h.End), etlSpan(h.Start, h.End))},
		{"buffers", fmt.Sprintf("%d read of %d bytes, %d written, %d compressed, %d damaged", h.Buffers, h.BufferSize, h.BuffersWritten, h.CompressedBufs, h.DamagedBuffers)},
		{"lost", fmt.Sprintf("%d events, %d buffers", h.EventsLost, h.BuffersLost)},
		{"events", strconv.FormatInt(s.Events, 10)},
	}
	for _, r := range rows {
		writeHanging(w, fmt.Sprintf("%-9s %s", r[0], r[1]), 10)
	}
	fmt.Fprintf(w, "\nevents per provider or kernel class (%d)\n", len(s.Providers))
	for _, p := range s.Providers {
		g := p.GUID
		if g == "00000000-0000-0000-0000-000000000000" && p.Kernel {
			g = "(no class GUID known)"
		}
		fmt.Fprintf(w, "  %-36s %s %10d\n", g, nameCell(p.Name, 24), p.Events)
		label, cs := "ids", p.IDs
		if len(p.Opcodes) > 0 {
			label, cs = "opcodes", p.Opcodes
		}
		var parts []string
		for _, c := range cs {
			if c.Name != "" {
				parts = append(parts, fmt.Sprintf("%d %s: %d", c.Value, Clip(safeText(c.Name), 24), c.Events))
				continue
			}
			parts = append(parts, fmt.Sprintf("%d: %d", c.Value, c.Events))
		}
		if len(parts) > 0 {
			// "id: count" pairs stay whole: a line never ends on "158:"
			for _, l := range textwrap.List(label+" ", parts, 80-4) {
				fmt.Fprintln(w, "    "+l)
			}
		}
	}
	fmt.Fprintf(w, "\nkernel modules from Image events (%d)\n", len(s.Modules))
	for _, m := range s.Modules {
		fmt.Fprintf(w, "  %s %#18x %10d\n", nameCell(m.Name, 40), m.Base, m.Size)
	}
	if len(s.TCP) > 0 {
		fmt.Fprintf(w, "\nTCP/IP events per connection (%d)\n", len(s.TCP))
		for _, c := range s.TCP {
			writeHanging(w, fmt.Sprintf("  %s -> %s: %d events", safeText(c.Local), safeText(c.Remote), c.Events), 6)
			names := make([]string, 0, len(c.Counts))
			for n := range c.Counts {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(w, "    %s %d\n", padCols(safeText(n), 34), c.Counts[n])
			}
		}
	}
	fmt.Fprintln(w)
	if len(s.Uses) == 0 {
		fmt.Fprintln(w, "no latlab command reads this trace's events (dpcisr needs PerfInfo DPC/ISR")
		fmt.Fprintln(w, "or PageFault HardFault events, pcap needs NDIS-PacketCapture or PktMon")
		fmt.Fprintln(w, "events)")
	} else {
		fmt.Fprintln(w, "latlab commands that read this trace")
		for _, u := range s.Uses {
			for _, l := range textwrap.Hanging(fmt.Sprintf("%s: %s", u.Command, u.Reads), 4, 78) {
				fmt.Fprintln(w, "  "+l)
			}
		}
	}
	for _, n := range s.Notes {
		writeHanging(w, "note: "+safeText(n), 6)
	}
}

func etlTime(t time.Time) string {
	if t.IsZero() {
		return "not recorded"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000000 UTC")
}

func etlSpan(a, b time.Time) string {
	if a.IsZero() || b.IsZero() || b.Before(a) {
		return "span unknown"
	}
	return units.Duration(b.Sub(a))
}
