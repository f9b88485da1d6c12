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

// TestParseFastPath: the shortcut for NOP, NOP, TS gives what the loop
// over every option gives, on that layout and on every one that differs
// from it in one byte or in length.
func TestParseFastPath(t *testing.T) {
	ts := []byte{optNOP, optNOP, optTS, 10, 0x80, 1, 2, 3, 0xfe, 4, 5, 6}
	inputs := [][]byte{ts, ts[:11], append(append([]byte{}, ts...), optEnd), nil}
	for i := range 4 { // the four bytes the shortcut tests
		for _, v := range []byte{optEnd, optNOP, optMSS, optTS, 9, 10, 12, 255} {
			b := append([]byte{}, ts...)
			b[i] = v
			inputs = append(inputs, b)
		}
	}
	for _, b := range inputs {
		var fast, all TCPOptions
		fast.SACK[0], all.SACK[1] = Block{1, 2}, Block{3, 4} // parse must clear what was there
		fast.parse(b)
		all.parseAll(b)
		if fast != all {
			t.Errorf("% x: parse %+v, every option %+v", b, fast, all)
		}
	}
	var o TCPOptions
	if o.parse(ts); !o.HasTS || o.TSVal != 0x80010203 || o.TSEcr != 0xfe040506 || o.Malformed {
		t.Errorf("NOP NOP TS: %+v", o)
	}
}
