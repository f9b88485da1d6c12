// Package resultschema generates the JSON Schema (draft 2020-12) of
// latlab's result document from the Go types: the envelope, and the
// payload of every kind registered with result when it runs. Only the
// schema generator and the tests use it; latlab itself never does.
package resultschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/latlab/latlab/internal/result"
)

// ID is the schema's $id: where the file lives in the repository.
const ID = "https://github.com/latlab/latlab/schema/latlab.result.schema.json"

// File is the schema's path in the repository.
const File = "schema/latlab.result.schema.json"

// Described is a type that writes its own JSON (json.Marshaler): it says
// what that JSON is, as a JSON Schema.
type Described interface {
	JSONSchemaText() string
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	describedType     = reflect.TypeFor[Described]()
	timeType          = reflect.TypeFor[time.Time]()
)

// Generate returns the schema as indented JSON ending in a newline.
func Generate() ([]byte, error) {
	g := &generator{named: map[string]reflect.Type{}}
	r := &jsonschema.Reflector{
		// Fields are only ever added within a major version: a document of
		// a later latlab.result/1 is valid under this schema.
		AllowAdditionalProperties: true,
		Anonymous:                 true,
		Namer:                     g.name,
		Mapper:                    g.mapType,
	}
	defs := jsonschema.Definitions{}
	add := func(t reflect.Type) (string, error) {
		s := r.ReflectFromType(t)
		for name, d := range s.Definitions {
			if old, ok := defs[name]; ok && !sameSchema(old, d) {
				return "", fmt.Errorf("two types are named %s in the schema", name)
			}
			defs[name] = d
		}
		return strings.TrimPrefix(s.Ref, "#/$defs/"), nil
	}
	envelope, err := add(reflect.TypeFor[result.Document]())
	if err != nil {
		return nil, err
	}
	if len(result.KindNames()) == 0 {
		return nil, fmt.Errorf("no kinds are registered: link the packages that register them")
	}
	props := jsonschema.NewProperties()
	props.Set("schema", &jsonschema.Schema{Const: result.Schema})
	kinds := &jsonschema.Schema{Type: "string"}
	var branches []*jsonschema.Schema
	for _, k := range result.Kinds() {
		kinds.OneOf = append(kinds.OneOf, &jsonschema.Schema{Const: k.Name, Description: k.About})
		name, err := add(k.Payload)
		if err != nil {
			return nil, err
		}
		cond := jsonschema.NewProperties()
		cond.Set("kind", &jsonschema.Schema{Const: k.Name})
		then := jsonschema.NewProperties()
		then.Set("data", &jsonschema.Schema{Ref: "#/$defs/" + name})
		branches = append(branches, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: cond, Required: []string{"kind"}},
			Then: &jsonschema.Schema{Properties: then},
		})
	}
	props.Set("kind", kinds)
	if g.err != nil {
		return nil, g.err
	}
	for name, t := range g.named {
		if d := defs[name]; d != nil && t.Kind() == reflect.Struct {
			allowNull(d, t)
		}
	}
	// Written key by key: what a reader looks for first comes first, the
	// definitions last.
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range []struct {
		key string
		val any
	}{
		{"$schema", jsonschema.Version},
		{"$id", ID},
		{"title", "latlab result document"},
		{"description", "What every latlab command writes with --json: the envelope (schema, kind, created, tool, host, settings, notes) " +
			"and the kind's payload under data. Generated from the Go types by scripts/schemagen: do not edit."},
		{"$ref", "#/$defs/" + envelope},
		{"properties", props},
		{"allOf", branches},
		{"$defs", defs},
	} {
		v, err := marshal(kv.val)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

type generator struct {
	named map[string]reflect.Type
	err   error
}

// name names a definition by package and type (probe.SleepData,
// stats.Summary), so types of the same name in two packages stay apart.
func (g *generator) name(t reflect.Type) string {
	if t.Name() == "" || t.PkgPath() == "" {
		return ""
	}
	n := path.Base(t.PkgPath()) + "." + t.Name()
	if old, ok := g.named[n]; ok && old != t && g.err == nil {
		g.err = fmt.Errorf("%s and %s have the same schema name %s", old, t, n)
	}
	g.named[n] = t
	return n
}

// mapType gives the schema of the types that write their own JSON.
func (g *generator) mapType(t reflect.Type) *jsonschema.Schema {
	if t == timeType {
		return nil // the reflector knows it: a date-time string
	}
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(describedType) || pt.Implements(describedType):
		var s jsonschema.Schema
		text := reflect.New(t).Interface().(Described).JSONSchemaText()
		if err := json.Unmarshal([]byte(text), &s); err != nil && g.err == nil {
			g.err = fmt.Errorf("%s: JSONSchemaText: %w", t, err)
		}
		return &s
	case t.Implements(marshalerType) || pt.Implements(marshalerType):
		if g.err == nil {
			g.err = fmt.Errorf("%s writes its own JSON: give it a JSONSchemaText method saying what it writes", t)
		}
		return &jsonschema.Schema{}
	case t.Implements(textMarshalerType) || pt.Implements(textMarshalerType):
		return &jsonschema.Schema{Type: "string"}
	}
	return nil
}

// allowNull lets the properties of pointer fields without omitempty be
// null, as encoding/json writes a nil pointer.
func allowNull(d *jsonschema.Schema, t reflect.Type) {
	if d.Properties == nil {
		return
	}
	for _, f := range jsonFields(t) {
		if f.Type.Kind() != reflect.Pointer {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" }) {
			continue
		}
		if p, ok := d.Properties.Get(name); ok && p != nil {
			d.Properties.Set(name, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}})
		}
	}
}

// jsonFields lists the fields encoding/json writes for struct t, the
// fields of embedded structs included, the shallower winning a name.
func jsonFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	seen := map[string]bool{}
	level := []reflect.Type{t}
	for len(level) > 0 {
		var next []reflect.Type
		var here []reflect.StructField
		for _, lt := range level {
			for i := range lt.NumField() {
				f := lt.Field(i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
					next = append(next, ft)
					continue
				}
				if !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if !seen[name] {
					here = append(here, f)
				}
			}
		}
		for _, f := range here {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			seen[name] = true
		}
		out = append(out, here...)
		level = next
	}
	return out
}

func sameSchema(a, b *jsonschema.Schema) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
