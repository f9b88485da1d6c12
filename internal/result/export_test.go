package result

import (
	"bytes"
	"encoding/json"
)

// UseBefore makes documents be written as before fillLists was planned
// per type and appendIndent replaced json.Indent: every field of every
// value walked by reflection, and encoding/json's own indentation. It
// returns the function that restores the current code.
func UseBefore() (restore func()) {
	f, i := fill, indent
	fill = fillListsReflect
	indent = func(dst, src []byte, prefix, ind string) []byte {
		var b bytes.Buffer
		if err := json.Indent(&b, src, prefix, ind); err != nil {
			panic(err)
		}
		return append(dst, b.Bytes()...)
	}
	return func() { fill, indent = f, i }
}
