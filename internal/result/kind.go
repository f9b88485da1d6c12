package result

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/host"
)

// kindInfo is what the registry knows of a kind: its payload type and how
// documents written before the payload moved under "data" held it.
type kindInfo struct {
	name  string
	about string
	typ   reflect.Type // the payload struct; Data holds a pointer to it
	// moved are the top-level keys older latlab.result/1 documents of this
	// kind kept outside "data"; reading such a document moves them in.
	moved []string
	// formerly is the schema the kind's documents had before they were
	// latlab.result/1 documents; such a document is all payload.
	formerly string
}

func (k *kindInfo) newPayload() any { return reflect.New(k.typ).Interface() }

var (
	kinds    = map[string]*kindInfo{}
	formerly = map[string]*kindInfo{}
)

// Kind is a registered document kind whose payload is a T. Each kind is
// registered once, by the package that owns its payload:
//
//	var KindSleep = result.Register[SleepData]("sleep", "...")
type Kind[T any] struct{ info *kindInfo }

// Option qualifies a registration.
type Option func(*kindInfo)

// Moved names the top-level keys that latlab.result/1 documents of this
// kind written before the payload moved under "data" kept at the top
// level (summary, measurement, ...). Reading such a document moves them
// into the payload, so the older files stay readable.
func Moved(keys ...string) Option {
	return func(k *kindInfo) { k.moved = append(k.moved, keys...) }
}

// Formerly names the schema of this kind's documents before they were
// latlab.result/1 documents (e.g. "latlab.dpcisr/1"): a document with that
// schema is read as this kind, its whole object being the payload.
func Formerly(schema string) Option {
	return func(k *kindInfo) { k.formerly = schema }
}

// Register adds a kind whose payload is a T (a struct) and returns it.
// It panics on a duplicate or malformed registration: kinds are
// registered by package variables, so the mistake shows at start-up.
func Register[T any](name, about string, opts ...Option) Kind[T] {
	t := reflect.TypeFor[T]()
	switch {
	case name == "" || strings.TrimSpace(name) != name || strings.ContainsAny(name, " ,\"") || strings.ToLower(name) != name:
		panic(fmt.Sprintf("result: invalid kind name %q", name))
	case kinds[name] != nil:
		panic(fmt.Sprintf("result: kind %q registered twice", name))
	case t.Kind() != reflect.Struct:
		panic(fmt.Sprintf("result: the payload of kind %q is a %s; it must be a struct (a JSON object)", name, t))
	}
	k := &kindInfo{name: name, about: about, typ: t}
	for _, o := range opts {
		o(k)
	}
	if k.formerly != "" {
		if formerly[k.formerly] != nil || strings.HasPrefix(k.formerly, SchemaPrefix) {
			panic(fmt.Sprintf("result: schema %q cannot be read as kind %q", k.formerly, name))
		}
		formerly[k.formerly] = k
	}
	kinds[name] = k
	return Kind[T]{k}
}

// Name is the kind's name, as documents carry it in "kind".
func (k Kind[T]) Name() string { return k.info.name }

func (k Kind[T]) String() string { return k.info.name }

// New returns a document of this kind stamped with the tool and the host
// facts h, with data as its payload.
func (k Kind[T]) New(h host.Facts, data *T) *Document { return newDocument(h, k.info.name, data) }

// Of returns the payload of d when d is of this kind.
func (k Kind[T]) Of(d *Document) (*T, bool) {
	if d == nil || d.Kind != k.info.name {
		return nil, false
	}
	p, ok := d.Data.(*T)
	return p, ok && p != nil
}

// Registration describes a registered kind: for the JSON Schema and the
// list of kinds in messages.
type Registration struct {
	Name  string
	About string
	// Payload is the type of the payload struct (Data holds a pointer
	// to it).
	Payload reflect.Type
}

// Kinds lists the registered kinds by name.
func Kinds() []Registration {
	var out []Registration
	for _, k := range kinds {
		out = append(out, Registration{Name: k.name, About: k.about, Payload: k.typ})
	}
	slices.SortFunc(out, func(a, b Registration) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// KindNames is the registered kind names, sorted.
func KindNames() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// FormerSchemas lists the older schemas Read still accepts, sorted.
func FormerSchemas() []string {
	var out []string
	for s := range formerly {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
