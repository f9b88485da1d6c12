package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
)

func init() { pcapSubcommands = append(pcapSubcommands, newPcapDSCPCmd) }

// KindPcapDSCP is the document `latlab pcap dscp --json` writes. Older
// documents kept the flows at the top level; Moved reads them.
var KindPcapDSCP = result.Register[dscpData]("pcap-dscp", "DSCP and ECN marks per flow in a capture, and whether they met --expect (latlab pcap dscp)",
	result.Moved("flows"))

// PcapDSCPOptions are the flags of `latlab pcap dscp`.
type PcapDSCPOptions struct {
	IO     *IO
	File   string
	Expect string
	pcapInput

	settings map[string]string
}

func newPcapDSCPCmd(io *IO) *cobra.Command {
	o := &PcapDSCPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "dscp FILE",
		Short: "DSCP and ECN marking per flow: is my QoS policy working?",
		Long: `Counts, per flow and direction (5-tuple), the packets and bytes, the DSCP
values seen (with their names: CS0-CS7, AF11-AF43, EF, VOICE-ADMIT, LE),
the ECN codepoints (Not-ECT, ECT(0), ECT(1), CE), first and last time and,
for pcapng files converted by etl2pcapng, the process ids in the packet
comments.

--expect DSCP checks that every packet matching --filter carries that DSCP
value and exits 1, listing the offending flows, when one does not (or when
no packet matches): the scriptable "is my QoS policy working?" check.`,
		Example: `  latlab pcap dscp capture.pcapng
  latlab pcap dscp capture.pcap --filter "src 10.0.0.5 udp port 3074" --expect EF
  latlab pcap dscp capture.pcap --json | jq '.flows[] | {src, dst, dscp}'`,
		Args: o.pcapInput.fileArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			return runPcapDSCP(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Expect, "expect", "", "DSCP every matching packet must carry: 0-63 or a name (EF, AF41, CS1, ...); exit 1 if not")
	o.pcapInput.bind(cmd, "only flows matching: host|src|dst ADDR[/BITS], port|sport|dport N, tcp, udp, icmp, proto N")
	return cmd
}

// dscpFlowJSON is one flow direction in --json.
type dscpFlowJSON struct {
	Src       string            `json:"src"`
	Dst       string            `json:"dst"`
	Sport     uint16            `json:"sport"`
	Dport     uint16            `json:"dport"`
	Proto     string            `json:"proto"`
	Packets   uint64            `json:"packets"`
	Bytes     uint64            `json:"bytes"`
	DSCP      map[string]uint64 `json:"dscp"`
	DSCPNames map[string]string `json:"dscp_names"`
	ECN       map[string]uint64 `json:"ecn"`
	First     string            `json:"first"`
	Last      string            `json:"last"`
	FirstRel  float64           `json:"first_s"`
	LastRel   float64           `json:"last_s"`
	PIDs      map[string]uint64 `json:"pids,omitempty"`
	VLANs     map[string]uint64 `json:"vlans,omitempty"`
	Offending bool              `json:"offending,omitempty"`
}

// dscpData is the document's data: how the capture was read, the filter,
// the expectation and the flows.
type dscpData struct {
	Capture *capture.Stats `json:"capture"`
	Filter  string         `json:"filter,omitempty"`
	Expect  *dscpExpect    `json:"expect,omitempty"`
	Flows   []dscpFlowJSON `json:"flows"`
}

type dscpExpect struct {
	DSCP      uint8  `json:"dscp"`
	Name      string `json:"name"`
	Matched   uint64 `json:"matched_packets"`
	Offending uint64 `json:"offending_packets"`
	OK        bool   `json:"ok"`
}

