package result

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

type fillLeaf struct {
	N    int
	List []int
	Opt  []int `json:",omitempty"`
	Bs   []byte
}

type FillInner struct {
	Leaf   fillLeaf
	Ptr    *fillLeaf
	Leaves []fillLeaf
	ByName map[string]fillLeaf
	ByPtr  map[string]*fillLeaf
	Counts map[string]int
	Arr    [2]fillLeaf
	Any    any
	Skip   []int `json:"-"`
	Zero   []int `json:"z,omitzero"`
	//lint:ignore U1000 an unexported field: fillLists must leave it alone
	hidden []int
}

type FillEmbedded struct{ E []string }

type fillList struct {
	Next *fillList
	Vals []int
}

type fillDoc struct {
	FillEmbedded
	*FillInner `json:"inner"`
	Inners     []*FillInner
	Plain      struct{ A, B int }
	Plains     []struct{ A, B int }
	Chain      *fillList
	Anys       []any
}

func genLeaf(t *rapid.T, label string) fillLeaf {
	l := fillLeaf{N: rapid.IntRange(0, 9).Draw(t, label+"n")}
	if rapid.Bool().Draw(t, label+"list") {
		l.List = []int{l.N}
	}
	if rapid.Bool().Draw(t, label+"opt") {
		l.Opt = []int{}
	}
	return l
}

func genInner(t *rapid.T, label string) *FillInner {
	if rapid.IntRange(0, 4).Draw(t, label+"nil") == 0 {
		return nil
	}
	in := &FillInner{Leaf: genLeaf(t, label+"leaf")}
	if rapid.Bool().Draw(t, label+"ptr") {
		l := genLeaf(t, label+"p")
		in.Ptr = &l
	}
	for i := range rapid.IntRange(0, 2).Draw(t, label+"leaves") {
		in.Leaves = append(in.Leaves, genLeaf(t, label+"ls"+string(rune('0'+i))))
	}
	if rapid.Bool().Draw(t, label+"byname") {
		in.ByName = map[string]fillLeaf{"a": genLeaf(t, label+"bn")}
		l := genLeaf(t, label+"bp")
		in.ByPtr = map[string]*fillLeaf{"b": &l, "nil": nil}
	}
	switch rapid.IntRange(0, 3).Draw(t, label+"any") {
	case 1:
		l := genLeaf(t, label+"anyl")
		in.Any = &l
	case 2:
		in.Any = genLeaf(t, label+"anyv") // not addressable: left as is
	case 3:
		in.Any = map[string]*fillLeaf{"x": {}}
	}
	return in
}

func genDoc(t *rapid.T) *fillDoc {
	d := &fillDoc{FillInner: genInner(t, "top")}
	for i := range rapid.IntRange(0, 3).Draw(t, "inners") {
		d.Inners = append(d.Inners, genInner(t, "in"+string(rune('0'+i))))
	}
	if rapid.Bool().Draw(t, "plains") {
		d.Plains = make([]struct{ A, B int }, 2)
	}
	for range rapid.IntRange(0, 3).Draw(t, "chain") {
		d.Chain = &fillList{Next: d.Chain}
	}
	if rapid.Bool().Draw(t, "anys") {
		d.Anys = []any{nil, &fillList{}, []*fillLeaf{{}}}
	}
	return d
}

// fillLists, planned once per type, leaves every value as the walk of
// every field by reflection (fillListsReflect, the code before) left it,
// and so writes the same JSON.
func TestFillListsAsBefore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genDoc(t)
		// an independent copy of the same value
		b := genDocCopy(a)
		fillLists(reflect.ValueOf(a))
		fillListsReflect(reflect.ValueOf(b))
		ja, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("planned:\n%s\nreflect:\n%s", ja, jb)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("the values differ after filling:\n%+v\n%+v", a, b)
		}
	})
}

// genDocCopy copies d deeply by a JSON-independent walk (reflection), so
// that nil and empty stay distinct.
func genDocCopy(d *fillDoc) *fillDoc {
	return deepCopy(reflect.ValueOf(d)).Interface().(*fillDoc)
}

func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(deepCopy(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			if c.Field(i).CanSet() {
				c.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		c := reflect.MakeMap(v.Type())
		it := v.MapRange()
		for it.Next() {
			c.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return c
	}
	return v
}

// A type that holds itself is planned once and filled to any depth.
func TestFillListsRecursiveType(t *testing.T) {
	l := &fillList{Next: &fillList{Next: &fillList{}}}
	fillLists(reflect.ValueOf(l))
	for n := l; n != nil; n = n.Next {
		if n.Vals == nil {
			t.Fatal("a nil list below the top was left nil")
		}
	}
}

func BenchmarkFillLists(b *testing.B) {
	in := &FillInner{Leaves: make([]fillLeaf, 50), ByName: map[string]fillLeaf{"a": {}}}
	b.Run("planned", func(b *testing.B) {
		for b.Loop() {
			fillLists(reflect.ValueOf(in))
		}
	})
	b.Run("reflect", func(b *testing.B) {
		for b.Loop() {
			fillListsReflect(reflect.ValueOf(in))
		}
	})
}
