package cli

import (
	"encoding/json"
	"io"
)

// writeJSON writes v as indented JSON, the form every --json output uses.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
