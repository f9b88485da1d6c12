package cli

import "testing"

// osJSONCases are the --json outputs checked against the schema on
// Windows only: none beyond the common ones yet (the knobs write the
// registry of the machine running the tests).
func osJSONCases(t *testing.T) []jsonCase {
	return []jsonCase{
		{"knob get", []string{"knob", "get", "network-throttling-index", "--json"}, false},
	}
}
