package netload

import "testing"

func TestDelivered(t *testing.T) {
	for _, c := range []struct {
		name          string
		written, sink int64
		wantErr       bool
	}{
		{"sink confirms", 1000, 1000, false},
		{"sink short", 1000, 900, true},
		{"discard confirms nothing", 1000, -1, false},
	} {
		err := (&TCPResult{Written: c.written, SinkBytes: c.sink}).Delivered()
		if (err != nil) != c.wantErr {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	err := (&TCPResult{Written: 1000, SinkBytes: 900}).Delivered()
	if err == nil || err.Error() != "the sink received 900 bytes, 1000 were sent" {
		t.Errorf("message %v", err)
	}
}