func runPcapDSCP(ctx context.Context, o *PcapDSCPOptions) error {
	opt, err := o.options(ctx)
	if err != nil {
		return err
	}
	var want *dscpExpect
	if o.Expect != "" {
		v, err := capture.ParseDSCP(o.Expect)
		if err != nil {
			return Usagef("invalid --expect: %v", err)
		}
		want = &dscpExpect{DSCP: v, Name: dscpLabel(v)}
	}
	tab := capture.NewFlowTable()
	st, err := scanFile(o.File, opt, func(rec *capture.Record, p *capture.Packet) { tab.Add(rec, p) })
	if err != nil {
		return err
	}
	var flows []*capture.FlowStats
	for _, f := range tab.Flows() {
		if o.filter.Match(f.Key) {
			flows = append(flows, f)
		}
	}
	var offending []*capture.FlowStats
	if want != nil {
		for _, f := range flows {
			want.Matched += f.Packets
			if bad := f.Packets - f.DSCP[want.DSCP]; bad > 0 {
				want.Offending += bad
				offending = append(offending, f)
			}
		}
		want.OK = want.Matched > 0 && want.Offending == 0
	}
	isOff := map[*capture.FlowStats]bool{}
	for _, f := range offending {
		isOff[f] = true
	}
	js := make([]dscpFlowJSON, 0, len(flows))
	for _, f := range flows {
		js = append(js, flowJSON(f, st.FirstNs, isOff[f]))
	}
	data := &dscpData{Capture: st, Filter: o.Filter, Expect: want, Flows: js}
	if err := o.emit(o.IO, KindPcapDSCP, o.settings, data, st.Notes(), func(w io.Writer) { printDSCP(w, o, st, flows, isOff) }, nil); err != nil {
		return err
	}
	if err := readErrorExit(o.File, st); err != nil {
		return err
	}
	if want != nil && !want.OK {
		if want.Matched == 0 {
			return &ExpectationError{Msg: fmt.Sprintf("expected DSCP %s, but no packet matched %s", want.Name, filterLabel(o.Filter))}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "expected DSCP %s on every matching packet; %d of %d are marked otherwise, in %d flow(s):", want.Name, want.Offending, want.Matched, len(offending))
		for _, f := range offending {
			fmt.Fprintf(&b, " %s [%s];", flowLabel(f.Key), dscpSummary(f))
		}
		fmt.Fprintln(o.IO.Err, strings.TrimSuffix(b.String(), ";"))
		return &ExpectationError{Msg: fmt.Sprintf("DSCP expectation failed: %d of %d matching packets not marked %s", want.Offending, want.Matched, want.Name)}
	}
	return nil
}

func filterLabel(f string) string {
	if f == "" {
		return "(no filter: the file has no IP packets)"
	}
	return "--filter " + strconv.Quote(f)
}

func dscpLabel(v uint8) string {
	if n := capture.DSCPName(v); n != "" {
		return fmt.Sprintf("%s (%d)", n, v)
	}
	return strconv.Itoa(int(v))
}

func flowLabel(k capture.FlowKey) string {
	ep := func(a fmt.Stringer, port uint16) string {
		s := a.String()
		if strings.Contains(s, ":") {
			s = "[" + s + "]"
		}
		if k.Proto == 6 || k.Proto == 17 || k.Proto == 132 || port != 0 {
			return s + ":" + strconv.Itoa(int(port))
		}
		return s
	}
	return fmt.Sprintf("%s -> %s %s", ep(k.Src, k.SrcPort), ep(k.Dst, k.DstPort), capture.ProtoName(k.Proto))
}

type valCount struct {
	v int
	n uint64
}

