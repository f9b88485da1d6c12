package capture

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// FlowKey is one direction of a flow: the 5-tuple (ports 0 when the
// protocol has none or they were not captured).
type FlowKey struct {
	Src, Dst         netip.Addr
	SrcPort, DstPort uint16
	Proto            uint8
}

// FlowStats is what the DSCP/ECN check keeps per flow direction.
type FlowStats struct {
	Key     FlowKey
	Packets uint64
	Bytes   uint64 // IP packet lengths (header and payload, as on the wire above the link layer)
	DSCP    [64]uint64
	ECN     [4]uint64
	FirstNs int64
	LastNs  int64
	PIDs    map[int]uint64 // from pcapng comments (etl2pcapng "PID="), at most MaxFlowPIDs
	VLANs   map[uint16]uint64
	// OtherPIDs and OtherVLANs count the packets whose process id or
	// VLAN id was not kept: the flow had MaxFlowPIDs (MaxFlowVLANs)
	// others already.
	OtherPIDs, OtherVLANs uint64
}

// Bounds of a FlowTable. A flow direction takes about 650 bytes (its
// DSCP counts are 64 words), and a capture of a few MB can hold a new
// flow in every packet: without a cap the table grew with the file's
// flows, and each flow's PID map with the comments of its packets.
const (
	// MaxFlows is how many flow directions a table tracks (about 45 MiB);
	// the packets of those first seen later are added up in
	// FlowTable.Untracked.
	MaxFlows = 1 << 16
	// MaxFlowPIDs and MaxFlowVLANs are how many process ids and VLAN ids
	// a flow direction keeps counts for.
	MaxFlowPIDs  = 16
	MaxFlowVLANs = 16
)

// FlowTable accumulates FlowStats, at most MaxFlows of them.
type FlowTable struct {
	m     map[FlowKey]*FlowStats
	order []*FlowStats
	max   int
	// Untracked adds up the packets of flow directions first seen once
	// the table was full: their packets, bytes, DSCP and ECN marks and
	// times. Its Key, PIDs and VLANs are empty.
	Untracked FlowStats
}

// NewFlowTable returns an empty table of MaxFlows flow directions.
func NewFlowTable() *FlowTable { return &FlowTable{m: map[FlowKey]*FlowStats{}, max: MaxFlows} }

// Max is how many flow directions the table tracks.
func (t *FlowTable) Max() int { return t.max }

// KeyOf is the flow direction of a packet.
func KeyOf(p *Packet) FlowKey {
	k := FlowKey{Src: p.Src, Dst: p.Dst, Proto: p.Proto}
	if p.HasPorts {
		k.SrcPort, k.DstPort = p.SrcPort, p.DstPort
	}
	return k
}

// Add counts one packet.
func (t *FlowTable) Add(rec *Record, p *Packet) {
	k := KeyOf(p)
	f := t.m[k]
	if f == nil && len(t.order) >= t.max {
		t.Untracked.count(rec, p)
		return
	}
	if f == nil {
		f = &FlowStats{Key: k, FirstNs: rec.TimeNs}
		t.m[k] = f
		t.order = append(t.order, f)
	}
	f.count(rec, p)
	if pid, ok := PID(rec.Comments); ok {
		if _, kept := f.PIDs[pid]; kept || len(f.PIDs) < MaxFlowPIDs {
			if f.PIDs == nil {
				f.PIDs = map[int]uint64{}
			}
			f.PIDs[pid]++
		} else {
			f.OtherPIDs++
		}
	}
	if p.HasVLAN {
		if _, kept := f.VLANs[p.VLAN]; kept || len(f.VLANs) < MaxFlowVLANs {
			if f.VLANs == nil {
				f.VLANs = map[uint16]uint64{}
			}
			f.VLANs[p.VLAN]++
		} else {
			f.OtherVLANs++
		}
	}
}

// count adds one packet's size, marks and time.
func (f *FlowStats) count(rec *Record, p *Packet) {
	if f.Packets == 0 {
		f.FirstNs = rec.TimeNs
	}
	f.Packets++
	f.Bytes += uint64(p.IPLen)
	f.DSCP[p.TOS>>2]++
	f.ECN[p.TOS&3]++
	if rec.TimeNs < f.FirstNs {
		f.FirstNs = rec.TimeNs
	}
	if rec.TimeNs > f.LastNs {
		f.LastNs = rec.TimeNs
	}
}

// Flows returns the flows in order of first appearance.
func (t *FlowTable) Flows() []*FlowStats { return t.order }

// DSCPName names a DSCP value (RFC 2474 class selectors, RFC 2597 AF,
// RFC 3246 EF, RFC 5865 VOICE-ADMIT, RFC 8622 LE); "" for unnamed values.
func DSCPName(v uint8) string {
	switch v {
	case 1:
		return "LE"
	case 44:
		return "VOICE-ADMIT"
	case 46:
		return "EF"
	}
	if v%8 == 0 && v <= 56 {
		return "CS" + strconv.Itoa(int(v/8))
	}
	if v >= 10 && v <= 38 && v%2 == 0 {
		class, drop := v/8, (v%8)/2
		if drop >= 1 && drop <= 3 && class >= 1 && class <= 4 {
			return fmt.Sprintf("AF%d%d", class, drop)
		}
	}
	return ""
}

// ParseDSCP accepts a decimal value 0-63 or a name (CS0-CS7, AF11-AF43,
// EF, VOICE-ADMIT, LE; case-insensitive; "default"/"BE" = 0).
func ParseDSCP(s string) (uint8, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	if v, err := strconv.Atoi(t); err == nil {
		if v < 0 || v > 63 {
			return 0, fmt.Errorf("DSCP %d out of range: want 0-63 or a name such as EF, AF21, CS1", v)
		}
		return uint8(v), nil
	}
	if t == "DEFAULT" || t == "BE" || t == "DF" {
		return 0, nil
	}
	for v := 0; v < 64; v++ {
		if DSCPName(uint8(v)) == t {
			return uint8(v), nil
		}
	}
	return 0, fmt.Errorf("unknown DSCP %q: want 0-63 or a name: CS0-CS7, AF11-AF43, EF, VOICE-ADMIT, LE", s)
}

// ECNNames are the ECN codepoints (RFC 3168) by value.
var ECNNames = [4]string{"not-ect", "ect1", "ect0", "ce"}

// SortedPIDs returns the PIDs of a flow, most packets first.
func (f *FlowStats) SortedPIDs() []int {
	out := make([]int, 0, len(f.PIDs))
	for p := range f.PIDs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if f.PIDs[out[i]] != f.PIDs[out[j]] {
			return f.PIDs[out[i]] > f.PIDs[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
