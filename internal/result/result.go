// Package result defines latlab's result document: the versioned JSON every
// command writes with --json and every analysing command (compare, report)
// reads. It knows the envelope (schema, kind, created, tool, host,
// settings, notes) and a registry of kinds; each kind's payload type is
// owned, and registered, by the package that produces it.
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/textdec"
)

// Schema is the identifier and major version of the document format.
// Within a major version fields are only ever added, so a reader of
// latlab.result/1 reads every latlab.result/1 document; a document of a
// later major version is refused with a message saying so.
const (
	Schema       = "latlab.result/1"
	SchemaPrefix = "latlab.result/"
	major        = 1
)

// Document is one result: the envelope and the kind's payload.
type Document struct {
	Schema   string            `json:"schema"`
	Kind     string            `json:"kind"`
	Created  time.Time         `json:"created"`
	Tool     Tool              `json:"tool"`
	Host     host.Facts        `json:"host"`
	Settings map[string]string `json:"settings"` // the command's flags
	Notes    []string          `json:"notes"`
	// Data is the payload: a pointer to the struct registered for Kind.
	Data any `json:"data"`
}

// Tool names the program that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"` // VCS revision of the build
	Dirty   bool   `json:"dirty,omitempty"`  // built from a tree with uncommitted changes
}

// KindVersion is the document `latlab version --json` writes: the build
// facts of the binary (the envelope's tool is their short form).
var KindVersion = Register[buildinfo.Info]("version", "the running latlab: version, commit, Go version, platform (latlab version)")

// New returns a document of a registered kind stamped with the tool and
// the host facts h (collected once by the caller's run: making a document
// reads nothing of the machine); data is the payload, a pointer to the
// kind's payload type or a value of it (then copied). Packages with the
// Kind at hand use its New.
func New(h host.Facts, kind string, data any) (*Document, error) {
	k := kinds[kind]
	if k == nil {
		return nil, fmt.Errorf("result: kind %q is not registered", kind)
	}
	v := reflect.ValueOf(data)
	if v.IsValid() && v.Type() == k.typ {
		p := reflect.New(k.typ)
		p.Elem().Set(v)
		data = p.Interface()
	}
	d := newDocument(h, kind, data)
	if err := check(d); err != nil {
		return nil, err
	}
	return d, nil
}

func newDocument(h host.Facts, kind string, data any) *Document {
	return &Document{
		Schema:   Schema,
		Kind:     kind,
		Created:  time.Now().UTC().Truncate(time.Second),
		Tool:     currentTool(),
		Host:     h,
		Settings: map[string]string{},
		Notes:    []string{},
		Data:     data,
	}
}

// Version is the running latlab's version: stamped by a release build,
// else the module version, else "dev".
func Version() string { return buildinfo.Get().Version }

func currentTool() Tool {
	in := buildinfo.Get()
	return Tool{Name: "latlab", Version: in.Version, Commit: in.Commit, Dirty: in.Dirty}
}

// check says whether d can be written: a registered kind and the payload
// type registered for it.
func check(d *Document) error {
	k := kinds[d.Kind]
	if k == nil {
		return fmt.Errorf("result: kind %q is not registered", d.Kind)
	}
	if reflect.TypeOf(d.Data) != reflect.PointerTo(k.typ) || reflect.ValueOf(d.Data).IsNil() {
		return fmt.Errorf("result: a %s document holds %T, want *%s", d.Kind, d.Data, k.typ)
	}
	return nil
}

// Write writes the document as indented JSON. Lists and maps with
// nothing in them are written as [] and {}, never null (it fills the nil
// ones of the payload in place).
func Write(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return encode(enc, d)
}

// WriteLine writes the document as one line of JSON: for documents a
// parent process reads line by line (timer set, net serve).
func WriteLine(w io.Writer, d *Document) error {
	return encode(json.NewEncoder(w), d)
}

func encode(enc *json.Encoder, d *Document) error {
	if err := check(d); err != nil {
		return err
	}
	out := *d
	if out.Settings == nil {
		out.Settings = map[string]string{}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	fillLists(reflect.ValueOf(out.Data))
	return enc.Encode(&out)
}

// WriteFile writes the document to path, replacing it atomically
// (outfile.WriteBytes).
func WriteFile(path string, d *Document) error {
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		return err
	}
	return outfile.WriteBytes(path, b.Bytes())
}

