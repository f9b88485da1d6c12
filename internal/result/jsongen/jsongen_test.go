package jsongen

import (
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite generated_test.go")

const generatedFile = "generated_test.go"

var testTypes = []reflect.Type{reflect.TypeFor[covered](), reflect.TypeFor[leadingOmitted](), reflect.TypeFor[texts]()}

// TestGeneratedCurrent: generated_test.go is what Generate writes for
// the test types (go test -run Current -update rewrites it).
func TestGeneratedCurrent(t *testing.T) {
	b, err := Generate("go test -run Current -update", "jsongen", reflect.TypeFor[covered]().PkgPath(), testTypes...)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(generatedFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != string(b) {
		t.Fatalf("%s is out of date: go test -run Current -update", generatedFile)
	}
}

type appender interface {
	AppendCompactJSON([]byte) ([]byte, error)
}

// checkSame: what v's generated encoder appends is what encoding/json
// writes, or both refuse it.
func checkSame(t *rapid.T, x any) {
	v, ok := x.(appender)
	if !ok {
		t.Fatalf("%T has no generated encoder: go test -run Current -update", x)
	}
	want, werr := json.Marshal(v)
	prefix := []byte("prefix,")
	got, gerr := v.AppendCompactJSON(prefix[:len(prefix):len(prefix)])
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("encoding/json: %v; generated: %v", werr, gerr)
	}
	if werr == nil && string(got) != "prefix,"+string(want) {
		t.Fatalf("generated:\n%s\nencoding/json:\n%s", got[len(prefix):], want)
	}
}

func TestGeneratedMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var c covered
		testutil.FillRandom(t, &c, true)
		checkSame(t, &c)
		var l leadingOmitted
		testutil.FillRandom(t, &l, true)
		checkSame(t, &l)
		var x texts
		testutil.FillRandom(t, &x, true)
		checkSame(t, &x)
	})
}

// TestGeneratedEdges: the values whose commas and brackets differ.
func TestGeneratedEdges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkSame(t, &covered{hidden: 7}) // an unexported field is not written
		checkSame(t, &leadingOmitted{})
		checkSame(t, &leadingOmitted{A: true})
		checkSame(t, &leadingOmitted{B: &inner{}, D: 1})
		checkSame(t, &covered{POpt: &inner{Opt: 1, Flag: true}, AllP: &allOmitted{}, ArrP: [2]*allOmitted{nil, {A: 1}}})
		checkSame(t, &texts{})
		checkSame(t, &texts{T: tag{S: `<a "b">`}, POpt: &tag{S: "\xff\u2028"}}) // escaped, as Marshal escapes text
		checkSame(t, &texts{Arr: [2]tag{{}, {N: 255}}})                         // an error, from both
		checkSame(t, &texts{P: &tag{N: 255}})
	})
}

type (
	withMap      struct{ M map[string]int }
	withSlice    struct{ S []int }
	withAny      struct{ A any }
	withEmbedded struct{ inner }
	withZero     struct {
		A int `json:"a,omitzero"`
	}
	withString struct {
		A int `json:"a,string"`
	}
	withKey struct {
		A int `json:"a b"`
	}
	withBytes struct{ B [4]byte }
	marshals  struct{}
	withSelf  struct{ M marshals }
	// text without AppendText; text with pointer methods; text and JSON
	textOnly    struct{}
	withText    struct{ T textOnly }
	textPointer struct{}
	withTextP   struct{ T textPointer }
	textAndJSON struct{ tag }
	withBoth    struct{ T textAndJSON }
	withBothP   struct{ T *textAndJSON }
)

func (marshals) MarshalJSON() ([]byte, error)            { return []byte("1"), nil }
func (textOnly) MarshalText() ([]byte, error)            { return nil, nil }
func (*textPointer) MarshalText() ([]byte, error)        { return nil, nil }
func (*textPointer) AppendText(b []byte) ([]byte, error) { return b, nil }
func (*textAndJSON) MarshalJSON() ([]byte, error)        { return []byte("1"), nil }

// TestGenerateRefuses: what the generator does not cover is an error,
// never code that writes something else than encoding/json.
func TestGenerateRefuses(t *testing.T) {
	pkg := reflect.TypeFor[covered]().PkgPath()
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[withMap](), "map values are not covered"},
		{reflect.TypeFor[withSlice](), "slice values are not covered"},
		{reflect.TypeFor[withAny](), "interface values are not covered"},
		{reflect.TypeFor[withEmbedded](), "embedded fields are not covered"},
		{reflect.TypeFor[withZero](), `option "omitzero" is not covered`},
		{reflect.TypeFor[withString](), `option "string" is not covered`},
		{reflect.TypeFor[withKey](), "needs escaping"},
		{reflect.TypeFor[withBytes](), "byte arrays are not covered"},
		{reflect.TypeFor[withSelf](), "marshals itself"},
		{reflect.TypeFor[withText](), "marshals itself"},
		{reflect.TypeFor[withTextP](), "marshals itself"},
		{reflect.TypeFor[withBoth](), "marshals itself"},
		{reflect.TypeFor[withBothP](), "marshals itself"},
		{reflect.TypeFor[int](), "is not a struct type"},
		{reflect.TypeFor[json.Decoder](), "is not a struct type of " + pkg},
	} {
		_, err := Generate("test", "jsongen", pkg, tc.typ)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.typ, err, tc.want)
		}
	}
}
