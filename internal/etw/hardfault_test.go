package etw

import (
	"strings"
	"testing"
)

// hardFaultPayload is PageFault_HardFault: InitialTime, ReadOffset,
// VirtualAddress and FileObject (pointers), TThreadId, ByteCount.
func hardFaultPayload(ptr int, initial, offset, va, fo uint64, tid, bytes uint32) []byte {
	p := &payload{ptr: ptr}
	return p.u64(initial).u64(offset).pointer(va).pointer(fo).u32(tid).u32(bytes).b
}

// threadPayload is Thread_V2_TypeGroup1's ProcessId and TThreadId and
// the eight fields after them.
func threadPayload(ptr int, pid, tid uint32) []byte {
	p := &payload{ptr: ptr}
	p.u32(pid).u32(tid)
	for i := 0; i < 7; i++ {
		p.pointer(uint64(i))
	}
	return p.u32(0).b
}

// processPayload is Process_V1 to V4_TypeGroup1 up to ImageFileName and
// the UTF-16 command line after it; sub < 0 writes a null SID.
func processPayload(ptr int, version uint8, pid uint32, sub int, image string) []byte {
	p := &payload{ptr: ptr}
	p.pointer(0xfffffa8000001000).u32(pid).u32(4).u32(1).u32(0x103)
	if version >= 3 {
		p.pointer(0x1aa000)
	}
	if version >= 4 {
		p.u32(0)
	}
	if sub < 0 {
		p.u32(0)
	} else {
		p.pointer(0xfffff8a000002000).pointer(0)
		p.u8(1).u8(uint8(sub)).u8(0).u8(0).u8(0).u8(0).u8(0).u8(5)
		for i := 0; i < sub; i++ {
			p.u32(21)
		}
	}
	p.b = append(append(p.b, image...), 0)
	return p.str(`C:\` + image).b
}

func kernelEvent(class GUID, opcode, version uint8, ptr int, ts int64, data []byte) *Event {
	return &Event{Provider: class, Opcode: opcode, Version: version, PointerSize: ptr, Timestamp: ts, Data: data}
}

func TestDecodeHardFault(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		va, fo := uint64(0x7ff712340000), uint64(0xfffffa8012345670)
		if ptr == 4 {
			va, fo = 0x00401000, 0x86543210
		}
		ev := kernelEvent(PageFaultGUID, TypeHardFault, 2, ptr, 1500, hardFaultPayload(ptr, 1000, 0xace00, va, fo, 0x3f8, 0x3400))
		f, ok, err := DecodeHardFault(ev)
		want := HardFault{Start: 1000, End: 1500, ReadOffset: 0xace00, VirtualAddress: va, FileObject: fo, TID: 0x3f8, Bytes: 0x3400}
		if !ok || err != nil || f != want {
			t.Errorf("%d-bit: %+v %v %v, want %+v", ptr*8, f, ok, err, want)
		}
		if f.Ticks() != 500 {
			t.Errorf("ticks %d", f.Ticks())
		}
	}
	// soft faults and the class's other types are not hard faults
	for _, op := range []uint8{10, 11, 12, 13, 14, 98, 0} {
		if _, ok, err := DecodeHardFault(kernelEvent(PageFaultGUID, op, 2, 8, 1, []byte{1})); ok || err != nil {
			t.Errorf("type %d: ok %v err %v", op, ok, err)
		}
	}
}

func TestDecodeHardFaultErrors(t *testing.T) {
	full := hardFaultPayload(8, 1000, 1, 2, 3, 4, 5)
	tests := []struct {
		name string
		ev   *Event
		want string
	}{
		{"cut before ByteCount", kernelEvent(PageFaultGUID, 32, 2, 8, 2000, full[:36]),
			"PageFault HardFault (type 32, version 2): 36 bytes, ByteCount at offset 36 needs 4 more"},
		{"a 32-bit event read as 64-bit", kernelEvent(PageFaultGUID, 32, 2, 8, 2000, hardFaultPayload(4, 1000, 1, 2, 3, 4, 5)),
			"32 bytes, TThreadId at offset 32 needs 4 more"},
		{"empty", kernelEvent(PageFaultGUID, 32, 2, 4, 2000, nil), "0 bytes, InitialTime at offset 0 needs 8 more"},
		{"no pointer size", kernelEvent(PageFaultGUID, 32, 2, 0, 2000, full), "pointer size 0"},
		{"fault after the event", kernelEvent(PageFaultGUID, 32, 2, 8, 999, full), "fault time 1000 is after the event's time stamp 999"},
		{"fault time beyond any clock", kernelEvent(PageFaultGUID, 32, 2, 8, 1<<62, hardFaultPayload(8, 1<<63, 1, 2, 3, 4, 5)), "not the trace's clock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := DecodeHardFault(tt.ev)
			if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ok %v, err %v; want %q", ok, err, tt.want)
			}
		})
	}
}

func TestDecodeThread(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		for _, op := range []uint8{TypeStart, TypeEnd, TypeDCStart, TypeDCEnd} {
			th, ok, err := DecodeThread(kernelEvent(ThreadGUID, op, 3, ptr, 1, threadPayload(ptr, 1234, 5678)))
			if !ok || err != nil || th != (Thread{PID: 1234, TID: 5678}) {
				t.Errorf("%d-bit type %d: %+v %v %v", ptr*8, op, th, ok, err)
			}
		}
	}
	// context switches (36), ready thread (50) and the like are not read
	if _, ok, err := DecodeThread(kernelEvent(ThreadGUID, 36, 2, 8, 1, []byte{1})); ok || err != nil {
		t.Errorf("CSwitch: ok %v err %v", ok, err)
	}
	if _, ok, err := DecodeThread(kernelEvent(ThreadGUID, 1, 0, 8, 1, threadPayload(8, 1, 2))); !ok || err == nil || !strings.Contains(err.Error(), "version 0") {
		t.Errorf("version 0: ok %v err %v", ok, err)
	}
	if _, ok, err := DecodeThread(kernelEvent(ThreadGUID, 1, 2, 8, 1, []byte{1, 2, 3, 4, 5})); !ok || err == nil || !strings.Contains(err.Error(), "TThreadId at offset 4 needs 4 more") {
		t.Errorf("cut: ok %v err %v", ok, err)
	}
}

func TestDecodeProcess(t *testing.T) {
	tests := []struct {
		name    string
		ptr     int
		version uint8
		sub     int
	}{
		{"64-bit version 4", 8, 4, 5},
		{"32-bit version 4", 4, 4, 1},
		{"64-bit version 3 (Windows 7)", 8, 3, 4},
		{"32-bit version 2", 4, 2, 2},
		{"64-bit null SID", 8, 4, -1},
		{"SID without sub-authorities", 8, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, op := range []uint8{TypeStart, TypeEnd, TypeDCStart, TypeDCEnd} {
				ev := kernelEvent(ProcessGUID, op, tt.version, tt.ptr, 1, processPayload(tt.ptr, tt.version, 3676, tt.sub, "Test.x64.exe"))
				p, ok, err := DecodeProcess(ev)
				if !ok || err != nil || p != (Process{PID: 3676, ParentPID: 4, ImageFileName: "Test.x64.exe"}) {
					t.Errorf("type %d: %+v %v %v", op, p, ok, err)
				}
			}
		})
	}
	// performance counters (32, 33) and Defunct (39) are not read
	for _, op := range []uint8{32, 33, 39, 0} {
		if _, ok, err := DecodeProcess(kernelEvent(ProcessGUID, op, 4, 8, 1, []byte{1})); ok || err != nil {
			t.Errorf("type %d: ok %v err %v", op, ok, err)
		}
	}
}

// subAuthorities is the payload with another SubAuthorityCount.
func subAuthorities(b []byte, n byte) []byte {
	b = append([]byte(nil), b...)
	b[36+16+1] = n
	return b
}

func TestDecodeProcessErrors(t *testing.T) {
	good := processPayload(8, 4, 1, 5, "a.exe")
	// where ImageFileName starts: 8+16+8+4 = 36, the SID 16+8+20 bytes
	tests := []struct {
		name string
		ev   *Event
		want string
	}{
		{"version 5", kernelEvent(ProcessGUID, 1, 5, 8, 1, good), "only versions 1 to 4"},
		{"version 0", kernelEvent(ProcessGUID, 1, 0, 8, 1, good), "only versions 1 to 4"},
		{"no pointer size", kernelEvent(ProcessGUID, 1, 4, 0, 1, good), "pointer size 0"},
		{"cut in the SID", kernelEvent(ProcessGUID, 1, 4, 8, 1, good[:36+30]), "UserSID at offset 52 needs 28 more"},
		{"SID claims 255 sub-authorities", kernelEvent(ProcessGUID, 1, 4, 8, 1, subAuthorities(good, 255)), "UserSID at offset 52 needs 1028 more"},
		{"no image name", kernelEvent(ProcessGUID, 1, 4, 8, 1, good[:36+44]), "ImageFileName at offset 80 is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := DecodeProcess(tt.ev)
			if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ok %v, err %v; want %q", ok, err, tt.want)
			}
		})
	}
	// an unterminated name ends with the payload, cut to MaxImageFileName;
	// bytes beyond ASCII are not passed on
	long := append(append([]byte(nil), good[:36+44]...), strings.Repeat("x", 1000)...)
	long[36+44] = 0xe9
	p, ok, err := DecodeProcess(kernelEvent(ProcessGUID, 1, 4, 8, 1, long))
	if !ok || err != nil || len([]rune(p.ImageFileName)) != MaxImageFileName || !strings.HasPrefix(p.ImageFileName, "\uFFFDxx") {
		t.Errorf("long name: %d runes %q %v %v", len([]rune(p.ImageFileName)), p.ImageFileName[:8], ok, err)
	}
}
