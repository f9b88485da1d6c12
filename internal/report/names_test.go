package report

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etl"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
)

// Names from a trace that a terminal would act on or draw wider than
// their runes: ESC (with the rest of a clear-screen sequence), BEL, NUL
// and a tab inside one; CJK characters, two columns each, in another; a
// combining accent, no column of its own, in a third.
const (
	hostileName  = "drv\x1b[2J\a\x00\t.sys"
	hostileShown = `drv\x1b[2J\x07\x00\x09.sys`
	wideName     = "网卡驱动程序网卡驱动程序.sys"
	combiningCaf = "cafe\u0301-filter.sys"
)

// namesWatch is a watch over drivers with those names, and a trace's hard
// faults in processes with them.
func namesWatch() *dpcwatch.Result {
	mods := etw.NewModules([]etw.Module{
		{Name: hostileName, Base: 0xfffff80400300000, Size: 0x1000},
		{Name: wideName, Base: 0xfffff80400400000, Size: 0x1000},
		{Name: combiningCaf, Base: 0xfffff80400500000, Size: 0x1000},
	})
	const freq = 10_000_000
	r := dpcwatch.NewRecorder(freq, 0, mods)
	add := func(kind etw.Kind, routine uint64, endUs, dUs int64) {
		r.Add(etw.Execution{Kind: kind, Routine: routine, Start: (endUs - dUs) * 10, End: endUs * 10, CPU: uint16(endUs % 2)})
	}
	for i := int64(1); i <= 300; i++ {
		add(etw.KindDPC, 0xfffff80400300010, i*1000, 1+i%6)
		add(etw.KindDPC, 0xfffff80400400010, i*1000+300, 2)
		add(etw.KindISR, 0xfffff80400500010, i*1000+600, 1)
	}
	add(etw.KindDPC, 0xfffff80400300010, 250_000, 2500)
	now := int64(400_000 * 10)
	w := &dpcwatch.Result{Session: "latlab dpc watch", Report: r.Report(now), Summary: r.Summary(now)}
	pid := func(n uint32) *uint32 { return &n }
	w.Report.HardFaults = &dpcisr.HardFaults{Events: 9, Bytes: 90000, TotalUs: 9000, LongestUs: 4000, Processes: []dpcisr.ProcessFaults{
		{Image: "g\x1b\a\x00\t.exe", PID: pid(812), Faults: 4, Bytes: 40000, TotalUs: 5000, LongestUs: 4000},
		{Image: "数据库服务器后台进程管理器主程序.exe", PID: pid(640), Faults: 3, Bytes: 30000, TotalUs: 3000, LongestUs: 1500},
		{Image: "cafe\u0301.exe", PID: pid(3300), Faults: 2, Bytes: 20000, TotalUs: 1000, LongestUs: 900},
	}}
	return w
}

// cliOut is the writer chain of a command's human output on an
// 80-column terminal: escaped (dpcisr, dpcisr compare), then wrapped.
func cliOut(b *bytes.Buffer, escaped bool, print func(io.Writer)) {
	l := WrapLines(WithWidth(b, 80))
	var w io.Writer = l
	if escaped {
		w = TerminalSafe(l)
	}
	print(w)
	if err := l.Flush(); err != nil {
		panic(err)
	}
}

// checkTerminalLines fails on a line that holds a control character or
// is wider than 80 terminal columns.
func checkTerminalLines(t *testing.T, name, out string) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.ContainsFunc(l, unicode.IsControl) {
			t.Errorf("%s: line %d holds a control character: %q", name, i+1, l)
			continue
		}
		if n := text.StringWidth(l); n > 80 {
			t.Errorf("%s: line %d is %d columns wide: %q", name, i+1, n, l)
		}
	}
}

