package result

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// appendIndented appends v's JSON indented as Write indents it at that
// depth (prefix, then two spaces a level): what encoding/json's Marshal
// followed by appendIndent would write, in one pass. A streamed document
// writes 100,000 connections or more; encoding each with encoding/json
// and then indenting the result went over every byte twice and took most
// of the time of writing the document.
//
// What it works out for each type is planned once (an encoder). Types it
// does not write itself (maps, interfaces, embedded structs, types with
// their own MarshalJSON or MarshalText, the ",string" option) are
// marshalled by encoding/json and indented, at their depth.
func appendIndented(dst []byte, v any, prefix string) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return append(dst, "null"...), nil
	}
	e := encoderOf(rv.Type())
	w := jsonWriter{dst: dst, prefix: prefix}
	err := e.encode(&w, rv, 0)
	return w.dst, err
}

type jsonWriter struct {
	dst    []byte
	prefix string
	nl     []byte // a new line, the prefix and the deepest indentation so far
}

// newline appends a line break and the indentation of depth.
func (w *jsonWriter) newline(depth int) {
	if len(w.nl) == 0 {
		w.nl = append(append(w.nl, '\n'), w.prefix...)
	}
	n := 1 + len(w.prefix) + 2*depth
	for len(w.nl) < n {
		w.nl = append(w.nl, ' ', ' ')
	}
	w.dst = append(w.dst, w.nl[:n]...)
}

// encoder writes values of one type.
type encoder struct {
	kind     reflect.Kind
	typ      reflect.Type
	fallback bool // encoding/json writes it
	fields   []fieldEncoder
	elem     *encoder // pointer, slice, array
}

type fieldEncoder struct {
	index     int
	key       string // `"name": `
	omitEmpty bool
	omitZero  bool
	e         *encoder
}

var (
	encoders   sync.Map // reflect.Type -> *encoder, complete
	encodersMu sync.Mutex
)

func encoderOf(t reflect.Type) *encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*encoder)
	}
	encodersMu.Lock()
	defer encodersMu.Unlock()
	building := map[reflect.Type]*encoder{}
	e := planEncoder(t, building)
	for t, e := range building {
		encoders.Store(t, e)
	}
	return e
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// planEncoder works out t's encoder, and those of the types it holds,
// into building; a type that contains itself finds its own encoder
// there, complete by the time a value is written.
func planEncoder(t reflect.Type, building map[reflect.Type]*encoder) *encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*encoder)
	}
	if e, ok := building[t]; ok {
		return e
	}
	e := &encoder{kind: t.Kind(), typ: t}
	building[t] = e
	e.plan(building)
	return e
}

func (e *encoder) plan(building map[reflect.Type]*encoder) {
	t := e.typ
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		e.fallback = true
		return
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
	case reflect.Pointer:
		e.elem = planEncoder(t.Elem(), building)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			e.fallback = true // base64, or a byte array's numbers
			return
		}
		e.elem = planEncoder(t.Elem(), building)
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.Anonymous {
				e.fallback = true // encoding/json's rules for promoted fields
				return
			}
			if !sf.IsExported() {
				continue
			}
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = sf.Name
			}
			if !plainName(name) {
				e.fallback = true
				return
			}
			f := fieldEncoder{index: i, key: `"` + name + `": `, e: planEncoder(sf.Type, building)}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty":
					f.omitEmpty = true
				case "omitzero":
					f.omitZero = true
					if _, ok := sf.Type.MethodByName("IsZero"); ok {
						e.fallback = true
						return
					}
					if _, ok := reflect.PointerTo(sf.Type).MethodByName("IsZero"); ok {
						e.fallback = true
						return
					}
				case "string":
					e.fallback = true
					return
				}
			}
			e.fields = append(e.fields, f)
		}
	default: // maps, interfaces, and what encoding/json refuses
		e.fallback = true
	}
}

// plainName: a key written as it is, without escapes, and one
// encoding/json takes from a tag as it is.
func plainName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

func (e *encoder) encode(w *jsonWriter, v reflect.Value, depth int) error {
	if e.fallback {
		return e.marshal(w, v, depth)
	}
	switch e.kind {
	case reflect.Bool:
		w.dst = strconv.AppendBool(w.dst, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.dst = strconv.AppendInt(w.dst, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.dst = strconv.AppendUint(w.dst, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return appendFloat(w, v.Float(), e.typ.Bits())
	case reflect.String:
		appendString(w, v.String())
	case reflect.Pointer:
		if v.IsNil() {
			w.dst = append(w.dst, "null"...)
			return nil
		}
		return e.elem.encode(w, v.Elem(), depth)
	case reflect.Slice:
		if v.IsNil() {
			w.dst = append(w.dst, "null"...)
			return nil
		}
		return e.list(w, v, depth)
	case reflect.Array:
		return e.list(w, v, depth)
	case reflect.Struct:
		w.dst = append(w.dst, '{')
		n := 0
		for i := range e.fields {
			f := &e.fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			if n > 0 {
				w.dst = append(w.dst, ',')
			}
			w.newline(depth + 1)
			w.dst = append(w.dst, f.key...)
			if err := f.e.encode(w, fv, depth+1); err != nil {
				return err
			}
			n++
		}
		if n > 0 {
			w.newline(depth)
		}
		w.dst = append(w.dst, '}')
	}
	return nil
}

func (e *encoder) list(w *jsonWriter, v reflect.Value, depth int) error {
	n := v.Len()
	if n == 0 {
		w.dst = append(w.dst, "[]"...)
		return nil
	}
	w.dst = append(w.dst, '[')
	for i := range n {
		if i > 0 {
			w.dst = append(w.dst, ',')
		}
		w.newline(depth + 1)
		if err := e.elem.encode(w, v.Index(i), depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.dst = append(w.dst, ']')
	return nil
}

// marshal writes v with encoding/json, indented at depth. An addressable
// value is marshalled through its address, so that methods on the
// pointer are used as encoding/json uses them.
func (e *encoder) marshal(w *jsonWriter, v reflect.Value, depth int) error {
	var x any
	if v.CanAddr() {
		x = v.Addr().Interface()
	} else if v.CanInterface() {
		x = v.Interface()
	} else {
		return fmt.Errorf("result: cannot write a value of %s", e.typ)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	p := w.prefix
	for range depth {
		p += "  "
	}
	w.dst = indent(w.dst, b, p, "  ")
	return nil
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// appendFloat writes f as encoding/json does.
func appendFloat(w *jsonWriter, f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(w.dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	w.dst = b
	return nil
}

// appendString writes s quoted: as it is when nothing in it needs an
// escape (HTML's characters are escaped, as encoding/json escapes them),
// else as encoding/json writes it.
func appendString(w *jsonWriter, s string) {
	for i := range len(s) {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			b, _ := json.Marshal(s) // a string always marshals
			w.dst = append(w.dst, b...)
			return
		}
	}
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, s...)
	w.dst = append(w.dst, '"')
}
