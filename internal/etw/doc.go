// Package etw reads Event Tracing for Windows: the real-time sessions
// (session_windows.go, through advapi32 with no cgo) and, separately, the
// decoding of the events latlab uses, as pure functions over the bytes of
// an event's payload so that every layout is tested on any OS.
//
// Layouts and where they are published:
//
//   - PerfInfo DPC (ThreadedDPC 66, DPC 68, TimerDPC 69) and ISR (67, and
//     50 for message-signalled interrupts): the MOF classes "DPC class" and
//     "ISR class" in the Windows documentation (learn.microsoft.com,
//     windows/win32/etw/dpc and windows/win32/etw/isr): InitialTime
//     (WmiTime), then Routine (a pointer), and for ISR ReturnValue (uint8),
//     Vector (uint8), Reserved (uint16). The MSI variant appends
//     MessageNumber (uint32), as Microsoft's TraceEvent library reads it
//     (microsoft/perfview, KernelTraceEventParser.cs, ISRTraceData). The
//     event is written when the routine returns: its timestamp is the exit,
//     InitialTime the entry, both on the session's clock.
//   - Image (Load 10, Unload 2, DCStart 3, DCEnd 4), version 2 and later:
//     the "Image_Load class" (windows/win32/etw/image-load): ImageBase and
//     ImageSize (pointers), ProcessId, ImageCheckSum, TimeDateStamp,
//     Reserved0 (uint32 each), DefaultBase (pointer), Reserved1-4 (uint32),
//     FileName (NUL-terminated UTF-16).
//
// "Pointer" fields are 4 or 8 bytes as the event header says (the
// 32-bit/64-bit header flags), so every offset after one depends on it.
package etw
