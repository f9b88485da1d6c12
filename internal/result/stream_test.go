package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"pgregory.net/rapid"
)

type streamItem struct {
	N    int               `json:"n"`
	Name string            `json:"name"`
	Tags []string          `json:"tags"`
	Sub  map[string]uint64 `json:"sub,omitempty"`
	Ptr  *streamItem       `json:"ptr,omitempty"`
}

type streamRest struct {
	Count int    `json:"count"`
	Note  string `json:"note,omitempty"`
}

func streamItems(n int) []streamItem {
	items := make([]streamItem, n)
	for i := range items {
		items[i] = streamItem{N: i, Name: fmt.Sprintf("item \"%d\" <&>\\", i), Tags: []string{}}
		if i%3 == 0 {
			items[i].Sub = map[string]uint64{"a": uint64(i), "b": 0}
			items[i].Ptr = &streamItem{N: -i, Tags: []string{"x", "y"}}
		}
	}
	return items
}

// streamed writes the document through a Stream.
func streamed(t *testing.T, d *Document, items []streamItem, rest any, notes []string) []byte {
	t.Helper()
	var b bytes.Buffer
	s, err := NewStream(&b, d, "items")
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if err := s.Add(&items[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(rest, notes); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// streamPayload is the payload of the test kind a stream writes: the
// list first, then the rest.
type streamPayload struct {
	Items []streamItem `json:"items"`
	streamRest
}

var kindStreamTest = Register[streamPayload]("stream-test", "a streamed document of the tests")

func streamEnvelopeDoc(t *testing.T) *Document {
	t.Helper()
	d, err := StreamDocument(host.Facts{}, kindStreamTest.Name())
	if err != nil {
		t.Fatal(err)
	}
	d.Settings["k"] = "v"
	return d
}

// A streamed document reads back as the same document Write writes for
// the whole payload: envelope, every element, the rest and the notes.
func TestStreamIsWhatWriteWrites(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		for _, notes := range [][]string{nil, {"a note"}} {
			items := streamItems(n)
			rest := streamRest{Count: n, Note: "<end>"}
			d := streamEnvelopeDoc(t)
			got, err := Read(bytes.NewReader(streamed(t, d, items, &rest, notes)))
			if err != nil {
				t.Fatalf("%d items: %v", n, err)
			}
			whole := kindStreamTest.New(host.Facts{}, &streamPayload{Items: items, streamRest: rest})
			whole.Created, whole.Host, whole.Settings = d.Created, d.Host, d.Settings
			if notes != nil {
				whole.Notes = notes
			}
			var b bytes.Buffer
			if err := Write(&b, whole); err != nil {
				t.Fatal(err)
			}
			want, err := Read(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d items, notes %q: streamed reads back as\n%+v\nwant\n%+v", n, notes, got, want)
			}
		}
	}
}

// Each element of the list is on a line of its own, as encoding/json's
// Marshal writes it, so that line tools can split the list.
func TestStreamWritesAnElementALine(t *testing.T) {
	items := streamItems(7)
	doc := streamed(t, streamEnvelopeDoc(t), items, &streamRest{Count: 7}, nil)
	var lines []string
	for l := range strings.Lines(string(doc)) {
		if strings.HasPrefix(l, "      {") {
			lines = append(lines, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), ","))
		}
	}
	if len(lines) != len(items) {
		t.Fatalf("%d element lines, want %d:\n%s", len(lines), len(items), doc)
	}
	for i := range items {
		fillLists(reflect.ValueOf(&items[i]))
		want, err := json.Marshal(&items[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(lines[i], "      "); got != string(want) {
			t.Errorf("element %d:\n%s\nwant\n%s", i, got, want)
		}
	}
}

// A document with many elements and notes, read back as it is written
// (through a pipe: neither side holds the text whole), gives back every
// element, the rest of the payload and the notes.
func TestStreamLargeDocumentReadsBack(t *testing.T) {
	const n = 200_000
	notes := []string{"one", "two \"quoted\""}
	pr, pw := io.Pipe()
	d := streamEnvelopeDoc(t)
	go func() {
		s, err := NewStream(pw, d, "items")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		for i := 0; i < n; i++ {
			it := streamItem{N: i, Name: "conn", Tags: []string{"a"}}
			if err := s.Add(&it); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(s.Close(streamRest{Count: n}, notes))
	}()
	back, err := Read(pr)
	if err != nil {
		t.Fatal(err)
	}
	data, ok := kindStreamTest.Of(back)
	if !ok || len(data.Items) != n || data.Count != n || !reflect.DeepEqual(back.Notes, notes) {
		t.Fatalf("kind %q, ok %v, notes %q; want %d items and count %d", back.Kind, ok, back.Notes, n, n)
	}
	for i, it := range data.Items {
		if it.N != i || it.Name != "conn" || len(it.Tags) != 1 {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
}

// sizeWriter records the size of each write.
type sizeWriter struct {
	bytes.Buffer
	sizes []int
}

func (w *sizeWriter) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.Buffer.Write(b)
}

// TestStreamWritesAligned: every write but the last is a whole multiple
// of streamFlush, so that the document's writes stay aligned in a file
// it begins (an element larger than the buffer included), and the
// document is what the writes of any size would make.
func TestStreamWritesAligned(t *testing.T) {
	w := &sizeWriter{}
	s, err := NewStream(w, streamEnvelopeDoc(t), "items")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 3*streamFlush+17)
	var want []streamItem
	for i := 0; i < 30_000; i++ {
		it := streamItem{N: i, Name: "conn", Tags: []string{"t"}}
		if i == 9_000 {
			it.Name = long
		}
		want = append(want, it)
		if err := s.Add(&it); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(streamRest{Count: len(want)}, nil); err != nil {
		t.Fatal(err)
	}
	if len(w.sizes) < 3 {
		t.Fatalf("%d writes, want several", len(w.sizes))
	}
	for i, n := range w.sizes[:len(w.sizes)-1] {
		if n == 0 || n%streamFlush != 0 {
			t.Errorf("write %d of %d: %d bytes, not a multiple of %d", i+1, len(w.sizes), n, streamFlush)
		}
	}
	back, err := Read(&w.Buffer)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := kindStreamTest.Of(back); !reflect.DeepEqual(data.Items, want) {
		t.Error("the document read back differs from what was written")
	}
}

func TestStreamRefusesAndReportsErrors(t *testing.T) {
	d := streamEnvelopeDoc(t)
	d.Notes = []string{"early"}
	if _, err := NewStream(io.Discard, d, "items"); err == nil {
		t.Error("a document with notes: no error")
	}
	if _, err := StreamDocument(host.Facts{}, "no-such-kind"); err == nil {
		t.Error("an unregistered kind: no error")
	}
	d.Notes = nil
	s, err := NewStream(failWriter{}, d, "items")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10_000; i++ { // past the buffer
		if err = s.Add(streamItem{N: i}); err != nil {
			break
		}
	}
	if !errors.Is(err, errFail) {
		t.Errorf("write error: got %v", err)
	}
	if err := s.Close(streamRest{}, nil); !errors.Is(err, errFail) {
		t.Errorf("close after a write error: got %v", err)
	}
	s, _ = NewStream(io.Discard, streamEnvelopeDoc(t), "items")
	if err := s.Add(func() {}); err == nil {
		t.Error("an element that is not JSON: no error")
	}
	if err := s.Close([]int{1}, nil); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("rest that is not an object: %v", err)
	}
}

var errFail = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }

// appendIndent gives json.Indent's output for anything encoding/json
// writes.
func TestAppendIndentMatchesJSONIndent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(3).Draw(t, "v")
		src, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		checkIndent(t, src)
	})
}

