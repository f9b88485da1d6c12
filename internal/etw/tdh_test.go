package etw

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

// tmplProp is a field of a template as a manifest declares it.
type tmplProp struct {
	name          string
	inType        uint16
	flags         uint32
	count, length uint16
}

// eventInfoBytes builds the TRACE_EVENT_INFO buffer TdhGetEventInformation
// fills for a template (tdh.h's layout; strings after the array).
func eventInfoBytes(id uint16, version uint8, task, opcode, name string, props []tmplProp) []byte {
	le := binary.LittleEndian
	b := make([]byte, teiProperties+len(props)*propInfoSize)
	le.PutUint16(b[teiEventID:], id)
	b[teiEventVersion] = version
	str := func(s string) uint32 {
		if s == "" {
			return 0
		}
		off := uint32(len(b))
		for _, c := range utf16.Encode([]rune(s)) {
			b = le.AppendUint16(b, c)
		}
		b = le.AppendUint16(b, 0)
		return off
	}
	// Each string is appended before the slice it is written into is
	// taken: an append may move b.
	to, oo, no := str(task), str(opcode), str(name)
	le.PutUint32(b[teiTaskNameOffset:], to)
	le.PutUint32(b[teiOpcodeNameOffset:], oo)
	le.PutUint32(b[teiEventNameOffset:], no)
	le.PutUint32(b[teiPropertyCount:], uint32(len(props)))
	le.PutUint32(b[teiTopLevelCount:], uint32(len(props)))
	for i, p := range props {
		at := teiProperties + i*propInfoSize
		le.PutUint32(b[at:], p.flags)
		off := str(p.name)
		le.PutUint32(b[at+4:], off) // b is taken after the append
		le.PutUint16(b[at+8:], p.inType)
		le.PutUint16(b[at+16:], p.count)
		le.PutUint16(b[at+18:], p.length)
	}
	return b
}

// The Windows 11 templates as Gary Nebbett's notes name their fields; the
// types are latlab's guess (the manifests are not published), which is why
// the decoder takes them from the machine's own manifest.
var (
	receiveSackTmpl = []tmplProp{{"Tcb", InPointer, 0, 0, 0}, {"SndUna", InUInt32, 0, 0, 0}, {"SackLeft", InUInt32, 0, 0, 0}, {"SackRight", InUInt32, 0, 0, 0}, {"DSackCount", InUInt32, 0, 0, 0}}
	reoWndTmpl      = []tmplProp{{"Tcb", InPointer, 0, 0, 0}, {"Multiplier", InUInt8, 0, 0, 0}, {"Persist", InUInt8, 0, 0, 0}, {"Reownd", InUInt32, 0, 0, 0},
		{"ReorderingSeen", InBoolean, 0, 0, 0}, {"DSackSeenOnLastAck", InBoolean, 0, 0, 0}, {"DSackRound", InUInt32, 0, 0, 0}}
)

func TestParseEventInfoAndDecode(t *testing.T) {
	info, err := ParseEventInfo(eventInfoBytes(1500, 2, "TcpSendTrackerUpdateReoWnd", "Info", "", reoWndTmpl))
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != 1500 || info.Version != 2 || info.Name != "TcpSendTrackerUpdateReoWnd" || len(info.Props) != 7 || info.Props[3].Name != "Reownd" {
		t.Fatalf("info %+v", info)
	}
	for _, ptr := range []int{4, 8} {
		p := &payload{ptr: ptr}
		p.pointer(0xffffa0012345)
		p.u8(2).u8(16).u32(1250).u32(1).u32(1).u32(3)
		f, err := DecodeProperties(info, p.b, ptr)
		if err != nil || f.Stopped != "" {
			t.Fatalf("ptr %d: %v %q", ptr, err, f.Stopped)
		}
		if f.Num["Multiplier"] != 2 || f.Num["Persist"] != 16 || f.Num["Reownd"] != 1250 || f.Num["DSackSeenOnLastAck"] != 1 || f.Num["DSackRound"] != 3 {
			t.Errorf("ptr %d: fields %v", ptr, f.Num)
		}
	}
	// A short payload names the field that did not fit.
	if _, err := DecodeProperties(info, []byte{1, 2, 3, 4, 5, 6, 7, 8, 1}, 8); err == nil || !strings.Contains(err.Error(), "field Persist at byte 9") {
		t.Errorf("short payload: %v", err)
	}
}

// Lengths and counts taken from an earlier field, strings, and a field
// that cannot be sized (a structure) stopping the decode with what came
// before.
func TestDecodePropertiesParams(t *testing.T) {
	info, err := ParseEventInfo(eventInfoBytes(1033, 1, "TcpConnectTcbComplete", "", "", []tmplProp{
		{"LocalAddressLength", InUInt32, 0, 0, 0},
		{"LocalAddress", InBinary, PropertyParamLength, 0, 0},
		{"Reason", InUnicodeString, 0, 0, 0},
		{"N", InUInt16, 0, 0, 0},
		{"Seqs", InUInt32, PropertyParamCount, 3, 0},
		{"Nested", 0, PropertyStruct, 0, 0},
		{"After", InUInt32, 0, 0, 0},
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := (&payload{}).u32(4).u32(0xdeadbeef).str("RACK").u16(2).u32(7).u32(8)
	f, err := DecodeProperties(info, p.b, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Bytes["LocalAddress"]) != 4 || f.Str["Reason"] != "RACK" || len(f.Bytes["Seqs"]) != 8 || f.Stopped != "Nested (a structure)" {
		t.Errorf("fields %+v", f)
	}
	if _, ok := f.Num["After"]; ok {
		t.Error("a field after the structure was read")
	}
	// A length naming a property not read before it is an error.
	bad, _ := ParseEventInfo(eventInfoBytes(1, 0, "x", "", "", []tmplProp{{"Data", InBinary, PropertyParamLength, 0, 5}}))
	if _, err := DecodeProperties(bad, []byte{1}, 8); err == nil || !strings.Contains(err.Error(), "names property 5 of 1") {
		t.Errorf("bad length index: %v", err)
	}
}

func TestParseEventInfoBad(t *testing.T) {
	good := eventInfoBytes(1, 0, "Task", "", "", receiveSackTmpl)
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{good[:50], "the header alone"},
		{good[:teiProperties+10], "properties need"},
		{func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[teiTaskNameOffset:], 1<<20)
			return b
		}(), "outside"},
		{func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[teiPropertyCount:], 1<<30)
			return b
		}(), "properties"},
	} {
		if _, err := ParseEventInfo(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

func FuzzParseEventInfo(f *testing.F) {
	f.Add(eventInfoBytes(1500, 2, "TcpSendTrackerUpdateReoWnd", "", "", reoWndTmpl), []byte{1, 2, 3, 4, 5, 6, 7, 8, 2, 16, 0, 0, 0, 0})
	f.Add(eventInfoBytes(1, 0, "x", "", "", []tmplProp{{"L", InUInt32, 0, 0, 0}, {"D", InBinary, PropertyParamLength, 0, 0}}), []byte{255, 255, 255, 127})
	f.Fuzz(func(t *testing.T, b, data []byte) {
		info, err := ParseEventInfo(b)
		if err != nil {
			return
		}
		_, _ = DecodeProperties(info, data, 8)
		_, _ = DecodeProperties(info, data, 4)
	})
}
