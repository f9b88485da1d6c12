package etw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
)

// Decoding by the provider's own manifest. Every Windows machine carries
// the manifest of Microsoft-Windows-TCPIP, and TdhGetEventInformation
// returns an event's template from it as a TRACE_EVENT_INFO: the event's
// names and a list of EVENT_PROPERTY_INFO, one per field. The Windows 11
// events of Gary Nebbett's "Windows 11 TCP/IP Congestion Control
// Improvements" (TcpReceiveSack with DSackCount, TcpSendTrackerUpdateReoWnd
// with Multiplier, Persist, Reownd, ReorderingSeen, DSackSeenOnLastAck,
// DSackRound, and DetectLoss, SackReorderingDetected, EarlyRetransmit,
// LossRecoverySend, TcpTcbExpireTimer) have no published layout, so they
// are found and read by name through it. ParseEventInfo reads the buffer
// and DecodeProperties a payload against it: pure functions over bytes,
// tested on buffers built from templates; tdh_windows.go makes the call.

// Layout of TRACE_EVENT_INFO (tdh.h, MinGW-w64 and the Windows SDK): two
// GUIDs (32 bytes), EVENT_DESCRIPTOR (16: Id u16, Version u8, Channel u8,
// Level u8, Opcode u8, Task u16, Keyword u64), DecodingSource, then ULONG
// offsets ProviderName 52, LevelName 56, ChannelName 60, KeywordsName 64,
// TaskName 68, OpcodeName 72, EventMessage 76, ProviderMessage 80,
// BinaryXML 84, BinaryXMLSize 88, ActivityIDName 92 (EventNameOffset in
// the Windows 10 SDK's union), RelatedActivityIDName 96 (EventAttributes),
// PropertyCount 100, TopLevelPropertyCount 104, Flags 108, and the
// EVENT_PROPERTY_INFO array at 112. Every field is 16 or 32 bits wide, so
// the layout is the same for 32- and 64-bit processes.
const (
	teiEventID          = 32
	teiEventVersion     = 34
	teiTaskNameOffset   = 68
	teiOpcodeNameOffset = 72
	teiEventNameOffset  = 92
	teiPropertyCount    = 100
	teiTopLevelCount    = 104
	teiProperties       = 112
	// EVENT_PROPERTY_INFO (tdh.h): Flags u32 0, NameOffset u32 4, then
	// InType u16 8, OutType u16 10, MapNameOffset u32 12 (or, for a
	// struct, StructStartIndex u16 8, NumOfStructMembers u16 10),
	// count/countPropertyIndex u16 16, length/lengthPropertyIndex u16 18,
	// Reserved u32 20: 24 bytes.
	propInfoSize = 24
	piFlags      = 0
	piNameOffset = 4
	piInType     = 8
	piCount      = 16
	piLength     = 18
)

// PROPERTY_FLAGS (tdh.h: MinGW-w64 declares 0x1 to 0x10).
// PropertyParamFixedCount, PropertyHasTags and PropertyHasCustomSchema are
// later additions it lacks (Microsoft, PROPERTY_FLAGS enumeration: 0x20,
// 0x40, 0x80).
const (
	PropertyStruct           = 0x1
	PropertyParamLength      = 0x2
	PropertyParamCount       = 0x4
	PropertyWBEMXMLFragment  = 0x8
	PropertyParamFixedLength = 0x10
	PropertyParamFixedCount  = 0x20
	PropertyHasTags          = 0x40
	PropertyHasCustomSchema  = 0x80
)

// TDH_IN_TYPE values (tdh.h in the Windows SDK; MinGW-w64's tdh.h does
// not declare the enumeration; Microsoft, "InputType complex type" of
// the event manifest schema gives the same numbers).
const (
	InUnicodeString = 1
	InAnsiString    = 2
	InInt8          = 3
	InUInt8         = 4
	InInt16         = 5
	InUInt16        = 6
	InInt32         = 7
	InUInt32        = 8
	InInt64         = 9
	InUInt64        = 10
	InFloat         = 11
	InDouble        = 12
	InBoolean       = 13 // 4 bytes
	InBinary        = 14
	InGUID          = 15
	InPointer       = 16
	InFiletime      = 17
	InSystemtime    = 18
	InSID           = 19
	InHexInt32      = 20
	InHexInt64      = 21
)

// Limits on a template: a manifest's events have tens of fields.
const (
	maxTemplateProps = 256
	maxTemplateName  = 256
	maxEventInfo     = 64 << 10
)

// PropInfo is one field of a template.
type PropInfo struct {
	Name   string
	Flags  uint32
	InType uint16
	// Count and Length are the fixed count and length, or with
	// PropertyParamCount / PropertyParamLength the index of the property
	// that holds them.
	Count  uint16
	Length uint16
}

