package etw

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// SystemModuleInformation is the NtQuerySystemInformation class that
// lists the loaded kernel modules. Undocumented, and not in mingw-w64's
// winternl.h: the number is SYSTEM_INFORMATION_CLASS's in System
// Informer's phnt headers (winsiderss/phnt, ntexapi.h).
const SystemModuleInformation = 11

// moduleInfoSize is the size of RTL_PROCESS_MODULE_INFORMATION: Section,
// MappedBase, ImageBase (pointers), ImageSize, Flags (ULONG),
// LoadOrderIndex, InitOrderIndex, LoadCount, OffsetToFileName (USHORT),
// FullPathName (256 chars). The layout is the one in System Informer's
// phnt headers (winsiderss/phnt, ntldr.h); Microsoft does not document
// this class.
func moduleInfoSize(ptr int) int { return 3*ptr + 4 + 4 + 4*2 + 256 }

// ParseSystemModules reads the RTL_PROCESS_MODULES that
// NtQuerySystemInformation(SystemModuleInformation) returns: a ULONG count,
// then the entries, aligned to the pointer size. Modules without a base
// (the kernel hides addresses from callers without the debug privilege)
// are dropped.
func ParseSystemModules(b []byte, ptr int) ([]Module, error) {
	if ptr != 4 && ptr != 8 {
		return nil, fmt.Errorf("system module list: pointer size %d, want 4 or 8", ptr)
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("system module list: %d bytes, the count needs 4", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b))
	size := moduleInfoSize(ptr)
	off := ptr // the array follows the count at pointer alignment
	if n < 0 || n > (len(b)-off)/size {
		return nil, fmt.Errorf("system module list: %d bytes hold %d modules, the count says %d", len(b), max(0, (len(b)-off)/size), n)
	}
	var out []Module
	for i := 0; i < n; i++ {
		e := b[off+i*size : off+(i+1)*size]
		r := reader{b: e, ptr: ptr}
		r.pointer("Section")
		r.pointer("MappedBase")
		base := r.pointer("ImageBase")
		imageSize := r.u32("ImageSize")
		r.u32("Flags")
		r.u16("LoadOrderIndex")
		r.u16("InitOrderIndex")
		r.u16("LoadCount")
		nameOff := int(r.u16("OffsetToFileName"))
		path := e[r.off:]
		if j := bytes.IndexByte(path, 0); j >= 0 {
			path = path[:j]
		}
		name := ModuleName(string(path))
		if nameOff < len(path) {
			name = string(path[nameOff:])
		}
		if base == 0 || imageSize == 0 || name == "" {
			continue
		}
		out = append(out, Module{Name: name, Base: base, Size: uint64(imageSize)})
	}
	return out, nil
}
