package dpcisr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/textdec"
)

const lmWritten = "latencymon-written.txt"

// lmCommaRe finds the decimal points a machine with a decimal comma
// prints as commas.
var lmCommaRe = regexp.MustCompile(`(\d)\.(\d)`)

func readLM(t *testing.T, in string) *Report {
	t.Helper()
	r, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != SourceLatencyMon || r.LatencyMon == nil {
		t.Fatalf("read as source %q, latencymon %v", r.Source, r.LatencyMon)
	}
	return r
}

// lmFacts is what every form of the written report must read as.
type lmFacts struct {
	dpcHigh, isrHigh float64
	dpcDriver        string
	dpc, isr         []int64 // bucket counts
	cpus             int
	durationS        float64
	conclusion       string
}

func factsOf(t *testing.T, r *Report) lmFacts {
	t.Helper()
	lm := r.LatencyMon
	f := lmFacts{cpus: len(lm.CPUs), conclusion: lm.Conclusion}
	if lm.DPC != nil && lm.DPC.HighestUs != nil {
		f.dpcHigh, f.dpcDriver = *lm.DPC.HighestUs, lm.DPC.HighestDriver
	}
	if lm.ISR != nil && lm.ISR.HighestUs != nil {
		f.isrHigh = *lm.ISR.HighestUs
	}
	if lm.DurationS != nil {
		f.durationS = *lm.DurationS
	}
	for _, s := range r.Sections {
		var cs []int64
		for _, b := range s.Overall.Buckets {
			cs = append(cs, b.Count)
		}
		if s.Name == DPC {
			f.dpc = cs
		} else {
			f.isr = cs
		}
	}
	return f
}

