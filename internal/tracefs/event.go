package tracefs

import (
	"bytes"
	"encoding/binary"
)

// Event is a record with the format its common_type names.
type Event struct {
	CPU    int
	TS     int64
	Format *Format
	Data   []byte
}

// Type is the record's common_type (the event ID), 0 for a record too
// short to hold it.
func Type(data []byte) uint16 {
	if len(data) < 2 {
		return 0
	}
	return binary.LittleEndian.Uint16(data)
}

// Int is an integer field (1, 2, 4 or 8 bytes, sign-extended when the
// field is signed); 0 when the record is too short.
func (f Field) Int(data []byte) int64 {
	if f.Offset+f.Size > len(data) {
		return 0
	}
	b := data[f.Offset : f.Offset+f.Size]
	switch f.Size {
	case 1:
		if f.Signed {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		v := binary.LittleEndian.Uint16(b)
		if f.Signed {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b)
		if f.Signed {
			return int64(int32(v))
		}
		return int64(v)
	case 8:
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// String is a char array or a __data_loc string, up to its first NUL;
// "" when it lies outside the record.
func (f Field) String(data []byte) string {
	off, n := f.Offset, f.Size
	if f.DataLoc {
		if f.Offset+4 > len(data) {
			return ""
		}
		v := binary.LittleEndian.Uint32(data[f.Offset:])
		off, n = int(v&0xffff), int(v>>16)
		if f.Type != "" && len(f.Type) >= 9 && f.Type[:9] == "__rel_loc" {
			off += f.Offset + 4
		}
	}
	if off < 0 || off+n > len(data) {
		return ""
	}
	b := data[off : off+n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
