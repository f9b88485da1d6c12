package capture

import (
	"fmt"
	"net/netip"
	"testing"
)

// A capture of a new flow in every packet grew the table without bound,
// and a flow's PID map with every new comment: the table keeps max flow
// directions and adds up the packets of the rest; a flow keeps
// MaxFlowPIDs process ids and MaxFlowVLANs VLAN ids and counts the rest.
func TestFlowTableBounded(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	tab := NewFlowTable()
	if tab.Max() != MaxFlows {
		t.Fatalf("max %d", tab.Max())
	}
	tab.max = 100
	const flows = 250
	for i := 0; i < flows; i++ {
		for j := 0; j < 2; j++ {
			rec := Record{TimeNs: int64(1000 + i*10 + j)}
			p := Packet{Src: a, Dst: b, Proto: 17, HasPorts: true, SrcPort: uint16(1000 + i), DstPort: 53, TOS: uint8(i%2) << 2, IPLen: 60}
			tab.Add(&rec, &p)
		}
	}
	if n := len(tab.Flows()); n != 100 {
		t.Errorf("%d flows tracked, want 100", n)
	}
	u := tab.Untracked
	if u.Packets != 2*(flows-100) || u.Bytes != 60*2*(flows-100) || u.DSCP[0]+u.DSCP[1] != u.Packets || u.FirstNs != 2000 || u.LastNs != 1000+(flows-1)*10+1 {
		t.Errorf("untracked %d packets, %d bytes, DSCP 0/1 %d/%d, %d..%d ns", u.Packets, u.Bytes, u.DSCP[0], u.DSCP[1], u.FirstNs, u.LastNs)
	}
	// A tracked flow still counts its later packets.
	rec, p := Record{TimeNs: 9999}, Packet{Src: a, Dst: b, Proto: 17, HasPorts: true, SrcPort: 1000, DstPort: 53, IPLen: 60}
	tab.Add(&rec, &p)
	if f := tab.Flows()[0]; f.Packets != 3 || f.LastNs != 9999 {
		t.Errorf("first flow %d packets, last %d", f.Packets, f.LastNs)
	}

	tab = NewFlowTable()
	const n = 1000
	for i := 0; i < n; i++ {
		rec := Record{TimeNs: int64(i), Comments: []string{fmt.Sprintf("PID=%d", i)}}
		p := Packet{Src: a, Dst: b, Proto: 6, HasVLAN: true, VLAN: uint16(i % 4096), IPLen: 40}
		tab.Add(&rec, &p)
		tab.Add(&rec, &p) // the same PID and VLAN again: counted where it is kept
	}
	f := tab.Flows()[0]
	if len(f.PIDs) != MaxFlowPIDs || f.OtherPIDs != 2*(n-MaxFlowPIDs) || f.PIDs[0] != 2 {
		t.Errorf("%d PIDs kept (PID 0: %d), %d packets of others", len(f.PIDs), f.PIDs[0], f.OtherPIDs)
	}
	if len(f.VLANs) != MaxFlowVLANs || f.OtherVLANs != 2*(n-MaxFlowVLANs) {
		t.Errorf("%d VLANs kept, %d packets of others", len(f.VLANs), f.OtherVLANs)
	}
}