// A trace's driver and process names are escaped before the tables and
// lines around them are laid out, and measured in terminal columns: the
// text of dpcisr, dpcisr compare and dpc watch shows the escapes and still
// fits 80 columns.
func TestDPCISRNamesEscapedBeforeLayout(t *testing.T) {
	w := namesWatch()
	res := &dpcisr.Result{File: "names.etl", Report: w.Report}
	c, err := dpcisr.Compare([]dpcisr.Labeled{{Label: "before", Report: w.Report}, {Label: "after", Report: w.Report}}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		golden  string
		escaped bool
		print   func(io.Writer)
		row     [2]string // the start and end of one table row, unbroken
	}{
		{"dpcisr-text-names", true, func(o io.Writer) { DPCISRText(o, res) }, [2]string{"   " + hostileShown + " ", " 0.89"}},
		{"dpcisr-compare-names", true, func(o io.Writer) { DPCISRCompareText(o, c) }, [2]string{` g\x1b\x07\x00\x09.exe`, `.exe`}},
		// dpc watch prints without TerminalSafe: its names must arrive
		// escaped.
		{"dpc-watch-names", false, func(o io.Writer) { DPCWatch(o, w, "") }, [2]string{" " + hostileShown + " ", " 0.250 s    0"}},
	} {
		var b bytes.Buffer
		cliOut(&b, x.escaped, x.print)
		out := b.String()
		goldie.New(t).Assert(t, x.golden, b.Bytes())
		checkTerminalLines(t, x.golden, out)
		// The CJK image is cut to 32 columns: 15 characters and the
		// ellipsis, 31 columns (16 and the ellipsis would be 33).
		want := []string{`g\x1b\x07\x00\x09.exe`, "cafe\u0301.exe", "数据库服务器后台进程管理器主程…"}
		if x.golden != "dpcisr-compare-names" { // compare names no module, and images without pids
			want = append(want, hostileShown, wideName, combiningCaf, `g\x1b\x07\x00\x09.exe (pid 812)`)
		}
		// An escape widens no row past the page, where the line
		// wrapper would cut it: the row is on one line.
		row := false
		for _, l := range strings.Split(out, "\n") {
			row = row || strings.HasPrefix(l, x.row[0]) && strings.HasSuffix(l, x.row[1])
		}
		if !row {
			t.Errorf("%s: no line %q...%q in\n%s", x.golden, x.row[0], x.row[1], out)
		}
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: %q not shown in\n%s", x.golden, s, out)
			}
		}
	}

	// The live line of each second fits its width in columns too.
	r := dpcwatch.NewRecorder(10_000_000, 0, etw.NewModules([]etw.Module{
		{Name: "a\x1b\a.sys", Base: 0x1000, Size: 0x1000}, {Name: "网卡驱动.sys", Base: 0x3000, Size: 0x1000},
	}))
	for i := int64(1); i <= 50; i++ {
		r.Add(etw.Execution{Kind: etw.KindDPC, Routine: 0x1010, Start: i * 10_000, End: i*10_000 + 100})
		r.Add(etw.Execution{Kind: etw.KindDPC, Routine: 0x3010, Start: i*10_000 + 200, End: i*10_000 + 230})
		r.Add(etw.Execution{Kind: etw.KindISR, Routine: 0x3010, Start: i*10_000 + 300, End: i*10_000 + 400})
	}
	ivs := r.Flush(1_000_000)
	if len(ivs) == 0 {
		t.Fatal("no live interval")
	}
	for _, width := range []int{80, 60, 40} {
		var lines []string
		for _, iv := range ivs {
			l := DPCWatchLine(iv, width)
			lines = append(lines, l)
			if n := text.StringWidth(l); n > width || strings.ContainsFunc(l, unicode.IsControl) {
				t.Errorf("width %d: live line of %d columns: %q", width, n, l)
			}
		}
		if width == 80 && !strings.Contains(strings.Join(lines, "\n"), `a\x1b\x07.sys`) {
			t.Errorf("live lines without the escaped name: %q", lines)
		}
	}
}

