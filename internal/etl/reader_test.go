package etl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/infile"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The counts dissect.etl 3.14 gives for the real traces (scripts/verify-etl
// compares every count and image with it again on each CI run).
func TestSummaryOfRealTraces(t *testing.T) {
	s, err := Summarize(context.Background(), bytes.NewReader(fixture(t, "ShutdownPerfDiagLogger.etl")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, p := range s.Providers {
		got[p.GUID+" "+p.Name] = p.Events
	}
	want := map[string]int64{
		"2cb15d1d-5fc1-11d2-abe1-00a0c911f518 Image":      13755,
		"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c Thread":     3058,
		"3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c Process":    256,
		"68fdd900-4a3e-11d1-84f4-0000f80464e3 EventTrace": 9,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || s.Events != 17078 {
		t.Errorf("providers %v (%d events), want %v (17078)", got, s.Events, want)
	}
	if len(s.Modules) != 196 {
		t.Errorf("%d kernel modules, want 196", len(s.Modules))
	}
	nt := Module{Name: "ntoskrnl.exe", File: `\SystemRoot\system32\ntoskrnl.exe`, Base: 0xfffff802424ab000, Size: 11231232}
	found := false
	for _, m := range s.Modules {
		found = found || m == nt
	}
	if !found {
		t.Errorf("no %+v among the modules", nt)
	}
	h := s.Header
	if h.OS != "10.0" || h.Build != 18362 || h.CPUs != 2 || h.PointerSize != 8 || h.Clock != "QueryPerformanceCounter" ||
		h.ClockFrequency != 10_000_000 || h.Buffers != 49 || h.BuffersWritten != 49 || h.LoggerName != "PerfDiag Logger" {
		t.Errorf("header %+v", h)
	}
	if got := h.Start.Format("2006-01-02 15:04:05.000000"); got != "2020-02-28 09:03:47.744579" {
		t.Errorf("start %s", got)
	}
	if len(s.Uses) != 0 || len(s.Notes) != 0 {
		t.Errorf("uses %v notes %v", s.Uses, s.Notes)
	}

	s, err = Summarize(context.Background(), bytes.NewReader(fixture(t, "lxcore_kernel.etl")))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Providers) != 2 || s.Providers[0].GUID != "0cd1c309-0878-4515-83db-749843b3f5c9" ||
		s.Providers[0].Name != "Microsoft.Windows.Subsystem.LxCore" || s.Providers[0].Events != 2 {
		t.Errorf("lxcore providers %+v", s.Providers)
	}
}

func TestTraceLoggingExtendedData(t *testing.T) {
	rd, recs := readAll(t, fixture(t, "lxcore_kernel.etl"))
	if rd.Buffers != 3 {
		t.Errorf("%d buffers", rd.Buffers)
	}
	var ev *Record
	for _, r := range recs {
		if r.Kind == HeaderEvent {
			ev = r
			break
		}
	}
	if ev == nil || len(ev.Extended) == 0 || ev.Extended[0].Type != ExtProvTraits || ev.PointerSize != 8 {
		t.Fatalf("TraceLogging event %+v", ev)
	}
}

// setU32 returns a copy of b with a uint32 written at off.
func setU32(b []byte, off int, v uint32) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func TestDamagedBuffersAreSkippedWithANote(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	_, all := readAll(t, good)
	const buf = 4096
	cases := []struct {
		name   string
		b      []byte
		note   string
		events int // events read
	}{
		{"buffer size too large", setU32(good, 2*buf, 1<<30), "buffer at offset 8192: says the buffer is 1073741824 bytes", len(all) - countIn(all, 2*buf, 3*buf)},
		{"buffer size below its header", setU32(good, 2*buf, 8), "buffer at offset 8192: says the buffer is 8 bytes", len(all) - countIn(all, 2*buf, 3*buf)},
		{"events end outside the buffer", setU32(setU32(good, 2*buf+4, 9000), 2*buf+0x30, 9000), "buffer at offset 8192: says its events end at 9000 (Offset) or 9000 (SavedOffset), outside its 4096 bytes; skipped", len(all) - countIn(all, 2*buf, 3*buf)},
		{"truncated file", good[:3*buf+100], "buffer at offset 12288: 4096 bytes, the file ends after 100", countIn(all, 0, 3*buf)},
		{"event size past the buffer", setU32(good, 2*buf+BufferHeaderSize+4, 0x0f44ffff), "event at offset 8264: perfinfo trace header says 65535 bytes", len(all) - countIn(all, 2*buf, 3*buf)},
		{"unknown header type", setU32(good, 2*buf+BufferHeaderSize, 0xc07f0002), "event at offset 8264: marker c07f0002: trace header type 0x7f", len(all) - countIn(all, 2*buf, 3*buf)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(bytes.NewReader(c.b))
			n := 0
			if err := rd.Walk(func(*Record) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(rd.Notes(), "; ")
			if !strings.Contains(notes, c.note) {
				t.Errorf("notes %q, want one with %q", notes, c.note)
			}
			if n != c.events {
				t.Errorf("%d events, want %d", n, c.events)
			}
		})
	}
}

// A file that ends at a buffer boundary before the buffers its header
// says the logger wrote (BuffersWritten of TRACE_LOGFILE_HEADER) is cut
// short: a note when events were read, bad input when nothing but the
// header was. Modes that leave fewer buffers in the file by design
// (circular, append, new file) are not judged by the count.
func TestCutAtABufferBoundary(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	const buf = 4096
	mode := BufferHeaderSize + 0x20 + 32 // LogFileMode of the header event's payload
	lx := fixture(t, "lxcore_kernel.etl")
	cases := []struct {
		name    string
		b       []byte
		err     string // bad input naming this
		missing int
	}{
		{"real trace, complete", lx, "", 0},
		{"real trace, first buffer only", lx[:8192], "the file holds 1 of the 3 buffers its header says the logger wrote", 2},
		{"written trace, complete", good, "", 0},
		{"written trace, half", good[:2*buf], "", 2},
		{"written trace, a partial header after the last buffer", good[:2*buf+10], "", 2},
		{"written trace, first buffer only", good[:buf], "the file holds 1 of the 4 buffers", 3},
		{"written trace, cut inside its third buffer", good[:2*buf+100], "", 2},
		{"circular file, first buffer only", setU32(good, mode, 0x2)[:buf], "", 0},
		{"new-file mode, half", setU32(good, mode, 0x8)[:2*buf], "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(bytes.NewReader(c.b))
			err := rd.Walk(func(*Record) error { return nil })
			switch {
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err != "" && (err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err %v, want bad input naming %q", err, c.err)
			}
			if rd.Missing != c.missing {
				t.Errorf("Missing %d, want %d", rd.Missing, c.missing)
			}
			if u := rd.Unreadable(); (c.missing > 0) != strings.Contains(u, fmt.Sprintf("the file holds %d of the", rd.inFile)) {
				t.Errorf("Unreadable %q with %d buffers missing", u, c.missing)
			}
		})
	}
}

// countIn counts the records whose offset lies in [from, to).
func countIn(recs []*Record, from, to int64) int {
	n := 0
	for _, r := range recs {
		if r.Offset >= from && r.Offset < to {
			n++
		}
	}
	return n
}

func TestNotATraceIsBadInput(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	for name, b := range map[string][]byte{
		"empty":            nil,
		"short":            []byte("hello"),
		"text":             bytes.Repeat([]byte("latlab "), 100),
		"first size":       setU32(good, 0, 3),
		"first truncated":  good[:2000],
		"no logfile event": setU32(good, BufferHeaderSize+4, 0x05010020), // hook 0x0501, not the header
		// no event at all in the first buffer: the later ones were read
		// without a header (nil Logfile: a panic in Packets)
		"first buffer empty": setU32(good, BufferHeaderSize, 0xffffffff),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Summarize(context.Background(), bytes.NewReader(b))
			if err == nil || !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v (bad input %v)", err, badinput.Is(err))
			}
			if _, _, err := Packets(bytes.NewReader(b), func(*Packet) error { return nil }); !badinput.Is(err) {
				t.Fatalf("Packets: err %v", err)
			}
		})
	}
}

