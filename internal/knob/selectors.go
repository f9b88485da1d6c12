package knob

import "strings"

// The selector flags of knob get, set and export: which instance of a
// knob a command means. A knob that reads one declares it (Selecting),
// and each flag's help names the knobs that declare it: the list is not
// kept by hand beside the flags.
const (
	SelAdapter = "adapter" // Selector.Adapter
	SelIface   = "iface"   // Selector.Iface
	SelQueue   = "queue"   // Selector.Queue
	SelIRQ     = "irq"     // Selector.IRQ
	SelPID     = "pid"     // Selector.PID
	SelCPUs    = "cpus"    // Selector.CPU
	SelConfig  = "config"  // Selector.Config
	SelPolicy  = "policy"  // Selector.Policy and the qos-dscp policy fields
)

// Selecting is a knob that reads selector flags: their names, Sel*.
type Selecting interface {
	Selectors() []string
}

// SelectorsOf returns the selectors k declares (none when it does not
// implement Selecting).
func SelectorsOf(k Knob) []string {
	if s, ok := k.(Selecting); ok {
		return s.Selectors()
	}
	return nil
}

// KnobsSelecting returns, comma-separated in the catalogue's order, the
// knobs that declare selector sel: the flag's help.
func KnobsSelecting(sel string) string {
	var names []string
	for _, k := range All() {
		for _, s := range SelectorsOf(k) {
			if s == sel {
				names = append(names, k.Name())
			}
		}
	}
	return strings.Join(names, ", ")
}
