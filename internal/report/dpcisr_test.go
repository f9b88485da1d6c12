package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

// The fixtures live with the parser (see internal/dpcisr/testdata/README.md):
// watch-synthetic.json is a synthetic dpc watch document, the written-layout
// report was written in xperf's layout for the tests.
const dpcisrData = "../dpcisr/testdata/"

func dpcisrPage(t *testing.T, doc *result.Document) (*Report, string) {
	t.Helper()
	r, err := BuildReport([]ReportInput{{Label: "dpc.json", Doc: doc}}, "latlab dpcisr")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return r, b.String()
}

func xperfDoc(t *testing.T, name string) *result.Document {
	t.Helper()
	f, err := os.Open(dpcisrData + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := dpcisr.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	v := rep.View(name, "")
	return dpcisr.Kind.New(host.Facts{}, &v)
}

func row(cells ...string) string { return "<tr><td>" + strings.Join(cells, "</td><td>") + "</td></tr>" }

func TestDPCISRPageWatch(t *testing.T) {
	doc, err := result.ReadFile(dpcisrData + "watch-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	r, page := dpcisrPage(t, doc)
	for _, want := range []string{
		"an ETW trace of latlab dpc watch, 0.5 s, 1201 events, 3 modules known",
		"verdict: likely drop-outs: ndis.sys ran a DPC for 2500 µs, 500 µs above 2 ms",
		"longest DPC: ndis.sys, 2500 µs at 0.450 s on CPU 0 (DPC routine 0xfffff80400300010)",
		"longest ISR: USBPORT.SYS, 1.0 µs at 0.002 s on CPU 0",
		"<th>&gt; 1 ms</th><th>&gt; 2 ms</th>",
		// The exact longest execution and total from the trace; the
		// one execution of 401 above 2 ms is 0.25% above both thresholds.
		row("ndis.sys", "401", "3900 µs", "2500 µs", "4-8 µs", "0.25%", "0.25%"),
		row("a-very-long-vendor-driver-name-x64.sys", "400", "800 µs", "2.0 µs", "1-2 µs", "0%", "0%"),
		row("(all modules)", "801", "-", "in 2048-4096 µs", "4-8 µs", "0.12%", "0.12%"),
		row("USBPORT.SYS", "400", "400 µs", "1.0 µs", "0-1 µs", "0%", "0%"),
		"<svg",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Longest first: ndis.sys before the vendor driver.
	if strings.Index(page, "<td>ndis.sys</td>") > strings.Index(page, "<td>a-very-long-vendor") {
		t.Error("modules not ordered by longest execution")
	}
	figs := r.Figures()
	if len(figs) != 1 {
		t.Fatalf("%d figures, want 1", len(figs))
	}
	b, err := figs[0].Render("png")
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("PNG: %v", err)
	}
	b, err = figs[0].Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DPC", "ISR", "ndis.sys", "USBPORT.SYS", "(all modules)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
}

func TestDPCISRPageXperf(t *testing.T) {
	_, page := dpcisrPage(t, xperfDoc(t, "xperf-dpcisr-written-layout.txt"))
	for _, want := range []string{
		"an xperf DPC/ISR report (",
		// Total from the usage table: the four CPUs' µs summed.
		row("ndis.sys", "69835", "224.5 ms", "in 64-128 µs", "8-16 µs", "0%", "0%"),
		row("(all modules)", "109162", "-", "in 128-256 µs", "8-16 µs", "0%", "0%"),
		row("Unknown", "1", "48.0 µs", "in 32-64 µs", "32-64 µs", "0%", "0%"),
		"<svg",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "verdict:") {
		t.Error("a verdict on a report that holds no watch summary")
	}
}

// A module listed in several blocks keeps its labels; its total is not
// taken from the usage table, which does not say which block it was.
func TestDPCISRPageLabels(t *testing.T) {
	_, page := dpcisrPage(t, xperfDoc(t, "xperf-dpcisr-keyboard-ps2-vs-usb.txt"))
	for _, want := range []string{"<td>kbdhid.sys — USB Keyboard Driver</td><td>921</td>", "DPC (&#34;DPC Latency&#34;, line 2)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestDPCISRPageEmptySections(t *testing.T) {
	le := int64(1)
	rep := &dpcisr.Report{Source: dpcisr.SourceXperf, Sections: []dpcisr.Section{
		{Name: dpcisr.DPC, Modules: []dpcisr.Histogram{}},
		{Name: dpcisr.ISR, Modules: []dpcisr.Histogram{{Module: "x.sys", Buckets: []dpcisr.Bucket{{GtUs: 0, LeUs: &le, Count: 0}}}}},
	}}
	v := rep.View("empty", "")
	r, page := dpcisrPage(t, dpcisr.Kind.New(host.Facts{}, &v))
	if len(r.Figures()) != 0 {
		t.Errorf("%d figures of no executions", len(r.Figures()))
	}
	for _, want := range []string{"DPC: no histogram", "no plot: no DPC or ISR executions", row("x.sys", "0", "-", "-", "-", "-", "-")} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// Executions only in the open bucket give no point on the plot's axis.
func TestDPCISRPageOpenBucketOnly(t *testing.T) {
	rep := &dpcisr.Report{Source: dpcisr.SourceXperf, Sections: []dpcisr.Section{
		{Name: dpcisr.DPC, Modules: []dpcisr.Histogram{{Module: "x.sys", Buckets: []dpcisr.Bucket{{GtUs: 2048, Count: 3}}}}},
	}}
	v := rep.View("open", "")
	r, page := dpcisrPage(t, dpcisr.Kind.New(host.Facts{}, &v))
	if len(r.Figures()) != 0 {
		t.Error("a plot without points")
	}
	for _, want := range []string{row("x.sys", "3", "-", "in &gt; 2048 µs", "&gt; 2048 µs", "100.00%", "100.00%"), "no plot: every execution is in the open last bucket"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A hand-made document with buckets out of order is refused as
// 'latlab dpcisr' refuses it, not drawn.
func TestDPCISRPageRefusesBadBuckets(t *testing.T) {
	a, b := int64(8), int64(4)
	rep := &dpcisr.Report{Source: dpcisr.SourceXperf, Sections: []dpcisr.Section{
		{Name: dpcisr.DPC, Modules: []dpcisr.Histogram{{Module: "x.sys", Buckets: []dpcisr.Bucket{{GtUs: 4, LeUs: &a, Count: 1}, {GtUs: 2, LeUs: &b, Count: 1}}}}},
	}}
	v := rep.View("bad", "")
	_, err := BuildReport([]ReportInput{{Label: "bad.json", Doc: dpcisr.Kind.New(host.Facts{}, &v)}}, "t")
	if err == nil || !strings.Contains(err.Error(), "overlaps or precedes") {
		t.Errorf("err = %v", err)
	}
}

func TestShareAbove(t *testing.T) {
	u := func(v int64) *int64 { return &v }
	h := dpcisr.Histogram{Buckets: []dpcisr.Bucket{
		{GtUs: 256, LeUs: u(512), Count: 50},
		{GtUs: 512, LeUs: u(1024), Count: 30},
		{GtUs: 1024, LeUs: u(2048), Count: 15},
		{GtUs: 2048, Count: 5},
	}}
	for _, c := range []struct {
		us, max float64
		want    string
	}{
		{1000, -1, "20.00 to 50.00%"}, // 512-1024 straddles 1 ms
		{2000, -1, "5.00 to 20.00%"},
		{1024, -1, "20.00%"}, // a bucket bound: exact
		{2048, -1, "5.00%"},
		{1000, 900, "0%"}, // the longest execution is below
		{2000, 2500, "5.00 to 20.00%"},
	} {
		if got := shareText(shareAbove(h, c.us, c.max)); got != c.want {
			t.Errorf("above %g µs (longest %g): %q, want %q", c.us, c.max, got, c.want)
		}
	}
	if got := shareText(shareAbove(dpcisr.Histogram{}, 1000, -1)); got != "-" {
		t.Errorf("empty histogram: %q", got)
	}
	one := dpcisr.Histogram{Buckets: []dpcisr.Bucket{{GtUs: 0, LeUs: u(1), Count: 1e6}, {GtUs: 2048, Count: 1}}}
	if got := shareText(shareAbove(one, 2000, -1)); got != "< 0.01%" {
		t.Errorf("one in a million: %q", got)
	}
}
