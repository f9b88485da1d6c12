package winapi

// GroupAffinity is GROUP_AFFINITY (winnt.h in mingw-w64: KAFFINITY Mask;
// WORD Group; WORD Reserved[3]): a processor group and the mask of
// processors within it. 16 bytes on 64-bit Windows, Group at offset 8,
// Reserved at 10 (as x86_64-w64-mingw32-gcc lays out the header's
// struct); Reserved must be zero.
type GroupAffinity struct {
	Mask     uintptr // KAFFINITY: ULONG_PTR
	Group    uint16
	Reserved [3]uint16
}

// ProcessorNumber is PROCESSOR_NUMBER (winnt.h in mingw-w64: WORD Group;
// BYTE Number; BYTE Reserved): a logical processor as its group and its
// number within the group. 4 bytes, Number at offset 2.
type ProcessorNumber struct {
	Group    uint16
	Number   uint8
	Reserved uint8
}
