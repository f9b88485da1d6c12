package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// ptrMarshaler marshals itself only through a pointer: encoding/json
// calls its method when the value is addressable.
type ptrMarshaler struct{ N int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"via":"pointer"}`), nil }

type textKey int

func (k textKey) MarshalText() ([]byte, error) { return []byte("k<" + string(rune('0'+k)) + ">"), nil }

type zeroer struct{ N int }

func (z zeroer) IsZero() bool { return z.N == 7 }

// encOdd is written by encoding/json: fields encoding/json writes by
// rules of its own.
type encOdd struct {
	Zeroer zeroer    `json:",omitzero"`
	TimeZ  time.Time `json:",omitzero"`
	Quoted int       `json:",string"`
	Odd    int       `json:"odd name!"`
	//lint:ignore SA5008 a malformed tag, as encoding/json reads it
	Bad int `json:"bad\"name"`
}

type encScalars struct {
	B      bool
	BO     bool `json:",omitempty"`
	MarshA [1]ptrMarshaler
	I      int
	IO     int    `json:",omitempty"`
	IZ     int    `json:"iz,omitzero"`
	UO     uint   `json:",omitempty"`
	U64Z   uint64 `json:",omitzero"`
	BZ     bool   `json:",omitzero"`
	I8     int8
	I16    int16 `json:"i16"`
	I32    int32
	I64    int64 `json:"i64,omitempty"`
	U      uint
	U8     uint8
	U16    uint16
	U32    uint32 `json:",omitempty"`
	U64    uint64
	F32    float32
	F64    float64 `json:"f64"`
	F64O   float64 `json:"f64o,omitempty"`
	S      string
	SO     string `json:",omitempty"`
	Bytes  []byte
	BArr   [3]byte
	Arr0   [0]int
	Arr    [2]float64
	ArrO   [0]int `json:",omitempty"`
	Ints   []int
	IntsO  []int `json:",omitempty"`
	IntsZ  []int `json:",omitzero"`
	PtrPtr **int
	PtrO   *int `json:",omitempty"`
	Time   time.Time
	Dur    time.Duration
	Marsh  ptrMarshaler
	MarshP *ptrMarshaler
	Text   textKey
	ByText map[textKey]int
	//lint:ignore SA5008 the field named "-", as encoding/json reads it
	Dash    int `json:"-,"`
	Skip    int `json:"-"`
	Nested  struct{ A, B []string }
	NestedE struct{}
	Any     any
	Odd     encOdd
	OddP    *encOdd        `json:",omitempty"`
	MapO    map[string]int `json:",omitempty"`
	//lint:ignore U1000 an unexported field: never written
	unexp int
}

func genScalars(t *rapid.T) encScalars {
	s := encScalars{
		B: rapid.Bool().Draw(t, "b"), BO: rapid.Bool().Draw(t, "bo"), I: rapid.Int().Draw(t, "i"), I8: rapid.Int8().Draw(t, "i8"),
		I16: rapid.Int16().Draw(t, "i16"), I32: rapid.Int32().Draw(t, "i32"), I64: rapid.Int64().Draw(t, "i64"),
		U: rapid.Uint().Draw(t, "u"), U8: rapid.Uint8().Draw(t, "u8"), U16: rapid.Uint16().Draw(t, "u16"),
		U32: rapid.Uint32().Draw(t, "u32"), U64: rapid.Uint64().Draw(t, "u64"),
		IO: rapid.SampledFrom([]int{0, -1, 1, math.MinInt, math.MaxInt}).Draw(t, "io"), IZ: rapid.SampledFrom([]int{0, -9, 10}).Draw(t, "iz"),
		UO: rapid.SampledFrom([]uint{0, 1, math.MaxUint}).Draw(t, "uo"), U64Z: rapid.SampledFrom([]uint64{0, 9, math.MaxUint64}).Draw(t, "u64z"),
		BZ:   rapid.Bool().Draw(t, "bz"),
		F32:  float32(finite(rapid.OneOf(rapid.Float64(), rapid.Map(rapid.Int64Range(-1<<30, 1<<30), func(i int64) float64 { return float64(i) })).Draw(t, "f32"))),
		F64:  finite(rapid.Float64().Draw(t, "f64")),
		F64O: finite(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-7, 1e21, 123.5, 42, -7, 1e15 - 1, 1e15, -1e15 + 1, 1e14 + 0.5, 1<<53 + 2}).Draw(t, "f64o")),
		S:    rapid.String().Draw(t, "s"),
		SO:   rapid.SampledFrom([]string{"", "a<b>&c", "<a>", "x>", "&", "\u2028", "\x00\x1f", "\xff", "é", `"\`}).Draw(t, "so"),
		Arr:  [2]float64{finite(rapid.Float64().Draw(t, "a0")), float64(rapid.Int64Range(-1<<50, 1<<50).Draw(t, "a1"))},
		Dur:  time.Duration(rapid.Int64().Draw(t, "dur")),
		Text: textKey(rapid.IntRange(0, 9).Draw(t, "text")),
		Time: time.Unix(rapid.Int64Range(0, 1<<40).Draw(t, "time"), 0).UTC(),
	}
	if rapid.Bool().Draw(t, "bytes") {
		s.Bytes = []byte(s.S)
	}
	switch rapid.IntRange(0, 2).Draw(t, "ints") {
	case 1:
		s.Ints, s.IntsO, s.IntsZ = []int{}, []int{}, []int{}
	case 2:
		s.Ints = []int{1, -2}
		s.IntsO, s.IntsZ = s.Ints, s.Ints
	}
	if rapid.Bool().Draw(t, "ptr") {
		n := s.I
		p := &n
		s.PtrPtr, s.PtrO = &p, p
	}
	if rapid.Bool().Draw(t, "marshp") {
		s.MarshP = &ptrMarshaler{}
	}
	if rapid.Bool().Draw(t, "bytext") {
		s.ByText = map[textKey]int{1: 1, 2: 2}
	}
	s.Odd.Zeroer.N = rapid.IntRange(6, 8).Draw(t, "zeroer")
	if rapid.Bool().Draw(t, "oddp") {
		s.OddP = &encOdd{Quoted: s.I}
	}
	if rapid.Bool().Draw(t, "nested") {
		s.Nested.A = []string{"x", ""}
	}
	switch rapid.IntRange(0, 3).Draw(t, "any") {
	case 1:
		s.Any = []any{1.5, "s", nil, map[string]any{"k": []int{}}}
	case 2:
		s.Any = &ptrMarshaler{}
	case 3:
		s.Any = ptrMarshaler{}
	}
	return s
}

