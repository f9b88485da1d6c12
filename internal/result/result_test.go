package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// testPayload stands for a kind's payload in the tests of the envelope.
type testPayload struct {
	Summary *stats.Summary     `json:"summary,omitempty"`
	Values  []int64            `json:"values"`
	Maybe   []string           `json:"maybe,omitempty"`
	Later   []int64            `json:"later,omitzero"`
	ByName  map[string]int     `json:"by_name"`
	Rows    []testRow          `json:"rows"`
	Nested  *testRow           `json:"nested,omitempty"`
	Keyed   map[string]testRow `json:"keyed"`
	Bytes   []byte             `json:"bytes"`
	//lint:ignore U1000 never set: fillLists must pass over unexported fields
	hidden []int
}

type testRow struct {
	Cells []string `json:"cells"`
}

var testKind = Register[testPayload]("test", "a payload for the envelope's tests",
	Moved("summary", "values"), Formerly("latlab.test/1"))

func fixedTest() *Document {
	s := stats.Summarize([]int64{1, 2, 3})
	return &Document{
		Schema:   Schema,
		Kind:     testKind.Name(),
		Created:  time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Tool:     Tool{Name: "latlab", Version: "test"},
		Host:     host.Facts{OS: "linux", Arch: "amd64", LogicalCPUs: 2},
		Settings: map[string]string{"samples": "3"},
		Data:     &testPayload{Summary: &s, Values: []int64{1, 2, 3}},
	}
}