// EventInfo is an event's template: its names and its top-level fields.
type EventInfo struct {
	ID      uint16
	Version uint8
	// Name is the event's own name where the manifest gives one, else its
	// task name; Task and Opcode are the task and opcode names.
	Name, Task, Opcode string
	Props              []PropInfo
	TopLevel           int
}

// Names are the names the event can be known by (its name, task and
// opcode), without empties.
func (e *EventInfo) Names() []string {
	var out []string
	for _, n := range []string{e.Name, e.Task, e.Opcode} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// ParseEventInfo reads a TRACE_EVENT_INFO buffer as TdhGetEventInformation
// fills it (the strings it points at are UTF-16, in the same buffer).
func ParseEventInfo(b []byte) (*EventInfo, error) {
	if len(b) < teiProperties {
		return nil, fmt.Errorf("TRACE_EVENT_INFO of %d bytes: the header alone is %d", len(b), teiProperties)
	}
	if len(b) > maxEventInfo {
		return nil, fmt.Errorf("TRACE_EVENT_INFO of %d bytes: more than %d", len(b), maxEventInfo)
	}
	le := binary.LittleEndian
	e := &EventInfo{ID: le.Uint16(b[teiEventID:]), Version: b[teiEventVersion]}
	var err error
	str := func(at int) string {
		s, serr := utf16At(b, le.Uint32(b[at:]))
		if serr != nil && err == nil {
			err = serr
		}
		return s
	}
	n := le.Uint32(b[teiPropertyCount:])
	top := le.Uint32(b[teiTopLevelCount:])
	if n > maxTemplateProps || top > n {
		return nil, fmt.Errorf("TRACE_EVENT_INFO: %d properties, %d at the top level", n, top)
	}
	if need := teiProperties + int(n)*propInfoSize; len(b) < need {
		return nil, fmt.Errorf("TRACE_EVENT_INFO of %d bytes: %d properties need %d", len(b), n, need)
	}
	e.TopLevel = int(top)
	e.Task, e.Opcode, e.Name = str(teiTaskNameOffset), str(teiOpcodeNameOffset), str(teiEventNameOffset)
	if err != nil {
		return nil, err
	}
	if e.Name == "" {
		e.Name = e.Task
	}
	for i := 0; i < int(n); i++ {
		p := b[teiProperties+i*propInfoSize:]
		pi := PropInfo{Flags: le.Uint32(p[piFlags:]), InType: le.Uint16(p[piInType:]), Count: le.Uint16(p[piCount:]), Length: le.Uint16(p[piLength:])}
		pi.Name, err = utf16At(b, le.Uint32(p[piNameOffset:]))
		if err != nil {
			return nil, fmt.Errorf("property %d: %w", i, err)
		}
		e.Props = append(e.Props, pi)
	}
	return e, nil
}

// utf16At reads the NUL-terminated UTF-16 string at off ("" for 0).
func utf16At(b []byte, off uint32) (string, error) {
	if off == 0 {
		return "", nil
	}
	if int64(off) >= int64(len(b)) || off%2 != 0 {
		return "", fmt.Errorf("a name at offset %d, outside the %d-byte buffer", off, len(b))
	}
	var u []uint16
	for i := int(off); i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			return strings.TrimSpace(string(utf16.Decode(u))), nil
		}
		if len(u) == maxTemplateName {
			return "", fmt.Errorf("a name at offset %d longer than %d characters", off, maxTemplateName)
		}
		u = append(u, c)
	}
	return "", fmt.Errorf("the name at offset %d has no terminating NUL", off)
}

// Fields are an event's fields by name: numbers (pointers and booleans as
// numbers), strings and byte fields (binary: socket addresses).
type Fields struct {
	Num   map[string]uint64
	Str   map[string]string
	Bytes map[string][]byte
	// Stopped names the first field that could not be read, when one
	// could not: the fields before it are kept.
	Stopped string
}

// errStop ends a decode at a field latlab cannot size.
var errStop = errors.New("stop")

