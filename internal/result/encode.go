package result

import (
	"encoding"
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
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
//
// Why unsafe rather than a JSON library that streams: on 6,683
// connections of a scripts/pcapgen capture (24.8 MB indented, 2 CPUs),
// this wrote 1.17 GiB/s with no allocation; github.com/go-json-experiment/json
// v1.27.2 (encoding/json/v2's origin; the standard library's needs
// GOEXPERIMENT=jsonv2 in Go 1.26) wrote 392 MiB/s with its own defaults,
// whose output differs (omitempty, nil lists), and 294 MiB/s with
// encoding/json's options, whose output is the same byte for byte: 3.2
// and 4.2 times as long.
func appendIndented(dst []byte, v any, prefix string) ([]byte, error) {
	return appendJSON(dst, v, jsonWriter{prefix: prefix})
}

// appendCompact appends v's JSON with no white space outside strings,
// byte for byte what encoding/json's Marshal writes.
func appendCompact(dst []byte, v any) ([]byte, error) {
	return appendJSON(dst, v, jsonWriter{compact: true})
}

func appendJSON(dst []byte, v any, w jsonWriter) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return append(dst, "null"...), nil
	}
	e := encoderOf(rv.Type())
	switch {
	case e.fallback:
		return e.marshal(&w, dst, rv, 0)
	case e.kind == reflect.Pointer:
		if rv.IsNil() {
			return append(dst, "null"...), nil
		}
		return e.elem.encode(&w, dst, rv.UnsafePointer(), 0, true)
	default:
		// a copy to point into: not addressable, as encoding/json sees it
		c := reflect.New(rv.Type())
		c.Elem().Set(rv)
		return e.encode(&w, dst, c.UnsafePointer(), 0, false)
	}
}

// jsonWriter is what the encoders share while writing one value. The
// output itself is passed along and returned (dst), not kept here:
// a slice stored through a pointer costs a write barrier for every
// append while the collector runs.
type jsonWriter struct {
	prefix  string
	compact bool // no white space: prefix and depth do not matter
}

// compactDepth keys the lines of compact JSON, the same at every depth.
const compactDepth = -1

// linesAt returns the lines e writes at depth for w.
func (w *jsonWriter) linesAt(e *encoder, depth int) *fieldLines {
	if w.compact {
		return e.linesAt("", compactDepth)
	}
	return e.linesAt(w.prefix, depth)
}

// encoder writes values of one type.
type encoder struct {
	kind     reflect.Kind
	typ      reflect.Type
	fallback bool // encoding/json writes it
	fields   []fieldEncoder
	elem     *encoder // pointer, slice, array
	// lines: a struct's field lines at the prefixes and depths it was
	// written at, each set immutable once stored
	lines atomic.Pointer[[]*fieldLines]
}

// fieldLines is what a struct or a list writes between its values at
// one prefix and depth, worked out once: each field's comma, line
// break, indentation and key in one string, so that a field costs one
// append before its value rather than four. A list has one line, for
// each of its elements.
type fieldLines struct {
	prefix string
	depth  int
	// line: field i's line, `,\n` + prefix + indentation + `"key": `;
	// the first field written leaves out the comma. The lines are cut
	// from one string.
	line []string
	// end: the line break and indentation before the closing brace
	end []byte
}

// maxFieldLines bounds the sets kept per struct type; a type written at
// more prefixes and depths than that works its lines out at each value.
const maxFieldLines = 8

// linesAt returns the lines of e's fields (a struct) or elements (a
// slice or array) at prefix and depth (of its brackets).
func (e *encoder) linesAt(prefix string, depth int) *fieldLines {
	for {
		old := e.lines.Load()
		if old != nil {
			for _, l := range *old {
				if l.depth == depth && l.prefix == prefix {
					return l
				}
			}
		}
		l := e.planLines(prefix, depth)
		var sets []*fieldLines
		if old != nil {
			if len(*old) >= maxFieldLines {
				return l
			}
			sets = append(sets, *old...)
		}
		sets = append(sets, l)
		if e.lines.CompareAndSwap(old, &sets) {
			return l
		}
	}
}

func (e *encoder) planLines(prefix string, depth int) *fieldLines {
	nl, step := "", "" // compact: no line breaks, no indentation
	if depth != compactDepth {
		nl, step = "\n"+prefix+strings.Repeat("  ", depth), "  "
	}
	keys := []string{""} // a list's elements: a line of their own
	if e.kind == reflect.Struct {
		keys = keys[:0]
		for _, f := range e.fields {
			keys = append(keys, f.key)
		}
	}
	var b strings.Builder
	at := make([]int, 0, len(keys)+1)
	for _, k := range keys {
		at = append(at, b.Len())
		b.WriteByte(',')
		b.WriteString(nl)
		b.WriteString(step)
		if depth == compactDepth {
			k = strings.TrimSuffix(k, " ") // `"key":`
		}
		b.WriteString(k)
	}
	at = append(at, b.Len())
	all := b.String()
	l := &fieldLines{prefix: prefix, depth: depth, line: make([]string, len(keys)), end: []byte(nl)}
	for i := range keys {
		l.line[i] = all[at[i]:at[i+1]]
	}
	return l
}