func sameFacts(a, b lmFacts) bool {
	eq := func(x, y []int64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a.dpcHigh == b.dpcHigh && a.isrHigh == b.isrHigh && a.dpcDriver == b.dpcDriver && eq(a.dpc, b.dpc) && eq(a.isr, b.isr) &&
		a.cpus == b.cpus && a.durationS == b.durationS && a.conclusion == b.conclusion
}

// TestLatencyMonWritten reads the written report whole: every section,
// value and bucket, with the DPC section's "500-10000 µs" bucket (as
// LatencyMon prints it) taken as 500-1000 µs.
func TestLatencyMonWritten(t *testing.T) {
	r := readLM(t, readFixture(t, lmWritten))
	lm := r.LatencyMon
	if r.Encoding != "utf-8" || r.Lines != 124 {
		t.Errorf("encoding %s, %d lines", r.Encoding, r.Lines)
	}
	if lm.Duration != "0:05:12" || *lm.DurationS != 312 {
		t.Errorf("duration %q %v", lm.Duration, *lm.DurationS)
	}
	if !strings.HasPrefix(lm.Conclusion, "Your system appears to be having trouble") || !strings.HasSuffix(lm.Conclusion, "executing for too long.") {
		t.Errorf("conclusion %q", lm.Conclusion)
	}
	if *lm.ReportedMHz != 2808 || lm.MeasuredMHz != nil || !lm.FixedSpeedNote || *lm.LogicalProcessors != 4 {
		t.Errorf("cpu speed %v %v %v, logical %v", *lm.ReportedMHz, lm.MeasuredMHz, lm.FixedSpeedNote, *lm.LogicalProcessors)
	}
	if *lm.ProcessHighestUs != 1712.4 || *lm.ProcessAverageUs != 12.508331 || *lm.DPCLatHighestUs != 1699.8 || *lm.DPCLatAverageUs != 4.117263 {
		t.Errorf("latencies %v %v %v %v", *lm.ProcessHighestUs, *lm.ProcessAverageUs, *lm.DPCLatHighestUs, *lm.DPCLatAverageUs)
	}
	if *lm.DPC.HighestUs != 1523.4 || lm.DPC.HighestDriver != "ndis.sys - Network Driver Interface Specification (NDIS), Microsoft Corporation" ||
		*lm.DPC.TopTotalPct != 0.871795 || *lm.DPC.TotalPct != 1.121795 || !strings.HasPrefix(lm.DPC.TopTotalDriver, "ndis.sys") {
		t.Errorf("DPC %+v", *lm.DPC)
	}
	if *lm.ISR.HighestUs != 612.5 || !strings.HasPrefix(lm.ISR.HighestDriver, "HDAudBus.sys") || !strings.HasPrefix(lm.ISR.TopTotalDriver, "Wdf01000.sys") {
		t.Errorf("ISR %+v", *lm.ISR)
	}
	h := lm.HardFaults
	if h.Process != "msmpeng.exe" || *h.Total != 2411 || *h.HardestHit != 1790 || *h.Processes != 9 || h.HighestResolutionUs != nil {
		t.Errorf("hard faults %+v", *h)
	}
	if len(lm.CPUs) != 4 || lm.CPUs[3].CPU != 3 || *lm.CPUs[0].DPCCount != 60000 || *lm.CPUs[2].DPCTotalS != 0.15 || *lm.CPUs[3].ISRHighestUs != 0 || *lm.CPUs[1].InterruptCycleS != 1.908154 {
		t.Errorf("cpus %+v", lm.CPUs)
	}
	if len(r.Sections) != 2 || r.Sections[0].Name != DPC || r.Sections[1].Name != ISR || r.Sections[0].Heading != "REPORTED DPCs" {
		t.Fatalf("sections %+v", r.Sections)
	}
	want := []string{"0-250 µs", "250-500 µs", "500-1000 µs", "1000-2000 µs", "2000-4000 µs", "> 4000 µs"}
	for _, s := range r.Sections {
		if len(s.Overall.Buckets) != len(want) {
			t.Fatalf("%s buckets %+v", s.Name, s.Overall.Buckets)
		}
		for i, b := range s.Overall.Buckets {
			if b.Range() != want[i] {
				t.Errorf("%s bucket %d: %s, want %s", s.Name, i, b.Range(), want[i])
			}
		}
	}
	if d := r.Sections[0].Overall; d.Total != 98137 || d.Buckets[2].Count != 14 || d.Buckets[3].Count != 3 {
		t.Errorf("DPC histogram %+v", d)
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes %q", r.Notes)
	}
}

func utf16leBOM(s string) string { return utf16le(s, true) }

// TestLatencyMonForms reads the written report in every form a real one
// comes in (see testdata/README.md): UTF-16 with a BOM, Windows-1252
// (LatencyMon's µ as one byte 0xB5), the µ mis-decoded by a Korean code
// page as "탎", decimal commas, LF line ends, quoted with "> " in a
// thread, inside other text, and with its line ends lost. Each must read
// as the original.
func TestLatencyMonForms(t *testing.T) {
	orig := readFixture(t, lmWritten)
	want := factsOf(t, readLM(t, orig))
	lf := strings.ReplaceAll(orig, "\r\n", "\n")
	ansi, ok := textdec.ANSIBytes(orig)
	if !ok {
		t.Fatal("the written report is not Windows-1252")
	}
	comma := lmCommaRe.ReplaceAllString(orig, "$1,$2")
	var quoted, oneLine strings.Builder
	for _, l := range strings.Split(lf, "\n") {
		quoted.WriteString("> " + l + "\n")
		oneLine.WriteString(l + " ")
	}
	for _, tc := range []struct{ name, in, enc string }{
		{"utf-8 CRLF", orig, "utf-8"},
		{"utf-8 with BOM", "\xef\xbb\xbf" + orig, "utf-8-bom"},
		{"utf-16le with BOM", utf16leBOM(orig), "utf-16le"},
		{"windows-1252", string(ansi), "windows-1252"},
		{"korean mis-decoding", strings.ReplaceAll(orig, "µs", "탎"), "utf-8"},
		{"decimal comma", comma, "utf-8"},
		{"LF", lf, "utf-8"},
		{"quoted", quoted.String(), "utf-8"},
		{"in other text", "My PC crackles, here is the report:\n\n```\n" + lf + "```\n\nAny idea?\n", "utf-8"},
		{"one line", oneLine.String(), "utf-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := readLM(t, tc.in)
			if got := factsOf(t, r); !sameFacts(got, want) {
				t.Errorf("read as %+v\nwant %+v", got, want)
			}
			if r.Encoding != tc.enc {
				t.Errorf("encoding %s, want %s", r.Encoding, tc.enc)
			}
		})
	}
}

