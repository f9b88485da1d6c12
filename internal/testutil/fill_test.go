package testutil

import (
	"net/netip"
	"testing"
)

type fillInner struct {
	n uint16
	a [2]bool
}

type fillOuter struct {
	I    int
	s    string
	in   fillInner
	p    *int
	sl   []byte
	m    map[int]int
	addr netip.Addr
}

// Every field, exported or not and at every depth, ends up non-zero.
func TestFillNonZero(t *testing.T) {
	var v fillOuter
	FillNonZero(&v)
	for name, zero := range map[string]bool{
		"I": v.I == 0, "s": v.s == "", "in.n": v.in.n == 0, "in.a[0]": !v.in.a[0], "in.a[1]": !v.in.a[1],
		"p": v.p == nil, "sl": v.sl == nil, "m": v.m == nil, "addr": v.addr == netip.Addr{},
	} {
		if zero {
			t.Errorf("%s is still zero", name)
		}
	}
}
