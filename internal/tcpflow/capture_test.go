package tcpflow

import (
	"net/netip"
	"testing"

	"github.com/latlab/latlab/internal/capture"
)

// A fragment is a segment once it completes its datagram.
func TestFromCaptureFragments(t *testing.T) {
	h := make([]byte, 20)
	h[12] = 5 << 4
	base := capture.Packet{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Proto: 6,
		HasPorts: true, TCPHeader: h, TCPPayloadLen: 1000}
	for _, c := range []struct {
		name                  string
		fragment, reassembled bool
		want                  bool
	}{
		{"whole", false, false, true},
		{"first fragment", true, false, false},
		{"completing fragment", true, true, true},
	} {
		p := base
		p.Fragment, p.Reassembled = c.fragment, c.reassembled
		var s Segment
		if got := FromCapture(&capture.Record{Frame: 1}, &p, &s); got != c.want || got && s.Len != 1000 {
			t.Errorf("%s: %v (len %d), want %v", c.name, got, s.Len, c.want)
		}
	}
}
