package testutil

import (
	"math"
	"reflect"

	"pgregory.net/rapid"
)

// FillRandom sets every exported field of the struct p points to, nested
// structs, arrays and pointers to structs included, to a value drawn from
// t: zero half the time (so that omitempty is exercised both ways) and
// otherwise any value of the type, the edges (the extremes, negative zero,
// NaN and the infinities when nonFinite, strings that JSON escapes)
// among them. A pointer is nil or points to a fresh filled value.
func FillRandom(t *rapid.T, p any, nonFinite bool) {
	fillRandom(t, reflect.ValueOf(p).Elem(), nonFinite, "v")
}

func fillRandom(t *rapid.T, v reflect.Value, nonFinite bool, name string) {
	if !v.CanSet() {
		return // unexported: JSON does not see it
	}
	zero := func() bool { return rapid.IntRange(0, 1).Draw(t, name+".zero") == 0 }
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, name))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !zero() {
			bits := v.Type().Bits()
			edge := []int64{-1, 1, 9, 10, 99, 100, -1 << (bits - 1), 1<<(bits-1) - 1}
			v.SetInt(rapid.OneOf(rapid.SampledFrom(edge), rapid.Int64Range(-1<<(bits-1), 1<<(bits-1)-1)).Draw(t, name))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if !zero() {
			bits := v.Type().Bits()
			top := uint64(math.MaxUint64) >> (64 - bits)
			v.SetUint(rapid.OneOf(rapid.SampledFrom([]uint64{1, 9, 10, 99, 100, top}), rapid.Uint64Range(0, top)).Draw(t, name))
		}
	case reflect.Float32, reflect.Float64:
		if !zero() {
			edge := []float64{math.Copysign(0, -1), 1e-7, 9e-7, 1e21, 1.5e20, 123.5, 42, -7, 1e15 - 1, 1e15, 1e14 + 0.5, 1<<53 + 2}
			if nonFinite {
				edge = append(edge, math.NaN(), math.Inf(1), math.Inf(-1))
			}
			f := rapid.OneOf(rapid.SampledFrom(edge), rapid.Float64()).Draw(t, name)
			if !nonFinite && (math.IsNaN(f) || math.IsInf(f, 0)) {
				f = 0
			}
			v.SetFloat(f)
		}
	case reflect.String:
		if !zero() {
			edge := []string{"a<b>&c", "\u2028", "\x00\x1f", "\xff", "é", `"\`, "10.0.0.1:443", "[2001:db8::1]:80"}
			v.SetString(rapid.OneOf(rapid.SampledFrom(edge), rapid.String()).Draw(t, name))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillRandom(t, v.Field(i), nonFinite, name+"."+v.Type().Field(i).Name)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillRandom(t, v.Index(i), nonFinite, name+"[]")
		}
	case reflect.Pointer:
		if !zero() {
			v.Set(reflect.New(v.Type().Elem()))
			fillRandom(t, v.Elem(), nonFinite, name)
		}
	}
}
