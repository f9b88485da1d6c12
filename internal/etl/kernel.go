package etl

import (
	"fmt"
	"sync"

	"github.com/latlab/latlab/internal/etw"
)

// class is a classic kernel event class: the MOF class GUID consumers see
// for a hook id's group, and its name.
type class struct {
	guid etw.GUID
	name string
}

// kernelGroups maps the group byte of a hook id (EVENT_TRACE_GROUP_*,
// ntwmi.h as Chappell's "Hook IDs" lists it) to the MOF class of its
// events. The GUIDs are those of the "NT Kernel Logger Events" classes of
// the Windows documentation (learn.microsoft.com/windows/win32/etw/
// nt-kernel-logger-constants and the class pages linked there).
var kernelGroups = sync.OnceValue(func() map[uint8]class {
	return map[uint8]class{
		0x00: {guid("68fdd900-4a3e-11d1-84f4-0000f80464e3"), "EventTrace"},
		0x01: {guid("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"), "DiskIo"},
		0x02: {guid("3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"), "PageFault"},
		0x03: {guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"), "Process"},
		0x04: {guid("90cbdc39-4a3e-11d1-84f4-0000f80464e3"), "FileIo"},
		0x05: {guid("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"), "Thread"},
		0x06: {guid("9a280ac0-c8e0-11d1-84e2-00c04fb998a2"), "TcpIp"},
		0x07: {guid("3282fc76-feed-498e-8aa7-e70f459d430e"), "Job"},
		0x08: {guid("bf3a50c5-a9c9-4988-a005-2df0b7c80f80"), "UdpIp"},
		0x09: {guid("ae53722e-c863-11d2-8659-00c04fa321a1"), "Registry"},
		0x0a: {guid("13976d09-a327-438c-950b-7f03192815c7"), "DbgPrint"},
		0x0b: {guid("01853a65-418f-4f36-aefc-dc0f1d2fd235"), "SystemConfig"},
		0x0e: {guid("0268a8b6-74fd-4302-9dd0-6e8f1795c0cf"), "Pool"},
		0x0f: {etw.PerfInfoGUID, "PerfInfo"},
		0x10: {guid("222962ab-6180-4b88-a825-346b75f2a24a"), "HeapTrace"},
		0x11: {guid("89497f50-effe-4440-8cf2-ce6b1cdcaca7"), "ObTrace"},
		0x12: {guid("e43445e0-0903-48c3-b878-ff0fccebdd04"), "Power"},
		0x13: {guid("9b79ee91-b5fd-41c0-a243-4248e266e9d0"), "ModBound"},
		0x14: {etw.ImageGUID, "Image"},
		0x18: {guid("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"), "StackWalk"},
		0x19: {guid("9aec974b-5b8e-4118-9b92-3186d8002ce5"), "UmsEvent"},
		0x1a: {guid("45d8cccd-539f-4b72-a8b7-5c683142609a"), "ALPC"},
		0x1b: {guid("d837ca92-12b9-44a5-ad6a-3a65b3578aa8"), "SplitIo"},
		0x1c: {guid("c861d0e2-a2c1-4d36-9f9c-970bab943a12"), "ThreadPool"},
	}
})

// kernelOpcodeName names the event types of kernel classes latlab
// decodes beyond DPCs and ISRs: PageFault's type 32 is HardFault
// (learn.microsoft.com/windows/win32/etw/pagefault-hardfault).
func kernelOpcodeName(class string, op int) string {
	if class == GUIDString(etw.PageFaultGUID) && op == etw.TypeHardFault {
		return "HardFault"
	}
	return ""
}

// EventTraceGUID is the class of the logger's own events: the log file
// header (type 0) and the rundown markers at the end of a trace.
var EventTraceGUID = guid("68fdd900-4a3e-11d1-84f4-0000f80464e3")

// kernelHooks are hook ids whose class is not their group's: the kernel
// logs a module load as WMI_LOG_TYPE_PROCESS_LOAD_IMAGE (the Process
// group, type 10), which consumers see as the Image class's Load event.
var kernelHooks = sync.OnceValue(func() map[uint16]class {
	return map[uint16]class{0x030a: kernelGroups()[0x14]}
})

// kernelClass is the class of a hook id; a group latlab does not know gets
// the zero GUID and a name that gives the group.
func kernelClass(hook uint16) class {
	if c, ok := kernelHooks()[hook]; ok {
		return c
	}
	if c, ok := kernelGroups()[uint8(hook>>8)]; ok {
		return c
	}
	return class{name: fmt.Sprintf("kernel group 0x%02x", hook>>8)}
}

// kernelClassGUID is kernelClass(hook).guid, without naming an unknown
// group: it runs once per kernel event.
func kernelClassGUID(hook uint16) etw.GUID {
	if c, ok := kernelHooks()[hook]; ok {
		return c.guid
	}
	return kernelGroups()[uint8(hook>>8)].guid
}

// Provider names of manifest providers latlab reads, by GUID, for the
// summary (a TraceLogging provider names itself in its events).
var providerNames = sync.OnceValue(func() map[etw.GUID]string {
	return map[etw.GUID]string{
		etw.TCPIPGUID:         "Microsoft-Windows-TCPIP",
		NDISPacketCaptureGUID: "Microsoft-Windows-NDIS-PacketCapture",
		PktMonGUID:            "Microsoft-Windows-PktMon",
		guid("9e814aad-3204-11d2-9a82-006008a86939"): "SystemTraceControl",
	}
})

// The packet providers (their manifests name them; netsh trace and pktmon
// enable them).
var (
	NDISPacketCaptureGUID = guid("2ed6006e-4729-4609-b423-3ee7bcd678ef")
	PktMonGUID            = guid("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
)

// ProviderName names a provider or kernel class ("" when unknown).
func ProviderName(g etw.GUID) string {
	if n, ok := providerNames()[g]; ok {
		return n
	}
	for _, c := range kernelGroups() {
		if c.guid == g {
			return c.name
		}
	}
	return ""
}

// guid parses the lower-case registry form without braces; it panics on
// a malformed literal (package variables only).
func guid(s string) etw.GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic(err)
	}
	return g
}

// ParseGUID reads xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, braces optional.
func ParseGUID(s string) (etw.GUID, error) {
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	var g etw.GUID
	var d4 [8]uint8
	if len(s) != 36 {
		return g, fmt.Errorf("GUID %q: want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", s)
	}
	n, err := fmt.Sscanf(s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", &g.Data1, &g.Data2, &g.Data3,
		&d4[0], &d4[1], &d4[2], &d4[3], &d4[4], &d4[5], &d4[6], &d4[7])
	if err != nil || n != 11 {
		return etw.GUID{}, fmt.Errorf("GUID %q: want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", s)
	}
	g.Data4 = d4
	return g, nil
}

// GUIDString is the lower-case form without braces the summary uses.
func GUIDString(g etw.GUID) string {
	s := g.String()
	return s[1 : len(s)-1]
}
