package etw

import (
	"strings"
	"testing"
)

// FuzzDecode: any payload, type and pointer size either decodes or fails
// with a one-line DecodeError; it never panics, and what decodes stays
// inside the payload's promises (an ISR's message only from type 50).
func FuzzDecode(f *testing.F) {
	f.Add(uint8(TypeDPC), uint8(2), 8, dpcPayload(8, 1, 2))
	f.Add(uint8(TypeISRMSI), uint8(2), 8, isrPayload(8, 1, 2, true, 3, 4))
	f.Add(uint8(TypeISR), uint8(2), 4, isrPayload(4, 1, 2, true, 3, -1))
	f.Add(uint8(TypeImageDCStart), uint8(2), 8, imagePayload(8, 1, 2, 0, `\SystemRoot\x.sys`))
	f.Add(uint8(TypeImageLoad), uint8(3), 4, imagePayload(4, 1, 2, 0, ""))
	f.Fuzz(func(t *testing.T, opcode, version uint8, ptr int, data []byte) {
		ev := &Event{Opcode: opcode, Version: version, PointerSize: ptr, Timestamp: 1 << 40, Data: data}
		check := func(err error) {
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
		}
		x, ok, err := DecodePerfInfo(ev)
		check(err)
		if ok && err == nil {
			if x.Ticks() < 0 {
				t.Fatalf("negative duration %+v", x)
			}
			if x.Message != 0 && opcode != TypeISRMSI {
				t.Fatalf("message from type %d", opcode)
			}
		}
		im, _, err := DecodeImage(ev)
		check(err)
		if len(im.FileName) > 2*len(data) {
			t.Fatalf("name longer than the payload")
		}
	})
}