// safeText escapes every control character, tab and newline too, and
// each byte of invalid UTF-8; it leaves wide and combining characters.
func TestSafeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ndis.sys", "ndis.sys"},
		{"a\x1b[2Jb\a\x00\tc\nd\re\x7f", `a\x1b[2Jb\x07\x00\x09c\x0ad\x0de\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff utf-8", `bad \xff utf-8`},
		{"网卡 cafe\u0301 ✓", "网卡 cafe\u0301 ✓"},
	} {
		if got := safeText(c.in); got != c.want {
			t.Errorf("safeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Clip counts terminal columns: a CJK character two, a combining mark
// none.
func TestClipColumns(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"ndis.sys", 8, "ndis.sys"},
		{"ndis.sys", 6, "ndis.…"},
		{"网卡驱动.sys", 8, "网卡驱…"},
		{"网卡驱动.sys", 6, "网卡…"},
		{"cafe\u0301.sys", 8, "cafe\u0301.sys"},
	} {
		got := Clip(c.in, c.n)
		if got != c.want || text.StringWidth(got) > c.n {
			t.Errorf("Clip(%q, %d) = %q (%d columns), want %q", c.in, c.n, got, text.StringWidth(got), c.want)
		}
	}
}

// namesETL is a trace summary whose logger, providers, event names,
// images and notes carry those names, read from a file with a tab and a
// CJK name.
func namesETL() *etl.Summary {
	return &etl.Summary{
		File: "traces/\t追踪\x1b[2J.etl",
		Header: etl.Facts{OS: "10.0", Build: 26100, CPUs: 8, PointerSize: 8, Clock: "QueryPerformanceCounter", ClockFrequency: 10_000_000,
			TimerResolution: 15.625, CPUSpeedMHz: 3000, LoggerName: "log\x1b]0;pwned\a\x00\tger"},
		Events: 1006,
		Providers: []etl.Provider{
			{GUID: "2cb15d1d-5fc1-11d2-abe1-00a0c911f518", Name: "Image", Kernel: true, Events: 500,
				Opcodes: []etl.Count{{Value: 3, Events: 490, Name: "DCStart"}, {Value: 10, Events: 10, Name: "Load"}}},
			{GUID: "11111111-2222-3333-4444-555555555555", Name: "Prov\x1b[2J\a\x00\tider", Events: 300,
				IDs: []etl.Count{{Value: 1, Events: 200, Name: "Ev\x1b[1m\a\x00\t1"}, {Value: 2, Events: 100, Name: "网卡事件名称很长很长很长很长"}}},
			{GUID: "66666666-7777-8888-9999-000000000000", Name: "网卡驱动程序网卡驱动程序网卡", Events: 200},
			{GUID: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", Name: "Cafe\u0301-Provider", Events: 6},
		},
		Modules: []etl.Module{
			{Name: "ntoskrnl.exe", Base: 0xfffff80400000000, Size: 0x1000000},
			{Name: hostileName, Base: 0xfffff80400300000, Size: 0x1000},
			{Name: wideName, Base: 0xfffff80400400000, Size: 0x1000},
			{Name: "网卡驱动程序网卡驱动程序网卡驱动程序网卡驱动程序.sys", Base: 0xfffff80400450000, Size: 0x1000},
			{Name: combiningCaf, Base: 0xfffff80400500000, Size: 0x1000},
		},
		TCP: []etl.TCPConn{{Local: "10.0.0.2:50000", Remote: "10.0.0.1:443", Events: 3,
			Counts: map[string]int{"TcpDataTransferReceive": 2, "Tcp\x1b[2J\a\tEvent": 1}}},
		Uses:  []etl.Use{{Command: "dpcisr", Reads: "PerfInfo DPC/ISR events"}},
		Notes: []string{"buffer at offset 65536: provider \x1b[2J\a\x00\tX is damaged"},
	}
}

// namesRan are what held a CPU, with those names: a process with the
// control characters, one with a CJK name that is cut, an interrupt
// handler's device with a combining mark.
func namesRan() []explain.Ran {
	return []explain.Ran{
		{Kind: explain.KindThread, Name: "g\x1b[2J\a\x00\tx", PID: 812, Prio: 120, Policy: "SCHED_OTHER", Count: 1, DurationNs: 600_000},
		{Kind: explain.KindThread, Name: "数据库服务器后台进程管理器主程序", PID: 640, Prio: 120, Policy: "SCHED_OTHER", Count: 1, DurationNs: 300_000},
		{Kind: explain.KindIRQ, Name: "cafe\u0301-nic (IRQ 24)", Count: 2, DurationNs: 80_000},
	}
}

// namesWake is a wake document whose explained wake-ups name them.
func namesWake(t *testing.T) *result.Document {
	wr := &probe.WakeResult{Interval: time.Millisecond, Threads: []probe.WakeThread{
		{Setup: probe.ThreadSetup{CPU: 2}, Latencies: []int64{20_000, 21_000, 1_000_000}}}}
	doc, err := probe.WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Data.(*probe.WakeData)
	// The timer line and the method are each OS's own.
	d.Timer, d.Measurement.Method = nil, "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"
	d.Overhead = probe.Overhead{ClockReadP50Ns: 20, ZeroWaitMethod: "nanosleep(0)", ZeroWaitP50Ns: 2000}
	ran := namesRan()
	d.Explain = []explain.Wakeup{
		{CPU: 2, LatencyNs: 1_000_000, AtS: 0.002, TimerLatencyNs: 5_000, WakeToRunNs: 990_000, SwitchToStampNs: 5_000, Ran: ran, Cause: "thread " + ran[0].Name},
		{CPU: 2, LatencyNs: 900_000, AtS: 0.001, TimerLatencyNs: 850_000, WakeToRunNs: -1, Ran: ran[2:], Cause: "irq " + ran[2].Name},
	}
	d.ExplainTotals = explain.Totals(d.Explain)
	d.ExplainNext = explain.NextStep(d.Explain, d.ExplainTotals, 0, false)
	// A note may quote what the system said (an error's text, a path).
	doc.Notes = append(doc.Notes, "mlock: /proc/self/\x1b[31mlimits\a: not permitted")
	return doc
}

// namesNoise is the noise document of fixedNoise with the interrupt
// devices and what ran in its interruptions named so.
func namesNoise() *result.Document {
	doc := fixedNoise()
	d := doc.Data.(*probe.NoiseData)
	d.CPUs[0].Interrupts.Sources[1].Label = "virtio\x1b[2J\a\x00\tinput.0"
	d.CPUs[0].Interrupts.Sources[2] = probe.NoiseCount{Name: "40", Label: "网卡驱动程序中断队列", Count: 12}
	d.CPUs[1].Interrupts.Sources[0].Label = "cafe\u0301-nic"
	ran := namesRan()
	d.Explain = []probe.NoiseExplained{
		{CPU: 0, AtNs: 3_125_000_000, LengthNs: 1_000_000, UntracedNs: 20_000, Ran: ran, Cause: "thread " + ran[0].Name},
	}
	d.ExplainTotals = explain.Totals([]explain.Wakeup{{CPU: 0, Ran: ran}})
	d.ExplainNext = explain.NextStep([]explain.Wakeup{{CPU: 0, Ran: ran}}, d.ExplainTotals, 0, false)
	doc.Notes = append(doc.Notes, "affinity: CPU 1 \x1b]0;title\a\x00 refused")
	return doc
}

// guidRow is the start of a row of etl's providers.
var guidRow = regexp.MustCompile(`^  [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} `)

// The names of a trace (etl) and of processes and interrupt devices
// (wake --explain, noise) are escaped before the lines and columns
// around them are laid out, and padded and cut by terminal columns: each
// row keeps its width within 80 columns.
func TestETLWakeNoiseNamesEscapedBeforeLayout(t *testing.T) {
	for _, x := range []struct {
		golden  string
		escaped bool // the command writes through TerminalSafe
		print   func(io.Writer)
		// rowWidth: the columns of each line that ends so (a row of a
		// fixed layout), at least rows of them.
		suffix   string
		rowWidth int
		rows     int
		want     []string
	}{
		// "  %-36s %-24s %10d" and "  %-40s %#18x %10d"
		{"etl-names", true, func(o io.Writer) { ETL(o, namesETL()) }, "", 0, 0, []string{
			`latlab etl: traces/\x09追踪\x1b[2J.etl`, `logger    log\x1b]0;pwned\x07\x00\x09ger`,
			`Prov\x1b[2J\x07\x00\x09…`, `1 Ev\x1b[1m\x07\x00\x091: 200`, "网卡驱动程序网卡驱动程…",
			"Cafe\u0301-Provider", "2 网卡事件名称很长很长很…: 100",
			"  " + hostileShown + " ", "  " + wideName + " ", "  " + combiningCaf + " ",
			`    Tcp\x1b[2J\x07\x09Event` + strings.Repeat(" ", 34-23+1) + "1",
			`note: buffer at offset 65536: provider \x1b[2J\x07\x00\x09X is damaged`,
		}},
		// "    %-42s %12s (%4.1f %%)"
		{"wake-explain-names", false, func(o io.Writer) { Wake(o, namesWake(t)) }, " %)", 4 + 42 + 1 + 12 + 9, 4, []string{
			`thread g\x1b[2J\x07\x00\x09x:812 (SCHED_O…`, "thread 数据库服务器后台进程管理器主程序:6…",
			"irq cafe\u0301-nic (IRQ 24) x2", `main cause: thread g\x1b[2J\x07\x00\x09x`,
			`next step: thread g\x1b[2J\x07\x00\x09x held CPU 2`, "数据库服务器后台进程管理器主程序",
		}},
		// "    %-48s %12s (%4.1f %%)"
		{"noise-explain-names", false, func(o io.Writer) { Noise(o, namesNoise()) }, " %)", 4 + 48 + 1 + 12 + 9, 4, []string{
			`virtio\x1b[2J\x07\x00\x09input.0 100`, "网卡驱动程序中断队列 12", "(cafe\u0301-nic 1)",
			`thread g\x1b[2J\x07\x00\x09x:812 (SCHED_OTHER, …`, "thread 数据库服务器后台进程管理器主程序:640 (SC…",
			`main cause: thread g\x1b[2J\x07\x00\x09x`,
		}},
	} {
		var b bytes.Buffer
		cliOut(&b, x.escaped, x.print)
		out := b.String()
		goldie.New(t).Assert(t, x.golden, b.Bytes())
		checkTerminalLines(t, x.golden, out)
		rows := 0
		for _, l := range strings.Split(out, "\n") {
			if x.golden == "etl-names" {
				// A provider's row, a module's row: the count and the
				// base in their columns.
				switch {
				case strings.Contains(l, " 0xfffff804"):
					x.rowWidth = 2 + 40 + 1 + 18 + 1 + 10
				case guidRow.MatchString(l):
					x.rowWidth = 2 + 36 + 1 + 24 + 1 + 10
				default:
					continue
				}
			} else if !strings.HasSuffix(l, x.suffix) {
				continue
			}
			rows++
			if n := text.StringWidth(l); n != x.rowWidth {
				t.Errorf("%s: a row of %d columns, want %d: %q", x.golden, n, x.rowWidth, l)
			}
		}
		if want := map[string]int{"etl-names": 4 + 5}[x.golden] + x.rows; rows < want {
			t.Errorf("%s: %d rows of a fixed layout, want %d, in\n%s", x.golden, rows, want, out)
		}
		for _, s := range x.want {
			if !strings.Contains(out, s) {
				t.Errorf("%s: %q not shown in\n%s", x.golden, s, out)
			}
		}
	}
}
