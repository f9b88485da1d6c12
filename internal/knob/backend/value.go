// Package backend is the vocabulary of the places the knobs read and
// write: a Loc (which backend, path, name), a Value as the OS stores it,
// the Backend interface that reads and writes them, and the backends:
// files under a root (Files), the registry, bcdedit and ethtool. It imports
// nothing of the knobs, so the knob catalogue, its journal and the test
// doubles (knobtest) can all build on it.
package backend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Backend names. A Loc's Backend picks which Backend of an Env reads and
// writes it.
const (
	BackendRegistry = "reg"     // Windows registry (a fake in memory in tests)
	BackendFile     = "file"    // files under the --root directory (/proc, /sys)
	BackendBCD      = "bcd"     // boot configuration data through bcdedit
	BackendEthtool  = "ethtool" // ethtool ioctls on a network interface
	BackendService  = "service" // a systemd service unit through systemctl
)

// Value types. Registry types keep their Windows names so a journal reads
// like regedit; Data holds the bytes exactly as the OS returned them.
const (
	TypeAbsent      = "absent"
	TypeKey         = "REG_KEY" // a registry key itself (Loc.Name == "")
	TypeSZ          = "REG_SZ"
	TypeExpandSZ    = "REG_EXPAND_SZ"
	TypeBinary      = "REG_BINARY"
	TypeDWORD       = "REG_DWORD"
	TypeDWORDBE     = "REG_DWORD_BIG_ENDIAN"
	TypeLink        = "REG_LINK"
	TypeMultiSZ     = "REG_MULTI_SZ"
	TypeQWORD       = "REG_QWORD"
	TypeFile        = "file"     // file content
	TypeBCD         = "bcd"      // bcdedit element value as text
	TypeEthCoalesce = "coalesce" // ethtool coalesce parameters, as JSON
	TypeService     = "service"  // a systemd unit's state: "ACTIVE ENABLED" (ServiceState)
)

// regTypes maps Windows registry type numbers to names, in number order.
var regTypes = []string{"REG_NONE", TypeSZ, TypeExpandSZ, TypeBinary, TypeDWORD, TypeDWORDBE, TypeLink, TypeMultiSZ,
	"REG_RESOURCE_LIST", "REG_FULL_RESOURCE_DESCRIPTOR", "REG_RESOURCE_REQUIREMENTS_LIST", TypeQWORD}

// RegTypeName names a registry type number.
func RegTypeName(t uint32) string {
	if int(t) < len(regTypes) {
		return regTypes[t]
	}
	return fmt.Sprintf("REG_TYPE_%d", t)
}

// RegTypeNumber is the inverse of RegTypeName.
func RegTypeNumber(name string) (uint32, bool) {
	for i, n := range regTypes {
		if n == name {
			return uint32(i), true
		}
	}
	var t uint32
	if _, err := fmt.Sscanf(name, "REG_TYPE_%d", &t); err == nil {
		return t, true
	}
	return 0, false
}

// Loc names one stored value a knob reads or writes.
type Loc struct {
	Backend string `json:"backend"`
	// Path: registry key (`HKLM\SYSTEM\...`); file path relative to the
	// root (`proc/sys/net/ipv4/tcp_recovery`); BCD object (`{current}`);
	// network interface (ethtool).
	Path string `json:"path"`
	Name string `json:"name,omitempty"` // registry value name (empty: the key itself); BCD element
}

