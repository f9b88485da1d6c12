package dpcisr

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

// Fixtures (see testdata/README.md):
//   - xperf-dpcisr-keyboard-ps2-vs-usb.txt is REAL xperf output, edited by
//     its author by hand;
//   - xperf-dpcisr-lcxiv-*.txt are REAL xperf output, unedited (real_test.go);
//   - xperf-dpcisr-written-layout.txt and xperf-dpcisr-im-*.txt were
//     WRITTEN for these tests in the layout xperf prints.
func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustParse(t *testing.T, s string) *Report {
	t.Helper()
	r, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return r
}

type blockWant struct {
	module, label string
	total         int64
	footer        int64 // -1: no number
	buckets       int
	line          int
}

func checkBlocks(t *testing.T, s Section, want []blockWant) {
	t.Helper()
	if len(s.Modules) != len(want) {
		t.Fatalf("%s section: %d module blocks, want %d", s.Name, len(s.Modules), len(want))
	}
	for i, w := range want {
		m := s.Modules[i]
		f := int64(-1)
		if m.Footer != nil {
			f = *m.Footer
		}
		if m.Module != w.module || m.Label != w.label || m.Total != w.total || f != w.footer || len(m.Buckets) != w.buckets || m.Line != w.line {
			t.Errorf("%s block %d: got module %q label %q total %d footer %d buckets %d line %d, want %+v",
				s.Name, i, m.Module, m.Label, m.Total, f, len(m.Buckets), m.Line, w)
		}
	}
}

// The real, hand-edited file: every block in the right section, with the
// right module and the heading its author put above it.
func TestRealKeyboardFile(t *testing.T) {
	r := mustParse(t, readFixture(t, "xperf-dpcisr-keyboard-ps2-vs-usb.txt"))
	if len(r.Sections) != 2 || r.Sections[0].Name != DPC || r.Sections[1].Name != ISR {
		t.Fatalf("sections: %+v", r.Sections)
	}
	if r.Sections[0].Heading != "DPC Latency" || r.Sections[1].Heading != "Interrupt Latency" {
		t.Errorf("headings %q %q", r.Sections[0].Heading, r.Sections[1].Heading)
	}
	checkBlocks(t, r.Sections[0], []blockWant{
		{"kbdhid.sys", "USB Keyboard Driver", 921, -1, 7, 7},
		{"kbdhid.sys", "USB Keyboard Driver", 920, 920, 6, 16},
		{"i8042prt.sys", "USB Keyboard with PS2 adapter, PS/2 driver DPC Latency", 938, -1, 4, 27},
		{"i8042prt.sys", "USB Keyboard with PS2 adapter, PS/2 driver DPC Latency", 937, 937, 6, 34},
	})
	checkBlocks(t, r.Sections[1], []blockWant{
		{"i8042prt.sys", "USB Keyboard with PS2 adapter, PS/2 Interrupt Latency", 937, 937, 6, 49},
	})
	if len(r.Notes) != 0 {
		t.Errorf("the file is self-consistent, yet notes: %v", r.Notes)
	}
	kb := r.Sections[0].Modules[0]
	for _, b := range kb.Buckets {
		if b.GtUs == 4 && (*b.LeUs != 8 || b.Count != 508 || b.Percent != 55.16) {
			t.Errorf("4-8 bucket %+v", b)
		}
	}
	s := Summarize(kb)
	got := []string{}
	for _, q := range s.Quantiles {
		got = append(got, q.Bucket.Range())
	}
	// 921 DPCs: rank 461, 829, 912 fall in 4-8 µs (cumulative 919); the
	// 921st is the one in 32-64 µs.
	if want := []string{"4-8 µs", "4-8 µs", "4-8 µs", "32-64 µs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("quantile buckets %v, want %v", got, want)
	}
	if s.Mode.Range() != "4-8 µs" || s.Max.Range() != "32-64 µs" || s.Count != 921 {
		t.Errorf("mode %v max %v count %d", s.Mode.Range(), s.Max.Range(), s.Count)
	}
	if last := s.Rows[len(s.Rows)-1]; last.CumPct != 100 {
		t.Errorf("last cumulative %v", last.CumPct)
	}
	isr := Summarize(r.Sections[1].Modules[0])
	if isr.Quantiles[0].Bucket.Range() != "16-32 µs" {
		t.Errorf("ISR p50 %v", isr.Quantiles[0].Bucket.Range())
	}
}

