package cli

import "testing"

// osJSONCases are the --json outputs checked against the schema on
// Windows only (the knobs write the registry of the machine running the
// tests: only reads and plans).
func osJSONCases(t *testing.T) []jsonCase {
	return []jsonCase{
		{"knob get", []string{"knob", "get", "network-throttling-index", "--json"}, false},
		{"try --dry-run", []string{"try", "timer-resolution", "1ms", "--probe", "sleep", "--dry-run", "--json"}, false},
	}
}