func (l Loc) String() string {
	switch l.Backend {
	case BackendFile:
		return "/" + strings.TrimPrefix(l.Path, "/")
	case BackendRegistry:
		if l.Name == "" {
			return l.Path
		}
		return l.Path + `\` + l.Name
	case BackendBCD:
		return "bcd " + l.Path + " " + l.Name
	case BackendService:
		return "systemd unit " + l.Path
	}
	return l.Backend + " " + l.Path + " " + l.Name
}

// Value is what a Loc holds: its type and bytes, or absent.
type Value struct {
	Type string `json:"type"` // TypeAbsent when the value does not exist
	Data []byte `json:"data,omitempty"`
}

// Absent is the value of a Loc that does not exist.
var Absent = Value{Type: TypeAbsent}

// IsAbsent reports whether v stands for a missing value.
func (v Value) IsAbsent() bool { return v.Type == TypeAbsent || v.Type == "" }

// Same reports whether a and b are the same stored value: byte for byte,
// except where the system itself treats two forms alike. A registry
// string is the same with or without its terminating NULs; a BCD element
// value ignores case (bcdedit takes "enhanced" and shows "Enhanced").
// Apply reads back what it wrote, so a revert compares values as the
// system shows them.
func Same(a, b Value) bool {
	if a.IsAbsent() || b.IsAbsent() {
		return a.IsAbsent() == b.IsAbsent()
	}
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case TypeBCD:
		return strings.EqualFold(string(a.Data), string(b.Data))
	case TypeSZ, TypeExpandSZ:
		return a.String() == b.String()
	case TypeService:
		// Stopped is stopped, whether systemd says inactive or failed:
		// a stop leaves either, and neither can be made on purpose.
		x, errA := DecodeService(a)
		y, errB := DecodeService(b)
		if errA == nil && errB == nil {
			return x.Running() == y.Running() && x.Enabled == y.Enabled
		}
	}
	return bytes.Equal(a.Data, b.Data)
}

// SZ is a REG_SZ value: UTF-16LE with the terminating NUL, as the
// registry stores it.
func SZ(s string) Value { return Value{Type: TypeSZ, Data: UTF16Bytes(s)} }

// DWORD is a REG_DWORD value.
func DWORD(n uint32) Value {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, n)
	return Value{Type: TypeDWORD, Data: b}
}

// QWORD is a REG_QWORD value.
func QWORD(n uint64) Value {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, n)
	return Value{Type: TypeQWORD, Data: b}
}

// FileValue is file content.
func FileValue(s string) Value { return Value{Type: TypeFile, Data: []byte(s)} }

// KeyValue stands for an existing registry key.
var KeyValue = Value{Type: TypeKey}

// UTF16Bytes is s as a registry string stores it: UTF-16LE with its
// terminating NUL.
func UTF16Bytes(s string) []byte {
	u := utf16.Encode([]rune(s + "\x00"))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// UTF16String decodes a registry string, trailing NULs dropped.
func UTF16String(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	for len(u) > 0 && u[len(u)-1] == 0 {
		u = u[:len(u)-1]
	}
	return string(utf16.Decode(u))
}

// String renders v as text: strings as they are, numbers in decimal,
// binary in hex.
func (v Value) String() string {
	switch v.Type {
	case TypeAbsent, "":
		return "(absent)"
	case TypeKey:
		return "(key)"
	case TypeSZ, TypeExpandSZ, TypeLink:
		return UTF16String(v.Data)
	case TypeMultiSZ:
		s := UTF16String(v.Data)
		return strings.Join(strings.Split(strings.TrimRight(s, "\x00"), "\x00"), ";")
	case TypeDWORD:
		if len(v.Data) >= 4 {
			return fmt.Sprint(binary.LittleEndian.Uint32(v.Data))
		}
	case TypeDWORDBE:
		if len(v.Data) >= 4 {
			return fmt.Sprint(binary.BigEndian.Uint32(v.Data))
		}
	case TypeQWORD:
		if len(v.Data) >= 8 {
			return fmt.Sprint(binary.LittleEndian.Uint64(v.Data))
		}
	case TypeFile, TypeBCD, TypeEthCoalesce, TypeService:
		return strings.TrimRight(string(v.Data), "\n")
	}
	return fmt.Sprintf("hex:%x", v.Data)
}

// Uint reads a number from a DWORD, QWORD or a string holding a decimal
// (NDIS keywords are REG_SZ numbers).
func (v Value) Uint() (uint64, error) {
	switch v.Type {
	case TypeDWORD, TypeDWORDBE, TypeQWORD:
		if (v.Type == TypeQWORD && len(v.Data) < 8) || len(v.Data) < 4 {
			return 0, fmt.Errorf("%s of %d bytes", v.Type, len(v.Data))
		}
	}
	switch v.Type {
	case TypeDWORD:
		return uint64(binary.LittleEndian.Uint32(v.Data)), nil
	case TypeDWORDBE:
		return uint64(binary.BigEndian.Uint32(v.Data)), nil
	case TypeQWORD:
		return binary.LittleEndian.Uint64(v.Data), nil
	case TypeSZ, TypeExpandSZ, TypeFile, TypeBCD:
		s := strings.TrimSpace(v.String())
		var n uint64
		if _, err := fmt.Sscan(s, &n); err != nil {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return n, nil
	}
	return 0, fmt.Errorf("a %s value is not a number", v.Type)
}

// WithNumber returns a value of the same type as like holding n: the
// type of an existing registry value is kept (NDIS keywords are REG_SZ,
// most others REG_DWORD). An absent like gives def's type.
func WithNumber(like Value, n uint64, def string) Value {
	t := like.Type
	if like.IsAbsent() {
		t = def
	}
	switch t {
	case TypeSZ:
		return SZ(fmt.Sprint(n))
	case TypeExpandSZ:
		v := SZ(fmt.Sprint(n))
		v.Type = TypeExpandSZ
		return v
	case TypeQWORD:
		return QWORD(n)
	case TypeDWORDBE:
		b := make([]byte, 4)
		binary.BigEndian.PutUint32(b, uint32(n))
		return Value{Type: TypeDWORDBE, Data: b}
	}
	return DWORD(uint32(n))
}

// Backend reads and writes stored values.
type Backend interface {
	// Read returns the value at l, Absent when it does not exist.
	Read(l Loc) (Value, error)
	// Write stores v at l; an absent v deletes the value (or, for a
	// registry key, the empty key).
	Write(l Loc, v Value) error
	// CheckWrite reports, without changing anything, why writing l would
	// fail (missing privilege, read-only file, missing parent).
	CheckWrite(l Loc) error
}

// Lister enumerates a registry key or a directory: sub-keys
// (directories) and value names (files).
type Lister interface {
	List(path string) (keys, values []string, err error)
}

// ErrNotFound is returned by List for a missing key or directory.
var ErrNotFound = errors.New("not found")
