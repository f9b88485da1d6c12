package result

import (
	"bytes"
	"encoding/json"
)

// UseBefore makes documents be written as before fillLists was planned
// per type, appendIndent replaced json.Indent and appendIndented wrote
// streamed values in one pass: every field of every value walked by
// reflection, encoded by encoding/json and indented by json.Indent. It
// returns the function that restores the current code.
func UseBefore() (restore func()) {
	f, i, d := fill, indent, direct
	fill = fillListsReflect
	direct = false
	indent = func(dst, src []byte, prefix, ind string) []byte {
		var b bytes.Buffer
		if err := json.Indent(&b, src, prefix, ind); err != nil {
			panic(err)
		}
		return append(dst, b.Bytes()...)
	}
	return func() { fill, indent, direct = f, i, d }
}
