package dpcisr

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Real reports that xperf wrote on a Windows machine and that were
// committed as written (see testdata/README.md): Lcxiv/windows-latency-
// optimizer ran `xperf -i trace.etl -o dpcisr_report.txt -a dpcisr` on the
// WPR traces of its experiments. Every number below is read off the
// report's own text (its "CPU Usage from 0 us to N us" line, "Total = N"
// headers, bucket lines, "All Module = N" line, "Intervals=N" and the
// closing "Total:" row), not from latlab's output.

type moduleTotal struct {
	module string
	total  int64
}

type realSection struct {
	heading   string
	spanToUs  int64 // CPU Usage from 0 us to N us
	overall   int64 // Total = N, no module
	topGt     int64 // the highest non-empty bucket of the overall histogram
	topLe     int64 // its upper bound; -1 for the open "> N usecs" bucket
	allModule int64 // All Module = N
	usageRows int   // rows of "CPU Usage Summing By Module For the Whole Trace"
	intervals int   // Intervals=N, one row each
	modules   []moduleTotal
}

type realReport struct {
	file     string
	sections []realSection
	distMs   int64 // Distribution of number of N ms intervals
	distRows int
	distTot  int64 // the "Total:" row, the same in every column
}

var realReports = []realReport{
	{"xperf-dpcisr-lcxiv-exp00-clean-baseline.txt", []realSection{
		{"DPC Info", 125852697, 140095, 128, 256, 140095, 21, 126, []moduleTotal{
			{"CLASSPNP.SYS", 63}, {"FLTMGR.SYS", 1}, {"Ndu.sys", 2}, {"Ntfs.sys", 25}, {"UnionFS.sys", 2}, {"Vid.sys", 9}, {"WdFilter.sys", 5}, {"dxgkrnl.sys", 1499}, {"dxgmms2.sys", 353}, {"hvservice.sys", 4}, {"ndis.sys", 2064}, {"ntoskrnl.exe", 18912}, {"nvlddmkm.sys", 73697}, {"storport.sys", 2038}, {"storvsp.sys", 13}, {"symcryptk.dll", 302}, {"tcpip.sys", 1164}, {"vhdmp.sys", 12}, {"vmbkmclr.sys", 5}, {"vmbusr.sys", 2395}, {"winhvr.sys", 37530},
		}},
		{"Interrupt Info", 125852697, 79368, 128, 256, 79368, 5, 126, []moduleTotal{
			{"dxgkrnl.sys", 35692}, {"ndis.sys", 1938}, {"ntoskrnl.exe", 37539}, {"storport.sys", 2055}, {"vmbusr.sys", 2144},
		}},
	}, 2000, 8, 63},
	{"xperf-dpcisr-lcxiv-exp08-full-analysis.txt", []realSection{
		{"DPC Info", 120987208, 348039, 2048, 4096, 348039, 19, 121, []moduleTotal{
			{"ACPI.sys", 4}, {"CLASSPNP.SYS", 60}, {"HDAudBus.sys", 77}, {"HdAudio.sys", 2}, {"Ndu.sys", 2}, {"Ntfs.sys", 24}, {"USBXHCI.SYS", 34}, {"UnionFS.sys", 2}, {"WdFilter.sys", 4}, {"dxgkrnl.sys", 85090}, {"dxgmms2.sys", 620}, {"hvservice.sys", 4}, {"ndis.sys", 702}, {"ntoskrnl.exe", 25390}, {"nvlddmkm.sys", 230951}, {"storport.sys", 4289}, {"storvsp.sys", 12}, {"symcryptk.dll", 496}, {"tcpip.sys", 276},
		}},
		{"Interrupt Info", 120987208, 205155, 512, 1024, 205155, 5, 121, []moduleTotal{
			{"HDAudBus.sys", 77}, {"USBXHCI.SYS", 34}, {"dxgkrnl.sys", 200093}, {"ndis.sys", 581}, {"storport.sys", 4370},
		}},
	}, 2000, 8, 61},
	{"xperf-dpcisr-lcxiv-exp09-under-load.txt", []realSection{
		{"DPC Info", 126118435, 802055, 2097152, -1, 802055, 26, 127, []moduleTotal{
			{"ACPI.sys", 4}, {"CLASSPNP.SYS", 62}, {"FLTMGR.SYS", 1}, {"HDAudBus.sys", 10225}, {"HdAudio.sys", 7}, {"Ndu.sys", 4}, {"Ntfs.sys", 25}, {"USBXHCI.SYS", 20997}, {"UnionFS.sys", 2}, {"WdFilter.sys", 4}, {"afd.sys", 1618}, {"dfsc.sys", 1}, {"dxgkrnl.sys", 232727}, {"dxgmms2.sys", 1163}, {"fse.sys", 17}, {"hvservice.sys", 4}, {"iorate.sys", 3}, {"ndis.sys", 23219}, {"ntoskrnl.exe", 56373}, {"nvlddmkm.sys", 386452}, {"rdyboost.sys", 1}, {"storport.sys", 56568}, {"storvsp.sys", 12}, {"symcryptk.dll", 1054}, {"tcpip.sys", 11511}, {"vmswitch.sys", 1},
		}},
		{"Interrupt Info", 126118435, 491730, 1024, 2048, 491730, 5, 127, []moduleTotal{
			{"HDAudBus.sys", 10242}, {"USBXHCI.SYS", 20981}, {"dxgkrnl.sys", 380512}, {"ndis.sys", 23094}, {"storport.sys", 56901},
		}},
	}, 2000, 8, 64},
	{"xperf-dpcisr-lcxiv-exp10-fortnite-gaming.txt", []realSection{
		{"DPC Info", 301742888, 5131910, 1024, 2048, 5131910, 25, 302, []moduleTotal{
			{"CI.dll", 1}, {"CLASSPNP.SYS", 151}, {"EasyAntiCheat_EOS.sys", 30}, {"HDAudBus.sys", 28328}, {"Ndu.sys", 5}, {"Ntfs.sys", 59}, {"USBXHCI.SYS", 343761}, {"UnionFS.sys", 5}, {"WdFilter.sys", 10}, {"afd.sys", 18}, {"dxgkrnl.sys", 2102192}, {"dxgmms2.sys", 2630}, {"fse.sys", 3}, {"hvservice.sys", 10}, {"kbdhid.sys", 1059}, {"ndis.sys", 61616}, {"ntoskrnl.exe", 214354}, {"nvlddmkm.sys", 2308953}, {"pdc.sys", 1}, {"rdyboost.sys", 1}, {"storport.sys", 50434}, {"storvsp.sys", 30}, {"symcryptk.dll", 5324}, {"tcpip.sys", 12934}, {"vmswitch.sys", 1},
		}},
		{"Interrupt Info", 301742888, 3112652, 1024, 2048, 3112652, 5, 302, []moduleTotal{
			{"HDAudBus.sys", 28328}, {"USBXHCI.SYS", 343761}, {"dxgkrnl.sys", 2628489}, {"ndis.sys", 61315}, {"storport.sys", 50759},
		}},
	}, 2000, 8, 151},
	{"xperf-dpcisr-lcxiv-exp11-synthetic-load-v2.txt", []realSection{
		{"DPC Info", 125912223, 417158, 512, 1024, 417158, 17, 126, []moduleTotal{
			{"CLASSPNP.SYS", 62}, {"Ndu.sys", 3}, {"Ntfs.sys", 25}, {"UnionFS.sys", 2}, {"WdFilter.sys", 4}, {"dxgkrnl.sys", 111142}, {"dxgmms2.sys", 629}, {"hvservice.sys", 4}, {"ndis.sys", 1058}, {"ntoskrnl.exe", 28819}, {"nvlddmkm.sys", 270413}, {"rdyboost.sys", 1}, {"storport.sys", 3772}, {"storvsp.sys", 12}, {"symcryptk.dll", 569}, {"tcpip.sys", 642}, {"vmswitch.sys", 1},
		}},
		{"Interrupt Info", 125912223, 242349, 256, 512, 242349, 3, 126, []moduleTotal{
			{"dxgkrnl.sys", 237602}, {"ndis.sys", 932}, {"storport.sys", 3815},
		}},
	}, 2000, 8, 63},
}

