package etw

import "testing"

// The offsets ParseEventInfo reads, as offsetof and sizeof give them with
// MinGW-w64's tdh.h (x86_64-w64-mingw32-gcc): TRACE_EVENT_INFO and
// EVENT_PROPERTY_INFO hold only 16- and 32-bit fields and GUIDs, so the
// numbers are those of 32-bit Windows too.
func TestTDHLayout(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"TRACE_EVENT_INFO.EventDescriptor (Id)", teiEventID, 32},
		{"TRACE_EVENT_INFO.EventDescriptor.Version", teiEventVersion, 34},
		{"TRACE_EVENT_INFO.TaskNameOffset", teiTaskNameOffset, 68},
		{"TRACE_EVENT_INFO.OpcodeNameOffset", teiOpcodeNameOffset, 72},
		{"TRACE_EVENT_INFO.ActivityIDNameOffset (EventNameOffset)", teiEventNameOffset, 92},
		{"TRACE_EVENT_INFO.PropertyCount", teiPropertyCount, 100},
		{"TRACE_EVENT_INFO.TopLevelPropertyCount", teiTopLevelCount, 104},
		{"TRACE_EVENT_INFO.EventPropertyInfoArray", teiProperties, 112},
		{"sizeof(EVENT_PROPERTY_INFO)", propInfoSize, 24},
		{"PropertyParamFixedLength", PropertyParamFixedLength, 16},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