type fieldEncoder struct {
	offset    uintptr
	key       string // `"name": `, in the lines of its struct
	omitEmpty bool
	omitZero  bool
	omit      bool // a leaf left out when zero: omitempty or omitzero
	e         *encoder
	// leaf: the field's kind when it is an integer or a bool written
	// as it is, which the struct writes without a call (most of a
	// connection's fields); else reflect.Invalid.
	leaf reflect.Kind
}

var encoders typeCache[encoder]

func encoderOf(t reflect.Type) *encoder { return encoders.of(t, planEncoder) }

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// planEncoder works out t's encoder, and those of the types it holds,
// into building; a type that contains itself finds its own encoder
// there, complete by the time a value is written.
func planEncoder(t reflect.Type, building map[reflect.Type]*encoder) *encoder {
	if e, ok := encoders.load(t); ok {
		return e
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
			name, opts, written := FieldKey(sf)
			if !written {
				continue
			}
			if !PlainKey(name) {
				e.fallback = true
				return
			}
			f := fieldEncoder{offset: sf.Offset, key: `"` + name + `": `, e: planEncoder(sf.Type, building)}
			switch k := f.e.kind; k {
			case reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
				// a scalar's plan is complete: it holds no other type
				if !f.e.fallback {
					f.leaf = k
				}
			}
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
			f.omit = f.leaf != reflect.Invalid && (f.omitEmpty || f.omitZero)
			e.fields = append(e.fields, f)
		}
	default: // maps, interfaces, and what encoding/json refuses
		e.fallback = true
	}
}

