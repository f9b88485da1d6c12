package result

import (
	"reflect"
	"strings"
)

// fillListsReflect is fillLists as it was before its work was planned
// once per type: the reference the tests compare it with. It replaces the
// nil slices and maps reachable from v with empty ones, so that "nothing" is written [] or {} rather than null. Fields
// tagged omitempty or omitzero are left nil: for them absent is empty.
func fillListsReflect(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillListsReflect(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() && !f.Anonymous || tag == "-" {
				continue
			}
			fv := v.Field(i)
			if fv.CanSet() && !omitsReflect(tag) {
				switch {
				case fv.Kind() == reflect.Slice && fv.IsNil():
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				case fv.Kind() == reflect.Map && fv.IsNil():
					fv.Set(reflect.MakeMap(fv.Type()))
				}
			}
			fillListsReflect(fv)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			fillListsReflect(v.Index(i))
		}
	case reflect.Map:
		switch v.Type().Elem().Kind() {
		case reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Array:
		default:
			return
		}
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			fillListsReflect(e)
			v.SetMapIndex(it.Key(), e)
		}
	}
}

func omitsReflect(tag string) bool {
	_, opts, _ := strings.Cut(tag, ",")
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}
