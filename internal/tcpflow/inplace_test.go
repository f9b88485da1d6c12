package tcpflow

import (
	"reflect"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The setters that fill a struct field by field instead of assigning a
// literal (closedFlow.set, closedConn.set, stagedSeg.segment) set every
// field: into a destination filled with non-zero values they write what
// they write into a zero one. A field added to the struct and not to the
// setter would keep a stale value from the entry's last use.
func TestInPlaceSettersSetEveryField(t *testing.T) {
	check := func(name string, zero, filled any) {
		t.Helper()
		if !reflect.DeepEqual(zero, filled) {
			t.Errorf("%s leaves a field as it was:\n%+v\nwant\n%+v", name, filled, zero)
		}
	}
	var f flow
	var cf, cfFilled closedFlow
	testutil.FillNonZero(&cfFilled)
	cf.set(&f)
	cfFilled.set(&f)
	check("closedFlow.set", cf, cfFilled)

	c := &Conn{Stream: 3, dir: [2]*Dir{newDir(), newDir()}}
	var cc, ccFilled closedConn
	testutil.FillNonZero(&ccFilled)
	cc.set(c)
	ccFilled.set(c)
	check("closedConn.set", cc, ccFilled)

	var e stagedSeg
	e.seq, e.frame = 9, 4
	var s, sFilled Segment
	testutil.FillNonZero(&sFilled)
	e.segment(&s, true)
	e.segment(&sFilled, true)
	check("stagedSeg.segment", s, sFilled)
}
