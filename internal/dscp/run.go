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
// with the number of flows, not with the packets. The expectation is
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
	tab := capture.NewFlowTable()
	st, err := o.Scan(ctx, func(rec *capture.Record, p *capture.Packet) { tab.Add(rec, p) })
	if err != nil {
		return nil, err
	}
	r := &Result{Data: Data{Capture: st, Filter: o.FilterText, Expect: want}}
	for _, f := range tab.Flows() {
		if o.Filter.Match(f.Key) {
			r.Stats = append(r.Stats, f)
		}
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
	for _, f := range r.Offending {
		fmt.Fprintf(&b, " %s [%s];", FlowLabel(f.Key), DSCPSummary(f))
	}
	return strings.TrimSuffix(b.String(), ";")
}

// newFlow is f in the payload; times count from t0, the capture's first
// frame.
func newFlow(f *capture.FlowStats, t0 int64, off bool) Flow {
	j := Flow{
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