func finite(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 1
	}
	return f
}

// checkIndented: appendIndented writes what encoding/json's Marshal and
// json.Indent write, at both depths a Stream writes, and appendCompact
// what Marshal writes.
func checkIndented(t *rapid.T, v any) {
	want, werr := json.Marshal(v)
	got, err := appendCompact([]byte("x"), v)
	if (err != nil) != (werr != nil) {
		t.Fatalf("compact: error %v, encoding/json's %v", err, werr)
	}
	if werr == nil && !bytes.Equal(got[1:], want) {
		t.Fatalf("compact:\ngot  %.300q\nwant %.300q", got[1:], want)
	}
	for _, p := range []string{"", "      "} {
		got, err := appendIndented([]byte("x"), v, p)
		if (err != nil) != (werr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, werr)
		}
		if werr != nil {
			continue
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, want, p, "  "); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[1:], ind.Bytes()) {
			i := 0
			for i < min(len(got)-1, ind.Len()) && got[1+i] == ind.Bytes()[i] {
				i++
			}
			t.Fatalf("prefix %q: differs at byte %d:\ngot  %.200q\nwant %.200q", p, i, got[1+i:], ind.Bytes()[i:])
		}
	}
}

// appendIndented writes, byte for byte, what encoding/json and
// json.Indent write: scalars of every kind and their edge cases, the
// options, types with their own methods (through a pointer or not),
// embedded structs, maps, interfaces and a type that holds itself.
func TestAppendIndentedAsEncodingJSON(t *testing.T) {
	if encoderOf(reflect.TypeFor[encScalars]()).fallback {
		t.Fatal("encScalars is written by encoding/json: the test would compare it with itself")
	}
	rapid.Check(t, func(t *rapid.T) {
		s := genScalars(t)
		checkIndented(t, &s)
		checkIndented(t, s) // not addressable: methods on the pointer are not used
		checkIndented(t, []encScalars{s})
		d := genDoc(t)
		checkIndented(t, d)
		fillLists(reflect.ValueOf(d))
		checkIndented(t, d)
		checkIndented(t, *d)
		checkIndented(t, map[string]*fillDoc{"d": d})
	})
}

