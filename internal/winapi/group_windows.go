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
