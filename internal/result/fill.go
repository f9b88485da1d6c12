package result

import (
	"reflect"
	"strings"
	"sync"
)

// fillLists replaces the nil slices and maps reachable from v with empty
// ones, so that "nothing" is written [] or {} rather than null. Fields
// tagged omitempty or omitzero are left nil: for them absent is empty.
//
// A streamed document calls it once per element (100,000 connections in
// a large capture), so what it does for each type is worked out once, in
// a filler: which fields to look at, and which types hold nothing that
// could be nil, so that their values (and slices of them) are skipped
// without being walked. Walking every field by reflection and parsing
// its tag for every element took half the time of writing a document.
func fillLists(v reflect.Value) {
	if !v.IsValid() {
		return
	}
	fillerOf(v.Type()).fill(v)
}

// filler is what fillLists does to values of one type.
type filler struct {
	kind reflect.Kind
	// skip: nothing reachable from a value of this type is ever set
	// (no slice or map field to fill, no pointer or interface to follow).
	skip     bool
	fields   []fieldFiller // struct
	elem     *filler       // pointer, slice, array, map: the element type
	building bool          // being planned (a type that contains itself)
}

type fieldFiller struct {
	index int
	fill  bool    // a slice or map without omitempty/omitzero: nil becomes empty
	f     *filler // nil when the field's type holds nothing to fill
}

var fillers typeCache[filler]

func fillerOf(t reflect.Type) *filler { return fillers.of(t, plan) }

// typeCache holds per-type plans (fillers, encoders). A plan is worked
// out with those of the types it holds, recursive ones included, and the
// set is published only once complete, so a reader never sees a plan
// still being built.
type typeCache[P any] struct {
	m  sync.Map // reflect.Type -> *P, complete
	mu sync.Mutex
}

// load is t's plan when it is complete.
func (c *typeCache[P]) load(t reflect.Type) (*P, bool) {
	p, ok := c.m.Load(t)
	if !ok {
		return nil, false
	}
	return p.(*P), true
}

func (c *typeCache[P]) of(t reflect.Type, plan func(reflect.Type, map[reflect.Type]*P) *P) *P {
	if p, ok := c.load(t); ok {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	building := map[reflect.Type]*P{}
	p := plan(t, building)
	for t, p := range building {
		c.m.Store(t, p)
	}
	return p
}

// plan works out t's filler, and those of the types it holds, into
// building.
func plan(t reflect.Type, building map[reflect.Type]*filler) *filler {
	if f, ok := fillers.load(t); ok {
		return f
	}
	if f, ok := building[t]; ok {
		return f
	}
	f := &filler{kind: t.Kind(), building: true}
	building[t] = f
	// needs says whether a part of type u must be walked; a type still
	// being planned (t contains itself) is assumed to.
	needs := func(g *filler) bool { return g.building || !g.skip }
	switch t.Kind() {
	case reflect.Pointer:
		f.elem = plan(t.Elem(), building)
		f.skip = !needs(f.elem)
	case reflect.Interface:
		// the dynamic type decides, value by value
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if !sf.IsExported() && !sf.Anonymous || tag == "-" {
				continue
			}
			ff := fieldFiller{index: i}
			k := sf.Type.Kind()
			ff.fill = (k == reflect.Slice || k == reflect.Map) && !omits(tag)
			if g := plan(sf.Type, building); needs(g) {
				ff.f = g
			}
			if ff.fill || ff.f != nil {
				f.fields = append(f.fields, ff)
			}
		}
		f.skip = len(f.fields) == 0
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			f.skip = true
			break
		}
		f.elem = plan(t.Elem(), building)
		f.skip = !needs(f.elem)
	case reflect.Map:
		switch t.Elem().Kind() {
		case reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Array:
			f.elem = plan(t.Elem(), building)
			f.skip = !needs(f.elem)
		default:
			f.skip = true
		}
	default:
		f.skip = true
	}
	f.building = false
	return f
}

func (f *filler) fill(v reflect.Value) {
	if f.skip {
		return
	}
	switch f.kind {
	case reflect.Pointer:
		if !v.IsNil() {
			f.elem.fill(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() {
			fillLists(v.Elem())
		}
	case reflect.Struct:
		for _, ff := range f.fields {
			fv := v.Field(ff.index)
			if ff.fill && fv.IsNil() && fv.CanSet() {
				if fv.Kind() == reflect.Slice {
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				} else {
					fv.Set(reflect.MakeMap(fv.Type()))
				}
			}
			if ff.f != nil {
				ff.f.fill(fv)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			f.elem.fill(v.Index(i))
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			f.elem.fill(e)
			v.SetMapIndex(it.Key(), e)
		}
	}
}

func omits(tag string) bool {
	_, opts, _ := strings.Cut(tag, ",")
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}
