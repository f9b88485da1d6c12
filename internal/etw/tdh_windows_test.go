package etw

import (
	"strings"
	"testing"
)

// An event that did not come from a live session's callback has no
// EVENT_RECORD to ask TDH about: the trace falls back to the Windows 10
// layouts instead of calling with nothing.
func TestTDHNeedsRecord(t *testing.T) {
	_, err := eventTemplate(&Event{ID: 1033})
	if err == nil || !strings.Contains(err.Error(), "no EVENT_RECORD") {
		t.Fatalf("template without a record: %v", err)
	}
	tr := &TCPTrace{}
	if _, ok, _ := tr.decode(&Event{Provider: TCPIPGUID, ID: 1078, PointerSize: 8, Data: make([]byte, 16)}); !ok {
		t.Error("a Windows 10 event was not decoded by its layout")
	}
}