func TestRealLcxivReports(t *testing.T) {
	for _, w := range realReports {
		t.Run(w.file, func(t *testing.T) {
			r := mustParse(t, readFixture(t, w.file))
			if len(r.Notes) != 0 {
				t.Errorf("xperf's own file agrees with itself, yet notes: %v", r.Notes)
			}
			if len(r.Sections) != len(w.sections) {
				t.Fatalf("%d sections, want %d", len(r.Sections), len(w.sections))
			}
			for i, ws := range w.sections {
				checkRealSection(t, r.Sections[i], ws)
			}
			d := r.Distribution
			if d == nil {
				t.Fatal("no interval distribution table")
			}
			if d.IntervalMs != w.distMs || len(d.Rows) != w.distRows || len(d.CPUs) != 16 || len(d.Columns) != 3 {
				t.Errorf("distribution: %d ms, %d rows, %d CPUs, columns %v; want %d ms, %d rows, 16 CPUs, 3 columns",
					d.IntervalMs, len(d.Rows), len(d.CPUs), d.Columns, w.distMs, w.distRows)
			}
			for c := 0; c < 16*3; c++ {
				var sum int64
				for _, row := range d.Rows {
					if c < len(row.Counts) {
						sum += row.Counts[c]
					}
				}
				if sum != w.distTot {
					t.Errorf("distribution column %d adds to %d, the report's Total: row says %d", c, sum, w.distTot)
				}
			}
		})
	}
}

