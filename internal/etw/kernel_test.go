package etw

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

// payload lays out fields in the order of a MOF class, as the kernel
// writes them: little-endian, no padding, pointers of the event's size.
type payload struct {
	b   []byte
	ptr int
}

func (p *payload) u8(v uint8) *payload { p.b = append(p.b, v); return p }
func (p *payload) u16(v uint16) *payload {
	p.b = binary.LittleEndian.AppendUint16(p.b, v)
	return p
}
func (p *payload) u32(v uint32) *payload {
	p.b = binary.LittleEndian.AppendUint32(p.b, v)
	return p
}
func (p *payload) u64(v uint64) *payload {
	p.b = binary.LittleEndian.AppendUint64(p.b, v)
	return p
}
func (p *payload) pointer(v uint64) *payload {
	if p.ptr == 4 {
		return p.u32(uint32(v))
	}
	return p.u64(v)
}
func (p *payload) str(s string) *payload {
	for _, c := range utf16.Encode([]rune(s)) {
		p.u16(c)
	}
	return p.u16(0)
}

// dpcPayload is the DPC class: InitialTime (WmiTime, 8 bytes), Routine
// (pointer).
func dpcPayload(ptr int, initial, routine uint64) []byte {
	p := &payload{ptr: ptr}
	return p.u64(initial).pointer(routine).b
}

// isrPayload is the ISR class: InitialTime, Routine, ReturnValue (uint8),
// Vector (uint8), Reserved (uint16); msg >= 0 appends the MSI
// MessageNumber (uint32).
func isrPayload(ptr int, initial, routine uint64, claimed bool, vector uint8, msg int64) []byte {
	p := &payload{ptr: ptr}
	rv := uint8(0)
	if claimed {
		rv = 1
	}
	p.u64(initial).pointer(routine).u8(rv).u8(vector).u16(0)
	if msg >= 0 {
		p.u32(uint32(msg))
	}
	return p.b
}

func perfInfo(opcode uint8, ptr int, ts int64, cpu uint16, data []byte) *Event {
	return &Event{Provider: PerfInfoGUID, Opcode: opcode, Version: 2, PointerSize: ptr, Timestamp: ts, CPU: cpu, Data: data}
}

