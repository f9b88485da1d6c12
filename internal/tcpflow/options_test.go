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

// TestParseFastPath: the shortcuts for NOP, NOP, TS and for a Linux SYN's
// options give what the loop over every option gives, on those layouts
// and on every one that differs from them in one byte or in length.
func TestParseFastPath(t *testing.T) {
	ts := []byte{optNOP, optNOP, optTS, 10, 0x80, 1, 2, 3, 0xfe, 4, 5, 6}
	syn := []byte{optMSS, 4, 5, 0xb4, optSACKOK, 2, optTS, 10, 0x80, 1, 2, 3, 0xfe, 4, 5, 6, optNOP, optWScale, 3, 7}
	inputs := [][]byte{nil}
	for _, l := range [][]byte{ts, syn} {
		inputs = append(inputs, l, l[:len(l)-1], append(append([]byte{}, l...), optEnd))
		for i := range l { // every byte, those the shortcut tests among them
			for _, v := range []byte{optEnd, optNOP, optMSS, optWScale, optSACKOK, optSACK, optTS, 9, 10, 12, 255} {
				b := append([]byte{}, l...)
				b[i] = v
				inputs = append(inputs, b)
			}
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
	want := TCPOptions{MSS: 1460, HasMSS: true, SACKPermitted: true, HasTS: true, TSVal: 0x80010203, TSEcr: 0xfe040506, WScale: 7, HasWScale: true}
	if o.parse(syn); o != want {
		t.Errorf("Linux SYN: %+v, want %+v", o, want)
	}
}
