package doctor

import (
	"fmt"
	"strings"
)

// The verdicts on the research test bench's adapter settings: MSI mode,
// receive/transmit buffers and power saving, as the GamingPCSetup
// interrupt moderation measurements (djdallmann) list them in their
// configuration. The bench is evidence of what was measured with, not of
// a benefit: no source measured these settings against each other, so
// nothing here is called harmful, and a value like the bench's is tuned,
// not better.
func init() {
	Rules = append(Rules, nicRules...)
}

// defaultOfNIC is the default of the bench knobs, "" for any other.
func defaultOfNIC(c *Case) string {
	switch c.Knob {
	case "msi-mode":
		return "what the driver's INF writes (most MSI-capable NICs: 1)"
	case "nic-buffers", "nic-power-saving":
		return "the driver's Ndi\\Params default"
	}
	return ""
}

var nicRules = []Rule{
	// --- msi-mode ----------------------------------------------------------
	{ID: "msi-none", Knob: "msi-mode", Verdict: Default, When: "no PCI network adapter",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter with a PCI device")},
	{ID: "msi-off", Knob: "msi-mode", Verdict: Suspicious, When: "MSISupported 0",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 0 },
		Reason:   text("line-based interrupts, set explicitly: RSS needs MSI-X to spread the adapter's interrupts over CPUs"),
		Evidence: func(c *Case) string { return quote("msi-mode", "", "must support MSI-X") },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain msi-mode", Why: "MSI is off on " + c.Target, Benefit: 30}
		}},
	{ID: "msi-on", Knob: "msi-mode", Verdict: Default, When: "MSISupported 1",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 1 },
		Reason:   func(c *Case) string { return c.Meaning + ", as on the GamingPCSetup test bench" },
		Evidence: func(c *Case) string { return quote("msi-mode", "", "Bench:") },
		// Drivers of MSI-capable NICs write 1 from their INF; whether
		// this 1 is theirs or someone's cannot be told from the value.
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "msi-absent", Knob: "msi-mode", Verdict: Default, When: "no MSISupported: the INF did not ask for MSI",
		Match:    func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote("msi-mode", "", "must support MSI-X") }},
	{ID: "msi-other", Knob: "msi-mode", Verdict: Suspicious, When: "any other value",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},

	// --- nic-buffers -------------------------------------------------------
	{ID: "buffers-none", Knob: "nic-buffers", Verdict: Default, When: "no adapter declares the buffer keywords",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares *ReceiveBuffers or *TransmitBuffers")},
	{ID: "buffers-out-of-range", Knob: "nic-buffers", Verdict: Suspicious, When: "a stored count the adapter does not declare",
		Match:  func(c *Case) bool { return len(c.Warnings) > 0 },
		Reason: func(c *Case) string { return c.Meaning + "; " + strings.Join(c.Warnings, "; ") }},
	{ID: "buffers-default", Knob: "nic-buffers", Verdict: Default, When: "nothing stored, or every count at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return len(c.Extra) == 0 || (known && len(diff) == 0) },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "buffers-tuned", Knob: "nic-buffers", Verdict: Tuned, When: "a count differs from its Ndi\\Params default",
		Match: always,
		Reason: func(c *Case) string {
			if diff, _ := ndiDiffs(c); len(diff) > 0 {
				return c.Meaning + "; changed from the driver's default: " + strings.Join(diff, ", ")
			}
			return c.Meaning
		},
		Evidence: func(c *Case) string { return quote("nic-buffers", "", "Bench:") },
		IsDefault: func(c *Case) *bool {
			if _, known := ndiDiffs(c); !known {
				return nil
			}
			return boolPtr(false)
		}},

	// --- nic-power-saving --------------------------------------------------
	{ID: "power-none", Knob: "nic-power-saving", Verdict: Default, When: "no adapter declares a power-saving keyword",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares a power-saving keyword latlab knows")},
	{ID: "power-default", Knob: "nic-power-saving", Verdict: Default, When: "nothing stored, or every keyword at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return len(c.Extra) == 0 || (known && len(diff) == 0) },
		Reason: func(c *Case) string { return c.Meaning + ", the driver's defaults" }},
	{ID: "power-off", Knob: "nic-power-saving", Verdict: Tuned, When: "every declared keyword off",
		Match:    func(c *Case) bool { return strings.HasPrefix(c.Meaning, "power saving off") },
		Reason:   func(c *Case) string { return c.Meaning + ", as on the GamingPCSetup test bench" },
		Evidence: func(c *Case) string { return quote("nic-power-saving", "", "Bench:") }},
	{ID: "power-tuned", Knob: "nic-power-saving", Verdict: Tuned, When: "another combination",
		Match: always,
		Reason: func(c *Case) string {
			if diff, _ := ndiDiffs(c); len(diff) > 0 {
				return fmt.Sprintf("%s; changed from the driver's default: %s", c.Meaning, strings.Join(diff, ", "))
			}
			return c.Meaning
		},
		IsDefault: func(c *Case) *bool {
			if _, known := ndiDiffs(c); !known {
				return nil
			}
			return boolPtr(false)
		}},
}
