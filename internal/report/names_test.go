package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
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
