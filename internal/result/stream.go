package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/latlab/latlab/internal/host"
)

// Stream writes a document whose payload holds a list too long to keep in
// memory (the connections of a large capture): the envelope first, then
// the list one element at a time, then the rest of the payload and the
// notes. What it writes is the document Write would write, indented the
// same way, but for two things. The order of the fields: the list comes
// first in data, and notes after data. And each element of the list is
// written on a line of its own, compact, as encoding/json's Marshal
// writes it: a line a connection suits line tools (grep, head, split,
// jq -c) on a document larger than memory, and the indentation was two
// fifths of the bytes, whose write to the page cache was the largest cost
// of writing 100,000 connections. Read accepts it like any other
// document.
type Stream struct {
	w io.Writer
	// out is what is yet to be written to w: values are encoded into it
	// directly, and it goes to w in whole multiples of streamFlush bytes
	// (writeWhole), the rest kept for the next write.
	out []byte
	ind []byte // one value, indented (indented)
	n   int
	err error
}

const streamFlush = 256 << 10

// Indentation of the list's elements: inside the document, data and the
// list.
const (
	streamElemPrefix = "      "
	streamRestPrefix = "  "
)

// streamEnvelope is a Document without its payload and notes, which a
// Stream writes after the list.
type streamEnvelope struct {
	Schema   string            `json:"schema"`
	Kind     string            `json:"kind"`
	Created  any               `json:"created"`
	Tool     Tool              `json:"tool"`
	Host     any               `json:"host"`
	Settings map[string]string `json:"settings"`
}

// NewStream writes d's envelope to w and opens the list named key at the
// top of its payload. d.Data and d.Notes must be empty: Close writes them.
// d's kind must be registered, as for Write.
func NewStream(w io.Writer, d *Document, key string) (*Stream, error) {
	if d.Data != nil || len(d.Notes) != 0 {
		return nil, errors.New("result: a streamed document's data and notes are written at its end")
	}
	if kinds[d.Kind] == nil {
		return nil, fmt.Errorf("result: kind %q is not registered", d.Kind)
	}
	s := &Stream{w: w, out: make([]byte, 0, streamFlush+64<<10)}
	env := streamEnvelope{Schema: d.Schema, Kind: d.Kind, Created: d.Created, Tool: d.Tool, Host: d.Host, Settings: d.Settings}
	if env.Settings == nil {
		env.Settings = map[string]string{}
	}
	head, err := s.indented(env, "")
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(head, []byte("\n}")) {
		return nil, fmt.Errorf("result: the envelope is not a JSON object: %.40q", head)
	}
	head = head[:len(head)-2]
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	s.out = append(s.out, head...)
	s.out = append(s.out, ",\n  \"data\": {\n    "...)
	s.out = append(s.out, k...)
	s.out = append(s.out, ": ["...)
	return s, nil
}

// CompactAppender is a list element that writes its own compact JSON:
// code internal/result/jsongen generated, which writes what the planned
// encoder writes (and holds no list or map that Add would fill).
type CompactAppender interface {
	AppendCompactJSON(dst []byte) ([]byte, error)
}

// Add writes one element of the list.
func (s *Stream) Add(v any) error {
	if s.err != nil {
		return s.err
	}
	mark := len(s.out)
	if s.n > 0 {
		s.out = append(s.out, ',')
	}
	s.out = append(s.out, "\n"+streamElemPrefix...)
	var err error
	if a, ok := v.(CompactAppender); ok {
		s.out, err = a.AppendCompactJSON(s.out)
	} else {
		fillLists(reflect.ValueOf(v)) // nil lists and maps as Write writes them
		s.out, err = appendCompact(s.out, v)
	}
	if err != nil {
		s.out = s.out[:mark]
		return err // v itself, not the output: the stream can go on
	}
	s.n++
	if len(s.out) >= streamFlush {
		s.writeWhole()
	}
	return s.err
}

// writeWhole writes the whole multiples of streamFlush that out holds,
// and moves the rest to its start. The writes of a document that begins a
// file are then aligned to streamFlush in it: the kernel fills the page
// cache with large folios when a write covers them whole, and writing 224
// MB in writes of 256 KiB plus a connection's line, each at an unaligned
// offset, took a third more system time than in aligned ones (44-57 ms
// against 55-74, three rounds each, on ext4).
func (s *Stream) writeWhole() {
	n := len(s.out) / streamFlush * streamFlush
	if s.err == nil && n > 0 {
		_, s.err = s.w.Write(s.out[:n])
	}
	s.out = s.out[:copy(s.out, s.out[n:])]
}

