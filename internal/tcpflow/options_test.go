package tcpflow

import "testing"

// At exactly 2^31 apart Wireshark's macros call each number both greater
// and less than the other; latlab's comparisons must agree.
func TestSeqComparisonsAsWireshark(t *testing.T) {
	for _, c := range []struct {
		a, b           uint32
		lt, le, gt, ge bool
	}{
		{1, 2, true, true, false, false},
		{2, 1, false, false, true, true},
		{5, 5, false, true, false, true},
		{0xffffffff, 0, true, true, false, false}, // wrap
		{1911349326, 4058832974, true, true, true, true},
		{4058832974, 1911349326, true, true, true, true},
	} {
		if seqLT(c.a, c.b) != c.lt || seqLE(c.a, c.b) != c.le || seqGT(c.a, c.b) != c.gt || seqGE(c.a, c.b) != c.ge {
			t.Errorf("%d vs %d: lt %v le %v gt %v ge %v; want %v %v %v %v", c.a, c.b,
				seqLT(c.a, c.b), seqLE(c.a, c.b), seqGT(c.a, c.b), seqGE(c.a, c.b), c.lt, c.le, c.gt, c.ge)
		}
	}
}
