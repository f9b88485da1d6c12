package testutil

import (
	"reflect"
	"unsafe"
)

// FillNonZero sets every field of the struct p points to, exported or
// not, nested structs and arrays included, to a value other than its
// zero. A test of code that fills a struct field by field (to avoid
// building a literal and copying it) fills the destination with it
// first: a field the code forgets, say one added later, keeps its
// non-zero value and shows against the same call on a zeroed
// destination. Pointers, slices and maps get a fresh, non-nil value.
func FillNonZero(p any) {
	fillNonZero(reflect.ValueOf(p).Elem())
}

func fillNonZero(v reflect.Value) {
	if !v.CanSet() { // an unexported field of an addressable struct
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(7)
	case reflect.String:
		v.SetString("x")
	case reflect.Struct:
		for i := range v.NumField() {
			fillNonZero(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			fillNonZero(v.Index(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	}
}