func checkRealSection(t *testing.T, s Section, w realSection) {
	t.Helper()
	if s.Heading != w.heading {
		t.Errorf("section %q, want %q", s.Heading, w.heading)
	}
	if s.Span == nil || s.Span.FromUs != 0 || s.Span.ToUs != w.spanToUs {
		t.Errorf("%s: span %+v, want 0 to %d us", w.heading, s.Span, w.spanToUs)
	}
	if len(s.Usage) != w.usageRows {
		t.Errorf("%s: %d usage rows, want %d", w.heading, len(s.Usage), w.usageRows)
	}
	for _, u := range s.Usage {
		if len(u.Usec) != 16 || len(u.Percent) != 16 {
			t.Errorf("%s: usage row %s has %d CPUs, want 16", w.heading, u.Module, len(u.Usec))
		}
	}
	o := s.Overall
	if o == nil {
		t.Fatalf("%s: no histogram over all modules", w.heading)
	}
	if o.Total != w.overall || o.Sum() != w.overall || o.Footer == nil || *o.Footer != w.overall {
		t.Errorf("%s overall: Total = %d, buckets add to %d, footer %v; want %d each", w.heading, o.Total, o.Sum(), o.Footer, w.overall)
	}
	top := Summarize(*o).Max
	if le := int64(-1); top.GtUs != w.topGt || (top.LeUs == nil) != (w.topLe < 0) || (top.LeUs != nil && *top.LeUs != w.topLe) {
		if top.LeUs != nil {
			le = *top.LeUs
		}
		t.Errorf("%s overall: longest in > %d <= %d, want > %d <= %d", w.heading, top.GtUs, le, w.topGt, w.topLe)
	}
	if len(s.Modules) != len(w.modules) {
		t.Errorf("%s: %d module blocks, want %d", w.heading, len(s.Modules), len(w.modules))
	}
	var sum int64
	for i, m := range s.Modules {
		if i < len(w.modules) && (m.Module != w.modules[i].module || m.Total != w.modules[i].total) {
			t.Errorf("%s block %d: %s Total = %d, want %s %d", w.heading, i, m.Module, m.Total, w.modules[i].module, w.modules[i].total)
		}
		// every bucket line read: xperf's counts add to its own Total
		if m.Sum() != m.Total || m.Footer == nil || *m.Footer != m.Total {
			t.Errorf("%s %s: buckets add to %d, footer %v, Total = %d", w.heading, m.Module, m.Sum(), m.Footer, m.Total)
		}
		sum += m.Total
	}
	if c := s.Check; c == nil || c.AllModule != w.allModule || c.Total != w.overall || c.Verdict != "EQUAL" || sum != w.allModule {
		t.Errorf("%s: check %+v, modules add to %d; want All Module = %d, Total = %d, EQUAL", w.heading, c, sum, w.allModule, w.overall)
	}
	iv := s.Intervals
	if iv == nil || iv.Intervals != w.intervals || len(iv.Rows) != w.intervals || len(iv.CPUs) != 16 {
		t.Fatalf("%s: intervals %v, want %d rows of 16 CPUs", w.heading, iv, w.intervals)
	}
	if last := iv.Rows[len(iv.Rows)-1]; last.EndMs != iv.ToMs || iv.FromMs != 0 || iv.IntervalSec != 1 {
		t.Errorf("%s: intervals from %d to %d ms by %gs, the last ends at %d", w.heading, iv.FromMs, iv.ToMs, iv.IntervalSec, last.EndMs)
	}
}

// xperf closes every histogram of a trace with the open bucket padded to
// the width of the others ("> 2097152 usecs                      ,      1,
// or   0.00%"). In EXP09 one nvlddmkm.sys DPC lies there: its 1024-2048 µs
// bucket is empty, so a reader that misses the padded line puts the
// longest DPC below 1024 µs and finds the buckets one short of Total.
func TestRealOpenBucketPadded(t *testing.T) {
	r := mustParse(t, readFixture(t, "xperf-dpcisr-lcxiv-exp09-under-load.txt"))
	for _, m := range r.Sections[0].Modules {
		if m.Module != "nvlddmkm.sys" {
			continue
		}
		last := m.Buckets[len(m.Buckets)-1]
		if !last.Open() || last.GtUs != 2097152 || last.Count != 1 || last.Line != 263 {
			t.Errorf("last bucket %+v, want > 2097152 usecs, 1, line 263", last)
		}
		if got := fmt.Sprint(Summarize(m).Max.Range()); got != "> 2097152 µs" {
			t.Errorf("longest in %s", got)
		}
		return
	}
	t.Fatal("no nvlddmkm.sys DPC block")
}