func TestDecodePerfInfo(t *testing.T) {
	const k64 = 0xfffff80312345678
	tests := []struct {
		name string
		ev   *Event
		want Execution
	}{
		{"DPC 64-bit", perfInfo(TypeDPC, 8, 1500, 3, dpcPayload(8, 1000, k64)),
			Execution{Kind: KindDPC, CPU: 3, Start: 1000, End: 1500, Routine: k64}},
		{"DPC 32-bit", perfInfo(TypeDPC, 4, 20, 0, dpcPayload(4, 7, 0x82345678)),
			Execution{Kind: KindDPC, Start: 7, End: 20, Routine: 0x82345678}},
		{"TimerDPC", perfInfo(TypeTimerDPC, 8, 10, 1, dpcPayload(8, 10, k64)),
			Execution{Kind: KindTimerDPC, CPU: 1, Start: 10, End: 10, Routine: k64}},
		{"ThreadedDPC", perfInfo(TypeThreadedDPC, 8, 11, 0, dpcPayload(8, 10, k64)),
			Execution{Kind: KindThreadedDPC, Start: 10, End: 11, Routine: k64}},
		{"ISR 64-bit", perfInfo(TypeISR, 8, 900, 2, isrPayload(8, 800, k64, true, 0x91, -1)),
			Execution{Kind: KindISR, CPU: 2, Start: 800, End: 900, Routine: k64, Vector: 0x91, Claimed: true}},
		{"ISR 32-bit unclaimed", perfInfo(TypeISR, 4, 900, 0, isrPayload(4, 800, 0x8abc0000, false, 0x51, -1)),
			Execution{Kind: KindISR, Start: 800, End: 900, Routine: 0x8abc0000, Vector: 0x51}},
		{"ISR MSI", perfInfo(TypeISRMSI, 8, 900, 0, isrPayload(8, 850, k64, true, 0xa0, 3)),
			Execution{Kind: KindISR, Start: 850, End: 900, Routine: k64, Vector: 0xa0, Claimed: true, Message: 3}},
		{"ISR MSI without the message", perfInfo(TypeISRMSI, 8, 900, 0, isrPayload(8, 850, k64, true, 0xa0, -1)),
			Execution{Kind: KindISR, Start: 850, End: 900, Routine: k64, Vector: 0xa0, Claimed: true}},
		{"DPC with more data (a later version)", perfInfo(TypeDPC, 8, 5, 0, append(dpcPayload(8, 1, k64), 1, 2, 3, 4)),
			Execution{Kind: KindDPC, Start: 1, End: 5, Routine: k64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := DecodePerfInfo(tt.ev)
			if err != nil || !ok {
				t.Fatalf("ok %v, err %v", ok, err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDecodePerfInfoErrors(t *testing.T) {
	tests := []struct {
		name string
		ev   *Event
		want string
	}{
		{"DPC cut in the routine", perfInfo(TypeDPC, 8, 5, 0, dpcPayload(8, 1, 2)[:12]),
			"PerfInfo DPC (type 68, version 2): 12 bytes, Routine at offset 8 needs 8 more"},
		{"empty DPC", perfInfo(TypeDPC, 8, 5, 0, nil),
			"PerfInfo DPC (type 68, version 2): 0 bytes, InitialTime at offset 0 needs 8 more"},
		{"ISR without its vector", perfInfo(TypeISR, 8, 5, 0, isrPayload(8, 1, 2, true, 1, -1)[:17]),
			"PerfInfo ISR (type 67, version 2): 17 bytes, Vector at offset 17 needs 1 more"},
		{"no pointer size", perfInfo(TypeDPC, 0, 5, 0, dpcPayload(8, 1, 2)),
			"PerfInfo DPC (type 68, version 2): pointer size 0: the header says neither 32-bit nor 64-bit"},
		{"entry after exit", perfInfo(TypeDPC, 8, 5, 0, dpcPayload(8, 6, 2)),
			"entry time 6 is after the event's time stamp 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := DecodePerfInfo(tt.ev)
			if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ok %v, err %v; want %q", ok, err, tt.want)
			}
		})
	}
}

// Other PerfInfo types (SampledProfile 46, SysClEnter 51, ...) are not
// DPCs or ISRs: not decoded, not an error.
func TestDecodePerfInfoOtherTypes(t *testing.T) {
	for _, op := range []uint8{46, 51, 52, 0, 255} {
		if _, ok, err := DecodePerfInfo(perfInfo(op, 8, 1, 0, []byte{1, 2})); ok || err != nil {
			t.Errorf("type %d: ok %v err %v", op, ok, err)
		}
	}
}

// imagePayload is the Image_Load class, version 2: ImageBase, ImageSize
// (pointers), ProcessId, ImageCheckSum, TimeDateStamp, Reserved0,
// DefaultBase (pointer), Reserved1-4, FileName.
func imagePayload(ptr int, base, size uint64, pid uint32, file string) []byte {
	p := &payload{ptr: ptr}
	p.pointer(base).pointer(size).u32(pid).u32(0x1234).u32(0x5f000000).u32(0)
	p.pointer(base).u32(0).u32(0).u32(0).u32(0)
	return p.str(file).b
}

func TestDecodeImage(t *testing.T) {
	const base = 0xfffff80450000000
	tests := []struct {
		name string
		ev   *Event
		want Image
	}{
		{"DCStart 64-bit driver", &Event{Opcode: TypeImageDCStart, Version: 2, PointerSize: 8,
			Data: imagePayload(8, base, 0x1a000, 0, `\SystemRoot\System32\drivers\ndis.sys`)},
			Image{Base: base, Size: 0x1a000, Checksum: 0x1234, TimeDateStamp: 0x5f000000, FileName: `\SystemRoot\System32\drivers\ndis.sys`}},
		{"Load 32-bit, version 3", &Event{Opcode: TypeImageLoad, Version: 3, PointerSize: 4,
			Data: imagePayload(4, 0x8c000000, 0x4000, 0, `\SystemRoot\system32\DRIVERS\USBPORT.SYS`)},
			Image{Base: 0x8c000000, Size: 0x4000, Checksum: 0x1234, TimeDateStamp: 0x5f000000, FileName: `\SystemRoot\system32\DRIVERS\USBPORT.SYS`}},
		{"DCEnd: loaded at the trace's end, not unloaded", &Event{Opcode: TypeImageDCEnd, Version: 2, PointerSize: 8,
			Data: imagePayload(8, base, 0x1a000, 0, `\SystemRoot\System32\drivers\ndis.sys`)},
			Image{Base: base, Size: 0x1a000, Checksum: 0x1234, TimeDateStamp: 0x5f000000, FileName: `\SystemRoot\System32\drivers\ndis.sys`}},
		{"Unload", &Event{Opcode: TypeImageUnload, Version: 2, PointerSize: 8,
			Data: imagePayload(8, base, 0x1000, 4, `\Device\HarddiskVolume3\x.dll`)},
			Image{Base: base, Size: 0x1000, PID: 4, Checksum: 0x1234, TimeDateStamp: 0x5f000000, FileName: `\Device\HarddiskVolume3\x.dll`, Unload: true}},
		{"unterminated name", &Event{Opcode: TypeImageLoad, Version: 2, PointerSize: 8,
			Data: imagePayload(8, base, 0x1000, 0, `ab.sys`)[:56+12]},
			Image{Base: base, Size: 0x1000, Checksum: 0x1234, TimeDateStamp: 0x5f000000, FileName: `ab.sys`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := DecodeImage(tt.ev)
			if err != nil || !ok {
				t.Fatalf("ok %v, err %v", ok, err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	im, _, _ := DecodeImage(tests[0].ev)
	if im.Name() != "ndis.sys" {
		t.Errorf("name %q", im.Name())
	}
}

func TestDecodeImageErrors(t *testing.T) {
	full := imagePayload(8, 1, 2, 0, "a.sys")
	tests := []struct {
		name string
		ev   *Event
		want string
	}{
		{"no file name", &Event{Opcode: TypeImageLoad, Version: 2, PointerSize: 8, Data: full[:56]},
			"Image (type 10, version 2): 56 bytes, FileName at offset 56 is missing"},
		{"cut in DefaultBase", &Event{Opcode: TypeImageLoad, Version: 2, PointerSize: 8, Data: full[:35]},
			"35 bytes, DefaultBase at offset 32 needs 8 more"},
		{"version 1", &Event{Opcode: TypeImageLoad, Version: 1, PointerSize: 8, Data: full},
			"versions before 2 (Windows XP) are not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := DecodeImage(tt.ev)
			if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ok %v, err %v; want %q", ok, err, tt.want)
			}
		})
	}
	if _, ok, err := DecodeImage(&Event{Opcode: 33, Version: 2, PointerSize: 8}); ok || err != nil {
		t.Errorf("type 33: ok %v err %v", ok, err)
	}
}

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{
		`\SystemRoot\System32\drivers\ndis.sys`: "ndis.sys",
		`C:\Windows\system32\ntoskrnl.exe`:      "ntoskrnl.exe",
		`\??\C:\x\y.sys`:                        "y.sys",
		`ntoskrnl.exe`:                          "ntoskrnl.exe",
	} {
		if got := ModuleName(in); got != want {
			t.Errorf("%s: %q", in, got)
		}
	}
}

func TestGUIDString(t *testing.T) {
	if got := PerfInfoGUID.String(); got != "{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}" {
		t.Error(got)
	}
	if got := ImageGUID.String(); got != "{2cb15d1d-5fc1-11d2-abe1-00a0c911f518}" {
		t.Error(got)
	}
}
