package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
)

func f64(v float64) *float64 { return &v }

// TestLatencyMonSpeedText: the execution times are said to be scaled by
// the CPU speed only as far as the report's numbers show it.
func TestLatencyMonSpeedText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rep, meas *float64
		note      bool
		want      string
	}{
		{"measured half the reported", f64(3600), f64(1800), false, "at the reported 3600 MHz but measured 1800 MHz: had the CPU run at the measured speed, each execution time and latency would be 2.00× the one printed"},
		{"measured above the reported", f64(2000), f64(3000), true, "at the reported 2000 MHz but measured 3000 MHz: had the CPU run at the measured speed, each execution time and latency would be 0.67× the one printed"},
		{"within 10%", f64(3600), f64(3500), false, "CPU speed: reported 3600 MHz, measured 3500 MHz"},
		{"the note alone", f64(3696), nil, true, "cycles at the reported 3696 MHz; the report notes they \"may be calculated based on a fixed reported CPU speed\": a CPU that ran slower (speed stepping) took longer than printed and one that ran faster (turbo) less, by how much the report does not show"},
		{"reported alone", f64(3696), nil, false, "CPU speed: reported 3696 MHz, the speed cycles are converted to time at"},
		{"nothing", nil, nil, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := speedText(&dpcisr.LatencyMon{ReportedMHz: tc.rep, MeasuredMHz: tc.meas, FixedSpeedNote: tc.note})
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLatencyMonVerdictIsWatchs: the verdict on a LatencyMon report is
// dpc watch's on the same longest executions, word for word; a report
// with one of the two lines is judged on that one and says so.
func TestLatencyMonVerdictIsWatchs(t *testing.T) {
	lm := &dpcisr.LatencyMon{
		DPC: &dpcisr.LMRoutines{HighestUs: f64(2500), HighestDriver: "ndis.sys - Network Driver Interface Specification (NDIS), Microsoft Corporation"},
		ISR: &dpcisr.LMRoutines{HighestUs: f64(612.5), HighestDriver: "HDAudBus.sys - High Definition Audio Bus Driver, Microsoft Corporation"},
	}
	v, ok := lm.Verdict()
	w := dpcwatch.Judge([]dpcwatch.ModuleStat{{Module: "ndis.sys", MaxUs: 2500}}, []dpcwatch.ModuleStat{{Module: "HDAudBus.sys", MaxUs: 612.5}})
	if !ok || v != w {
		t.Errorf("verdict %+v\nwatch's %+v", v, w)
	}
	lm.DPC = nil
	var b bytes.Buffer
	latencyMonText(WithWidth(&b, 200), &dpcisr.Result{File: "x.txt", Report: &dpcisr.Report{Source: dpcisr.SourceLatencyMon, LatencyMon: lm}}, "utf-8, 3 lines")
	for _, want := range []string{
		"verdict: suitable for real-time audio: every ISR ended within 1 ms; highest ISR routine execution time 612 µs (HDAudBus.sys)",
		"no 'Highest DPC routine execution time' line: the DPCs are not judged",
		"no histogram: the report has none of its 'DPC count (execution time ...)' or 'ISR count (execution time ...)' lines",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "bucket") {
		t.Errorf("an empty table:\n%s", b.String())
	}
}

// The verdict quotes the report's driver name, which a report's author
// wrote: a tab in it is escaped, as in every other line that quotes one,
// not left to lay the line out.
func TestLatencyMonVerdictEscaped(t *testing.T) {
	lm := &dpcisr.LatencyMon{ISR: &dpcisr.LMRoutines{HighestUs: f64(2500), HighestDriver: "evil\tdriver.sys - x"}}
	var b bytes.Buffer
	latencyMonText(WithWidth(&b, 200), &dpcisr.Result{File: "x.txt", Report: &dpcisr.Report{Source: dpcisr.SourceLatencyMon, LatencyMon: lm}}, "utf-8, 3 lines")
	verdict, _, _ := strings.Cut(b.String()[strings.Index(b.String(), "verdict:"):], "\n")
	if !strings.Contains(verdict, `evil\x09driver.sys`) || strings.Contains(verdict, "\t") {
		t.Errorf("verdict line %q: want the tab escaped", verdict)
	}
}

// A fragment whose count lines leave buckets out: the page says that is
// why there is no histogram, and a highest time without its driver reads
// as such in the verdict.
func TestLatencyMonFragmentText(t *testing.T) {
	for _, tc := range []struct {
		in, want, not string
	}{
		{"Highest DPC routine execution time (µs):   100,5\nDPC count (execution time <250 µs):   12\n",
			"lines leave buckets out (see the notes)", "has none of its"},
		{"Highest DPC routine execution time (µs):   100,5\n", "has none of its", "leave buckets out"},
	} {
		rep, err := dpcisr.ParseLatencyMon(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		latencyMonText(WithWidth(&b, 200), &dpcisr.Result{File: "x.txt", Report: rep}, "utf-8")
		out := b.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) || !strings.Contains(out, "(an unnamed driver)") {
			t.Errorf("%q:\n%s", tc.in, out)
		}
	}
}
