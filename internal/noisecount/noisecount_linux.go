package noisecount

import (
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/probe"
)

// Reader is probe.NoiseOptions.Counters for the machine under root (""
// or "/" is this one, another root a fixture tree): /proc/interrupts and
// /proc/softirqs now, and again when the returned function is called.
func Reader(root string) func() (func() (*probe.NoiseCounters, error), error) {
	return irq.NoiseCounters(root)
}
