package dpcisr_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	_ "github.com/latlab/latlab/internal/dpcwatch" // reads .etl traces
)

func hardFaultReport(t *testing.T, file string) *dpcisr.Report {
	t.Helper()
	res, err := dpcisr.Run(context.Background(), dpcisr.Options{File: "../etl/testdata/" + file})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.HardFaults == nil || res.Report.HardFaults.Events != 12 {
		t.Fatalf("%s: hard faults %+v", file, res.Report.HardFaults)
	}
	return res.Report
}

// imageRows is a comparison's table in one string per image:
// image:pids/threads/faults/bytes/total/longest per report.
func imageRows(hc *dpcisr.HardFaultComparison) string {
	var rows []string
	for _, im := range hc.Images {
		row := im.Image + ":"
		for _, r := range im.Runs {
			row += fmt.Sprintf(" %v/%d/%d/%d/%g/%g", r.PIDs, r.Threads, r.Faults, r.Bytes, r.TotalUs, r.LongestUs)
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n")
}

// The written hard fault traces (32- and 64-bit) give the same table;
// compared with a synthetic third report whose processes have other
// pids, the rows are matched by image, summed over an image's processes
// (two svchost.exe), ordered by the longest total wait of any report, and
// an image only one report has is zero in the others.
func TestCompareHardFaults(t *testing.T) {
	r64, r32 := hardFaultReport(t, "written-hardfault-64.etl"), hardFaultReport(t, "written-hardfault-32.etl")
	c, err := dpcisr.Compare([]dpcisr.Labeled{{"64", r64}, {"32", r32}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sections) != 0 || c.HardFaults == nil || len(c.HardFaults.Missing) != 0 {
		t.Fatalf("%+v", c)
	}
	want := `svchost.exe: [2000]/0/3/28672/3550/1920 [2000]/0/3/28672/3550/1920
app.exe: [1234]/0/5/53248/2970/1750 [1234]/0/5/53248/2970/1750
: [5000]/1/2/20480/2650/1410 [5000]/1/2/20480/2650/1410
searchindexer.exe: [2100]/0/1/8192/1580/1580 [2100]/0/1/8192/1580/1580
System: [4]/0/1/12288/1070/1070 [4]/0/1/12288/1070/1070`
	if got := imageRows(c.HardFaults); got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
	if tt := c.HardFaults.Totals; len(tt) != 2 || tt[0] != tt[1] || tt[0].Faults != 12 || tt[0].Bytes != 122880 || tt[0].TotalUs != 11820 {
		t.Errorf("totals %+v", tt)
	}

	pid := func(n uint32) *uint32 { return &n }
	other := &dpcisr.Report{HardFaults: &dpcisr.HardFaults{Events: 9, Bytes: 90000, TotalUs: 9000, LongestUs: 4000, Processes: []dpcisr.ProcessFaults{
		{Image: "SVCHOST.EXE", PID: pid(812), Faults: 4, Bytes: 40000, TotalUs: 5000, LongestUs: 4000},
		{Image: "svchost.exe", PID: pid(640), Faults: 2, Bytes: 20000, TotalUs: 2000, LongestUs: 1500},
		{Image: "msmpeng.exe", PID: pid(3300), Faults: 3, Bytes: 30000, TotalUs: 2000, LongestUs: 900},
	}}}
	c, err = dpcisr.Compare([]dpcisr.Labeled{{"64", r64}, {"other", other}}, "")
	if err != nil {
		t.Fatal(err)
	}
	want = `svchost.exe: [2000]/0/3/28672/3550/1920 [640 812]/0/6/60000/7000/4000
app.exe: [1234]/0/5/53248/2970/1750 []/0/0/0/0/0
: [5000]/1/2/20480/2650/1410 []/0/0/0/0/0
msmpeng.exe: []/0/0/0/0/0 [3300]/0/3/30000/2000/900
searchindexer.exe: [2100]/0/1/8192/1580/1580 []/0/0/0/0/0
System: [4]/0/1/12288/1070/1070 []/0/0/0/0/0`
	if got := imageRows(c.HardFaults); got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}

	// A report without the section: nothing compared, and with no
	// histogram either, an error naming it.
	xperf, err := dpcisr.Run(context.Background(), dpcisr.Options{File: "testdata/xperf-dpcisr-im-off.txt"})
	if err != nil {
		t.Fatal(err)
	}
	c, err = dpcisr.Compare([]dpcisr.Labeled{{"64", r64}, {"off", xperf.Report}}, "")
	if err != nil || c.HardFaults == nil || !reflect.DeepEqual(c.HardFaults.Missing, []string{"off"}) || len(c.HardFaults.Images) != 0 {
		t.Errorf("%v %+v", err, c.HardFaults)
	}
	noHF := &dpcisr.Report{HardFaults: &dpcisr.HardFaults{Missing: "no hard page fault events"}}
	if _, err := dpcisr.Compare([]dpcisr.Labeled{{"64", r64}, {"none", noHF}}, ""); err == nil || !strings.Contains(err.Error(), "none has no hard page faults") {
		t.Errorf("err %v", err)
	}
	// Two xperf reports have no section to compare; --module leaves it out.
	c, err = dpcisr.Compare([]dpcisr.Labeled{{"off", xperf.Report}, {"off2", xperf.Report}}, "")
	if err != nil || c.HardFaults != nil {
		t.Errorf("%v %+v", err, c.HardFaults)
	}
	if _, err := dpcisr.Compare([]dpcisr.Labeled{{"64", r64}, {"32", r32}}, "app.exe"); err == nil {
		t.Error("--module compared hard faults")
	}
}
