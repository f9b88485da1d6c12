package etw

import "testing"

// The flag values are written out as evntcons.h has them, not taken from
// the package's constants: a wrong constant must fail here.
func TestHeaderPointerSize(t *testing.T) {
	for _, tt := range []struct {
		flags uint16
		want  int
	}{
		{0x0040, 8}, // EVENT_HEADER_FLAG_64_BIT_HEADER
		{0x0020, 4}, // EVENT_HEADER_FLAG_32_BIT_HEADER
		{0x0010, 0}, // EVENT_HEADER_FLAG_NO_CPUTIME: no pointer size
		{0x0000, 0},
		{0x0040 | 0x0010 | 0x0200, 8}, // a kernel event: 64-bit, no CPU time, processor index
		{0x0020 | 0x0001, 4},          // 32-bit with EXTENDED_INFO
		{0x0080 | 0x0004, 0},          // CLASSIC_HEADER | TRACE_MESSAGE: no pointer size
	} {
		if got := headerPointerSize(tt.flags); got != tt.want {
			t.Errorf("headerPointerSize(%#04x) = %d, want %d", tt.flags, got, tt.want)
		}
	}
}
