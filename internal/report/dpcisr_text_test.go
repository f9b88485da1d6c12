package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// The text of dpcisr and dpcisr compare, at full width and at 80
// columns (COLUMNS=80), against testdata/dpcisr-*.golden: what the
// commands printed for these fixtures (../dpcisr/testdata/README.md)
// before the text moved into this package.
func TestDPCISRTextGolden(t *testing.T) {
	ctx := context.Background()
	const data = "../dpcisr/testdata/"
	for _, c := range []struct {
		golden, file, module string
		cols                 int
	}{
		{"dpcisr-text-written-layout", "xperf-dpcisr-written-layout.txt", "", 0},
		{"dpcisr-text-watch-80", "watch-synthetic.json", "ndis.sys", 80},
		// A module name too long for its column wraps, every line of it
		// indented as the rows are.
		{"dpcisr-text-long-module-80", "xperf-dpcisr-long-module.txt", "", 80},
		// A LatencyMon report: the verdict and what it rests on first.
		{"dpcisr-text-latencymon-80", "latencymon-written.txt", "", 80},
	} {
		res, err := dpcisr.Run(ctx, dpcisr.Options{File: data + c.file, Module: c.module})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		DPCISRText(WithWidth(&b, c.cols), res)
		goldie.New(t).Assert(t, c.golden, b.Bytes())
	}

	cmp, err := dpcisr.RunCompare(ctx, dpcisr.CompareOptions{
		Files:  []string{data + "xperf-dpcisr-im-extreme.txt", data + "xperf-dpcisr-im-off.txt"},
		Labels: []string{"Extreme", "Off"}, Module: "ndis.sys",
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	DPCISRCompareText(&b, cmp)
	goldie.New(t).Assert(t, "dpcisr-compare-ndis", b.Bytes())
}

// The CDF panels end at the last bounded bucket, at 100% for each run.
func TestDPCISRComparePanels(t *testing.T) {
	const data = "../dpcisr/testdata/"
	cmp, err := dpcisr.RunCompare(context.Background(), dpcisr.CompareOptions{
		Files: []string{data + "xperf-dpcisr-im-extreme.txt", data + "xperf-dpcisr-im-off.txt"}, Module: "ndis.sys",
	})
	if err != nil {
		t.Fatal(err)
	}
	ps := DPCISRComparePanels(cmp)
	if len(ps) != 2 || ps[0].Title != "DPC ndis.sys" || ps[1].Title != "ISR ndis.sys" || len(ps[0].Series) != 2 {
		t.Fatalf("%+v", ps)
	}
	for _, p := range ps {
		for _, s := range p.Series {
			if len(s.X) == 0 || len(s.X) != len(s.Y) || s.X[0] <= 0 {
				t.Errorf("%s %s: %v %v", p.Title, s.Label, s.X, s.Y)
				continue
			}
			for i := 1; i < len(s.X); i++ {
				if s.X[i] <= s.X[i-1] || s.Y[i] < s.Y[i-1] {
					t.Errorf("%s %s: not ascending at %d: %v %v", p.Title, s.Label, i, s.X, s.Y)
				}
			}
		}
	}
}

// A Linux trace (softirq and hardirq sections) names its rows as Linux
// does, in the text and in the page's tables: softirq vectors and
// interrupt handlers, "(all softirqs)" and "(all handlers)", never
// Windows's modules.
func TestDPCISRTextLinux(t *testing.T) {
	r := dpcwatch.NewLinuxRecorder(0)
	for i := int64(1); i <= 200; i++ {
		r.AddNamed(dpcwatch.Deferred, "NET_RX", dpcwatch.Exec{CPU: uint16(i % 2), Start: i * 1_000_000, End: i*1_000_000 + (3+i%5)*1000, Label: "vec 3"})
		r.AddNamed(dpcwatch.Interrupt, "LOC (local_timer)", dpcwatch.Exec{CPU: uint16(i % 2), Start: i*1_000_000 + 500_000, End: i*1_000_000 + 501_000, Label: "vector 236"})
	}
	res := &dpcisr.Result{File: "linux-watch.json", Report: r.Report(300_000_000)}
	var b bytes.Buffer
	DPCISRText(WithWidth(&b, 80), res)
	goldie.New(t).Assert(t, "dpcisr-text-tracefs", b.Bytes())
	out := b.String()
	for _, want := range []string{"\n(all softirqs)\n", "\n(all handlers)\n", "\nNET_RX\n", "\nLOC (local_timer)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "module") {
		t.Errorf("the text of a Linux trace speaks of modules:\n%s", out)
	}
	var page bytes.Buffer
	if err := DPCISRPage(&page, "latlab dpc watch", "linux-watch.json", res.Document(host.Facts{OS: "linux"})); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"per softirq, longest first", "per handler, longest first", ">softirq<", ">handler<"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page.String(), ">module<") || strings.Contains(page.String(), "per module") {
		t.Error("the page of a Linux trace speaks of modules")
	}
	// dpcisr compare of two such traces.
	dir := testutil.TempDir(t)
	var files []string
	for _, n := range []string{"a.json", "b.json"} {
		f := filepath.Join(dir, n)
		var doc bytes.Buffer
		if err := result.Write(&doc, res.Document(host.Facts{OS: "linux"})); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, doc.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	cmp, err := dpcisr.RunCompare(context.Background(), dpcisr.CompareOptions{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	var cb bytes.Buffer
	DPCISRCompareText(&cb, cmp)
	if first, _, _ := strings.Cut(cb.String(), "\n"); !strings.Contains(first, "all softirqs and interrupt handlers") {
		t.Errorf("compare heading %q", first)
	}
}

// Every line of dpcisr's and dpcisr compare's text fits 80 columns for
// every fixture dpcisr reads (xperf reports, a watch document, the
// written .etl traces), on an 80-column output and in the goldens: the
// notes, the verdicts and the headings are wrapped, not only the tables.
func TestDPCISRTextFits80Columns(t *testing.T) {
	ctx := context.Background()
	var files []string
	for _, g := range []string{"../dpcisr/testdata/*.txt", "../dpcisr/testdata/*.json", "../etl/testdata/written-dpcisr-*.etl", "../etl/testdata/written-hardfault-*.etl"} {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v %v", g, m, err)
		}
		files = append(files, m...)
	}
	check := func(name, out string) {
		t.Helper()
		for i, l := range strings.Split(out, "\n") {
			if n := text.StringWidthWithoutEscSequences(l); n > 80 {
				t.Errorf("%s: line %d has %d columns: %q", name, i+1, n, l)
			}
		}
	}
	for _, f := range files {
		res, err := dpcisr.Run(ctx, dpcisr.Options{File: f})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var b bytes.Buffer
		DPCISRText(WithWidth(&b, 80), res)
		check(f, b.String())
	}
	for _, pair := range [][]string{
		{"../dpcisr/testdata/xperf-dpcisr-im-extreme.txt", "../dpcisr/testdata/xperf-dpcisr-im-off.txt"},
		{"../dpcisr/testdata/xperf-dpcisr-written-layout.txt", "../dpcisr/testdata/watch-synthetic.json"},
		{"../etl/testdata/written-dpcisr-64.etl", "../etl/testdata/written-dpcisr-32.etl"},
		{"../etl/testdata/written-hardfault-64.etl", "../etl/testdata/written-hardfault-32.etl"},
		{"../etl/testdata/written-hardfault-64.etl", "../etl/testdata/written-dpcisr-32.etl"},
	} {
		cmp, err := dpcisr.RunCompare(ctx, dpcisr.CompareOptions{Files: pair})
		if err != nil {
			t.Fatalf("%v: %v", pair, err)
		}
		var b bytes.Buffer
		DPCISRCompareText(WithWidth(&b, 80), cmp)
		check(strings.Join(pair, " vs "), b.String())
	}
	goldens, _ := filepath.Glob("testdata/dpcisr-*.golden")
	cli, _ := filepath.Glob("../cli/testdata/dpcisr*.golden")
	for _, g := range append(goldens, cli...) {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		check(g, string(b))
	}
}

// dpcisr compare of the written hard fault traces (the same table) and a
// synthetic third report with other pids: per image a row per report,
// the totals first, at most 80 columns; a report without hard faults is
// one line naming it.
func TestDPCISRCompareHardFaults(t *testing.T) {
	ctx := context.Background()
	var runs []dpcisr.Labeled
	for _, f := range []string{"written-hardfault-64.etl", "written-hardfault-32.etl"} {
		res, err := dpcisr.Run(ctx, dpcisr.Options{File: "../etl/testdata/" + f})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, dpcisr.Labeled{Label: f, Report: res.Report})
	}
	pid := func(n uint32) *uint32 { return &n }
	runs = append(runs, dpcisr.Labeled{Label: "after", Report: &dpcisr.Report{HardFaults: &dpcisr.HardFaults{
		Events: 9, Bytes: 90000, TotalUs: 9000, LongestUs: 4000, Processes: []dpcisr.ProcessFaults{
			{Image: "svchost.exe", PID: pid(812), Faults: 4, Bytes: 40000, TotalUs: 5000, LongestUs: 4000},
			{Image: "svchost.exe", PID: pid(640), Faults: 2, Bytes: 20000, TotalUs: 2000, LongestUs: 1500},
			{Image: "msmpeng.exe", PID: pid(3300), Faults: 3, Bytes: 30000, TotalUs: 2000, LongestUs: 900},
		}}}})
	c, err := dpcisr.Compare(runs, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	DPCISRCompareText(WithWidth(&b, 80), c)
	goldie.New(t).Assert(t, "dpcisr-compare-hardfault", b.Bytes())
	for i, l := range strings.Split(b.String(), "\n") {
		if n := text.StringWidthWithoutEscSequences(l); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	if strings.Contains(b.String(), "p =") || strings.Contains(b.String(), "chi-squared") {
		t.Errorf("a test of hard fault totals:\n%s", b.String())
	}

	xperf, err := dpcisr.Run(ctx, dpcisr.Options{File: "../dpcisr/testdata/xperf-dpcisr-im-off.txt"})
	if err != nil {
		t.Fatal(err)
	}
	c, err = dpcisr.Compare([]dpcisr.Labeled{runs[0], {Label: "off", Report: xperf.Report}}, "")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	DPCISRCompareText(WithWidth(&b, 80), c)
	if _, tail, _ := strings.Cut(b.String(), "\n\nhard page faults: "); tail != "not compared, only in written-hardfault-64.etl (not in off)\n" {
		t.Errorf("got\n%s", b.String())
	}
}
