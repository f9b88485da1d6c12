package knob

import "github.com/latlab/latlab/internal/irq"

// netInfo has nothing to map on Windows: the per-interface Linux knobs are
// checked on Linux, where /sys describes the interfaces.
func netInfo(string) *irq.NetInfo { return nil }