func TestWrittenLayout(t *testing.T) {
	r := mustParse(t, readFixture(t, "xperf-dpcisr-written-layout.txt"))
	if len(r.Sections) != 2 || r.Sections[0].Heading != "DPC Info" || r.Sections[1].Heading != "Interrupt Info" {
		t.Fatalf("sections %+v", r.Sections)
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes on a consistent file: %v", r.Notes)
	}
	d := r.Sections[0]
	if d.Span == nil || d.Span.ToUs != 5000000 || len(d.Usage) != 5 || d.Usage[0].Module != "ndis.sys" ||
		!reflect.DeepEqual(d.Usage[0].CPUs, []int{0, 1, 2, 3}) || d.Usage[0].Usec[1] != 134690 || d.Usage[0].Percent[1] != 2.69 {
		t.Errorf("usage table: span %+v rows %+v", d.Span, d.Usage)
	}
	if d.Usage[4].Module != "Unknown" {
		t.Errorf("quoted module %q", d.Usage[4].Module)
	}
	if d.Overall == nil || d.Overall.Total != 109162 || d.Overall.Sum() != 109162 {
		t.Fatalf("overall %+v", d.Overall)
	}
	var names []string
	var sum int64
	for _, m := range d.Modules {
		names = append(names, m.Module)
		sum += m.Total
	}
	if !reflect.DeepEqual(names, []string{"ndis.sys", "storport.sys", "dxgkrnl.sys", "ntoskrnl.exe", "Unknown"}) || sum != d.Overall.Total {
		t.Errorf("modules %v sum %d", names, sum)
	}
	if d.Check == nil || d.Check.Verdict != "EQUAL" || d.Check.Total != 109162 {
		t.Errorf("check %+v", d.Check)
	}
	if d.Intervals == nil || d.Intervals.Intervals != 5 || len(d.Intervals.Rows) != 5 || d.Intervals.Rows[4].EndMs != 5000 || len(d.Intervals.Rows[0].Usec) != 4 {
		t.Errorf("intervals %+v", d.Intervals)
	}
	// ndis.sys prints its empty buckets too; the others do not.
	if n := len(d.Modules[0].Buckets); n != 8 {
		t.Errorf("ndis.sys buckets %d", n)
	}
	i := r.Sections[1]
	if len(i.Modules) != 4 || i.Modules[2].Module != "i8042prt.sys" || i.Modules[2].Total != 937 || i.Overall.Total != 68829+5712+937+54 {
		t.Errorf("ISR %+v", i.Modules)
	}
	if r.Distribution == nil || r.Distribution.IntervalMs != 1000 || len(r.Distribution.Rows) != 2 ||
		len(r.Distribution.Rows[1].Counts) != 12 || !reflect.DeepEqual(r.Distribution.Columns, []string{"DPC", "ISR", "Combined"}) {
		t.Errorf("distribution %+v", r.Distribution)
	}
}

// Every transformation people and Windows apply to the file gives the
// same histograms.
func TestTolerance(t *testing.T) {
	base := readFixture(t, "xperf-dpcisr-written-layout.txt")
	want := histograms(mustParse(t, base))
	collapse := regexp.MustCompile(` +`)
	decimal := regexp.MustCompile(`(\d)\.(\d)`)
	cases := map[string]string{
		"LF":              strings.ReplaceAll(base, "\r\n", "\n"),
		"collapsed":       collapse.ReplaceAllString(base, " "),
		"padded":          strings.ReplaceAll(base, ", ", " ,   "),
		"decimal comma":   decimal.ReplaceAllString(base, "$1,$2"),
		"utf-16le bom":    utf16le(base, true),
		"utf-16le no bom": utf16le(base, false),
		"utf-8 bom":       "\ufeff" + base,
		"lower case":      strings.ToLower(base),
		"heading added":   strings.Replace(base, "Total = 69835", "Network adapter, interrupt moderation Extreme\r\n\r\nTotal = 69835", 1),
		"zero buckets dropped": regexp.MustCompile(`(?m)^Elapsed Time[^\r\n]*,\s+0, or\s+0\.00%\r\n`).
			ReplaceAllString(base, ""),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			r := mustParse(t, in)
			got := histograms(r)
			if name == "lower case" {
				for i := range want {
					want[i].module = strings.ToLower(want[i].module)
				}
				defer func() {
					want = histograms(mustParse(t, base))
				}()
			}
			if name == "zero buckets dropped" {
				for i := range got {
					got[i].buckets = ""
				}
				w2 := append([]histo(nil), want...)
				for i := range w2 {
					w2[i].buckets = ""
				}
				if !reflect.DeepEqual(got, w2) {
					t.Errorf("got %v\nwant %v", got, w2)
				}
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if name == "heading added" && r.Sections[0].Modules[0].Label != "Network adapter, interrupt moderation Extreme" {
				t.Errorf("label %q", r.Sections[0].Modules[0].Label)
			}
			if name == "decimal comma" && r.Sections[0].Usage[0].Percent[1] != 2.69 {
				t.Errorf("usage percent %v", r.Sections[0].Usage[0].Percent)
			}
			if len(r.Notes) != 0 {
				t.Errorf("notes %v", r.Notes)
			}
		})
	}
	// Without any Total, footer line (and without the number in one).
	noFooter := regexp.MustCompile(`(?m)^Total, +\d+\r\n`).ReplaceAllString(base, "")
	r := mustParse(t, noFooter)
	for _, s := range r.Sections {
		for _, m := range s.Modules {
			if m.Footer != nil {
				t.Errorf("footer %v on %s", *m.Footer, m.Module)
			}
		}
	}
	if !reflect.DeepEqual(totals(r), totals(mustParse(t, base))) {
		t.Error("totals change when the Total, lines go")
	}
	empty := strings.Replace(base, "Total,                                                  69835", "Total,", 1)
	if r := mustParse(t, empty); r.Sections[0].Modules[0].Footer != nil || r.Sections[0].Modules[1].Footer == nil {
		t.Error("an empty Total, line")
	}
}

