package dpcwatch

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

func TestBucketIndex(t *testing.T) {
	const mhz10 = 10_000_000 // 0.1 µs a tick, a common QPC frequency
	tests := []struct {
		ticks, freq int64
		want        int
	}{
		{0, mhz10, 0},
		{1, mhz10, 0},
		{10, mhz10, 0}, // 1 µs: "<= 1"
		{11, mhz10, 1}, // 1.1 µs
		{20, mhz10, 1}, // 2 µs
		{21, mhz10, 2}, // 2.1 µs
		{40, mhz10, 2}, // 4 µs
		{41, mhz10, 3}, // 4.1 µs
		{10240, mhz10, 10},
		{10241, mhz10, 11},
		{20480, mhz10, 11}, // 2048 µs
		{20481, mhz10, 12},
		{-5, mhz10, 0},
		{3, 3_000_000, 0},          // exactly 1 µs at 3 MHz
		{4, 3_000_000, 1},          // 1.33 µs
		{2_400, 2_400_000_000, 0},  // 1 µs at 2.4 GHz (a TSC)
		{2_401, 2_400_000_000, 1},  // just over
		{math.MaxInt64, mhz10, 60}, // 9.2e17 µs, in (2^59, 2^60]
		{1 << 40, 1 << 30, 20},     // 1024 s = 2^30 µs... in (2^29, 2^30]: k=30
	}
	tests[len(tests)-1].want = 30
	for _, tt := range tests {
		if got := BucketIndex(tt.ticks, tt.freq); got != tt.want {
			t.Errorf("%d ticks at %d Hz: bucket %d, want %d", tt.ticks, tt.freq, got, tt.want)
		}
	}
	if b := Bucket(0); b.GtUs != 0 || *b.LeUs != 1 {
		t.Errorf("%+v", b)
	}
	if b := Bucket(11); b.GtUs != 1024 || *b.LeUs != 2048 {
		t.Errorf("%+v", b)
	}
}

const (
	freq     = 10_000_000
	ndisBase = 0xfffff80400300000
	usbBase  = 0xfffff80400500000
)

func table() *etw.Modules {
	return etw.NewModules([]etw.Module{
		{Name: "ntoskrnl.exe", Base: 0xfffff80400000000, Size: 0x100000},
		{Name: "ndis.sys", Base: ndisBase, Size: 0x2000},
		{Name: "USBPORT.SYS", Base: usbBase, Size: 0x1000},
	})
}

// us makes an execution of d µs ending at end µs after the start.
func exec(kind etw.Kind, cpu uint16, routine uint64, endUs, dUs float64) etw.Execution {
	end := int64(endUs * 10)
	return etw.Execution{Kind: kind, CPU: cpu, Routine: routine, Start: end - int64(dUs*10), End: end}
}

func sample() *Recorder {
	r := NewRecorder(freq, 0, table())
	r.Add(exec(etw.KindDPC, 0, ndisBase+0x10, 100, 3))      // 2-4
	r.Add(exec(etw.KindDPC, 1, ndisBase+0x10, 200, 4))      // 2-4
	r.Add(exec(etw.KindTimerDPC, 1, ndisBase+0x20, 300, 9)) // 8-16
	r.Add(exec(etw.KindDPC, 0, 0xfffff80400001000, 400, 1)) // ntoskrnl 0-1
	r.Add(exec(etw.KindDPC, 0, 0x1234, 500, 1.5))           // Unknown 1-2
	r.Add(exec(etw.KindISR, 2, usbBase, 600, 20))           // 16-32
	r.Add(exec(etw.KindISR, 2, usbBase+0x10, 700, 0.5))     // 0-1
	return r
}