// flush writes what is buffered to w.
func (s *Stream) flush() {
	if s.err == nil && len(s.out) > 0 {
		_, s.err = s.w.Write(s.out)
	}
	s.out = s.out[:0]
}

// Close ends the list, writes rest (a value that marshals to a JSON
// object: its fields follow the list in data) and the notes, and ends the
// document.
func (s *Stream) Close(rest any, notes []string) error {
	if s.err != nil {
		return s.err
	}
	if s.n > 0 {
		s.write("\n    ")
	}
	s.write("]")
	b, err := s.indented(rest, streamRestPrefix)
	if err != nil {
		return err
	}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return fmt.Errorf("result: the rest of a streamed payload is not a JSON object: %.40q", b)
	}
	if inner := bytes.TrimSpace(b[1 : len(b)-1]); len(inner) > 0 {
		s.write(",")
		s.out = append(s.out, b[1:]...) // its fields, then the brace that closes data
	} else {
		s.write("\n  }")
	}
	if notes == nil {
		notes = []string{} // never null, as Write writes it
	}
	nb, err := s.indented(notes, streamRestPrefix)
	if err != nil {
		return err
	}
	s.write(",\n  \"notes\": ")
	s.out = append(s.out, nb...)
	s.write("\n}\n")
	s.flush()
	if s.err == nil {
		s.err = errors.New("result: stream already closed")
		return nil
	}
	return s.err
}

func (s *Stream) write(b string) { s.out = append(s.out, b...) }

// indented returns v's JSON indented as Write indents it at that depth
// (prefix), lists and maps that are nil filled first (appendValue).
func (s *Stream) indented(v any, prefix string) ([]byte, error) {
	var err error
	s.ind, err = appendValue(s.ind[:0], v, prefix)
	return s.ind, err
}

// appendValue appends v's JSON, indented at the depth of prefix, as
// encoding/json would marshal it and json.Indent indent it, after
// filling v's nil lists and maps as Write does: fillLists, then
// appendIndented. Before, every field of every value was walked by
// reflection, encoded by encoding/json and indented by json.Indent; the
// tests keep that code (fillListsReflect, appendValueBefore) and show
// the output of both the same, byte for byte, on real captures.
func appendValue(dst []byte, v any, prefix string) ([]byte, error) {
	fillLists(reflect.ValueOf(v))
	return appendIndented(dst, v, prefix)
}

// appendIndent appends src, compact JSON as encoding/json writes it (no
// white space outside strings), indented as json.Indent(dst, src, prefix,
// indent) would: a new line after each opening bracket and comma, empty
// objects and arrays kept on one line, a space after each colon.
func appendIndent(dst, src []byte, prefix, indent string) []byte {
	// nl is a new line and the indentation of the deepest level so far:
	// a line break at depth d appends a prefix of it.
	nl := make([]byte, 0, 1+len(prefix)+8*len(indent))
	nl = append(append(nl, '\n'), prefix...)
	depth := 0
	newline := func() {
		n := 1 + len(prefix) + max(depth, 0)*len(indent) // depth < 0: malformed input
		for len(nl) < n {
			nl = append(nl, indent...)
		}
		dst = append(dst, nl[:n]...)
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			// copy the string through its closing quote: the first
			// quote not escaped (preceded by an even number of
			// backslashes)
			j := i + 1
			for {
				k := bytes.IndexByte(src[j:], '"')
				if k < 0 {
					j = len(src)
					break
				}
				j += k
				n := 0
				for m := j - 1; m > i && src[m] == '\\'; m-- {
					n++
				}
				j++
				if n%2 == 0 {
					break
				}
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		default:
			// a number, true, false or null: copy up to the next delimiter
			j := i + 1
			for j < len(src) && src[j] != ',' && src[j] != '}' && src[j] != ']' {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return dst
}

// StreamDocument returns the envelope of a document of a registered kind
// to be written by NewStream: stamped like New's, without data or notes.
func StreamDocument(h host.Facts, kind string) (*Document, error) {
	if kinds[kind] == nil {
		return nil, fmt.Errorf("result: kind %q is not registered", kind)
	}
	d := newDocument(h, kind, nil)
	d.Notes = nil
	return d, nil
}