type histo struct {
	section, module string
	total           int64
	buckets         string
}

func histograms(r *Report) []histo {
	var out []histo
	add := func(sec string, h Histogram) {
		var b strings.Builder
		for _, x := range h.Buckets {
			if x.Count > 0 {
				fmt.Fprintf(&b, "%s=%d ", x.Range(), x.Count)
			}
		}
		out = append(out, histo{sec, h.Module, h.Total, b.String()})
	}
	for _, s := range r.Sections {
		if s.Overall != nil {
			add(s.Name, *s.Overall)
		}
		for _, m := range s.Modules {
			add(s.Name, m)
		}
	}
	return out
}

func totals(r *Report) []int64 {
	var out []int64
	for _, h := range histograms(r) {
		out = append(out, h.total)
	}
	return out
}

func utf16le(s string, bom bool) string {
	var b bytes.Buffer
	if bom {
		b.Write([]byte{0xFF, 0xFE})
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

func TestNotes(t *testing.T) {
	in := "DPC Info\nTotal = 10 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 4, or 40.00%\n" +
		"Elapsed Time, > 2 usecs AND <= 4 usecs, 5, or 10.00%\nTotal, 11\n"
	r := mustParse(t, in)
	joined := strings.Join(r.Notes, "\n")
	for _, want := range []string{"buckets sum to 9", "'Total, 11' disagrees", "5 of 10 is 50.00%"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q: %v", want, r.Notes)
		}
	}
	// Blocks before any heading are DPCs, and the reader is told.
	r = mustParse(t, "Total = 2 for module x.sys\nElapsed Time, > 2048 usecs, 2, or 100.00%\n")
	if r.Sections[0].Name != DPC || !strings.Contains(r.Notes[0], "taken as DPC") {
		t.Errorf("%+v %v", r.Sections, r.Notes)
	}
	if b := r.Sections[0].Modules[0].Buckets[0]; !b.Open() || b.Range() != "> 2048 µs" {
		t.Errorf("open bucket %+v", b)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "line 1: empty file"},
		{"blank", "\r\n \n", "line 1: empty file"},
		{"binary", "DPC Info\n\x00\x01\x02garbage", "line 2: not text (byte 0x00 at offset 9)"},
		// lines as an editor counts them: the final newline starts none
		{"no histogram", "DPC Info\nsomething else\n", "line 2: no DPC/ISR histogram in 2 lines"},
		{"no histogram, no final newline", "DPC Info\nsomething else", "line 2: no DPC/ISR histogram in 2 lines"},
		{"no histogram, a blank last line", "DPC Info\nsomething else\n\n", "line 3: no DPC/ISR histogram in 3 lines"},
		{"one line, no histogram", "DPC Info\n", "line 1: no DPC/ISR histogram in 1 line:"},
		{"orphan bucket", "DPC Info\nElapsed Time, > 1 usecs AND <= 2 usecs, 4, or 40.00%\n", "line 2: bucket line outside a histogram"},
		{"after footer", "Total = 1 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 1, or 100.00%\nTotal, 1\nElapsed Time, > 2 usecs AND <= 4 usecs, 1, or 100.00%\n", "line 4: bucket line outside"},
		{"overlap", "Total = 2 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 1\nElapsed Time, > 1 usecs AND <= 2 usecs, 1\n", "line 3: bucket 1-2 µs overlaps bucket 1-2 µs of line 2"},
		{"bad bounds", "Total = 2 for module a.sys\nElapsed Time, > 4 usecs AND <= 2 usecs, 1\n", "line 2: bucket upper bound 2 is not above"},
		{"bad bucket", "Total = 2 for module a.sys\nElapsed Time, > four usecs\n", "line 2: unreadable bucket line"},
		{"bad header", "Total = many for module a.sys\n", "line 1: unreadable histogram header"},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want prefix %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, err)
		}
	}
}

