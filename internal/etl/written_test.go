package etl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/latlab/latlab/internal/etw"
)

// A written DPC/ISR trace: what the writer put in, for the checks.
type writtenExec struct {
	hook    uint16
	cpu     uint16
	start   int64
	end     int64
	routine uint64
	vector  uint8
	msg     int
}

type writtenModule struct {
	base, size uint64
	file       string
}

func dpcisrModules(ptr int) []writtenModule {
	if ptr == 4 {
		return []writtenModule{
			{0x80a00000, 0x00400000, `\SystemRoot\system32\ntoskrnl.exe`},
			{0x8c200000, 0x00080000, `\SystemRoot\system32\drivers\ndis.sys`},
			{0x8c400000, 0x00040000, `\SystemRoot\System32\drivers\storport.sys`},
			{0x8c600000, 0x00020000, `\SystemRoot\System32\drivers\USBXHCI.SYS`},
		}
	}
	return []writtenModule{
		{0xfffff80243000000, 0x00b00000, `\SystemRoot\system32\ntoskrnl.exe`},
		{0xfffff80241000000, 0x00100000, `\SystemRoot\system32\drivers\ndis.sys`},
		{0xfffff80241400000, 0x00080000, `\SystemRoot\System32\drivers\storport.sys`},
		{0xfffff80241600000, 0x00040000, `\SystemRoot\System32\drivers\USBXHCI.SYS`},
	}
}

// writeDPCISR writes a kernel trace as `wpr -start CPU` records one: the
// rundown of the loaded modules (Image DCStart, system headers), then
// DPCs, timer DPCs, threaded DPCs, ISRs and MSI ISRs (perfinfo headers)
// on two CPUs, a compact-header thread event and a classic provider's
// event.
func writeDPCISR(ptr int) ([]byte, []writtenExec, []writtenModule) {
	return writeDPCISRWith(ptr, false, false)
}

// writeDPCISRWith writes the trace, its event buffers compressed or not
// (the header buffer never is). With endRundown the modules are listed
// only by the rundown at the trace's end (Image DCEnd, after the
// executions), as in the merged trace of ETWAnalyzer's test data
// (TraceLoggingTester.etl: 23,367 Image DCEnd events, no DCStart).
func writeDPCISRWith(ptr int, compress, endRundown bool) ([]byte, []writtenExec, []writtenModule) {
	w := newTraceWriter(ptr, 4096, 2, "latlab written dpcisr")
	w.compress = compress
	mods := dpcisrModules(ptr)
	ts := int64(testStartQPC + 1000)
	if !endRundown {
		for _, m := range mods {
			w.system(0x1403, 3, 4, 0, ts, imagePayload(ptr, m.base, m.size, 0, m.file))
			ts += 3
		}
	} else {
		ts += 3 * int64(len(mods))
	}
	// a user-mode image (process 1234): not a kernel module
	w.system(0x1403, 3, 4, 1234, ts, imagePayload(ptr, 0x7ff600000000&(1<<(8*ptr-1)-1), 0x20000, 1234, `\Device\HarddiskVolume3\app.exe`))
	w.compact(0x0501, 3, 100, 1234, ts+1, make([]byte, 8))
	w.full(guid("a1b2c3d4-0000-4000-8000-00000000aaaa"), 7, 4, 0, 100, 1234, ts+2, []byte("classic"))
	var ex []writtenExec
	kinds := []struct {
		hook uint16
		mod  int
		off  uint64
		msg  int
	}{
		{0x0f44, 1, 0x1234, -1},   // DPC in ndis.sys
		{0x0f45, 0, 0x5678, -1},   // timer DPC in ntoskrnl.exe
		{0x0f42, 2, 0x100, -1},    // threaded DPC in storport.sys
		{0x0f43, 3, 0x2000, -1},   // ISR in USBXHCI.SYS
		{0x0f32, 1, 0x3000, 2},    // MSI ISR in ndis.sys
		{0x0f44, -1, 0x10, -1},    // DPC outside every module
		{0x0f44, 1, 0x1234, -1},   // ndis again
		{0x0f43, 3, 0x2000, -1},   // and the ISR again
		{0x0f44, 2, 0x40, -1},     // DPC in storport.sys
		{0x0f45, 0, 0x9abc, -1},   // timer DPC
		{0x0f32, 1, 0x3000, 5},    // MSI ISR
		{0x0f44, 1, 0x1300, -1},   // ndis
		{0x0f43, 3, 0x2004, -1},   // ISR
		{0x0f42, 2, 0x180, -1},    // threaded DPC
		{0x0f44, 0, 0x123456, -1}, // ntoskrnl
	}
	for cpu := uint16(0); cpu < 2; cpu++ {
		w.setCPU(cpu)
		for i := 0; i < 60; i++ {
			k := kinds[i%len(kinds)]
			routine := uint64(0x1000) + k.off
			if ptr == 8 {
				routine = 0xfffff80100000000 + k.off
			}
			if k.mod >= 0 {
				routine = mods[k.mod].base + k.off
			}
			start := ts + int64(i)*1000 + int64(cpu)*7
			dur := int64(5 + (i*37+int(cpu)*11)%400) // 0.5 to 40 µs at 10 MHz
			x := writtenExec{hook: k.hook, cpu: cpu, start: start, end: start + dur, routine: routine, msg: k.msg}
			var data []byte
			switch k.hook {
			case 0x0f43, 0x0f32:
				x.vector = uint8(0x50 + k.mod)
				data = isrPayload(ptr, x.start, routine, x.vector, k.msg)
			default:
				data = dpcPayload(ptr, x.start, routine)
			}
			w.perfinfo(k.hook, 2, x.end, data)
			ex = append(ex, x)
		}
	}
	if endRundown {
		end := ts + 60*1000 + 1000
		for _, m := range mods {
			w.system(0x1404, 3, 4, 0, end, imagePayload(ptr, m.base, m.size, 0, m.file))
			end += 3
		}
	}
	return w.bytes(), ex, mods
}

