// Package dscp checks the DSCP and ECN marks of the flows in a capture:
// what `latlab pcap dscp` reports, and whether every packet matching a
// filter carries the DSCP value a QoS policy should have given it.
package dscp

import (
	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/result"
)

// Kind is the document `latlab pcap dscp --json` writes. Older
// documents kept the flows at the top level; Moved reads them.
var Kind = result.Register[Data]("pcap-dscp", "DSCP and ECN marks per flow in a capture, and whether they met --expect (latlab pcap dscp)",
	result.Moved("flows"))

// Data is the document's payload: how the capture was read, the filter,
// the expectation and the flows.
type Data struct {
	Capture *capture.Stats `json:"capture"`
	Filter  string         `json:"filter,omitempty"`
	Expect  *Expect        `json:"expect,omitempty"`
	Flows   []Flow         `json:"flows"`
	// Untracked is set when the capture holds more matching flow
	// directions than latlab tracks (capture.MaxFlows): the packets of
	// those first seen later, added up. They count in Expect.
	Untracked *Untracked `json:"untracked,omitempty"`
}

// Untracked adds up the packets of the flow directions not in Flows.
type Untracked struct {
	MaxFlows int               `json:"max_flows"` // the flow directions tracked
	Packets  uint64            `json:"packets"`
	Bytes    uint64            `json:"bytes"`
	DSCP     map[string]uint64 `json:"dscp"`
	ECN      map[string]uint64 `json:"ecn"`
}

// Flow is one flow direction (5-tuple) of the payload. Maps are keyed by
// the value as text: the DSCP number, the ECN codepoint's name, the
// process id, the VLAN id.
type Flow struct {
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
	// OtherPIDs and OtherVLANs count the packets whose process or VLAN
	// id is not in PIDs (VLANs): a flow keeps capture.MaxFlowPIDs
	// (MaxFlowVLANs) of them.
	OtherPIDs  uint64 `json:"other_pid_packets,omitempty"`
	OtherVLANs uint64 `json:"other_vlan_packets,omitempty"`
	Offending  bool   `json:"offending,omitempty"`
}

// Expect is the outcome of Options.Expect: how many matching packets
// there were, how many were marked otherwise, and whether it held (at
// least one packet matched and none was marked otherwise).
type Expect struct {
	DSCP      uint8  `json:"dscp"`
	Name      string `json:"name"`
	Matched   uint64 `json:"matched_packets"`
	Offending uint64 `json:"offending_packets"`
	OK        bool   `json:"ok"`
}