// FieldKey is encoding/json's reading of a struct field: its key and its
// tag's options (after the first comma), and whether the field is
// written at all (not when unexported or tagged "-"). An embedded field
// is the caller's to handle.
func FieldKey(sf reflect.StructField) (name, opts string, written bool) {
	if !sf.IsExported() {
		return "", "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	return name, opts, true
}

// PlainKey: a key written as it is, without escapes, and one
// encoding/json takes from a tag as it is.
func PlainKey(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// encode writes the value of e's type at p. addr: the value is
// addressable as encoding/json sees it (reached through a pointer or a
// slice), so that a method on its pointer is used as encoding/json uses
// it. Values are read through p (unsafe) rather than reflect.Value: a
// connection is about 80 fields, and reflect.Value's checks and copies
// cost as much as encoding/json's own encoding.
func (e *encoder) encode(w *jsonWriter, dst []byte, p unsafe.Pointer, depth int, addr bool) ([]byte, error) {
	if e.fallback {
		v := reflect.NewAt(e.typ, p)
		if !addr {
			v = v.Elem()
		}
		return e.marshal(w, dst, v, depth)
	}
	switch e.kind {
	case reflect.Bool:
		dst = strconv.AppendBool(dst, *(*bool)(p))
	case reflect.Int:
		dst = strconv.AppendInt(dst, int64(*(*int)(p)), 10)
	case reflect.Int8:
		dst = strconv.AppendInt(dst, int64(*(*int8)(p)), 10)
	case reflect.Int16:
		dst = strconv.AppendInt(dst, int64(*(*int16)(p)), 10)
	case reflect.Int32:
		dst = strconv.AppendInt(dst, int64(*(*int32)(p)), 10)
	case reflect.Int64:
		dst = appendInt(dst, *(*int64)(p))
	case reflect.Uint:
		dst = strconv.AppendUint(dst, uint64(*(*uint)(p)), 10)
	case reflect.Uint8:
		dst = strconv.AppendUint(dst, uint64(*(*uint8)(p)), 10)
	case reflect.Uint16:
		dst = strconv.AppendUint(dst, uint64(*(*uint16)(p)), 10)
	case reflect.Uint32:
		dst = strconv.AppendUint(dst, uint64(*(*uint32)(p)), 10)
	case reflect.Uint64:
		dst = appendUint(dst, *(*uint64)(p))
	case reflect.Uintptr:
		dst = strconv.AppendUint(dst, uint64(*(*uintptr)(p)), 10)
	case reflect.Float32:
		return appendFloat(dst, float64(*(*float32)(p)), 32)
	case reflect.Float64:
		return appendFloat(dst, *(*float64)(p), 64)
	case reflect.String:
		dst = appendString(dst, *(*string)(p))
	case reflect.Pointer:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(dst, "null"...), nil
		}
		return e.elem.encode(w, dst, q, depth, true)
	case reflect.Slice:
		h := (*sliceHeader)(p)
		if h.data == nil {
			return append(dst, "null"...), nil
		}
		return e.list(w, dst, h.data, h.len, depth, true)
	case reflect.Array:
		return e.list(w, dst, p, e.typ.Len(), depth, addr)
	case reflect.Struct:
		dst = append(dst, '{')
		lines := w.linesAt(e, depth)
		comma := 1 // the first field written has none
		for i := range e.fields {
			f := &e.fields[i]
			fp := unsafe.Add(p, f.offset)
			// A leaf is read once, for its emptiness and its value: the
			// general test below (a call, and the type's size through
			// reflect) for each field with omitempty, and the loads of
			// both options for every field, were a fifth of the
			// encoding of a connection.
			var u uint64 // a leaf's bits, or its two's complement (Int, Int64)
			switch f.leaf {
			case reflect.Int64, reflect.Uint64:
				u = *(*uint64)(fp)
			case reflect.Int:
				u = uint64(*(*int)(fp))
			case reflect.Uint:
				u = uint64(*(*uint)(fp))
			case reflect.Bool:
				if *(*bool)(fp) {
					u = 1
				}
			default:
				if f.omitEmpty && f.e.empty(fp) || f.omitZero && reflect.NewAt(f.e.typ, fp).Elem().IsZero() {
					continue
				}
				dst = append(dst, lines.line[i][comma:]...)
				comma = 0
				var err error
				if dst, err = f.e.encode(w, dst, fp, depth+1, addr); err != nil {
					return dst, err
				}
				continue
			}
			if u == 0 && f.omit {
				continue
			}
			dst = append(dst, lines.line[i][comma:]...)
			comma = 0
			switch f.leaf {
			case reflect.Int64, reflect.Int:
				dst = appendInt(dst, int64(u))
			case reflect.Uint64, reflect.Uint:
				dst = appendUint(dst, u)
			default: // Bool
				if u != 0 {
					dst = append(dst, "true"...)
				} else {
					dst = append(dst, "false"...)
				}
			}
		}
		if comma == 0 {
			dst = append(dst, lines.end...)
		}
		dst = append(dst, '}')
	}
	return dst, nil
}

// sliceHeader is how a slice is laid out in memory.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (e *encoder) list(w *jsonWriter, dst []byte, p unsafe.Pointer, n, depth int, addr bool) ([]byte, error) {
	if n == 0 {
		return append(dst, "[]"...), nil
	}
	size := e.elem.typ.Size()
	l := w.linesAt(e, depth)
	line := l.line[0]
	dst = append(dst, '[')
	for i := range n {
		if i == 0 {
			dst = append(dst, line[1:]...) // no comma before the first
		} else {
			dst = append(dst, line...)
		}
		var err error
		if dst, err = e.elem.encode(w, dst, unsafe.Add(p, uintptr(i)*size), depth+1, addr); err != nil {
			return dst, err
		}
	}
	dst = append(dst, l.end...)
	dst = append(dst, ']')
	return dst, nil
}

// marshal writes v with encoding/json, indented at depth.
func (e *encoder) marshal(w *jsonWriter, dst []byte, v reflect.Value, depth int) ([]byte, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return dst, err
	}
	if w.compact {
		return append(dst, b...), nil
	}
	p := w.prefix
	for range depth {
		p += "  "
	}
	return appendIndent(dst, b, p, "  "), nil
}

// empty says whether the value at p is empty as omitempty means it:
// false, 0, a nil pointer or interface, nothing in an array, slice, map
// or string.
func (e *encoder) empty(p unsafe.Pointer) bool {
	switch e.kind {
	case reflect.Bool:
		return !*(*bool)(p)
	case reflect.String:
		return len(*(*string)(p)) == 0
	case reflect.Slice:
		return (*sliceHeader)(p).len == 0
	case reflect.Array:
		return e.typ.Len() == 0
	case reflect.Pointer:
		return *(*unsafe.Pointer)(p) == nil
	case reflect.Float32:
		return *(*float32)(p) == 0 // -0 too, as encoding/json
	case reflect.Float64:
		return *(*float64)(p) == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		switch e.typ.Size() {
		case 8:
			return *(*uint64)(p) == 0
		case 4:
			return *(*uint32)(p) == 0
		case 2:
			return *(*uint16)(p) == 0
		default:
			return *(*uint8)(p) == 0
		}
	case reflect.Map, reflect.Interface:
		v := reflect.NewAt(e.typ, p).Elem()
		return v.IsNil() || v.Kind() == reflect.Map && v.Len() == 0
	}
	return false
}