func sortedCounts(c []uint64) []valCount {
	var out []valCount
	for v, n := range c {
		if n > 0 {
			out = append(out, valCount{v, n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	return out
}

func dscpSummary(f *capture.FlowStats) string {
	var parts []string
	for _, vc := range sortedCounts(f.DSCP[:]) {
		parts = append(parts, fmt.Sprintf("%s x%d", dscpLabel(uint8(vc.v)), vc.n))
	}
	return strings.Join(parts, ", ")
}

func ecnSummary(f *capture.FlowStats) string {
	var parts []string
	for _, vc := range sortedCounts(f.ECN[:]) {
		parts = append(parts, fmt.Sprintf("%s x%d", capture.ECNNames[vc.v], vc.n))
	}
	return strings.Join(parts, ", ")
}

func flowJSON(f *capture.FlowStats, t0 int64, off bool) dscpFlowJSON {
	j := dscpFlowJSON{
		Src: f.Key.Src.String(), Dst: f.Key.Dst.String(), Sport: f.Key.SrcPort, Dport: f.Key.DstPort,
		Proto: capture.ProtoName(f.Key.Proto), Packets: f.Packets, Bytes: f.Bytes,
		DSCP: map[string]uint64{}, DSCPNames: map[string]string{}, ECN: map[string]uint64{},
		First: time.Unix(0, f.FirstNs).UTC().Format(time.RFC3339Nano), Last: time.Unix(0, f.LastNs).UTC().Format(time.RFC3339Nano),
		FirstRel: float64(f.FirstNs-t0) / 1e9, LastRel: float64(f.LastNs-t0) / 1e9, Offending: off,
	}
	for v, n := range f.DSCP {
		if n > 0 {
			k := strconv.Itoa(v)
			j.DSCP[k] = n
			if name := capture.DSCPName(uint8(v)); name != "" {
				j.DSCPNames[k] = name
			}
		}
	}
	for v, n := range f.ECN {
		if n > 0 {
			j.ECN[capture.ECNNames[v]] = n
		}
	}
	if len(f.PIDs) > 0 {
		j.PIDs = map[string]uint64{}
		for p, n := range f.PIDs {
			j.PIDs[strconv.Itoa(p)] = n
		}
	}
	if len(f.VLANs) > 0 {
		j.VLANs = map[string]uint64{}
		for v, n := range f.VLANs {
			j.VLANs[strconv.Itoa(int(v))] = n
		}
	}
	return j
}

func printDSCP(w io.Writer, o *PcapDSCPOptions, st *capture.Stats, flows []*capture.FlowStats, off map[*capture.FlowStats]bool) {
	fmt.Fprintf(w, "%s: %s, %d frames, %d IP packets, %s\n", o.File, st.Format, st.Frames, st.IPPackets, spanLabel(st))
	if o.Filter != "" {
		fmt.Fprintf(w, "filter: %s (%d flow directions match)\n", o.Filter, len(flows))
	}
	fmt.Fprintln(w)
	hasPID := false
	for _, f := range flows {
		if len(f.PIDs) > 0 {
			hasPID = true
		}
	}
	hdr := []string{"flow", "packets", "bytes", "DSCP", "ECN", "first (s)", "last (s)"}
	if hasPID {
		hdr = append(hdr, "PID")
	}
	var rows [][]string
	for _, f := range flows {
		name := flowLabel(f.Key)
		if off[f] {
			name = "! " + name
		}
		r := []string{name, strconv.FormatUint(f.Packets, 10), strconv.FormatUint(f.Bytes, 10), dscpSummary(f), ecnSummary(f),
			fmt.Sprintf("%.6f", float64(f.FirstNs-st.FirstNs)/1e9), fmt.Sprintf("%.6f", float64(f.LastNs-st.FirstNs)/1e9)}
		if hasPID {
			var ps []string
			for _, p := range f.SortedPIDs() {
				ps = append(ps, fmt.Sprintf("%d x%d", p, f.PIDs[p]))
			}
			r = append(r, strings.Join(ps, ", "))
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no IP flows match")
	} else {
		report.Table(w, hdr, rows)
	}
	if len(off) > 0 {
		fmt.Fprintln(w, "\n! = carries packets not marked as --expect requires")
	}
	if hasPID {
		fmt.Fprintln(w, "PID: the process id in the etl2pcapng packet comment: the thread that logged the packet, often the sender for outbound packets and the System process (4) or another for inbound ones")
	}
	printNotes(w, st.Notes())
}

func spanLabel(st *capture.Stats) string {
	if st.Frames == 0 {
		return "empty"
	}
	return fmt.Sprintf("%s from %s", report.Duration(time.Duration(st.LastNs-st.FirstNs)), time.Unix(0, st.FirstNs).UTC().Format("2006-01-02 15:04:05.000000 UTC"))
}