// Errors of Read. Each wraps ErrNotResult, which callers map to bad input.
var (
	// ErrNotResult marks input that is not a document this latlab reads.
	ErrNotResult = errors.New("not a latlab result document")
	// ErrUnknownKind marks a document whose kind this latlab does not know.
	ErrUnknownKind = fmt.Errorf("%w: unknown kind", ErrNotResult)
	// ErrNewer marks a document of a later major version of the schema.
	ErrNewer = fmt.Errorf("%w: newer schema", ErrNotResult)
)

// docError is an error of Read: its message is msg alone, and it matches
// ErrNotResult and, when set, a more precise sentinel.
type docError struct {
	msg  string
	kind error
}

func (e *docError) Error() string { return e.msg }

func (e *docError) Is(target error) bool {
	return target == ErrNotResult || e.kind != nil && target == e.kind
}

func notResult(format string, a ...any) error {
	return &docError{msg: "not a latlab result document: " + fmt.Sprintf(format, a...)}
}

// checkSchema says how a document of schema s is read: as a
// latlab.result/1 document (nil), as a former kind's document (its
// kind), or not at all. The messages quote s clipped: it is the file's,
// and may be megabytes.
func checkSchema(s string) (*kindInfo, error) {
	q := textdec.Clip(s)
	switch {
	case s == Schema:
		return nil, nil
	case strings.HasPrefix(s, SchemaPrefix):
		if n, err := strconv.Atoi(strings.TrimPrefix(s, SchemaPrefix)); err == nil && n > major {
			return nil, &docError{kind: ErrNewer, msg: fmt.Sprintf("schema %s is from a newer latlab: this one (%s) reads %s; update latlab to read it", q, Version(), Schema)}
		}
		return nil, notResult("schema %q is not one latlab writes (want %s)", q, Schema)
	case formerly[s] != nil:
		return formerly[s], nil
	case s == "":
		return nil, notResult("no schema (latlab documents start with \"schema\": %q)", Schema)
	}
	accepted := Schema
	if f := FormerSchemas(); len(f) > 0 {
		accepted += " (and the older " + strings.Join(f, ", ") + ")"
	}
	if strings.HasPrefix(s, "latlab.") {
		return nil, notResult("schema %s is a layout of earlier latlab versions that this one does not read: it reads %s; run the command that wrote it again", q, accepted)
	}
	return nil, notResult("schema %q; latlab reads %s", q, accepted)
}

func lookupKind(name string) (*kindInfo, error) {
	if k := kinds[name]; k != nil {
		return k, nil
	}
	if name == "" {
		return nil, notResult("no kind")
	}
	return nil, &docError{kind: ErrUnknownKind, msg: fmt.Sprintf("kind %q is not one latlab %s reads; accepted: %s", textdec.Clip(name), Version(), strings.Join(KindNames(), ", "))}
}