func write(t *testing.T, d *Document) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Nothing is written as null: empty lists and maps are [] and {}, the
// envelope's too; omitempty and omitzero fields stay absent.
func TestWriteFillsLists(t *testing.T) {
	d := fixedTest()
	d.Settings, d.Notes = nil, nil
	p := d.Data.(*testPayload)
	p.Values = nil
	p.Rows = []testRow{{}}
	p.Nested = &testRow{}
	p.Keyed = map[string]testRow{"a": {}}
	out := string(write(t, d))
	if strings.Contains(out, "null") {
		t.Errorf("null in\n%s", out)
	}
	for _, want := range []string{`"settings": {}`, `"notes": []`, `"values": []`, `"by_name": {}`, `"cells": []`, `"bytes": ""`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	for _, absent := range []string{`"maybe"`, `"later"`} {
		if strings.Contains(out, absent) {
			t.Errorf("%s written though empty and omitted:\n%s", absent, out)
		}
	}
	if p.Nested.Cells == nil || p.Keyed["a"].Cells == nil {
		t.Error("nested lists not filled")
	}
}

func TestWriteChecksThePayload(t *testing.T) {
	for _, c := range []struct {
		name string
		d    *Document
		want string
	}{
		{"unregistered kind", &Document{Kind: "nope", Data: &testPayload{}}, `kind "nope" is not registered`},
		{"wrong type", &Document{Kind: "test", Data: &Tool{}}, "holds *result.Tool, want *result.testPayload"},
		{"a value, not a pointer", &Document{Kind: "test", Data: testPayload{}}, "want *result.testPayload"},
		{"nil payload", &Document{Kind: "test", Data: (*testPayload)(nil)}, "want *result.testPayload"},
		{"no payload", &Document{Kind: "test"}, "holds <nil>"},
	} {
		err := Write(io.Discard, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestNewTakesAValueOrAPointer(t *testing.T) {
	for _, data := range []any{testPayload{Values: []int64{7}}, &testPayload{Values: []int64{7}}} {
		d, err := New(host.Facts{}, "test", data)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := testKind.Of(d); !ok || p.Values[0] != 7 {
			t.Errorf("New(%T): %+v", data, d.Data)
		}
	}
	if _, err := New(host.Facts{}, "test", &Tool{}); err == nil {
		t.Error("New accepted a payload of another type")
	}
	if _, err := New(host.Facts{}, "nope", &testPayload{}); err == nil {
		t.Error("New accepted an unregistered kind")
	}
}

func TestRegisterRefuses(t *testing.T) {
	for name, f := range map[string]func(){
		"duplicate":   func() { Register[testPayload]("test", "") },
		"empty name":  func() { Register[testPayload]("", "") },
		"upper case":  func() { Register[testPayload]("Sleep", "") },
		"a space":     func() { Register[testPayload]("two words", "") },
		"not struct":  func() { Register[[]int]("list-payload", "") },
		"schema used": func() { Register[testPayload]("test-2", "", Formerly("latlab.test/1")) },
		"own schema":  func() { Register[testPayload]("test-3", "", Formerly(Schema)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestRoundTrip(t *testing.T) {
	d, err := Read(bytes.NewReader(write(t, fixedTest())))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := testKind.Of(d)
	if !ok || p.Summary.P50 != 2 || len(p.Values) != 3 || d.Settings["samples"] != "3" || d.Tool.Version != "test" {
		t.Fatalf("round trip: %+v %+v", d, d.Data)
	}
}

func TestReadRejects(t *testing.T) {
	for _, c := range []struct {
		in, want string
		is       error
	}{
		{"", "empty input", ErrNotResult},
		{"{", "the input ends inside the document", ErrNotResult},
		{`{"schema":"latlab.result/1",`, "the input ends inside the document", ErrNotResult},
		{`{"schema":"latlab.result/1","data":`, "the input ends inside the document", ErrNotResult},
		{"\x00\x01binary", "invalid JSON", ErrNotResult},
		{"[1, 2]", "JSON but not an object", ErrNotResult},
		{`{"kind":"test","data":{}}`, "no schema", ErrNotResult},
		{`{"schema":"other/1","kind":"x"}`, `schema "other/1"; latlab reads latlab.result/1 (and the older `, ErrNotResult},
		{`{"schema":3,"kind":"x"}`, "schema is 3, not a string", ErrNotResult},
		{`{"schema":"latlab.result/2","kind":"sleep"}`, "schema latlab.result/2 is from a newer latlab: this one (" + Version() + ") reads latlab.result/1; update latlab to read it", ErrNewer},
		{`{"schema":"latlab.result/12","kind":"brand-new","data":{}}`, "from a newer latlab", ErrNewer},
		{`{"schema":"latlab.result/x","kind":"test"}`, `schema "latlab.result/x" is not one latlab writes`, ErrNotResult},
		{`{"schema":"latlab.knob/1","knobs":[]}`, "schema latlab.knob/1 is a layout of earlier latlab versions that this one does not read", ErrNotResult},
		{`{"schema":"latlab.result/1"}`, "no kind", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"fancy","data":{}}`, `kind "fancy" is not one latlab ` + Version() + ` reads; accepted: `, ErrUnknownKind},
		{`{"schema":"latlab.result/1","kind":"test"}`, "a test document without data", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"test","data":{"values":"many"}}`, "a test document's data.values is JSON string, not the []int64 latlab writes there", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"test","data":[]}`, "a test document's data.(the payload itself) is JSON array", ErrNotResult},
		{`{"data":{"rows":{}},"schema":"latlab.result/1","kind":"test"}`, "data.rows is JSON object", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"test","notes":"one"}`, "notes: json: cannot unmarshal string", ErrNotResult},
		// A value its type refuses (here bytes that are not base64) in
		// a payload decoded as it is read: json.Decoder returns that
		// error as it returns the reader's, and it went out as it came,
		// not as bad input.
		{`{"schema":"latlab.result/1","kind":"test","data":{"bytes":"\u009c"}}`, "a test document's data: illegal base64 data", ErrNotResult},
		{`{"data":{"bytes":"!"},"schema":"latlab.result/1","kind":"test"}`, "a test document's data: illegal base64 data", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"test","data":`, "the input ends inside the document", ErrNotResult},
		{`{"schema":"latlab.result/1","kind":"test","data":{"values":[1,`, "the input ends inside the document", ErrNotResult},
	} {
		_, err := Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) || !errors.Is(err, ErrNotResult) {
			t.Errorf("Read(%q) = %v, want error %v containing %q", c.in, err, c.is, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Read(%q): more than one line: %q", c.in, err)
		}
	}
}

// An error of the reader met while the payload is decoded is the
// reader's: it is not the document's fault.
func TestReadKeepsReaderErrors(t *testing.T) {
	disk := errors.New("disk on fire")
	in := io.MultiReader(strings.NewReader(`{"schema":"latlab.result/1","kind":"test","data":{"values":[1,`), iotest.ErrReader(disk))
	_, err := Read(in)
	if !errors.Is(err, disk) || errors.Is(err, ErrNotResult) {
		t.Fatalf("Read = %v, want the reader's error", err)
	}
}

// A schema or kind of megabytes was quoted whole: the "one line" of a
// bad document was as long as the file. The messages quote 60 bytes.
func TestReadClipsWhatItQuotes(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct{ in, want string }{
		{`{"schema":"other` + long + `","kind":"sleep"}`, `schema "otherxxx`},
		{`{"schema":"latlab.result/` + long + `","kind":"sleep"}`, `is not one latlab writes`},
		{`{"schema":"latlab.` + long + `","kind":"sleep"}`, `is a layout of earlier latlab versions`},
		{`{"schema":"latlab.result/1","kind":"` + long + `","data":{}}`, `kind "xxx`},
	} {
		_, err := Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "...") || len(err.Error()) > 1000 {
			t.Errorf("%s: error of %d bytes", c.want, len(errString(err)))
		}
	}
}

// An unknown kind names every kind this latlab reads.
func TestUnknownKindListsTheKinds(t *testing.T) {
	_, err := Read(strings.NewReader(`{"schema":"latlab.result/1","kind":"fancy","data":{}}`))
	if err == nil || !strings.HasSuffix(err.Error(), "accepted: "+strings.Join(KindNames(), ", ")) || !strings.Contains(err.Error(), "test, ") {
		t.Fatalf("%v", err)
	}
}

// Fields a later latlab.result/1 adds are ignored; "data" may come before
// "kind" (a document written by hand or another tool).
func TestReadIsLenient(t *testing.T) {
	for _, in := range []string{
		`{"schema":"latlab.result/1","kind":"test","future":{"x":1},"data":{"values":[1],"added":true}}`,
		`{"data":{"values":[1]},"kind":"test","schema":"latlab.result/1"}`,
	} {
		d, err := Read(strings.NewReader(in))
		if err != nil {
			t.Fatalf("Read(%s): %v", in, err)
		}
		if p, ok := testKind.Of(d); !ok || len(p.Values) != 1 || d.Settings == nil || d.Notes == nil {
			t.Errorf("Read(%s) = %+v", in, d)
		}
	}
}

// Documents written before the payload moved under "data" kept it at the
// top level; the kind's Moved keys are read from there.
func TestReadMovedPayload(t *testing.T) {
	d, err := Read(strings.NewReader(`{"schema":"latlab.result/1","kind":"test","notes":["kept"],"summary":{"count":3,"p50_ns":2},"values":[4,5]}`))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := testKind.Of(d)
	if p == nil || p.Summary == nil || p.Summary.P50 != 2 || len(p.Values) != 2 || len(d.Notes) != 1 {
		t.Fatalf("%+v %+v", d, p)
	}
}

// A former schema is read as its kind: the whole object is the payload.
func TestReadFormerSchema(t *testing.T) {
	d, err := Read(strings.NewReader(`{"schema":"latlab.test/1","values":[1,2],"notes":"the payload's own"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := testKind.Of(d); !ok || len(p.Values) != 2 || d.Schema != "latlab.test/1" {
		t.Fatalf("%+v", d)
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	_ = Write(&b, fixedTest())
	f.Add(b.Bytes())
	f.Add([]byte(`{"schema":"latlab.result/1","kind":"test","summary":{"count":1}}`))
	f.Add([]byte(`{"schema":"latlab.test/1","values":[1]}`))
	f.Add([]byte(`{"schema":"latlab.result/1","kind":"version","data":{"version":"v1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotResult) {
				t.Fatalf("an error that is not ErrNotResult: %v", err)
			}
			return
		}
		// What was read is a document latlab can write again.
		if err := Write(io.Discard, d); err != nil {
			t.Fatalf("read %q but cannot write it: %v", data, err)
		}
	})
}

// blanks is white space without end: what /dev/zero or a runaway pipe is
// to a reader that has no cap.
type blanks struct{ left int64 }

func (b *blanks) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.left)
	for i := range p[:n] {
		p[i] = ' '
	}
	b.left -= n
	return int(n), nil
}

func TestReadStopsAtTheCap(t *testing.T) {
	defer infile.Reset()
	infile.SetMax(1 << 20)
	src := &blanks{left: 32 << 20}
	_, err := Read(src)
	var tl *infile.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), infile.MaxFlag) {
		t.Fatalf("32 MiB under a 1 MiB cap: %v", err)
	}
	if read := 32<<20 - src.left; read > 2<<20 {
		t.Errorf("read %d bytes for a 1 MiB cap", read)
	}
}

func TestReadFileRefuses(t *testing.T) {
	defer infile.Reset()
	dir := testutil.TempDir(t)
	d := fixedTest()
	d.Notes = []string{strings.Repeat("a long note ", 100)}
	b := write(t, d)
	p := filepath.Join(dir, "test.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		max        int64
	}{
		{os.DevNull, "not a regular file (--allow-special-files reads it)", 0},
		{dir, "a directory, not a file", 0},
		{p, "more than the 1 KiB cap on input files (--max-input-size raises it)", 1024},
	} {
		infile.SetMax(c.max)
		_, err := ReadFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	infile.Reset()
	if _, err := Read(bytes.NewReader(append(b, b...))); err == nil || !strings.Contains(err.Error(), "more JSON after the document") {
		t.Errorf("two documents in one: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema":"latlab.result/9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); !errors.Is(err, ErrNewer) || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("a newer document: %v", err)
	}
}

// A histogram's counts cannot make Values allocate without bound: it
// rebuilds at most one sample per SampleBytes of the input cap.
func TestValuesBounded(t *testing.T) {
	defer infile.Reset()
	h := stats.HistogramOf([]int64{1000})
	if err := h.RecordValues(2000, 1<<20); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	infile.SetMax(4 << 20) // room for 32 Ki samples
	if _, _, err := Values(nil, enc, nil); err == nil || !strings.Contains(err.Error(), "1048577 samples, more than the 32768") {
		t.Fatalf("1 Mi samples under a 4 MiB cap: %v", err)
	}
	infile.SetMax(256 << 20) // room for 2 Mi samples
	if v, raw, err := Values(nil, enc, nil); err != nil || raw || len(v) != 1<<20+1 {
		t.Fatalf("under a 256 MiB cap: %d samples, %v", len(v), err)
	}
	if v, raw, err := Values([]int64{5}, enc, nil); err != nil || !raw || len(v) != 1 {
		t.Fatalf("raw samples win: %v %v %v", v, raw, err)
	}
	if _, _, err := Values(nil, nil, nil); !errors.Is(err, ErrNoDistribution) {
		t.Fatalf("neither: %v", err)
	}
}

func TestKeepSamples(t *testing.T) {
	if k, note := KeepSamples(make([]int64, MaxSamples)); len(k) != MaxSamples || note != "" {
		t.Fatal("samples at the bound dropped")
	}
	if k, note := KeepSamples(make([]int64, MaxSamples+1)); k != nil || !strings.Contains(note, "raw values omitted") {
		t.Fatal("oversized samples kept")
	}
}

// The version document carries the build facts.
func TestVersionKind(t *testing.T) {
	d, err := Read(strings.NewReader(`{"schema":"latlab.result/1","kind":"version","data":{"version":"v1.2.3","commit":"abc"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := KindVersion.Of(d); !ok || in.Version != "v1.2.3" || in.Commit != "abc" {
		t.Fatalf("%+v", d.Data)
	}
	var m map[string]any
	if err := json.Unmarshal(write(t, KindVersion.New(host.Facts{}, &buildinfo.Info{Version: "v1"})), &m); err != nil || m["kind"] != "version" {
		t.Fatalf("%v %v", m, err)
	}
}

// A document's host is the facts its maker was given: making a document
// reads nothing of the machine, so the same payload and facts give the
// same document anywhere.
func TestNewStampsTheGivenHost(t *testing.T) {
	h := host.Facts{OS: "plan9", Kernel: "fixture", LogicalCPUs: 64}
	d, err := New(h, "test", &testPayload{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := StreamDocument(h, "test")
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]host.Facts{"New": d.Host, "Kind.New": testKind.New(h, &testPayload{}).Host, "StreamDocument": s.Host} {
		if got != h {
			t.Errorf("%s: host %+v, want %+v", name, got, h)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
