package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcverdict"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// documentData is the payload of the document `latlab dpcisr FILE --json`
// writes for res, as written.
func documentData(t *testing.T, res *dpcisr.Result) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := result.Write(&b, res.Document(host.Facts{OS: "windows"})); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Data json.RawMessage }
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Data
}

// TestDPCISRVerdictEveryForm: whatever verdict the text of `latlab
// dpcisr FILE` shows, its --json document holds, in the same words, and
// so does the HTML page; a report whose text has no verdict has none in
// the document or on the page. Over every xperf fixture, the LatencyMon
// report at each level (and with one or neither highest line), a dpc
// watch document (whole, one module of it, and as 'latlab dpcisr --json'
// writes it again) and .etl traces.
func TestDPCISRVerdictEveryForm(t *testing.T) {
	const data = "../dpcisr/testdata/"
	lm, err := os.ReadFile(data + "latencymon-written.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	variant := func(name string, pairs ...string) string {
		p := filepath.Join(dir, name)
		s := strings.NewReplacer(pairs...).Replace(string(lm))
		if s == string(lm) && len(pairs) > 0 {
			t.Fatalf("%s: the replacement changed nothing", name)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const dpcHigh = "Highest DPC routine execution time (µs):              1523.400000"
	const isrHigh = "Highest ISR routine execution time (µs):              612.500000"
	// The document `latlab dpcisr watch.json --json` writes, read again:
	// it holds the watch's verdict without the watch's summary.
	watch, err := dpcisr.Run(context.Background(), dpcisr.Options{File: data + "watch-synthetic.json"})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := result.Write(&again, watch.Document(host.Facts{OS: "windows"})); err != nil {
		t.Fatal(err)
	}
	watchAgain := filepath.Join(dir, "watch-again.json")
	if err := os.WriteFile(watchAgain, again.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	type input struct {
		path, module string
		level        string // of the verdict; "" for none
	}
	files := []input{
		{data + "latencymon-written.txt", "", dpcverdict.LevelWarn},
		{variant("lm-ok.txt", "1523.400000", "523.400000"), "", dpcverdict.LevelOK},
		{variant("lm-bad.txt", "612.500000", "2612.500000"), "", dpcverdict.LevelBad},
		{variant("lm-isr-only.txt", dpcHigh, ""), "", dpcverdict.LevelOK},
		{variant("lm-neither.txt", dpcHigh, "", isrHigh, ""), "", ""},
		{data + "watch-synthetic.json", "", dpcverdict.LevelBad},
		// The verdict judges the whole trace: not one module of it.
		{data + "watch-synthetic.json", "ndis.sys", ""},
		{watchAgain, "", dpcverdict.LevelBad},
		{"../etl/testdata/written-dpcisr-64.etl", "", ""},
		{"../etl/testdata/written-hardfault-64.etl", "", ""},
	}
	xperf, err := filepath.Glob(data + "xperf-dpcisr-*.txt")
	if err != nil || len(xperf) == 0 {
		t.Fatalf("no xperf fixtures (%v)", err)
	}
	for _, f := range xperf {
		files = append(files, input{f, "", ""})
	}
	for _, f := range files {
		t.Run(filepath.Base(f.path)+" "+f.module, func(t *testing.T) {
			res, err := dpcisr.Run(context.Background(), dpcisr.Options{File: f.path, Module: f.module, Page: true})
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Verdict *dpcverdict.Verdict `json:"verdict"`
			}
			if err := json.Unmarshal(documentData(t, res), &doc); err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			DPCISRText(WithWidth(&text, 80), res)
			lines := strings.Split(text.String(), "\n")
			at := -1
			for i, l := range lines {
				if strings.HasPrefix(l, "verdict: ") {
					at = i
					break
				}
			}
			var page bytes.Buffer
			if err := DPCISRPage(&page, "latlab dpcisr", f.path, res.PageDocument(host.Facts{OS: "windows"}, nil)); err != nil {
				t.Fatal(err)
			}
			pageVerdicts := strings.Count(page.String(), "verdict: ")
			if doc.Verdict == nil {
				if at >= 0 || f.level != "" {
					t.Errorf("the document has no verdict; want level %q; the text's line %d:\n%s", f.level, at+1, text.String())
				}
				if pageVerdicts > 0 {
					t.Errorf("the document has no verdict, the page %d", pageVerdicts)
				}
				return
			}
			if doc.Verdict.Level != f.level {
				t.Errorf("level %q, want %q", doc.Verdict.Level, f.level)
			}
			if at < 0 {
				t.Fatalf("the document's verdict %q is not in the text:\n%s", doc.Verdict.Text, text.String())
			}
			want := wrapText("verdict: "+doc.Verdict.Text, "", "  ", 80)
			if got := lines[at:min(at+len(want), len(lines))]; strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the text's verdict:\n%s\nthe document's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if next := lines[at+len(want)]; strings.HasPrefix(next, "  ") && !strings.HasPrefix(next, "  highest ") && !strings.HasPrefix(next, "  no 'Highest") {
				t.Errorf("the text's verdict goes on past the document's: %q", next)
			}
			if pageVerdicts != 1 || !strings.Contains(page.String(), html.EscapeString("verdict: "+doc.Verdict.Text)) {
				t.Errorf("the page's verdicts (%d) are not the document's %q", pageVerdicts, doc.Verdict.Text)
			}
		})
	}
}