// A 32-CPU report whose lines end in CR CR LF, as the real 32-CPU report
// seen (Amriel/PCmonitor's xperf_report.txt: 66506 characters for 364
// line ends, three each) most likely does: every table is read whole,
// with 32 columns, and the same as with CRLF or LF line ends, with one
// note saying how the line ends were read. Read as a lone CR and a CRLF,
// the usage tables and the distribution were lost without a word and the
// last usage row became the label of the first histogram.
func TestReal32CPUCRCRLF(t *testing.T) {
	raw := readFixture(t, "xperf-dpcisr-written-32cpu-crcrlf.txt")
	r := mustParse(t, raw)
	if want := []string{"153 lines end in CR CR LF, each read as one line end (line numbers count them so)"}; !slices.Equal(r.Notes, want) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
	if r.Lines != 153 || len(r.Sections) != 2 {
		t.Fatalf("%d lines, %d sections; want 153, 2", r.Lines, len(r.Sections))
	}
	for _, s := range r.Sections {
		if len(s.Usage) != 3 || s.Intervals == nil || len(s.Intervals.Rows) != 3 || len(s.Intervals.CPUs) != 32 || s.Overall == nil || s.Overall.Label != "" || len(s.Modules) != 3 {
			t.Fatalf("%s: %d usage rows, intervals %+v, overall %+v, %d modules", s.Name, len(s.Usage), s.Intervals, s.Overall, len(s.Modules))
		}
		for _, u := range s.Usage {
			if len(u.CPUs) != 32 || u.CPUs[31] != 31 {
				t.Errorf("%s %s: CPUs %v", s.Name, u.Module, u.CPUs)
			}
		}
	}
	if u := r.Sections[0].Usage[0]; u.Module != "ndis.sys" || u.Usec[0] != 15000 || u.Usec[31] != 2200 || u.Line != 12 {
		t.Errorf("first DPC usage row %+v", u)
	}
	d := r.Distribution
	if d == nil || len(d.CPUs) != 32 || len(d.Columns) != 3 || len(d.Rows) != 8 || len(d.Rows[0].Counts) != 96 {
		t.Fatalf("distribution %+v", d)
	}
	for _, end := range []string{"\r\n", "\n"} {
		o := mustParse(t, strings.ReplaceAll(raw, "\r\r\n", end))
		if len(o.Notes) != 0 {
			t.Errorf("%q: notes %q", end, o.Notes)
		}
		o.Notes, o.Encoding = r.Notes, r.Encoding
		if !reflect.DeepEqual(o, r) {
			t.Errorf("%q line ends read otherwise than CR CR LF", end)
		}
	}
}

// A real report cut short (a paste that stopped, a download cut off) is
// read as far as it goes and says it may be cut short: it must not pass
// for a whole report. Quoted in Markdown or shown as a diff, it is
// refused: reading its unmarked lines would give part of it. Cut at the
// line given, EXP00 (584 lines) is whole only at its end.
func TestRealReportCutShort(t *testing.T) {
	raw := readFixture(t, "xperf-dpcisr-lcxiv-exp00-clean-baseline.txt")
	lines := strings.SplitAfter(raw, "\n")
	for _, c := range []struct {
		keep int
		note string
	}{
		{60, "line 60: the DPC section has no 'All Module = N, Total = N' line, which xperf writes after the histograms: the report may be cut short"},
		{231, "line 231: the DPC section ends at its 'All Module' line, without the interval table xperf writes after it: the report may be cut short"},
		{250, "line 233: 14 interval rows under a header of Intervals=126: the table is cut short or altered"},
		{366, `line 366: the ISR section ("Interrupt Info", line 365) holds nothing: the report may be cut short`},
		{569, "line 569: no distribution of intervals, the table xperf writes last: the report may be cut short"},
		{576, "line 571: distribution of 2000 ms intervals: no Total: row, which xperf writes last: the report may be cut short"},
	} {
		r := mustParse(t, strings.Join(lines[:c.keep], ""))
		if !slices.Contains(r.Notes, c.note) {
			t.Errorf("cut after line %d: notes %q, want %q", c.keep, r.Notes, c.note)
		}
	}
	quoted := "> " + strings.ReplaceAll(raw, "\n", "\n> ")
	diff := "--- a/report.txt\n+++ b/report.txt\n@@ -44,3 +44,3 @@\n Total = 63 for module CLASSPNP.SYS\n-" +
		"Elapsed Time, >        0 usecs AND <=        1 usecs,     42, or  66.67%\n+" +
		"Elapsed Time, >        0 usecs AND <=        1 usecs,     41, or  66.67%\n Total,     63\n"
	for name, in := range map[string]string{"quoted": quoted, "diff": diff} {
		_, err := Parse(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "a report line behind a quote or diff marker") {
			t.Errorf("%s: %v, want the marker refused", name, err)
		}
	}
}