func checkIndent(t interface{ Fatalf(string, ...any) }, src []byte) {
	for _, p := range []string{"", "    "} {
		var want bytes.Buffer
		if err := json.Indent(&want, src, p, "  "); err != nil {
			t.Fatalf("json.Indent(%s): %v", src, err)
		}
		if got := appendIndent(nil, src, p, "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("prefix %q, %s:\ngot  %s\nwant %s", p, src, got, want.Bytes())
		}
	}
}

func jsonValue(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.Int64(), func(v int64) any { return v }),
		rapid.Map(rapid.Float64(), func(v float64) any { return v }),
		rapid.Map(rapid.Bool(), func(v bool) any { return v }),
		rapid.Just[any](nil),
	)
	if depth == 0 {
		return leaf
	}
	sub := jsonValue(depth - 1)
	return rapid.OneOf(leaf,
		rapid.Map(rapid.SliceOfN(sub, 0, 4), func(v []any) any { return v }),
		rapid.Map(rapid.MapOfN(rapid.String(), sub, 0, 4), func(v map[string]any) any { return v }),
	)
}

func FuzzAppendIndent(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\"]},"}",[]],"d":{}}`))
	f.Add([]byte(`"\\\\"`))
	f.Add([]byte(`[1e5,-0.5,true,null]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		checkIndent(t, c.Bytes())
	})
}

// encoding/json never writes these, but appendIndent must not fail on
// them: closing brackets beyond the depth go on their own lines at the
// prefix, a string never closed is copied to the end, and no byte of the
// input is lost.
func TestAppendIndentMalformed(t *testing.T) {
	for src, want := range map[string]string{
		`}}]`:       "\n  }\n  }\n  ]",
		`{"a":1}}}`: "{\n    \"a\": 1\n  }\n  }\n  }",
		`"abc`:      `"abc`,
		`"a\`:       `"a\`,
		`["a\\`:     "[\n    \"a\\\\",
		`[`:         "[\n    ",
		`[1,}`:      "[\n    1,\n    \n  }",
	} {
		got := string(appendIndent([]byte("x"), []byte(src), "  ", "  "))
		if got != "x"+want {
			t.Errorf("appendIndent(%q) = %q, want %q", src, got[1:], want)
		}
	}
}

// selfEncoded writes its own compact JSON (a CompactAppender), or fails.
type selfEncoded struct{ n int }

func (s *selfEncoded) AppendCompactJSON(dst []byte) ([]byte, error) {
	if s.n < 0 {
		return append(dst, "half"...), errors.New("cannot")
	}
	return append(dst, fmt.Sprintf(`{"self":%d}`, s.n)...), nil
}

// An element that writes its own JSON is written by its method, not the
// planned encoder, and one that fails leaves nothing behind: the stream
// goes on.
func TestStreamUsesCompactAppender(t *testing.T) {
	var b bytes.Buffer
	s, err := NewStream(&b, streamEnvelopeDoc(t), "items")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, -1, 2} {
		err := s.Add(&selfEncoded{n})
		if (err != nil) != (n < 0) {
			t.Fatalf("element %d: %v", n, err)
		}
	}
	if err := s.Close(&streamRest{}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "[\n      {\"self\":1},\n      {\"self\":2}\n    ]"; !strings.Contains(b.String(), want) {
		t.Errorf("document:\n%s\nwant the list\n%s", b.String(), want)
	}
}