// TestLatencyMonNumbers: a decimal point or comma, thousands separators
// only in groups of three, counts without a fraction.
func TestLatencyMonNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"321,10", 321.1, true}, {"6,802565", 6.802565, true}, {"467.0", 467, true}, {"0,0", 0, true},
		{"1.234,5", 1234.5, true}, {"1,234.5", 1234.5, true}, {"460335.609794", 460335.609794, true},
		{"1.2.3", 0, false}, {"12,34.5", 0, false}, {"1,2,3.4", 0, false},
	} {
		got, err := lmFloat(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("lmFloat(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"21517", 21517, true}, {"1,640,081", 1640081, true}, {"1.640.081", 1640081, true}, {"0,0", 0, true},
		{"12,5", 0, false}, {"1,23", 0, false}, {"99999999999999999999", 0, false},
	} {
		got, err := lmInt(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("lmInt(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestLatencyMonBuckets: the edges come from where the next bucket
// starts, so LatencyMon's spellings of one bucket ("500-1000",
// "500-10000", "500-999") read alike, and a missing line is a gap,
// not a widened bucket; buckets that do not cover every time
// (a fragment) build no histogram.
func TestLatencyMonBuckets(t *testing.T) {
	lines := func(labels ...string) string {
		var b strings.Builder
		for i, l := range labels {
			b.WriteString("DPC count (execution time " + l + " µs):   " + string(rune('1'+i)) + "\n")
		}
		return b.String()
	}
	const highest = "Highest DPC routine execution time (µs):   100,5\n"
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"as most print it", lines("<250", "250-500", "500-1000", "1000-2000", "2000-4000", ">=4000"), "0-250 250-500 500-1000 1000-2000 2000-4000 4000-"},
		{"500-10000", lines("<250", "250-500", "500-10000", "1000-2000", "2000-4000", ">=4000"), "0-250 250-500 500-1000 1000-2000 2000-4000 4000-"},
		{"999 1999 3999", lines("<250", "250-500", "500-999", "1000-1999", "2000-3999", ">=4000"), "0-250 250-500 500-1000 1000-2000 2000-4000 4000-"},
		{"out of order", lines(">=4000", "2000-4000", "<250", "1000-2000", "250-500", "500-1000"), "0-250 250-500 500-1000 1000-2000 2000-4000 4000-"},
		// Incomplete: no histogram, and a note that says why.
		{"a line missing", highest + lines("<250", "500-1000", "1000-2000", ">=4000"), "leave a gap after 0 µs"},
		{"cut short", highest + lines("<250", "250-500", "500-1000"), "end at 1000 µs, without the open last bucket"},
		{"first missing", highest + lines("250-500", "500-1000", "1000-2000", "2000-4000", ">=4000"), "start at 250 µs, not at 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := readLM(t, tc.in)
			if !strings.Contains(tc.want, "-") {
				if len(r.Sections) != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "DPC count lines "+tc.want) {
					t.Errorf("%d sections, notes %q; want none and a note %q", len(r.Sections), r.Notes, tc.want)
				}
				return
			}
			var got []string
			for _, b := range r.Sections[0].Overall.Buckets {
				s := strings.TrimSuffix(strings.NewReplacer("> ", "", " µs", "").Replace(b.Range()), "")
				if b.LeUs == nil {
					s += "-"
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("buckets %s, want %s", strings.Join(got, " "), tc.want)
			}
			if _, err := r.CheckHistograms(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestLatencyMonFragments: what a thread quotes of a report is read for
// what it holds, and nothing is made up for the rest.
func TestLatencyMonFragments(t *testing.T) {
	// As a reply in a GitHub issue quotes a report (monero-project/monero#1933).
	r := readLM(t, "Your report shows:\n\n> Highest measured interrupt to process latency (µs):   460335.609794\n> Average measured interrupt to process latency (µs):   7.911126\n\nMeanwhile for page faults\n> Highest hard pagefault resolution time (µs):          12091.117370\n")
	lm := r.LatencyMon
	if *lm.ProcessHighestUs != 460335.609794 || *lm.ProcessAverageUs != 7.911126 || lm.DPCLatHighestUs != nil || *lm.HardFaults.HighestResolutionUs != 12091.11737 {
		t.Errorf("read %+v", lm)
	}
	if len(r.Sections) != 0 || lm.DPC != nil || lm.ISR != nil || len(lm.CPUs) != 0 {
		t.Errorf("made up %+v %+v", r.Sections, lm)
	}
	// Part of PER CPU DATA, a CPU cut off after two of its values.
	r = readLM(t, "CPU 7 DPC count:       65298\n____\nCPU 8 ISR highest execution time (µs):     1104.452666\nCPU 8 DPC count:   86326\n____\nCPU 10 Interrupt cycle time (s):   2.888409\nCPU 10 ISR highest execution time (µs):\n")
	cpus := r.LatencyMon.CPUs
	if len(cpus) != 3 || cpus[0].CPU != 7 || *cpus[0].DPCCount != 65298 || *cpus[1].ISRHighestUs != 1104.452666 || cpus[2].ISRHighestUs != nil || *cpus[2].InterruptCycleS != 2.888409 {
		t.Errorf("cpus %+v", cpus)
	}
}

// TestLatencyMonBadInput: a file that looks like a LatencyMon report but
// holds none of its values, and one with a value that is no number, are
// refused in one line naming what was expected.
func TestLatencyMonBadInput(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no value", "I ran LatencyMon and the interrupt to process latency was high.\nWhat now?\n", "no LatencyMon value in 2 lines: expected a LatencyMon report"},
		{"not a number", "Highest DPC routine execution time (µs):   1,2,3.4\n", `line 1: "Highest DPC routine execution time (µs):   1,2,3.4": "1,2,3.4" is no number`},
		{"count with a fraction", "ISR count (execution time <250 µs):   12,5\n", `line 1: "ISR count (execution time <250 µs):   12,5": "12,5" is no count`},
		{"CPU out of range", "CPU 99999 DPC count:   1\n", "CPU 99999 out of range 0 to 2047"},
		{"too many buckets", strings.Repeat("x\n", 3) + lmManyBuckets(65), "line 68: more than 64 DPC count lines, where LatencyMon prints 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a ParseError", err, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line with %q", msg, tc.want)
			}
		})
	}
}

// TestUnknownTextNamesLatencyMon: text that is neither kind of report is
// refused with both kinds named.
func TestUnknownTextNamesLatencyMon(t *testing.T) {
	_, err := Read(strings.NewReader("hello\nworld\n"))
	if err == nil || !strings.Contains(err.Error(), "or a LatencyMon report (lines such as 'DPC count (execution time <250 µs): 21517')") {
		t.Errorf("error %v", err)
	}
}

// A fragment of count lines alone, too few for a histogram, is no
// report: an error, not an empty answer.
func TestLatencyMonOnlyIncompleteCounts(t *testing.T) {
	_, err := ParseLatencyMon(strings.NewReader("DPC count (execution time <250 µs):   12\nDPC count (execution time 250-500 µs):   1\n"))
	if err == nil || !strings.Contains(err.Error(), "no LatencyMon value but 2 count lines, too few for a histogram (DPC count lines end at 500 µs") {
		t.Errorf("error %v", err)
	}
}

// TestLatencyMonSecondReport: a file holding a report twice (pasted
// again) is read for the first, with a note where the second starts.
func TestLatencyMonSecondReport(t *testing.T) {
	orig := strings.ReplaceAll(readFixture(t, lmWritten), "\r\n", "\n")
	second := strings.Replace(orig, "1523.400000", "9999.000000", 1)
	r := readLM(t, orig+"\nand after a reboot:\n\n"+second)
	if *r.LatencyMon.DPC.HighestUs != 1523.4 || len(r.LatencyMon.CPUs) != 4 {
		t.Errorf("highest DPC %v, %d CPUs", *r.LatencyMon.DPC.HighestUs, len(r.LatencyMon.CPUs))
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "line 129: CONCLUSION again: a second report starts here; only the first is read") {
		t.Errorf("notes %q", r.Notes)
	}
	// Two fragments quoted one after the other, without their headings.
	r = readLM(t, "before:\nHighest DPC routine execution time (µs):   100,5\nDPC count (execution time <250 µs):   7\nafter:\nHighest DPC routine execution time (µs):   9999,0\nDPC count (execution time <250 µs):   9\n")
	// (one count line of six: no histogram, and a note says so)
	if *r.LatencyMon.DPC.HighestUs != 100.5 || len(r.Sections) != 0 {
		t.Errorf("highest DPC %v, %d sections", *r.LatencyMon.DPC.HighestUs, len(r.Sections))
	}
	if len(r.Notes) != 2 || r.Notes[0] != `line 5: "Highest DPC routine execution time" again: a second report starts here; only the first is read` ||
		!strings.Contains(r.Notes[1], "line 3: DPC count lines end at 250 µs") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestIsLatencyMon: the phrases are found in UTF-16 too, and never in an
// xperf report.
func TestIsLatencyMon(t *testing.T) {
	if !IsLatencyMon([]byte(utf16le("x\r\nLatencyMon has been analyzing your system for 0:00:10", true))) {
		t.Error("UTF-16 report not recognised")
	}
	if !IsLatencyMon([]byte("ISR count (execution\n time <250 µs): 3")) {
		t.Error("a phrase broken over lines not recognised")
	}
	xperf, err := filepath.Glob("testdata/xperf-dpcisr-*.txt")
	if err != nil || len(xperf) < 10 {
		t.Fatalf("xperf reports %v (%v)", xperf, err)
	}
	for _, f := range xperf {
		if IsLatencyMon([]byte(readFixture(t, filepath.Base(f)))) {
			t.Errorf("%s taken for a LatencyMon report", f)
		}
	}
}

// TestCompareLatencyMon: two LatencyMon reports compare over their
// buckets with shares at their edges; a LatencyMon report and an xperf
// report are refused (their buckets overlap).
func TestCompareLatencyMon(t *testing.T) {
	a := readLM(t, readFixture(t, lmWritten))
	b := readLM(t, strings.Replace(readFixture(t, lmWritten), "DPC count (execution time <250 µs):                   98000", "DPC count (execution time <250 µs):                   50000", 1))
	c, err := Compare([]Labeled{{"a", a}, {"b", b}}, "")
	if err != nil {
		t.Fatal(err)
	}
	dpc := c.Sections[0]
	if dpc.Name != DPC || dpc.Source != SourceLatencyMon || len(dpc.Buckets) != 6 || dpc.Test == nil {
		t.Fatalf("DPC comparison %+v", dpc)
	}
	var us []float64
	for _, s := range dpc.Shares {
		us = append(us, s.Us)
		if !s.Exact[0] || !s.Exact[1] {
			t.Errorf("share at %g µs not exact", s.Us)
		}
	}
	if len(us) != 5 || us[0] != 250 || us[4] != 4000 {
		t.Errorf("shares at %v", us)
	}
	x := mustParse(t, readFixture(t, "xperf-dpcisr-im-off.txt"))
	_, err = Compare([]Labeled{{"lm.txt", a}, {"off.txt", x}}, "")
	if err == nil || err.Error() != "different buckets: lm.txt is a LatencyMon report (<250, 250-500 ... >=4000 µs), off.txt is an xperf report (0-1, 1-2, 2-4 ... µs): compare LatencyMon reports only with LatencyMon reports" {
		t.Errorf("error %v", err)
	}
	w := *x
	w.Source = SourceETW
	_, err = Compare([]Labeled{{"watch.json", &w}, {"lm.txt", a}}, "")
	if err == nil || !strings.HasPrefix(err.Error(), "different buckets: lm.txt is a LatencyMon report (<250, 250-500 ... >=4000 µs), watch.json is a dpc watch trace (0-1, 1-2, 2-4 ... µs)") {
		t.Errorf("error %v", err)
	}
}

// TestLatencyMonDocumentRoundTrip: the --json document reads back as the
// same report, source and LatencyMon's values with it.
func TestLatencyMonDocumentRoundTrip(t *testing.T) {
	r := readLM(t, readFixture(t, lmWritten))
	v := r.View("x.txt", "")
	back := v.ReportOf()
	if err := back.check(); err != nil {
		t.Fatal(err)
	}
	if back.Source != SourceLatencyMon || back.LatencyMon == nil || *back.LatencyMon.DPC.HighestUs != 1523.4 || len(back.Sections) != 2 {
		t.Errorf("read back %+v", back)
	}
}

// TestLatencyMonDocumentGolden: the document of a LatencyMon report holds
// the verdict its text opens with, beside the report's values:
// testdata/latencymon-written-json.golden is the payload (data) that
// `latlab dpcisr testdata/latencymon-written.txt --json` writes.
func TestLatencyMonDocumentGolden(t *testing.T) {
	res, err := Run(context.Background(), Options{File: "testdata/" + lmWritten})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := result.Write(&b, res.Document(host.Facts{OS: "windows"})); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Data json.RawMessage }
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := json.Indent(&b, doc.Data, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	goldie.New(t).Assert(t, "latencymon-written-json", b.Bytes())
}

// TestLatencyMonCrossCheck: PER CPU DATA that does not add up to the
// histogram, or whose longest execution is not the report's highest, is
// said in a note (in the real reports both agree).
func TestLatencyMonCrossCheck(t *testing.T) {
	orig := readFixture(t, lmWritten)
	for _, tc := range []struct{ name, from, to, want string }{
		{"a count altered", "CPU 0 DPC count:                                      60000", "CPU 0 DPC count:                                      60001",
			"line 124: PER CPU DATA's DPC counts of 4 CPUs add up to 98138, the DPC count lines to 98137: a CPU left out or a value altered"},
		{"a highest time altered", "CPU 2 ISR highest execution time (µs):                301.006410", "CPU 2 ISR highest execution time (µs):                701.006410",
			"line 124: the highest ISR execution time of PER CPU DATA is 701.00641 µs, the report's 612.5 µs: a CPU left out or a value altered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(orig, tc.from, tc.to, 1)
			if in == orig {
				t.Fatal("nothing replaced")
			}
			r := readLM(t, in)
			if len(r.Notes) != 1 || r.Notes[0] != tc.want {
				t.Errorf("notes %q, want %q", r.Notes, tc.want)
			}
		})
	}
}

func lmManyBuckets(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "DPC count (execution time %d-%d µs): 1\n", 10*i, 10*i+10)
	}
	return b.String()
}

// TestLatencyMonConclusionBounded: a CONCLUSION heading followed by
// endless text holds at most maxLMText bytes of it while it is read, not
// the whole text until the conclusion ends.
func TestLatencyMonConclusionBounded(t *testing.T) {
	p := &lmParser{rep: &Report{}, seen: map[string]int{}, buckets: map[string][]lmBucket{}, heads: map[string]string{}, cpus: map[int]int{}}
	if err := p.line("CONCLUSION", 1); err != nil {
		t.Fatal(err)
	}
	for i := range 10000 {
		if err := p.line("the system is fine and then some more words", i+2); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(strings.Join(p.conc, " ")); n > maxLMText+100 {
		t.Errorf("%d bytes of conclusion held", n)
	}
	p.endConclusion()
	if n := len(p.lm.Conclusion); n == 0 || n > maxLMText {
		t.Errorf("conclusion of %d bytes", n)
	}
}