func TestAppendIndentedErrors(t *testing.T) {
	for _, v := range []any{math.NaN(), &encScalars{F64: math.Inf(1)}, []float32{float32(math.Inf(-1))},
		struct{ C chan int }{}, &struct{ F func() }{}} {
		_, err := appendIndented(nil, v, "")
		_, cerr := appendCompact(nil, v)
		_, werr := json.Marshal(v)
		if err == nil || werr == nil || err.Error() != werr.Error() || cerr == nil || cerr.Error() != werr.Error() {
			t.Errorf("%T: error %v (compact %v), encoding/json's %v", v, err, cerr, werr)
		}
	}
	for _, v := range []any{nil, (*encScalars)(nil), []int(nil), struct{}{}} {
		got, err := appendIndented(nil, v, "")
		want, _ := json.Marshal(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%#v: %s, %v; want %s", v, got, err, want)
		}
		if got, err = appendCompact(nil, v); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%#v compact: %s, %v; want %s", v, got, err, want)
		}
	}
}

// A struct's field lines (and a list's) are worked out per prefix and
// depth and kept for a few of them: a type written at more prefixes and depths than
// are kept, at one and then at another and back, from several
// goroutines at once, is written each time as json.Indent indents it.
func TestAppendIndentedFieldLinesPerPrefixAndDepth(t *testing.T) {
	type node struct {
		Name string `json:"name"`
		N    int    `json:"n,omitempty"`
		Vals []int  `json:"vals"`
		Next *node  `json:"next,omitempty"`
	}
	var v *node
	for i := range 2 * maxFieldLines {
		v = &node{Name: "x", N: i % 2, Vals: make([]int, i%3), Next: v}
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []string
	for i := range 2 * maxFieldLines {
		prefixes = append(prefixes, strings.Repeat(" ", i), strings.Repeat("\t", i%3))
	}
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			for range 3 {
				for _, p := range prefixes {
					got, err := appendIndented(nil, v, p)
					var ind bytes.Buffer
					if err == nil {
						err = json.Indent(&ind, want, p, "  ")
					}
					if err == nil && !bytes.Equal(got, ind.Bytes()) {
						err = fmt.Errorf("prefix %q:\ngot  %q\nwant %q", p, got, ind.Bytes())
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// appendInt and appendUint write what strconv writes, at every number of
// digits and at each side of every power of ten.
func TestAppendIntAsStrconv(t *testing.T) {
	ints := []int64{0, 1, -1, 9, -9, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	uints := []uint64{0, 1, 9, math.MaxUint64, math.MaxUint64 - 1, 1 << 63}
	for p := uint64(10); ; p *= 10 {
		uints = append(uints, p-1, p, p+1)
		if p <= math.MaxInt64/10 {
			ints = append(ints, int64(p-1), int64(p), int64(p+1), -int64(p-1), -int64(p), -int64(p+1))
		}
		if p > math.MaxUint64/10 {
			break
		}
	}
	for _, v := range ints {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	for _, v := range uints {
		if got, want := string(appendUint([]byte("x"), v)), "x"+strconv.FormatUint(v, 10); got != want {
			t.Errorf("appendUint(%d) = %q, want %q", v, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Int64().Draw(t, "v")
		if got, want := string(appendInt(nil, v)), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
		u := rapid.Uint64().Draw(t, "u")
		if got, want := string(appendUint(nil, u)), strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", u, got, want)
		}
	})
}

// appendString writes what encoding/json writes, with every byte value
// alone and between plain ones.
func TestAppendStringEveryByte(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), "a" + string([]byte{byte(c)}) + "b", string([]byte{byte(c)})} {
			want, _ := json.Marshal(s)
			if got := appendString([]byte("x"), s); string(got) != "x"+string(want) {
				t.Errorf("%q: %s, want %s", s, got[1:], want)
			}
		}
	}
}
