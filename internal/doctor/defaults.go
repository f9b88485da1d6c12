package doctor

import (
	"fmt"

	"github.com/latlab/latlab/internal/timer"
)

// defaultOf states a knob's OS default in the knob's own terms.
func defaultOf(c *Case) string {
	switch c.Knob {
	case "win32-priority-separation":
		return fmt.Sprintf("0x%X (%s)", prisepDefault(c.Server), platformName(c.Server))
	case "global-timer-resolution-requests":
		if timer.GlobalKeyDefault(c.Build, c.Server) == 1 {
			return "1 (Windows Server 2022 ships it set)"
		}
		return "absent (0)"
	case "network-throttling-index":
		return "10 (absent)"
	case "tsc-sync-policy":
		return "default (absent)"
	case "display-scaling":
		return "the driver's choice"
	case "rss", "interrupt-moderation":
		return "the driver's Ndi\\Params default"
	case "msi-mode", "nic-buffers", "nic-power-saving":
		return defaultOfNIC(c)
	case "qos-dscp":
		return "no policy"
	case "timer-slack":
		return "50µs"
	case "tcp-recovery", "tcp-dsack":
		return "1"
	case "clocksource":
		return "the kernel's best-rated (tsc where stable)"
	case "irq-affinity":
		return "all CPUs"
	case "rps":
		return "0 (off)"
	case "coalescing":
		return "the driver's"
	}
	return ""
}
