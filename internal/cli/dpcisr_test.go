package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// Fixtures live with the parser: the keyboard file is REAL xperf output
// (hand-edited by its author); the im-*.txt files were WRITTEN for the
// tests in xperf's layout (see internal/dpcisr/testdata/README.md).
const dpcisrData = "../dpcisr/testdata/"

func TestDPCISRHuman(t *testing.T) {
	code, out, errs := runCLI(t, "dpcisr", dpcisrData+"xperf-dpcisr-keyboard-ps2-vs-usb.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`== DPC ("DPC Latency", line 2)`, `== ISR ("Interrupt Latency", line 44)`,
		"kbdhid.sys — USB Keyboard Driver (line 7)",
		"921 DPCs; p50 in 4-8 µs, p90 in 4-8 µs, p99 in 4-8 µs, p99.9 in 32-64 µs",
		"most common 4-8 µs (55.16%); longest in 32-64 µs",
		"937 ISRs; p50 in 16-32 µs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDPCISRJSONAndModule(t *testing.T) {
	code, out, errs := runCLI(t, "dpcisr", dpcisrData+"xperf-dpcisr-keyboard-ps2-vs-usb.txt", "--json", "--module", "KBDHID.SYS")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The shape the issue asks for, read without latlab's types.
	var doc struct {
		Schema string
		Kind   string
		Data   json.RawMessage
	}
	var v struct {
		Sections []struct {
			Name    string
			Modules []struct {
				Module  string
				Total   int64
				Buckets []struct {
					GtUs  int64  `json:"gt_us"`
					LeUs  *int64 `json:"le_us"`
					Count int64
				}
				Summary struct {
					Quantiles []struct {
						P      float64
						Bucket struct {
							GtUs int64 `json:"gt_us"`
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := json.Unmarshal(doc.Data, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Schema != result.Schema || doc.Kind != dpcisr.Kind.Name() || len(v.Sections) != 2 || v.Sections[0].Name != "DPC" || len(v.Sections[0].Modules) != 2 || len(v.Sections[1].Modules) != 0 {
		t.Fatalf("%+v", v)
	}
	m := v.Sections[0].Modules[0]
	if m.Module != "kbdhid.sys" || m.Total != 921 || len(m.Buckets) != 7 || m.Buckets[2].GtUs != 2 || *m.Buckets[2].LeUs != 4 || m.Buckets[2].Count != 411 {
		t.Errorf("module %+v", m)
	}
	if q := m.Summary.Quantiles; len(q) != 4 || q[3].P != 99.9 || q[3].Bucket.GtUs != 32 {
		t.Errorf("quantiles %+v", q)
	}
	code, _, errs = runCLI(t, "dpcisr", dpcisrData+"xperf-dpcisr-keyboard-ps2-vs-usb.txt", "--module", "ndis.sys")
	testutil.CheckBadExit(t, "unknown module", code, errs, `no module "ndis.sys"; the report has i8042prt.sys, kbdhid.sys`)
}

func TestDPCISRBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]struct{ path, want string }{
		"empty":        {write("empty.txt", ""), "empty.txt: line 1: empty file"},
		"binary":       {write("bin.txt", "\x7fELF\x02\x01\x01\x00\x00"), "bin.txt: line 1: not text"},
		"no histogram": {write("none.txt", "DPC Info\nnothing here\n"), "none.txt: line 2: no DPC/ISR histogram in 2 lines: expected 'Total = N for module NAME' followed by lines 'Elapsed Time, > A usecs AND <= B usecs, COUNT, or P%', or a LatencyMon report (lines such as 'DPC count (execution time <250 µs): 21517')"},
		// LatencyMon's words in prose, none of its values.
		"latencymon without values": {write("lm.txt", "I ran LatencyMon: the interrupt to process latency was high.\n"), "lm.txt: line 1: no LatencyMon value in 1 lines: expected a LatencyMon report: lines such as 'Highest DPC routine execution time (µs): 63.69' or 'DPC count (execution time <250 µs): 21517'"},
		"latencymon --module":       {write("lm2.txt", "Highest DPC routine execution time (µs): 63.69\nDPC count (execution time <250 µs): 3\n"), "lm2.txt: --module ndis.sys: a LatencyMon report has no histogram per module"},
		"missing":                   {dir + "/nope.txt", "cannot read " + dir + "/nope.txt"},
	}
	for name, c := range cases {
		args := []string{"dpcisr", c.path}
		if name == "latencymon --module" {
			args = append(args, "--module", "ndis.sys")
		}
		code, _, errs := runCLI(t, args...)
		testutil.CheckBadExit(t, name, code, errs, c.want)
	}
}

func TestDPCISRCompare(t *testing.T) {
	a, b := dpcisrData+"xperf-dpcisr-im-extreme.txt", dpcisrData+"xperf-dpcisr-im-off.txt"
	plot := testutil.TempDir(t) + "/cdf.svg"
	code, out, errs := runCLI(t, "dpcisr", "compare", a, b, "--labels", "Extreme,Off", "--module", "ndis.sys", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"ndis.sys in Extreme vs Off",
		"4 µs 37.59% 90.82% +53.22 pp",
		"verdict: DPC: Off is faster than Extreme",
		"verdict: ISR: Off is faster than Extreme",
		"buckets pooled to keep expected counts >= 5",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	svg := readFile(t, plot)
	if !strings.HasPrefix(svg, "<?xml") || !strings.Contains(svg, "Extreme") || !strings.Contains(svg, "DPC ndis.sys") {
		t.Errorf("plot is not the expected SVG: %.200s", svg)
	}

	// A report compared with itself: no difference.
	code, out, _ = runCLI(t, "dpcisr", "compare", a, a, "--json")
	if code != 0 {
		t.Fatal(out)
	}
	c := payload(t, readDoc(t, out), dpcisr.KindCompare)
	if len(c.Sections) != 2 || c.Sections[0].Test == nil || c.Sections[0].Test.P != 1 || !strings.Contains(c.Sections[0].Verdict, "no significant difference") {
		t.Errorf("self-comparison %+v", c.Sections[0])
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dpcisr", "compare", a}, "dpcisr compare needs two or more reports"},
		{[]string{"dpcisr", "compare", a, b, "--labels", "one"}, "--labels has 1 names for 2 files"},
		{[]string{"dpcisr", "compare", a, b, "--plot", "x.pdf"}, `invalid --plot: plot file "x.pdf"`},
		{[]string{"dpcisr", "compare", a, b, "--module", "nothere.sys"}, "no report has module nothere.sys"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args[2:]), code, errs, c.want)
	}
}

// What dpcisr capture does with xperf's report, on any OS: the text to -o,
// the analysis to stdout, the result document to --result or --json.
func TestDPCISRCaptureReport(t *testing.T) {
	text, err := os.ReadFile(dpcisrData + "xperf-dpcisr-keyboard-ps2-vs-usb.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	var out, errw strings.Builder
	o := &DPCISRCaptureOptions{IO: &IO{Out: &out, Err: &errw}, Seconds: 30, Out: dir + "/out.txt", Result: dir + "/out.json", Module: "i8042prt.sys"}
	if err := reportCapture(o, text); err != nil {
		t.Fatal(err)
	}
	if saved, _ := os.ReadFile(o.Out); string(saved) != string(text) {
		t.Error("-o does not hold xperf's report")
	}
	if !strings.Contains(out.String(), "latlab dpcisr: "+o.Out) || !strings.Contains(out.String(), "i8042prt.sys") || strings.Contains(out.String(), "kbdhid.sys") {
		t.Errorf("analysis of the module:\n%s", out.String())
	}
	doc := readDoc(t, readFile(t, o.Result))
	v := payload(t, doc, dpcisr.Kind)
	if v.Module != "i8042prt.sys" || len(v.Sections) == 0 ||
		len(v.Sections[0].Modules) == 0 || v.Sections[0].Modules[0].Module != "i8042prt.sys" || !strings.Contains(strings.Join(doc.Notes, " "), "for 30 s") {
		t.Errorf("--result: kind %s, %+v, notes %v", doc.Kind, v.Sections, doc.Notes)
	}
	out.Reset()
	o.JSON, o.Result, o.Module = true, "", ""
	if err := reportCapture(o, text); err != nil {
		t.Fatal(err)
	}
	if doc := readDoc(t, out.String()); doc.Kind != dpcisr.Kind.Name() {
		t.Errorf("--json: kind %s", doc.Kind)
	}
	o.Module = "nosuch.sys"
	if err := reportCapture(o, text); err == nil || !strings.Contains(err.Error(), `no module "nosuch.sys"`) {
		t.Errorf("unknown module: %v", err)
	}
}

// A LatencyMon report reads as one: the verdict first, its buckets, the
// document's source; compared with another LatencyMon report over its
// buckets, and refused beside an xperf report in one line (exit 2).
func TestDPCISRLatencyMon(t *testing.T) {
	lm := dpcisrData + "latencymon-written.txt"
	code, out, errs := runCLI(t, "dpcisr", lm)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.HasPrefix(flat, "latlab dpcisr: "+lm+" (a LatencyMon report, utf-8, 124 lines) verdict: drop-outs possible: ndis.sys ran a DPC for 1523 µs") {
		t.Errorf("the verdict is not first:\n%s", out)
	}
	code, out, errs = runCLI(t, "dpcisr", lm, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Data struct {
			Source     string
			Latencymon struct {
				Dpc struct {
					HighestUs float64 `json:"highest_us"`
				}
			}
			// The verdict the text opens with.
			Verdict struct{ Level, Text, Module string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Data.Source != "latencymon" || doc.Data.Latencymon.Dpc.HighestUs != 1523.4 {
		t.Errorf("document %+v (%v)", doc, err)
	}
	if v := doc.Data.Verdict; v.Level != "over-1ms" || v.Module != "ndis.sys" || !strings.HasPrefix(flat, "latlab dpcisr: "+lm+" (a LatencyMon report, utf-8, 124 lines) verdict: "+v.Text+" highest DPC routine") {
		t.Errorf("the document's verdict %+v is not the text's", v)
	}
	code, out, errs = runCLI(t, "dpcisr", "compare", lm, lm, "--labels", "A,B")
	if code != 0 || !strings.Contains(out, "share below") || !strings.Contains(out, ">=4000 µs") {
		t.Errorf("compare: exit %d: %s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, "dpcisr", "compare", lm, dpcisrData+"xperf-dpcisr-im-off.txt")
	testutil.CheckBadExit(t, "compare with xperf", code, errs, "different buckets: latencymon-written.txt is a LatencyMon report (<250, 250-500 ... >=4000 µs), xperf-dpcisr-im-off.txt is an xperf report (0-1, 1-2, 2-4 ... µs): compare LatencyMon reports only with LatencyMon reports")
}