// Read parses and checks a document: a registered kind, a schema of this
// major version (or a former schema a kind still reads), and a payload of
// the kind's type. Fields it does not know are ignored: later versions
// of latlab.result/1 may add some. It reads at most infile.Max() bytes
// (beyond that it fails with an *infile.TooLargeError) and decodes the
// payload as it reads when "kind" comes before "data", as latlab writes
// it, so a large document is not held twice.
func Read(r io.Reader) (*Document, error) {
	src := &readErrs{r: infile.Limit(r, infile.Max())}
	dec := json.NewDecoder(src)
	tok, err := dec.Token()
	if err != nil {
		return nil, readError(err, dec)
	}
	if tok != json.Delim('{') {
		return nil, notResult("the input is JSON but not an object")
	}
	fields := map[string]json.RawMessage{}
	var (
		k, former *kindInfo
		schema    string
		payload   any
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, readError(inside(err), dec)
		}
		key, _ := tok.(string)
		if key == "data" && k != nil && schema == Schema {
			p := k.newPayload()
			if err := dec.Decode(p); err != nil {
				return nil, decodeError(k, err, dec, src.err)
			}
			payload = p
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, readError(inside(err), dec)
		}
		fields[key] = raw
		switch key {
		case "schema":
			if err := json.Unmarshal(raw, &schema); err != nil {
				return nil, notResult("schema is %s, not a string", clip(raw))
			}
			if former, err = checkSchema(schema); err != nil {
				return nil, err
			}
		case "kind":
			var name string
			if err := json.Unmarshal(raw, &name); err != nil {
				return nil, notResult("kind is %s, not a string", clip(raw))
			}
			if k, err = lookupKind(name); err != nil {
				return nil, err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, readError(inside(err), dec)
	}
	// Only white space may follow the document.
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, notResult("more JSON after the document at byte %d", dec.InputOffset())
		}
		return nil, readError(err, dec)
	}
	if _, ok := fields["schema"]; !ok {
		return nil, notResult("no schema (latlab documents start with \"schema\": %q)", Schema)
	}
	if former != nil {
		return readFormer(former, schema, fields)
	}
	if k == nil {
		return nil, notResult("no kind")
	}
	d := &Document{Schema: schema, Kind: k.name, Settings: map[string]string{}, Notes: []string{}}
	for _, f := range []struct {
		key string
		to  any
	}{{"created", &d.Created}, {"tool", &d.Tool}, {"host", &d.Host}, {"settings", &d.Settings}, {"notes", &d.Notes}} {
		if raw, ok := fields[f.key]; ok {
			if err := json.Unmarshal(raw, f.to); err != nil {
				return nil, notResult("%s: %v", f.key, err)
			}
		}
	}
	if payload == nil {
		payload = k.newPayload()
		raw, ok := fields["data"]
		if ok {
			if err := json.Unmarshal(raw, payload); err != nil {
				return nil, payloadError(k, err)
			}
		}
		if moved := pick(fields, k.moved); moved != nil {
			if err := json.Unmarshal(moved, payload); err != nil {
				return nil, payloadError(k, err)
			}
		} else if !ok {
			return nil, notResult("a %s document without data", k.name)
		}
	}
	d.Data = payload
	return d, nil
}

// readFormer reads a document of a kind's former schema: the whole object
// is the payload; the envelope is empty but for schema and kind.
func readFormer(k *kindInfo, schema string, fields map[string]json.RawMessage) (*Document, error) {
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	p := k.newPayload()
	if err := json.Unmarshal(b, p); err != nil {
		return nil, payloadError(k, err)
	}
	return &Document{Schema: schema, Kind: k.name, Settings: map[string]string{}, Notes: []string{}, Data: p}, nil
}

// pick returns the object of the given keys of fields, nil when none is
// present.
func pick(fields map[string]json.RawMessage, keys []string) json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, key := range keys {
		if raw, ok := fields[key]; ok {
			m[key] = raw
		}
	}
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

func payloadError(k *kindInfo, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(the payload itself)"
		}
		return notResult("a %s document's data.%s is JSON %s, not the %s latlab writes there", k.name, strings.TrimPrefix(field, "."), te.Value, te.Type)
	}
	return notResult("a %s document's data: %v", k.name, err)
}

// decodeError is payloadError for a payload decoded as it is read: an
// error of the reader (readErr) or of the JSON text is the input's, as
// any other error of the document's text; what is left came from
// decoding a value (bad base64 for bytes, a value a type's
// UnmarshalText or UnmarshalJSON refuses, such as a tcpflow endpoint)
// and is the payload's.
func decodeError(k *kindInfo, err error, dec *json.Decoder, readErr error) error {
	var se *json.SyntaxError
	if readErr != nil && errors.Is(err, readErr) || err == io.EOF || err == io.ErrUnexpectedEOF || errors.As(err, &se) {
		return readError(inside(err), dec)
	}
	return payloadError(k, err)
}

// readErrs remembers the last error of r other than io.EOF: decodeError
// tells it from the errors of decoding values, which json.Decoder
// returns the same way.
type readErrs struct {
	r   io.Reader
	err error
}

func (e *readErrs) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// inside maps the end of the input met inside the document to the error
// that says so (io.EOF alone means the input was empty).
func inside(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func readError(err error, dec *json.Decoder) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, infile.ErrLimit):
		return err
	case err == io.EOF:
		return notResult("empty input")
	case err == io.ErrUnexpectedEOF:
		return notResult("invalid JSON: the input ends inside the document, at byte %d", dec.InputOffset())
	case errors.As(err, &se):
		return notResult("invalid JSON at byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return notResult("%v", err)
	}
	return err
}

// ReadFile reads a document from path, which must be a regular file no
// larger than infile.Max() (see infile.Open). Errors about the content
// name the file; errors about the path itself (missing, a directory, a
// device, too large) do not, so the caller can say "cannot read PATH: ...".
func ReadFile(path string) (*Document, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		if errors.Is(err, infile.ErrLimit) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}
