package dpcisr

import (
	"encoding/json"
	"strings"
	"testing"
)

func parseFixture(t testing.TB, name string) *Report {
	t.Helper()
	r, err := Parse(strings.NewReader(readFixture(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// What 'dpcisr FILE --json' writes reads back as the report it came from,
// in a result document or as earlier versions wrote it; Read tells JSON
// from text.
func TestReadDocumentRoundTrip(t *testing.T) {
	orig := parseFixture(t, "xperf-dpcisr-written-layout.txt")
	view, err := json.Marshal(orig.View("out.txt", ""))
	if err != nil {
		t.Fatal(err)
	}
	wrapped := `{"schema":"latlab.result/1","kind":"dpcisr","data":` + string(view) + `}`
	// Before documents were latlab.result/1, 'dpcisr FILE --json' wrote
	// the view alone, marked "schema": "latlab.dpcisr/1".
	former := `{"schema":"latlab.dpcisr/1",` + string(view[1:])
	for name, in := range map[string]string{"latlab.dpcisr/1": former, "result document": wrapped, "indented with a BOM": "\xef\xbb\xbf\n  " + wrapped} {
		t.Run(name, func(t *testing.T) {
			got, err := Read(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			if got.Source != SourceXperf || len(got.Sections) != len(orig.Sections) {
				t.Fatalf("source %q, %d sections", got.Source, len(got.Sections))
			}
			for i := range orig.Sections {
				a, b := orig.Sections[i], got.Sections[i]
				ja, _ := json.Marshal(Summarize(*a.Overall))
				jb, _ := json.Marshal(Summarize(*b.Overall))
				if string(ja) != string(jb) {
					t.Errorf("section %s: overall differs", a.Name)
				}
				if len(a.Modules) != len(b.Modules) || len(a.Usage) != len(b.Usage) {
					t.Errorf("section %s: %d/%d modules, %d/%d usage rows", a.Name, len(a.Modules), len(b.Modules), len(a.Usage), len(b.Usage))
				}
			}
			// Compared with the text it came from: the same distributions.
			c, err := Compare([]Labeled{{"text", orig}, {"json", got}}, "ndis.sys")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.Sections {
				if s.Test != nil && s.Test.Statistic != 0 {
					t.Errorf("%s: %s", s.Name, s.Verdict)
				}
			}
		})
	}
}

func TestReadDocumentETWSource(t *testing.T) {
	in := `{"schema":"latlab.dpcisr/1","source":"etw","sections":[{"name":"DPC","modules":[{"module":"ndis.sys","total":3,"buckets":[{"gt_us":0,"le_us":1,"count":1},{"gt_us":1,"le_us":2,"count":2}]}]}]}`
	r, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != SourceETW || r.Sections[0].Modules[0].Sum() != 3 {
		t.Errorf("%+v", r)
	}
}

func TestReadDocumentErrors(t *testing.T) {
	sec := func(body string) string {
		return `{"schema":"latlab.dpcisr/1","sections":[` + body + `]}`
	}
	hist := func(buckets string) string {
		return sec(`{"name":"DPC","modules":[{"module":"a.sys","total":1,"buckets":[` + buckets + `]}]}`)
	}
	tests := []struct {
		name, in, want string
	}{
		{"another kind", `{"schema":"latlab.result/1","kind":"sleep","data":{}}`, `kind "sleep"`},
		{"no data", `{"schema":"latlab.result/1","kind":"dpcisr"}`, `without data`},
		{"data of another schema", `{"schema":"latlab.result/1","kind":"dpcisr","data":{"schema":"x"}}`, `no sections`},
		{"unknown schema", `{"schema":"foo"}`, `schema "foo"`},
		{"not JSON", `{"schema":`, `invalid JSON`},
		{"wrong type", `{"schema":"latlab.dpcisr/1","sections":5}`, `data.sections`},
		{"unknown source", `{"schema":"latlab.dpcisr/1","source":"perf","sections":[]}`, `source "perf"`},
		{"no sections", `{"schema":"latlab.dpcisr/1"}`, `no sections`},
		{"bad section", sec(`{"name":"IRQ"}`), `name "IRQ"`},
		{"bounds reversed", hist(`{"gt_us":4,"le_us":2,"count":1}`), `bucket 4-2 µs: bounds out of order`},
		{"negative count", hist(`{"gt_us":0,"le_us":1,"count":-1}`), `count -1 out of range`},
		{"overlap", hist(`{"gt_us":0,"le_us":4,"count":1},{"gt_us":2,"le_us":8,"count":1}`), `overlaps`},
		{"after the open bucket", hist(`{"gt_us":8,"le_us":null,"count":1},{"gt_us":16,"le_us":32,"count":1}`), `overlaps`},
		{"too many", hist(`{"gt_us":0,"le_us":1,"count":9007199254740992},{"gt_us":1,"le_us":2,"count":1}`), `more than 2^53`},
		{"usage rows", sec(`{"name":"DPC","usage":[{"module":"a.sys","usec":[1,2],"percent":[1],"cpus":[0,1]}]}`), `usage of a.sys has 2 times and 1 percentages`},
		{"interval rows", sec(`{"name":"ISR","intervals":{"rows":[{"start_ms":0,"end_ms":1000,"usec":[1],"percent":[]}]}}`), `interval 0-1000 ms has 1 times`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v; want %q", err, tt.want)
			}
		})
	}
}

// FuzzReadDocument: any JSON either reads into a report the analysis can
// use (summaries and a comparison with itself) or fails with one line.
func FuzzReadDocument(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input, and a whole
	// report takes it minutes.
	small, err := Parse(strings.NewReader("DPC Info\nTotal = 3 for module a.sys\nElapsed Time, > 0 usecs AND <= 1 usecs, 1, or 33.33%\nElapsed Time, > 1 usecs AND <= 2 usecs, 2, or 66.67%\nTotal, 3\n"))
	if err != nil {
		f.Fatal(err)
	}
	view, _ := json.Marshal(small.View("k.txt", ""))
	f.Add(string(view))
	f.Add(`{"schema":"latlab.result/1","kind":"dpcisr","data":` + string(view) + `}`)
	f.Add(`{"schema":"latlab.dpcisr/1","source":"etw","sections":[{"name":"ISR","overall":{"buckets":[{"gt_us":0,"le_us":null,"count":2}]}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ReadDocument(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		_ = r.View("f", "")
		_, _ = Compare([]Labeled{{"a", r}, {"b", r}}, "")
	})
}

// A dpc watch document's verdict, judged on the exact longest executions
// the buckets do not keep, is carried into the view of the report read
// from it (not with a module filter: it judges the whole trace), and
// again from the document that view makes, which has no watch summary.
// An xperf report, whose histograms alone are no ground for it, has none.
func TestWatchVerdictCarried(t *testing.T) {
	r, err := Read(strings.NewReader(readFixture(t, "watch-synthetic.json")))
	if err != nil {
		t.Fatal(err)
	}
	const want = "likely drop-outs: ndis.sys ran a DPC for 2500 µs, 500 µs above 2 ms (1500 µs above 1 ms); highest DPC routine execution time 2500 µs (ndis.sys), highest ISR routine execution time 1.0 µs (USBPORT.SYS)"
	v := r.View("watch.json", "")
	if v.Verdict == nil || v.Verdict.Text != want || v.Verdict.Level != "over-2ms" || v.Verdict.MaxUs != 2500 {
		t.Fatalf("verdict %+v", v.Verdict)
	}
	if m := r.Filter("ndis.sys").View("watch.json", "ndis.sys"); m.Verdict != nil {
		t.Errorf("with --module: verdict %+v", m.Verdict)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Read(strings.NewReader(`{"schema":"latlab.result/1","kind":"dpcisr","data":` + string(b) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if av := again.View("again.json", ""); av.Verdict == nil || *av.Verdict != *v.Verdict {
		t.Errorf("read again: verdict %+v", av.Verdict)
	}
	if x := parseFixture(t, "xperf-dpcisr-written-layout.txt").View("out.txt", ""); x.Verdict != nil {
		t.Errorf("an xperf report: verdict %+v", x.Verdict)
	}
}
