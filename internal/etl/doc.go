// Package etl reads Event Trace Log (.etl) files, the files Windows'
// tracing sessions write (wpr, xperf, netsh trace, pktmon, logman), and
// hands their events to the same decoders as latlab's live sessions
// (package etw), so a trace recorded with built-in tools is analysed on
// any OS.
//
// Microsoft documents the structures inside the file but not the file.
// The layout read here, and where each part is published:
//
//   - The file is a sequence of trace buffers, each starting with a
//     WMI_BUFFER_HEADER (0x48 bytes: BufferSize at 0, SavedOffset at 4,
//     TimeStamp at 0x10, ClockType:3/Frequency:61 at 0x20, the
//     ETW_BUFFER_CONTEXT at 0x28 whose first byte is the processor,
//     Offset at 0x30, BufferFlag at 0x34, BufferType at 0x36). Geoff
//     Chappell, "WMI_BUFFER_HEADER" (studies/windows/km/ntoskrnl/api/etw/
//     tracelog/wmi_buffer_header.htm); NTWMI.H of the Windows 10 WDK.
//   - After the buffer header come events, each aligned to 8 bytes, up to
//     Offset (SavedOffset says less in the first buffer of Windows 10/11
//     traces and 0 in Windows 7's: see bufferSize). A buffer flagged
//     compressed (0x40) holds them in plain LZXpress (compressed.go).
//     Every event starts with 4 bytes that say which header
//     follows: the third byte is the header type, the fourth has its high
//     bit set. Chappell, "Trace Headers" (tracelog/traceheaders.htm):
//     0x01/0x02 SYSTEM_TRACE_HEADER (32/64-bit data), 0x03/0x04 its
//     compact form without the CPU times, 0x10/0x11 PERFINFO_TRACE_HEADER,
//     0x12/0x13 EVENT_HEADER, 0x0A/0x14 EVENT_TRACE_HEADER ("full"),
//     0x0B/0x15 EVENT_INSTANCE_HEADER, and the MESSAGE_TRACE_HEADER of WPP
//     (flags byte 0x90).
//   - Classic kernel events (system, compact and perfinfo headers) carry a
//     hook id instead of a GUID: the event group in its high byte, the
//     event type in its low byte (Chappell, "Hook IDs",
//     api/etw/callouts/hookid.htm). kernel.go maps each group to the MOF
//     class GUID consumers see (the class GUIDs of the "NT Kernel Logger
//     Events" pages of the Windows documentation).
//   - The first event of the first buffer is the logger's own header, the
//     EventTrace class (68fdd900-4a3e-11d1-84f4-0000f80464e3) event type 0,
//     whose payload is a TRACE_LOGFILE_HEADER (evntrace.h) with its two
//     pointers (LoggerName, LogFileName) as wide as the trace's pointers.
//
// Every read is bounded: a buffer larger than MaxBufferSize, a buffer
// whose fields contradict each other, or an event that runs past its
// buffer is skipped with a note naming its file offset, and reading goes
// on at the next buffer; a compressed buffer decodes to at most the
// trace's own buffer size, and the decoded bytes count against infile's
// cap. The layout is checked on the real traces of testdata/corpus.tsv
// (scripts/verify-etl).
package etl
