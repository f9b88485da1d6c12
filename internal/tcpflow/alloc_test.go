package tcpflow

import (
	"net/netip"
	"testing"
)

// A new connection is one heap object: the Conn and its two directions
// are allocated together (connState), not as three objects for the
// garbage collector to trace and free (issue 30: 100,000 short
// connections spent about 17% of their time in the collector).
func TestNewConnIsOneAllocation(t *testing.T) {
	a := NewAnalyzer()
	a.table.slots = make([]connIndex, 8192) // no growth while counting
	a.table.mask = 8191
	port := uint16(1)
	s := &Segment{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), DstPort: 443}
	allocs := testing.AllocsPerRun(1000, func() {
		s.SrcPort = port
		port++
		k, fromB := keyOf(s)
		a.newConn(k, a.table.hashKey(&k), s, fromB)
	})
	if allocs > 1 {
		t.Fatalf("a new connection takes %v allocations, want 1", allocs)
	}
	k, _ := keyOf(s)
	sl := a.table.find(a.table.hashKey(&k), &k)
	if sl == nil {
		t.Fatal("the last connection is not in the table")
	}
	c := sl.conn
	if c == nil || c.Dir(0) == c.Dir(1) || c.Dir(0).rack.mult != 1 || c.Dir(1).flow.winScale != -1 {
		t.Fatalf("directions not set up: %+v", c)
	}
}
