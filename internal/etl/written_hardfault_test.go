package etl

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/latlab/latlab/internal/etw"
)

// A written hard fault trace: `xperf -on PROC_THREAD+LOADER+HARD_FAULTS`
// as Windows 10 records it (the layout of the real traces of the corpus,
// whose processes, threads and faults are in perfview's MIT-licensed
// tests): the rundown of processes (Process DCStart, version 4, perfinfo
// headers) and threads (Thread DCStart, version 3, system headers), a
// thread started, ended and its id reused by another process, then
// HardFault events (PageFault type 32, version 2, perfinfo headers) of
// threads of known processes, of a process no Process event names and
// of a thread no Thread event names, and a soft fault (type 10) that is
// not a hard one.

// writtenProcess is a Process event as written.
type writtenProcess struct {
	pid, parent uint32
	image       string
	subAuth     int // sub-authorities of the SID
}

// writtenThread is a Thread event as written.
type writtenThread struct {
	hook     uint16
	pid, tid uint32
	ts       int64
}

// writtenFault is a HardFault event as written.
type writtenFault struct {
	tid            uint32
	initial, ts    int64
	offset         uint64
	va, fileObject uint64
	bytes          uint32
}

var hardfaultProcesses = []writtenProcess{
	{0, 0, "Idle", 1},
	{4, 0, "System", 1},
	{1234, 700, "app.exe", 5},
	{2000, 700, "svchost.exe", 4},
	{2100, 700, "searchindexer.exe", 2},
}

