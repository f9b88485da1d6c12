package knob

import "github.com/latlab/latlab/internal/irq"

// netInfo maps the network interfaces under root to their queues and
// interrupts, without ethtool (the check-up only reads files).
func netInfo(root string) *irq.NetInfo {
	if root == "" {
		return nil
	}
	return irq.ReadNetInfo(root, false)
}