func TestRecorderSummary(t *testing.T) {
	s := sample().Summary(int64(1_000_000 * 10)) // 1 s
	if s.Seconds != 1 || s.Events != 7 || s.Modules != 3 {
		t.Errorf("%+v", s)
	}
	want := map[string]ModuleStat{
		"ndis.sys":     {Count: 3, TotalUs: 16, MaxUs: 9, MaxAtS: 300e-6, MaxCPU: 1, MaxKind: "TimerDPC", MaxRoutine: "0xfffff80400300020"},
		"Unknown":      {Count: 1, TotalUs: 1.5, MaxUs: 1.5, MaxAtS: 500e-6, MaxKind: "DPC", MaxRoutine: "0x1234"},
		"ntoskrnl.exe": {Count: 1, TotalUs: 1, MaxUs: 1, MaxAtS: 400e-6, MaxKind: "DPC", MaxRoutine: "0xfffff80400001000"},
	}
	if len(s.DPC) != 3 || s.DPC[0].Module != "ndis.sys" || s.DPC[1].Module != "Unknown" {
		t.Fatalf("DPC order %+v", s.DPC)
	}
	for _, m := range s.DPC {
		w := want[m.Module]
		if m.Count != w.Count || !near(m.TotalUs, w.TotalUs) || !near(m.MaxUs, w.MaxUs) || !near(m.MaxAtS, w.MaxAtS) ||
			m.MaxCPU != w.MaxCPU || m.MaxKind != w.MaxKind || m.MaxRoutine != w.MaxRoutine {
			t.Errorf("%s: %+v, want %+v", m.Module, m, w)
		}
	}
	if k := s.DPC[0].Kinds; k["DPC"] != 2 || k["TimerDPC"] != 1 {
		t.Errorf("kinds %v", k)
	}
	if len(s.ISR) != 1 || s.ISR[0].Module != "USBPORT.SYS" || s.ISR[0].Count != 2 || !near(s.ISR[0].MaxUs, 20) {
		t.Errorf("ISR %+v", s.ISR)
	}
	if s.Verdict.Level != LevelOK || s.Verdict.Section != "ISR" || s.Verdict.Module != "USBPORT.SYS" {
		t.Errorf("%+v", s.Verdict)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRecorderReport(t *testing.T) {
	rep := sample().Report(int64(1_000_000 * 10))
	if rep.Source != dpcisr.SourceETW || len(rep.Sections) != 2 {
		t.Fatalf("%+v", rep)
	}
	dpc := rep.Sections[0]
	if dpc.Name != dpcisr.DPC || dpc.Overall.Total != 5 || dpc.Check.AllModule != 5 || dpc.Span.ToUs != 1_000_000 {
		t.Errorf("%+v", dpc)
	}
	got := map[string]string{}
	for _, h := range append([]dpcisr.Histogram{*dpc.Overall}, dpc.Modules...) {
		var parts []string
		for _, b := range h.Buckets {
			parts = append(parts, b.Range()+"="+itoa(b.Count))
		}
		got[h.Name()] = strings.Join(parts, " ")
	}
	want := map[string]string{
		"(all modules)": "0-1 µs=1 1-2 µs=1 2-4 µs=2 8-16 µs=1",
		"ndis.sys":      "2-4 µs=2 8-16 µs=1",
		"ntoskrnl.exe":  "0-1 µs=1",
		"Unknown":       "1-2 µs=1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if dpc.Modules[0].Module != "ndis.sys" {
		t.Errorf("most time first: %s", dpc.Modules[0].Module)
	}
	// CPU time by module and CPU: ndis.sys ran 3 µs on CPU 0 and 13 on CPU 1
	// (the CPUs seen: 0, 1, 2).
	u := dpc.Usage[0]
	if u.Module != "ndis.sys" || len(u.CPUs) != 3 || u.Usec[0] != 3 || u.Usec[1] != 13 || u.Usec[2] != 0 {
		t.Errorf("%+v", u)
	}
	if isr := rep.Sections[1]; isr.Name != dpcisr.ISR || isr.Overall.Sum() != 2 {
		t.Errorf("%+v", isr)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The document the watch writes compares with a real xperf report: the
// same buckets, so dpcisr compare tests them like two xperf files.
func TestReportComparesWithXperf(t *testing.T) {
	b, err := os.ReadFile("../dpcisr/testdata/xperf-dpcisr-written-layout.txt")
	if err != nil {
		t.Fatal(err)
	}
	x, err := dpcisr.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(freq, 0, table())
	for i := 0; i < 3000; i++ {
		r.Add(exec(etw.KindDPC, uint16(i%2), ndisBase, float64(100*i), float64(1+i%7)))
	}
	view := r.Report(int64(300_000*10)).View("", "")
	var buf bytes.Buffer
	if err := result.Write(&buf, dpcisr.Kind.New(host.Facts{}, &view)); err != nil {
		t.Fatal(err)
	}
	doc, err := dpcisr.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dpcisr.Compare([]dpcisr.Labeled{{Label: "xperf", Report: x}, {Label: "etw", Report: doc}}, "NDIS.SYS")
	if err != nil {
		t.Fatal(err)
	}
	// DPC: both runs, tested; ISR: only xperf's (the watch had none).
	if len(c.Sections) != 2 || c.Sections[0].Test == nil || len(c.Sections[0].Runs) != 2 ||
		len(c.Sections[1].Missing) != 1 || c.Sections[1].Missing[0] != "etw" {
		t.Fatalf("%s; %s", c.Sections[0].Verdict, c.Sections[1].Verdict)
	}
}

func TestRecorderInterval(t *testing.T) {
	r := sample()
	ivs := r.Flush(1_000_000 * 10)
	if len(ivs) != 1 {
		t.Fatalf("%d intervals", len(ivs))
	}
	iv := ivs[0]
	if iv.DPC.Count != 5 || iv.DPC.ByMax.Module != "ndis.sys" || !near(iv.DPC.ByMax.MaxUs, 9) ||
		iv.DPC.ByTime.Module != "ndis.sys" || !near(iv.DPC.ByTime.SumUs, 16) || iv.ISR.Count != 2 || iv.ToS != 1 {
		t.Errorf("%+v", iv)
	}
	ivs = r.Flush(2_000_000 * 10)
	if len(ivs) != 1 || ivs[0].DPC.Count != 0 || ivs[0].DPC.ByMax != nil || ivs[0].FromS != 1 || ivs[0].ToS != 2 {
		t.Errorf("second interval %+v", ivs)
	}
	if s := r.Summary(0); s.Events != 7 {
		t.Errorf("the summary lost events to the interval: %d", s.Events)
	}
}

// at is an execution of 1 µs on cpu whose time stamp is ms after the start.
func at(cpu uint16, ms float64) etw.Execution {
	return exec(etw.KindDPC, cpu, ndisBase, ms*1000, 1)
}

// A real-time session delivers each CPU's buffer when it is full or at
// the flush timer, so events reach the recorder out of order and up to a
// second late. Each second's line counts the events whose own time stamp
// falls in it, and is printed only once the flush interval has passed.
func TestRecorderLiveOutOfOrder(t *testing.T) {
	const s = freq // ticks per second
	r := NewRecorder(freq, 0, table())
	// CPU 1's buffer for 0.2-0.9 s arrives first, CPU 0's events of the
	// same second only after the first second has ended.
	for _, ms := range []float64{200, 500, 900} {
		r.Add(at(1, ms))
	}
	if got := r.Closed(s + s/10); len(got) != 0 {
		t.Fatalf("second 0 closed 1.1 s in, before the flush interval passed: %+v", got)
	}
	for _, ms := range []float64{1100, 1500} { // second 1, CPU 1
		r.Add(at(1, ms))
	}
	for _, ms := range []float64{100, 950} { // second 0, CPU 0, late
		r.Add(at(0, ms))
	}
	got := r.Closed(s + FlushLag.Nanoseconds()/100) // 1 s + the lag
	if len(got) != 1 || got[0].FromS != 0 || got[0].ToS != 1 || got[0].DPC.Count != 5 {
		t.Fatalf("second 0: %+v, want 5 DPCs (3 from CPU 1, 2 from CPU 0)", got)
	}
	// An event of second 0 after its line: the totals keep it.
	r.Add(at(0, 990))
	r.Add(at(0, 1999)) // second 1, late but in time
	got = r.Closed(2*s + FlushLag.Nanoseconds()/100)
	if len(got) != 1 || got[0].FromS != 1 || got[0].DPC.Count != 3 {
		t.Fatalf("second 1: %+v, want 3 DPCs", got)
	}
	if again := r.Closed(2*s + FlushLag.Nanoseconds()/100); len(again) != 0 {
		t.Errorf("a second was returned twice: %+v", again)
	}
	sum := r.Summary(3 * s)
	if sum.Events != 9 || len(sum.Notes) != 1 || !strings.Contains(sum.Notes[0], "1 events arrived after their second's live line") {
		t.Errorf("summary: %d events, notes %q", sum.Events, sum.Notes)
	}
}

// Arrival order does not change the lines: the same events shuffled give
// the same per-second counts.
func TestRecorderLiveOrderIndependent(t *testing.T) {
	stamps := []float64{10, 2990, 1500, 20, 2500, 999, 1000, 1001, 2000, 4100}
	lines := func(order []int) string {
		r := NewRecorder(freq, 0, table())
		for _, i := range order {
			r.Add(at(uint16(i%4), stamps[i]))
		}
		var b strings.Builder
		for _, iv := range r.Flush(int64(4500 * 10_000)) {
			b.WriteString(itoa(int64(iv.FromS)) + ":" + itoa(iv.DPC.Count) + " ")
		}
		return b.String()
	}
	want := "0:3 1:3 2:3 3:0 4:1 "
	for _, order := range [][]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		{9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
		{4, 1, 0, 9, 3, 6, 2, 8, 5, 7},
	} {
		if got := lines(order); got != want {
			t.Errorf("order %v: %q, want %q", order, got, want)
		}
	}
}

// Stamps before the start count in the first second; a stamp far ahead
// (a damaged event) opens one interval, and Flush does not walk every
// second up to it.
func TestRecorderLiveBounds(t *testing.T) {
	r := NewRecorder(freq, 1000, table())
	r.Add(exec(etw.KindDPC, 0, ndisBase, 10, 1)) // before the start
	r.Add(exec(etw.KindDPC, 0, ndisBase, 1e15, 1))
	ivs := r.Flush(freq)
	if len(ivs) != 2 || ivs[0].DPC.Count != 1 || ivs[1].DPC.Count != 1 {
		t.Fatalf("%+v", ivs)
	}
	for k := 0; k < maxOpen+10; k++ {
		r.Add(exec(etw.KindDPC, 0, ndisBase, float64(1e9+k*1e6), 1))
	}
	if len(r.open) > maxOpen {
		t.Errorf("%d intervals open", len(r.open))
	}
}

// Image events build the driver table: kernel modules join it, user-mode
// images do not, and names are attributed after the module is known.
func TestRecorderImages(t *testing.T) {
	r := NewRecorder(freq, 0, nil)
	r.Add(exec(etw.KindDPC, 0, ndisBase, 10, 1))
	r.Image(etw.Image{Base: ndisBase, Size: 0x1000, FileName: `\SystemRoot\System32\drivers\ndis.sys`})
	r.Image(etw.Image{Base: 0x7ff600000000, Size: 0x100000, PID: 1234, FileName: `C:\x\app.exe`})
	r.Image(etw.Image{Base: ndisBase, Size: 0x1000, Unload: true, FileName: `\SystemRoot\System32\drivers\ndis.sys`})
	r.Add(exec(etw.KindDPC, 0, ndisBase, 20, 1))
	s := r.Summary(0)
	if s.Modules != 1 || len(s.DPC) != 2 {
		t.Fatalf("%+v", s)
	}
	names := s.DPC[0].Module + "," + s.DPC[1].Module
	if names != "Unknown,ndis.sys" && names != "ndis.sys,Unknown" {
		t.Errorf("%s", names)
	}
}

func TestRecorderBadAndEmpty(t *testing.T) {
	r := NewRecorder(freq, 0, nil)
	r.Bad(&etw.DecodeError{Event: "PerfInfo DPC", Msg: "3 bytes"})
	r.Bad(&etw.DecodeError{Event: "PerfInfo ISR", Msg: "4 bytes"})
	s := r.Summary(0)
	if s.Bad != 2 || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "2 events could not be decoded; the first: PerfInfo DPC: 3 bytes") {
		t.Errorf("%+v", s)
	}
	if s.Verdict.Level != LevelNone || len(r.Report(0).Sections) != 0 {
		t.Errorf("%+v", s.Verdict)
	}
}
