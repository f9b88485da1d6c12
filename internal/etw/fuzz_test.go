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

// FuzzDecodeHardFault: any payload of the PageFault, Thread and Process
// classes either decodes or fails with a one-line DecodeError; it never
// panics, reads nothing beyond the payload and keeps image names
// bounded.
func FuzzDecodeHardFault(f *testing.F) {
	f.Add(uint8(TypeHardFault), uint8(2), 8, hardFaultPayload(8, 1, 2, 3, 4, 5, 6))
	f.Add(uint8(TypeHardFault), uint8(2), 4, hardFaultPayload(4, 1, 2, 3, 4, 5, 6))
	f.Add(uint8(TypeDCStart), uint8(3), 8, threadPayload(8, 1, 2))
	f.Add(uint8(TypeStart), uint8(4), 8, processPayload(8, 4, 1, 5, "a.exe"))
	f.Add(uint8(TypeEnd), uint8(3), 4, processPayload(4, 3, 1, 1, "b.exe"))
	f.Add(uint8(TypeDCEnd), uint8(4), 8, processPayload(8, 4, 1, -1, "c.exe"))
	f.Fuzz(func(t *testing.T, opcode, version uint8, ptr int, data []byte) {
		ev := &Event{Opcode: opcode, Version: version, PointerSize: ptr, Timestamp: 1 << 40, Data: data}
		check := func(err error) {
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
		}
		hf, ok, err := DecodeHardFault(ev)
		check(err)
		if ok && err == nil && (hf.Ticks() < 0 || opcode != TypeHardFault) {
			t.Fatalf("decoded %+v from type %d", hf, opcode)
		}
		_, _, err = DecodeThread(ev)
		check(err)
		p, _, err := DecodeProcess(ev)
		check(err)
		if n := len([]rune(p.ImageFileName)); n > MaxImageFileName || n > len(data) {
			t.Fatalf("image name of %d characters from %d bytes", n, len(data))
		}
	})
}