func TestAnalysis(t *testing.T) {
	le := func(v int64) *int64 { return &v }
	h := Histogram{Module: "a", Buckets: []Bucket{
		{GtUs: 1, LeUs: le(2), Count: 50}, {GtUs: 2, LeUs: le(4), Count: 40}, {GtUs: 4, LeUs: le(8), Count: 9}, {GtUs: 8, LeUs: le(16), Count: 1},
	}}
	for _, c := range []struct {
		p    float64
		want string
	}{{50, "1-2 µs"}, {50.5, "2-4 µs"}, {90, "2-4 µs"}, {99, "4-8 µs"}, {99.9, "8-16 µs"}, {0, "1-2 µs"}} {
		if b, _ := QuantileBucket(h, c.p); b.Range() != c.want {
			t.Errorf("p%v: %s, want %s", c.p, b.Range(), c.want)
		}
	}
	for _, c := range []struct {
		us    float64
		pct   float64
		exact bool
	}{{1, 0, true}, {2, 50, true}, {4, 90, true}, {16, 100, true}, {3, 50, false}, {1000, 100, true}} {
		if p, ex := ShareAtMost(h, c.us); p != c.pct || ex != c.exact {
			t.Errorf("share <= %v: %v %v", c.us, p, ex)
		}
	}
	m := Merge("a", h, h)
	if m.Sum() != 200 || len(m.Buckets) != 4 || m.Buckets[0].Count != 100 {
		t.Errorf("merge %+v", m)
	}
	r := mustParse(t, readFixture(t, "xperf-dpcisr-keyboard-ps2-vs-usb.txt"))
	kb, ok := r.Sections[0].Pick("KBDHID.SYS")
	if !ok || kb.Sum() != 921+920 || kb.Module != "kbdhid.sys" {
		t.Errorf("pick %+v", kb)
	}
	all, ok := r.Sections[0].Pick("")
	if !ok || all.Sum() != 921+920+938+937 {
		t.Errorf("pick all %d", all.Sum())
	}
	f := r.Filter("I8042PRT.sys")
	if len(f.Sections[0].Modules) != 2 || len(f.Sections[1].Modules) != 1 {
		t.Errorf("filter %+v", f.Sections)
	}
	if got := r.ModuleNames(); !reflect.DeepEqual(got, []string{"i8042prt.sys", "kbdhid.sys"}) {
		t.Errorf("names %v", got)
	}
}

// The distribution's Total: row counts the intervals of each column; a
// column whose rows sum otherwise lost or altered a row, and says so. The
// real reports agree with themselves (TestRealLcxivReports: no notes).
func TestDistributionTotalChecked(t *testing.T) {
	in := readFixture(t, "xperf-dpcisr-lcxiv-exp00-clean-baseline.txt")
	i := strings.Index(in, "\nTotal:")
	if i < 0 {
		t.Fatal("no Total: row")
	}
	end := i + 1 + strings.IndexByte(in[i+1:], '\n')
	row := in[i+1 : end]
	cols := strings.Split(row, ",")
	cols[3] = strings.Replace(cols[3], "63", "64", 1)
	r := mustParse(t, in[:i+1]+strings.Join(cols, ",")+in[end:])
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "column 3 sums to 63, the Total: row says 64") {
		t.Errorf("notes %q", r.Notes)
	}
	cols[3] = " x"
	r = mustParse(t, in[:i+1]+strings.Join(cols, ",")+in[end:])
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], `column 3 ("x") is not a number`) {
		t.Errorf("notes %q", r.Notes)
	}
}
