package result

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// AppendValue is how a Stream writes a value indented (appendValue); its
// list's elements are the same values without the white space.
func AppendValue(dst []byte, v any, prefix string) ([]byte, error) {
	return appendValue(dst, v, prefix)
}

// AppendValueBefore is how a Stream wrote each value before fillLists
// was planned per type, appendIndent replaced json.Indent and
// appendIndented wrote values in one pass: every field walked by
// reflection (fillListsReflect), encoded by encoding/json and indented by
// json.Indent.
func AppendValueBefore(dst []byte, v any, prefix string) ([]byte, error) {
	fillListsReflect(reflect.ValueOf(v))
	var c bytes.Buffer
	enc := json.NewEncoder(&c)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimRight(c.Bytes(), "\n"), prefix, "  "); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}
