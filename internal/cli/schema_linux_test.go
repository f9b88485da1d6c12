package cli

import (
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// osJSONCases are the --json outputs checked against the schema on Linux
// only: the knobs of a fixture tree, interrupts, the RSS experiment.
func osJSONCases(t *testing.T) []jsonCase {
	root, state := knobTree(t), testutil.TempDir(t)
	knob := func(args ...string) []string {
		return append(append([]string{"--root", root}, args...), "--state-dir", state, "--json")
	}
	return []jsonCase{
		{"knob get", []string{"--root", root, "knob", "get", "tcp-recovery", "--json"}, false},
		{"knob set --dry-run", knob("knob", "set", "tcp-recovery", "5", "--dry-run"), false},
		{"knob set", knob("knob", "set", "irq-affinity", "1", "--irq", "30"), false},
		{"knob history of a change", knob("knob", "history"), false},
		{"knob export", knob("knob", "export"), false},
		{"knob export --undo of a change", knob("knob", "export", "--undo"), false},
		{"knob revert", knob("knob", "revert", "irq-affinity"), false},
		{"irq watch", []string{"irq", "watch", "--interval", "20ms", "--duration", "60ms", "--json"}, false},
		{"net rss-experiment", []string{"net", "rss-experiment", "--duration", "300ms", "--json"}, false},
		{"try --dry-run", []string{"try", "timer-slack", "1us", "--probe", "sleep", "--dry-run", "--json"}, false},
		{"try", []string{"try", "timer-slack", "1us", "--probe", "sleep", "--blocks", "2", "--block-duration", "50ms", "--settle", "0s", "--json"}, false},
	}
}
