package jsongen

import (
	"errors"
	"strconv"
)

// The types the tests generate encoders for (generated_test.go): every
// kind and option the generator covers, and the orders of fields that
// change where commas go.

type label string

type inner struct {
	Opt   int     `json:"opt,omitempty"` // first and left out: the next field has no comma
	F32   float32 `json:"f32"`
	Name  label   `json:"name"`
	Flag  bool    `json:"flag,omitempty"`
	Empty [0]int  `json:"empty"`
}

type allOmitted struct {
	A int    `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	C *inner `json:"c,omitempty"`
}

type covered struct {
	I      int     `json:"i"`
	I8     int8    `json:"i8"`
	I16    int16   `json:"i16"`
	I32    int32   `json:"i32"`
	I64    int64   `json:"i64,omitempty"`
	U      uint    `json:"u"`
	U16    uint16  `json:"u16,omitempty"`
	U32    uint32  `json:"u32"`
	U64    uint64  `json:"u64"`
	UP     uintptr `json:"up"`
	F      float64 `json:"f,omitempty"`
	F64    float64 `json:"f64"`
	S      string  `json:"s,omitempty"`
	B      bool    `json:"b"`
	NoTag  int
	Skip   int `json:"-"`
	hidden int
	Dash   int    `json:"with-dash"`
	In     inner  `json:"in"`
	InOpt  inner  `json:"in_opt,omitempty"` // omitempty does not leave out a struct
	P      *inner `json:"p"`
	POpt   *inner `json:"p_opt,omitempty"`
	All    allOmitted
	AllP   *allOmitted    `json:"all_p,omitempty"`
	Arr    [3]uint64      `json:"arr"`
	ArrS   [2]inner       `json:"arr_s"`
	ArrP   [2]*allOmitted `json:"arr_p"`
	ArrOpt [1]int         `json:"arr_opt,omitempty"`
	Last   int            `json:"last,omitempty"`
}

// tag writes itself as text (MarshalText and AppendText): its string, a
// colon and its number, which fails at 255, as MarshalText would.
type tag struct {
	S string
	N uint8
}

func (t tag) AppendText(b []byte) ([]byte, error) {
	if t.N == 255 {
		return b, errTag
	}
	b = append(b, t.S...)
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(t.N), 10), nil
}

func (t tag) MarshalText() ([]byte, error) { return t.AppendText(nil) }

var errTag = errors.New("tag 255")

type texts struct {
	T    tag    `json:"t"`
	TOpt tag    `json:"t_opt,omitempty"` // omitempty does not leave out a struct
	P    *tag   `json:"p"`
	POpt *tag   `json:"p_opt,omitempty"`
	Arr  [2]tag `json:"arr"`
}

type leadingOmitted struct {
	A bool   `json:"a,omitempty"`
	B *inner `json:"b,omitempty"`
	C int    `json:"c"`
	D int    `json:"d,omitempty"`
}