// writtenExpect writes (with -update) or checks the sidecar that tells
// scripts/verify-etl what each PerfInfo event was meant to hold, in file
// order: event type, InitialTime, Routine, Vector, MessageNumber (-1 for
// none), so that the PyPI readers' decoding is checked against the intent.
func writtenExpect(t *testing.T, name string, ex []writtenExec) {
	t.Helper()
	var rows [][]any
	for _, x := range ex {
		rows = append(rows, []any{x.hook & 0xff, x.start, x.routine, x.vector, x.msg})
	}
	b, err := json.MarshalIndent(map[string]any{"perfinfo": rows}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	writtenTrace(t, name+".expect.json", append(b, '\n'))
}

func readAll(t *testing.T, b []byte) (*Reader, []*Record) {
	t.Helper()
	rd := NewReader(bytes.NewReader(b))
	var recs []*Record
	// a record's bytes are the reader's until fn returns: keep copies
	if err := rd.Walk(func(r *Record) error {
		c := *r
		c.Data = bytes.Clone(r.Data)
		recs = append(recs, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rd, recs
}

func TestWrittenDPCISR(t *testing.T) {
	for _, c := range []struct {
		ptr                  int
		compress, endRundown bool
		name                 string
	}{
		{4, false, false, "written-dpcisr-32.etl"},
		{8, false, false, "written-dpcisr-64.etl"},
		{8, true, false, "written-dpcisr-64-compressed.etl"},
		{8, false, true, "written-dpcisr-64-dcend.etl"},
	} {
		ptr, name := c.ptr, c.name
		t.Run(name, func(t *testing.T) {
			b, want, mods := writeDPCISRWith(ptr, c.compress, c.endRundown)
			writtenTrace(t, name, b)
			writtenExpect(t, name, want)
			rd, recs := readAll(t, b)
			if len(rd.Notes()) > 0 {
				t.Errorf("notes: %v", rd.Notes())
			}
			if rd.Logfile.PointerSize != uint32(ptr) || rd.Logfile.CPUs != 2 || rd.Logfile.Build != 19045 || rd.Logfile.LoggerName != "latlab written dpcisr" {
				t.Errorf("logfile %+v", rd.Logfile)
			}
			var got []writtenExec
			var images []writtenModule
			kinds := map[HeaderKind]int{}
			for _, r := range recs {
				kinds[r.Kind]++
				if r.PointerSize != ptr {
					t.Fatalf("event at %d: pointer size %d, want %d", r.Offset, r.PointerSize, ptr)
				}
				switch r.Provider {
				case etw.PerfInfoGUID:
					x, ok, err := etw.DecodePerfInfo(&r.Event)
					if !ok || err != nil {
						t.Fatalf("event at %d: %v %v", r.Offset, ok, err)
					}
					msg := -1
					if r.HookID == 0x0f32 {
						msg = int(x.Message)
					}
					got = append(got, writtenExec{hook: r.HookID, cpu: x.CPU, start: x.Start, end: x.End, routine: x.Routine, vector: x.Vector, msg: msg})
				case etw.ImageGUID:
					im, ok, err := etw.DecodeImage(&r.Event)
					if !ok || err != nil {
						t.Fatalf("image at %d: %v %v", r.Offset, ok, err)
					}
					if im.PID == 0 {
						images = append(images, writtenModule{im.Base, im.Size, im.FileName})
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("executions differ:\n got %v\nwant %v", got, want)
			}
			if fmt.Sprint(images) != fmt.Sprint(mods) {
				t.Errorf("images %v, want %v", images, mods)
			}
			wantKinds := map[HeaderKind]int{HeaderSystem: 6, HeaderCompact: 1, HeaderFull: 1, HeaderPerfInfo: 120}
			if fmt.Sprint(kinds) != fmt.Sprint(wantKinds) {
				t.Errorf("header kinds %v, want %v", kinds, wantKinds)
			}
			if rd.Buffers < 3 {
				t.Errorf("%d buffers: the trace should span several", rd.Buffers)
			}
			if c.compress != (rd.Compressed == rd.Buffers-1) {
				t.Errorf("%d of %d buffers compressed", rd.Compressed, rd.Buffers)
			}
		})
	}
}
