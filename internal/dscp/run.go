package dscp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/capture"
)

// Options are the work of `latlab pcap dscp`.
type Options struct {
	// Scan reads the capture, calling h for every frame, and stops when
	// ctx is done; Run calls it once.
	Scan func(ctx context.Context, h capture.Handler) (*capture.Stats, error)
	// Filter keeps the flow directions it matches (nil: all); FilterText
	// is its text, for the result.
	Filter     *capture.Filter
	FilterText string
	// Expect, if set, is the DSCP value (0-63 or a name: EF, AF41, CS1,
	// ...) every packet of the kept flows must carry.
	Expect string
}

// Result is the outcome of Run. Its Data is the document's payload;
// Stats holds the same flows as counted, for the text form.
type Result struct {
	Data
	// Stats are the kept flow directions, in the order of Data.Flows: the
	// order of their first packet.
	Stats []*capture.FlowStats
	// Offending are the flows of Stats with packets not marked as
	// Options.Expect requires, in the same order.
	Offending []*capture.FlowStats
	// UntrackedStats adds up the packets of the matching flow directions
	// the table had no room for (Data.Untracked); nil when there were none.
	UntrackedStats *capture.FlowStats
	// UntrackedOffending is how many of them are not marked as
	// Options.Expect requires.
	UntrackedOffending uint64
}

// ExpectError is an Options.Expect that names no DSCP value.
type ExpectError struct {
	Value string
	Err   error
}

func (e *ExpectError) Error() string {
	return fmt.Sprintf("invalid expected DSCP %q: %v", e.Value, e.Err)
}

func (e *ExpectError) Unwrap() error { return e.Err }

// Run counts the packets, bytes, DSCP values and ECN codepoints of every
// flow direction in the capture and checks the expectation. Memory grows
// with the number of flows, not with the packets, up to capture.MaxFlows
// matching flow directions; the packets of the others are added up in
// Data.Untracked and still count in the expectation. The expectation is
// checked before the capture is read; an error from Scan is returned as
// it is, with no result.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Scan == nil {
		return nil, errors.New("dscp.Run: no capture to scan")
	}
	var want *Expect
	if o.Expect != "" {
		v, err := capture.ParseDSCP(o.Expect)
		if err != nil {
			return nil, &ExpectError{Value: o.Expect, Err: err}
		}
		want = &Expect{DSCP: v, Name: Label(v)}
	}
	// Only matching flows take room in the table.
	tab := capture.NewFlowTable()
	st, err := o.Scan(ctx, func(rec *capture.Record, p *capture.Packet) {
		if o.Filter.Match(capture.KeyOf(p)) {
			tab.Add(rec, p)
		}
	})
	if err != nil {
		return nil, err
	}
	r := &Result{Data: Data{Capture: st, Filter: o.FilterText, Expect: want}}
	r.Stats = tab.Flows()
	if u := &tab.Untracked; u.Packets > 0 {
		r.UntrackedStats = u
		r.Untracked = &Untracked{MaxFlows: tab.Max(), Packets: u.Packets, Bytes: u.Bytes, DSCP: dscpCounts(u), ECN: ecnCounts(u)}
	}
	isOff := map[*capture.FlowStats]bool{}
	if want != nil {
		for _, f := range r.Stats {
			want.Matched += f.Packets
			if bad := f.Packets - f.DSCP[want.DSCP]; bad > 0 {
				want.Offending += bad
				r.Offending = append(r.Offending, f)
				isOff[f] = true
			}
		}
		if u := r.UntrackedStats; u != nil {
			want.Matched += u.Packets
			r.UntrackedOffending = u.Packets - u.DSCP[want.DSCP]
			want.Offending += r.UntrackedOffending
		}
		want.OK = want.Matched > 0 && want.Offending == 0
	}
	r.Flows = make([]Flow, 0, len(r.Stats))
	for _, f := range r.Stats {
		r.Flows = append(r.Flows, newFlow(f, st.FirstNs, isOff[f]))
	}
	return r, nil
}

// Met says whether the expectation held; it does without one.
func (r *Result) Met() bool { return r.Expect == nil || r.Expect.OK }

// maxShortfallFlows is how many offending flows Shortfall names; the
// table and the document list them all.
const maxShortfallFlows = 20

// Shortfall says, in one line, how an expectation that matched packets
// failed: how many packets were marked otherwise, and in which flows
// with which marks. It is empty when the expectation held or matched no
// packet.
func (r *Result) Shortfall() string {
	e := r.Expect
	if r.Met() || e.Matched == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected DSCP %s on every matching packet; %d of %d are marked otherwise, in %d flow(s):", e.Name, e.Offending, e.Matched, len(r.Offending))
	for i, f := range r.Offending {
		if i == maxShortfallFlows {
			fmt.Fprintf(&b, " and %d more flow(s);", len(r.Offending)-i)
			break
		}
		fmt.Fprintf(&b, " %s [%s];", FlowLabel(f.Key), DSCPSummary(f))
	}
	if r.UntrackedOffending > 0 {
		fmt.Fprintf(&b, " and %d packets of flows not tracked (more than %d) [%s];", r.UntrackedOffending, r.Untracked.MaxFlows, DSCPSummary(r.UntrackedStats))
	}
	return strings.TrimSuffix(b.String(), ";")
}

// newFlow is f in the payload; times count from t0, the capture's first
// frame.
func newFlow(f *capture.FlowStats, t0 int64, off bool) Flow {
	j := Flow{
		Src: f.Key.Src.String(), Dst: f.Key.Dst.String(), Sport: f.Key.SrcPort, Dport: f.Key.DstPort,
		Proto: capture.ProtoName(f.Key.Proto), Packets: f.Packets, Bytes: f.Bytes,
		DSCP: dscpCounts(f), DSCPNames: map[string]string{}, ECN: ecnCounts(f), OtherPIDs: f.OtherPIDs, OtherVLANs: f.OtherVLANs,
		First: time.Unix(0, f.FirstNs).UTC().Format(time.RFC3339Nano), Last: time.Unix(0, f.LastNs).UTC().Format(time.RFC3339Nano),
		FirstRel: float64(f.FirstNs-t0) / 1e9, LastRel: float64(f.LastNs-t0) / 1e9, Offending: off,
	}
	for v, n := range f.DSCP {
		if name := capture.DSCPName(uint8(v)); n > 0 && name != "" {
			j.DSCPNames[strconv.Itoa(v)] = name
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

// dscpCounts are a flow's DSCP counts keyed by the value as text.
func dscpCounts(f *capture.FlowStats) map[string]uint64 {
	m := map[string]uint64{}
	for v, n := range f.DSCP {
		if n > 0 {
			m[strconv.Itoa(v)] = n
		}
	}
	return m
}

// ecnCounts are a flow's ECN counts keyed by the codepoint's name.
func ecnCounts(f *capture.FlowStats) map[string]uint64 {
	m := map[string]uint64{}
	for v, n := range f.ECN {
		if n > 0 {
			m[capture.ECNNames[v]] = n
		}
	}
	return m
}