// processPayload is a Process_V4_TypeGroup1 event: the SID as the kernel
// writes it, a TOKEN_USER (two pointers) then the SID.
func processPayload(ptr int, p writtenProcess) []byte {
	le := binary.LittleEndian
	b := appendPtr(nil, ptr, 0xffffe00000001000+uint64(p.pid)<<8&(1<<(8*ptr-1)-1))
	b = le.AppendUint32(b, p.pid)
	b = le.AppendUint32(b, p.parent)
	b = le.AppendUint32(b, 1)     // SessionId
	b = le.AppendUint32(b, 0x103) // ExitStatus: STATUS_PENDING, still running
	b = appendPtr(b, ptr, 0x1aa000)
	b = le.AppendUint32(b, 0)                                  // Flags
	b = appendPtr(b, ptr, 0xffffe00000002000&(1<<(8*ptr-1)-1)) // TOKEN_USER.User.Sid
	b = appendPtr(b, ptr, 0)                                   // .Attributes, padded
	b = append(b, 1, byte(p.subAuth), 0, 0, 0, 0, 0, 5)        // S-1-5
	for i := 0; i < p.subAuth; i++ {
		b = le.AppendUint32(b, uint32(18+i*1000))
	}
	b = append(append(b, p.image...), 0)
	b = appendUTF16z(b, `C:\Windows\`+p.image)
	b = appendUTF16z(b, "")
	return appendUTF16z(b, "")
}

// threadPayload is a Thread_TypeGroup1 event (version 3).
func threadPayload(ptr int, pid, tid uint32) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, pid)
	b = le.AppendUint32(b, tid)
	for i := 0; i < 7; i++ { // stacks, affinity, start address, TEB
		b = appendPtr(b, ptr, uint64(0x10000*(i+1)))
	}
	b = le.AppendUint32(b, 0)    // SubProcessTag
	return append(b, 8, 5, 2, 0) // priorities, flags
}

// hardFaultPayload is a PageFault_HardFault event.
func hardFaultPayload(ptr int, f writtenFault) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, uint64(f.initial))
	b = le.AppendUint64(b, f.offset)
	b = appendPtr(b, ptr, f.va)
	b = appendPtr(b, ptr, f.fileObject)
	b = le.AppendUint32(b, f.tid)
	return le.AppendUint32(b, f.bytes)
}

func writeHardFault(ptr int) ([]byte, []writtenThread, []writtenFault) {
	w := newTraceWriter(ptr, 4096, 2, "latlab written hardfault")
	ts := int64(testStartQPC + 1000)
	for _, p := range hardfaultProcesses {
		w.perfinfo(0x0303, 4, ts, processPayload(ptr, p))
		ts += 2
	}
	threads := []writtenThread{
		{0x0503, 0, 0, ts}, {0x0503, 4, 8, ts}, {0x0503, 1234, 100, ts}, {0x0503, 1234, 101, ts},
		{0x0503, 2000, 200, ts}, {0x0503, 2100, 210, ts}, {0x0503, 5000, 600, ts},
	}
	for _, t := range threads {
		w.system(t.hook, 3, t.tid, t.pid, t.ts, threadPayload(ptr, t.pid, t.tid))
	}
	ts += 10_000
	// thread 300 runs in app.exe from ts to ts+50000, then in svchost.exe
	// from ts+200000: the kernel reuses thread ids
	reuse := []writtenThread{{0x0501, 1234, 300, ts}, {0x0502, 1234, 300, ts + 50_000}, {0x0501, 2000, 300, ts + 200_000}}
	for _, t := range reuse {
		w.system(t.hook, 3, 100, t.pid, t.ts, threadPayload(ptr, t.pid, t.tid))
	}
	threads = append(threads, reuse...)
	va := uint64(0x7ff712340000)
	if ptr == 4 {
		va = 0x00401000
	}
	fo := uint64(0xffffc00012345670) & (1<<(8*ptr-1) - 1)
	var faults []writtenFault
	tids := []uint32{100, 101, 100, 300, 200, 300, 8, 600, 999, 210, 100, 200}
	for i, tid := range tids {
		at := ts + 10_000 + int64(i)*20_000 // 2 ms apart at 10 MHz
		if tid == 300 && i > 4 {
			at = ts + 250_000 // the second thread 300
		}
		f := writtenFault{tid: tid, initial: at, ts: at + int64(500+i*1700), offset: uint64(0x1000 * (i + 1)),
			va: va + uint64(i)*0x1000, fileObject: fo, bytes: uint32(4096 * (1 + i%4))}
		faults = append(faults, f)
	}
	for cpu := uint16(0); cpu < 2; cpu++ {
		w.setCPU(cpu)
		for i, f := range faults {
			if i%2 == int(cpu) {
				w.perfinfo(0x0220, 2, f.ts, hardFaultPayload(ptr, f))
			}
		}
	}
	// a transition (soft) fault: VirtualAddress, ProgramCounter
	w.perfinfo(0x020a, 2, ts+300_000, appendPtr(appendPtr(nil, ptr, va), ptr, va+0x10))
	for _, t := range threads[:7] {
		w.system(0x0504, 3, t.tid, t.pid, ts+400_000, threadPayload(ptr, t.pid, t.tid))
	}
	return w.bytes(), threads, faults
}

// writtenFaultExpect writes (with -update) or checks the sidecar that
// tells scripts/verify-etl what each HardFault event holds, in file
// order (TThreadId, InitialTime, the event's time stamp, ReadOffset,
// ByteCount), and each process's image.
func writtenFaultExpect(t *testing.T, name string, faults []writtenFault) {
	t.Helper()
	var rows [][]any
	for cpu := 0; cpu < 2; cpu++ {
		for i, f := range faults {
			if i%2 == cpu {
				rows = append(rows, []any{f.tid, f.initial, f.ts, f.offset, f.bytes})
			}
		}
	}
	procs := map[string]string{}
	for _, p := range hardfaultProcesses {
		procs[fmt.Sprint(p.pid)] = p.image
	}
	b, err := json.MarshalIndent(map[string]any{"hardfault": rows, "processes": procs}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	writtenTrace(t, name+".expect.json", append(b, '\n'))
}

func TestWrittenHardFault(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		name := fmt.Sprintf("written-hardfault-%d.etl", ptr*8)
		t.Run(name, func(t *testing.T) {
			b, threads, faults := writeHardFault(ptr)
			writtenTrace(t, name, b)
			writtenFaultExpect(t, name, faults)
			rd, recs := readAll(t, b)
			if len(rd.Notes()) > 0 {
				t.Errorf("notes: %v", rd.Notes())
			}
			var gotF []writtenFault
			var gotT []writtenThread
			var gotP []writtenProcess
			soft := 0
			for _, r := range recs {
				if r.PointerSize != ptr || (r.Provider != EventTraceGUID && !r.Kernel) {
					t.Fatalf("event at %d: pointer size %d, kernel %v", r.Offset, r.PointerSize, r.Kernel)
				}
				switch r.Provider {
				case etw.PageFaultGUID:
					f, ok, err := etw.DecodeHardFault(&r.Event)
					if !ok {
						soft++
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					gotF = append(gotF, writtenFault{f.TID, f.Start, f.End, f.ReadOffset, f.VirtualAddress, f.FileObject, f.Bytes})
				case etw.ThreadGUID:
					th, ok, err := etw.DecodeThread(&r.Event)
					if !ok || err != nil {
						t.Fatalf("thread at %d: %v %v", r.Offset, ok, err)
					}
					if r.HookID != 0x0504 {
						gotT = append(gotT, writtenThread{r.HookID, th.PID, th.TID, r.Timestamp})
					}
				case etw.ProcessGUID:
					p, ok, err := etw.DecodeProcess(&r.Event)
					if !ok || err != nil {
						t.Fatalf("process at %d: %v %v", r.Offset, ok, err)
					}
					gotP = append(gotP, writtenProcess{p.PID, p.ParentPID, p.ImageFileName, 0})
				}
			}
			var wantF []writtenFault
			for cpu := 0; cpu < 2; cpu++ {
				for i, f := range faults {
					if i%2 == cpu {
						wantF = append(wantF, f)
					}
				}
			}
			if fmt.Sprint(gotF) != fmt.Sprint(wantF) {
				t.Errorf("faults:\n got %v\nwant %v", gotF, wantF)
			}
			if fmt.Sprint(gotT) != fmt.Sprint(threads) {
				t.Errorf("threads:\n got %v\nwant %v", gotT, threads)
			}
			var wantP []writtenProcess
			for _, p := range hardfaultProcesses {
				wantP = append(wantP, writtenProcess{p.pid, p.parent, p.image, 0})
			}
			if fmt.Sprint(gotP) != fmt.Sprint(wantP) {
				t.Errorf("processes:\n got %v\nwant %v", gotP, wantP)
			}
			if soft != 1 {
				t.Errorf("%d soft faults, want 1", soft)
			}
		})
	}
}