// DecodeProperties reads data, an event's payload, field by field as the
// template's top-level properties say; ptrSize is the event's pointer
// size (4 or 8). A field it cannot size (a struct, a type it does not
// know) ends the decode there: Fields.Stopped says which, and what came
// before is returned.
func DecodeProperties(e *EventInfo, data []byte, ptrSize int) (Fields, error) {
	f := Fields{Num: map[string]uint64{}, Str: map[string]string{}, Bytes: map[string][]byte{}}
	if ptrSize != 4 && ptrSize != 8 {
		return f, fmt.Errorf("pointer size %d: an event's header says 4 or 8", ptrSize)
	}
	le := binary.LittleEndian
	off := 0
	value := func(idx uint16, what string) (int, error) {
		if int(idx) >= len(e.Props) {
			return 0, fmt.Errorf("%s names property %d of %d", what, idx, len(e.Props))
		}
		v, ok := f.Num[e.Props[idx].Name]
		if !ok || v > math.MaxInt32 {
			return 0, fmt.Errorf("%s is property %q, which is not a number read before it", what, e.Props[idx].Name)
		}
		return int(v), nil
	}
	for i := 0; i < e.TopLevel && i < len(e.Props); i++ {
		p := e.Props[i]
		if p.Flags&PropertyStruct != 0 {
			f.Stopped = p.Name + " (a structure)"
			return f, nil
		}
		count := 1
		if p.Flags&PropertyParamCount != 0 {
			n, err := value(p.Count, p.Name+"'s count")
			if err != nil {
				return f, err
			}
			count = n
		} else if p.Count > 1 {
			count = int(p.Count)
		}
		length := int(p.Length)
		if p.Flags&PropertyParamLength != 0 {
			n, err := value(p.Length, p.Name+"'s length")
			if err != nil {
				return f, err
			}
			length = n
		}
		size, err := fixedSize(p.InType, length, ptrSize)
		if errors.Is(err, errStop) {
			f.Stopped = fmt.Sprintf("%s (type %d)", p.Name, p.InType)
			return f, nil
		}
		// Strings without a length are NUL-terminated.
		if size < 0 {
			if count != 1 {
				f.Stopped = p.Name + " (an array of strings)"
				return f, nil
			}
			s, n, err := readString(data[off:], p.InType)
			if err != nil {
				return f, fmt.Errorf("field %s at byte %d: %w", p.Name, off, err)
			}
			f.Str[p.Name] = s
			off += n
			continue
		}
		total := size * count
		if count < 0 || total < 0 || off+total > len(data) {
			return f, fmt.Errorf("field %s at byte %d needs %d bytes, the payload has %d", p.Name, off, total, len(data)-off)
		}
		b := data[off : off+total]
		off += total
		if count != 1 {
			f.Bytes[p.Name] = b
			continue
		}
		switch p.InType {
		case InInt8, InUInt8:
			f.Num[p.Name] = uint64(b[0])
		case InInt16, InUInt16:
			f.Num[p.Name] = uint64(le.Uint16(b))
		case InInt32, InUInt32, InHexInt32, InBoolean:
			f.Num[p.Name] = uint64(le.Uint32(b))
		case InInt64, InUInt64, InHexInt64, InFiletime:
			f.Num[p.Name] = le.Uint64(b)
		case InPointer:
			if ptrSize == 4 {
				f.Num[p.Name] = uint64(le.Uint32(b))
			} else {
				f.Num[p.Name] = le.Uint64(b)
			}
		case InUnicodeString:
			f.Str[p.Name] = utf16String(b)
		case InAnsiString:
			f.Str[p.Name] = strings.TrimRight(string(b), "\x00")
		default: // binary, GUID, float, SYSTEMTIME: kept as bytes
			f.Bytes[p.Name] = b
		}
	}
	return f, nil
}

// fixedSize is the size of one value of type t; -1 for a string that
// ends at its NUL; errStop for a type whose size is not known.
func fixedSize(t uint16, length, ptrSize int) (int, error) {
	switch t {
	case InInt8, InUInt8:
		return 1, nil
	case InInt16, InUInt16:
		return 2, nil
	case InInt32, InUInt32, InHexInt32, InBoolean, InFloat:
		return 4, nil
	case InInt64, InUInt64, InHexInt64, InDouble, InFiletime:
		return 8, nil
	case InPointer:
		return ptrSize, nil
	case InGUID, InSystemtime:
		return 16, nil
	case InBinary:
		if length <= 0 {
			return 0, errStop
		}
		return length, nil
	case InUnicodeString:
		if length > 0 {
			return 2 * length, nil
		}
		return -1, nil
	case InAnsiString:
		if length > 0 {
			return length, nil
		}
		return -1, nil
	}
	return 0, errStop
}

func readString(b []byte, t uint16) (string, int, error) {
	if t == InAnsiString {
		for i, c := range b {
			if c == 0 {
				return string(b[:i]), i + 1, nil
			}
		}
		return "", 0, errors.New("an ANSI string without its NUL")
	}
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return utf16String(b[:i]), i + 2, nil
		}
	}
	return "", 0, errors.New("a UTF-16 string without its NUL")
}

func utf16String(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// eventTemplate reads a live event's template from the machine's
// manifest; tdh_windows.go sets it, elsewhere there is none.
var eventTemplate = func(*Event) (*EventInfo, error) { return nil, ErrUnsupported }