func TestEventHeaderPointerFlags(t *testing.T) {
	// evntcons.h: EVENT_HEADER_FLAG_32_BIT_HEADER 0x0020, _64_BIT_HEADER 0x0040
	w := newTraceWriter(8, 4096, 1, "flags")
	w.event(etw.TCPIPGUID, 1351, 0, 0, 0, 1, 2, testStartQPC+5, make([]byte, 24))
	b := w.bytes()
	for _, c := range []struct {
		flags uint16
		ptr   int
	}{{0x0040, 8}, {0x0020, 4}} {
		off := 4096 + BufferHeaderSize + 4
		binary.LittleEndian.PutUint16(b[off:], c.flags)
		_, recs := readAll(t, b)
		r := recs[len(recs)-1]
		if r.Kind != HeaderEvent || r.PointerSize != c.ptr || r.ID != 1351 || r.Provider != etw.TCPIPGUID {
			t.Errorf("flags %#x: %+v", c.flags, r)
		}
	}
}

// FuzzReader: any bytes either are refused as bad input in one line or
// are read with every event inside its buffer; never a panic.
func FuzzReader(f *testing.F) {
	good, _, _ := writeDPCISR(8)
	good32, _, _ := writeDPCISR(4)
	f.Add(good)
	f.Add(good32)
	f.Add(fixture(f, "lxcore_kernel.etl"))
	f.Add(good[:5000])
	comp, _, _ := writeDPCISRWith(8, true, false)
	f.Add(comp)
	// Small real traces: a 32-bit one with a compressed buffer, a
	// compressed TraceLogging one, and one of manifest events.
	f.Add(fixture(f, "corpus/microsoft_perfview__src_TraceEvent_TraceEvent.Tests_smallEtlFile-32bdf752.etl"))
	f.Add(fixture(f, "corpus/microsoft_perfview__src_TraceEvent_TraceEvent.Tests_inputs_Regression_SelfDescribingSingleEvent-dd3248d5.etl"))
	f.Add(fixture(f, "corpus/microsoft_perfview__src_TraceEvent_TraceEvent.Tests_inputs_primitive-types-ec036296__primitive-types.etl"))
	// The decompressed bytes count against the input cap: a small cap
	// keeps each input's work small, so the fuzzer explores.
	defer infile.Reset()
	infile.SetMax(4 << 20)
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := NewReader(bytes.NewReader(b))
		err := rd.Walk(func(r *Record) error {
			if r.Offset < 0 || r.Offset >= int64(len(b)) {
				t.Fatalf("record offset %d outside %d bytes", r.Offset, len(b))
			}
			etw.DecodePerfInfo(&r.Event)
			etw.DecodeImage(&r.Event)
			etw.DecodeTCPIP(&r.Event)
			return nil
		})
		if err != nil && (!badinput.Is(err) && !errors.Is(err, infile.ErrLimit) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("error %v", err)
		}
	})
}