// appendFloat writes f as encoding/json does.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	abs := math.Abs(f)
	// An integer (a mean of equal samples, a rate of 0) small enough
	// that neighbouring values differ by less than 1 is written with the
	// same digits, without the shortest-decimal search.
	limit := 1e15
	if bits == 32 {
		limit = 1e6
	}
	if abs < limit && f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) {
		return appendInt(dst, int64(f)), nil
	}
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// plainByte[c]: c is written as it is in a JSON string by encoding/json
// (one load per byte, where seven comparisons were: --json writes two
// endpoints for each of 100,000 connections).
var plainByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString writes s quoted: as it is when nothing in it needs an
// escape (HTML's characters are escaped, as encoding/json escapes them),
// else as encoding/json writes it.
func appendString(dst []byte, s string) []byte {
	for i := range len(s) {
		if !plainByte[s[i]] {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendInt and appendUint write an integer in decimal, as strconv does,
// into dst's own memory: strconv formats into a buffer of its own and
// copies it, and a connection writes about 100 integers, most of them
// 0 or a single digit.
func appendInt(dst []byte, v int64) []byte {
	if uint64(v) < 10 { // small enough to be inlined where it is called
		return append(dst, byte('0'+v))
	}
	return appendIntDigits(dst, v)
}

func appendIntDigits(dst []byte, v int64) []byte {
	if v < 0 {
		return appendDigits(append(dst, '-'), uint64(-v)) // -MinInt64 is itself, as a uint64 too
	}
	return appendDigits(dst, uint64(v))
}

func appendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	return appendDigits(dst, v)
}

// digitPairs[i] is i's two decimal digits, "00" to "99".
var digitPairs = func() (t [100][2]byte) {
	for i := range t {
		t[i] = [2]byte{byte('0' + i/10), byte('0' + i%10)}
	}
	return t
}()

// pow10[i] is 10**i.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendDigits writes v > 0. The digits are written backwards from the
// end of the n bytes reserved for them, two at a time, and eight at a
// time by 32-bit arithmetic for the high part of a large number: a
// document's nanosecond times have 19 digits, and a loop of a 64-bit
// division and two checked stores per pair of digits was an eighth of
// the instructions of writing 100,000 connections. The writes go through
// a pointer: n is exact (pow10), and bounds checks on each store were a
// third of the loop.
func appendDigits(dst []byte, v uint64) []byte {
	n := bits.Len64(v) * 1233 >> 12 // log10(2) is about 1233/4096
	if v >= pow10[n] {
		n++
	}
	at := len(dst)
	dst = slices.Grow(dst, n)[:at+n]
	// p is the first digit's byte; i, counting down from n, is one past
	// the next digit to write (a pointer past the end of the slice's
	// memory would be invalid: checkptr, under the race detector, stops
	// on one).
	p := unsafe.Pointer(&dst[at])
	i := uintptr(n)
	for v >= 1e8 {
		q := v / 1e8
		r := uint32(v - q*1e8)
		v = q
		hi, lo := r/10000, r%10000
		i -= 8
		*(*[2]byte)(unsafe.Add(p, i+6)) = digitPairs[lo%100]
		*(*[2]byte)(unsafe.Add(p, i+4)) = digitPairs[lo/100%100]
		*(*[2]byte)(unsafe.Add(p, i+2)) = digitPairs[hi%100]
		*(*[2]byte)(unsafe.Add(p, i)) = digitPairs[hi/100%100]
	}
	r := uint32(v) // below 1e8
	for r >= 100 {
		i -= 2
		*(*[2]byte)(unsafe.Add(p, i)) = digitPairs[r%100]
		r /= 100
	}
	if r >= 10 {
		*(*[2]byte)(p) = digitPairs[r%100] // i is 2
	} else {
		*(*byte)(p) = byte('0' + r) // i is 1
	}
	return dst
}

// AppendInt, AppendUint, AppendFloat and AppendString write a value as
// the planned encoder writes it, for the code internal/result/jsongen
// generates.
func AppendInt(dst []byte, v int64) []byte { return appendInt(dst, v) }

// AppendUint: see AppendInt.
func AppendUint(dst []byte, v uint64) []byte { return appendUint(dst, v) }

// AppendFloat: see AppendInt; bits is 32 or 64, the float's size. NaN and
// the infinities are an error, as for encoding/json.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, error) { return appendFloat(dst, f, bits) }

// AppendString: see AppendInt.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// EndText ends a JSON string whose opening quote is dst[start-1] and whose
// text, appended unescaped, is dst[start:]: it escapes the text as
// encoding/json escapes MarshalText's bytes (in a copy, only when a byte
// needs it) and appends the closing quote.
func EndText(dst []byte, start int) []byte {
	for _, c := range dst[start:] {
		if !plainByte[c] {
			return appendString(dst[:start-1], string(dst[start:]))
		}
	}
	return append(dst, '"')
}
