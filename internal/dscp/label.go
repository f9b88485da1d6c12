package dscp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/capture"
)

// Label names a DSCP value with its number, "EF (46)", or gives the
// number alone when the value has no name.
func Label(v uint8) string {
	if n := capture.DSCPName(v); n != "" {
		return fmt.Sprintf("%s (%d)", n, v)
	}
	return strconv.Itoa(int(v))
}

// FlowLabel is a flow direction as one line: "10.0.0.5:3074 ->
// [2001:db8::1]:3074 udp", the ports left out for a protocol without
// them.
func FlowLabel(k capture.FlowKey) string {
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

// sortedCounts are the values seen, most packets first; values seen
// equally often stay in ascending order.
func sortedCounts(c []uint64) []valCount {
	var out []valCount
	for v, n := range c {
		if n > 0 {
			out = append(out, valCount{v, n})
		}
	}
	slices.SortStableFunc(out, func(a, b valCount) int {
		switch {
		case a.n > b.n:
			return -1
		case a.n < b.n:
			return 1
		}
		return 0
	})
	return out
}

// DSCPSummary lists the DSCP values of a flow with their packet counts,
// most packets first, e.g. "0 x21, CS1 (8) x9".
func DSCPSummary(f *capture.FlowStats) string {
	var parts []string
	for _, vc := range sortedCounts(f.DSCP[:]) {
		parts = append(parts, fmt.Sprintf("%s x%d", Label(uint8(vc.v)), vc.n))
	}
	return strings.Join(parts, ", ")
}

// ECNSummary lists the ECN codepoints of a flow with their packet counts,
// most packets first.
func ECNSummary(f *capture.FlowStats) string {
	var parts []string
	for _, vc := range sortedCounts(f.ECN[:]) {
		parts = append(parts, fmt.Sprintf("%s x%d", capture.ECNNames[vc.v], vc.n))
	}
	return strings.Join(parts, ", ")
}