// A buffer flagged compressed whose bytes are not is skipped with a note.
func TestCompressedBuffersAreCountedAndSkipped(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	_, all := readAll(t, good)
	b := bytes.Clone(good)
	binary.LittleEndian.PutUint16(b[2*4096+0x34:], 0x40|0x20) // ETW_BUFFER_FLAG_COMPRESSED
	rd := NewReader(bytes.NewReader(b))
	n := 0
	if err := rd.Walk(func(*Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if rd.Compressed != 1 || n != len(all)-countIn(all, 2*4096, 3*4096) ||
		!strings.Contains(strings.Join(rd.Notes(), ";"), "compressed buffer at offset 8192: LZXpress (plain LZ77) stream is corrupt") {
		t.Errorf("compressed %d, %d events, notes %v", rd.Compressed, n, rd.Notes())
	}
}

// instance writes an EVENT_INSTANCE_HEADER event (0x38 bytes of header).
func (w *traceWriter) instance(typ8 uint8, version uint16, tid, pid uint32, ts int64, data []byte) {
	le := binary.LittleEndian
	typ := uint8(typeInstance64)
	if w.ptr == 4 {
		typ = typeInstance32
	}
	b := le.AppendUint16(nil, uint16(0x38+len(data)))
	b = append(b, typ, 0xc0, typ8, 4)
	b = le.AppendUint16(b, version)
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(ts))
	b = append(b, make([]byte, 0x38-0x18)...) // RegHandle, instance ids, ProcessorTime, ParentRegHandle
	w.add(append(b, data...))
}

// message writes a WPP MESSAGE_TRACE_HEADER event with a GUID, a time
// stamp and the system information (TraceMessage's usual options).
func (w *traceWriter) message(provider etw.GUID, number uint16, tid, pid uint32, ts int64, data []byte) {
	le := binary.LittleEndian
	body := appendGUID(nil, provider)
	body = le.AppendUint64(body, uint64(ts))
	body = le.AppendUint32(body, tid)
	body = le.AppendUint32(body, pid)
	b := le.AppendUint16(nil, uint16(8+len(body)+len(data)))
	b = append(b, 0, 0x90)
	b = le.AppendUint16(b, number)
	b = le.AppendUint16(b, 0x02|0x08|0x20) // TRACE_MESSAGE_GUID | _TIMESTAMP | _SYSTEMINFO
	w.add(append(append(b, body...), data...))
}

func TestInstanceAndMessageHeaders(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		w := newTraceWriter(ptr, 4096, 1, "headers")
		w.instance(12, 2, 5, 6, testStartQPC+1, []byte("inst"))
		g := guid("11111111-2222-3333-4444-555555555555")
		w.message(g, 42, 7, 8, testStartQPC+2, []byte("wpp"))
		_, recs := readAll(t, w.bytes())
		if len(recs) != 3 {
			t.Fatalf("%d records", len(recs))
		}
		in, msg := recs[1], recs[2]
		if in.Kind != HeaderInstance || in.Opcode != 12 || in.Version != 2 || in.TID != 5 || in.PID != 6 ||
			in.Timestamp != testStartQPC+1 || string(in.Data) != "inst" || in.PointerSize != ptr {
			t.Errorf("instance %+v", in)
		}
		if msg.Kind != HeaderMessage || msg.ID != 42 || msg.Provider != g || msg.TID != 7 || msg.PID != 8 ||
			msg.Timestamp != testStartQPC+2 || string(msg.Data) != "wpp" || msg.PointerSize != ptr {
			t.Errorf("message %+v", msg)
		}
	}
}

// The summary quotes the first damaged buffer once: in the count of
// damaged buffers, not again as a note of its own.
func TestSummaryQuotesTheFirstDamageOnce(t *testing.T) {
	b := fixture(t, "lxcore_kernel.etl")
	s, err := Summarize(context.Background(), bytes.NewReader(b[:20000]))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(s.Notes, "\n")
	if strings.Count(notes, "the file ends after 3616") != 1 {
		t.Errorf("the damage is quoted %d times:\n%s", strings.Count(notes, "the file ends after 3616"), notes)
	}
}
