package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/prisep"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// Rule is one row of the audit's verdict table: for a knob ("*" for
// every knob), a condition on what was read and the verdict it gives.
// The first matching rule of a knob decides, so each knob's rules go from
// the most specific to a catch-all.
type Rule struct {
	ID      string
	Knob    string
	When    string // the condition in words
	Verdict Verdict
	Match   func(c *Case) bool
	Reason  func(c *Case) string
	// Evidence quotes what the verdict rests on; nil when the reason is
	// the reading itself.
	Evidence func(c *Case) string
	// Next is the step this finding suggests, if any.
	Next func(c *Case) *Step
	// IsDefault overrides "a default verdict is the default value".
	IsDefault func(c *Case) *bool
}

func always(*Case) bool { return true }

func text(s string) func(*Case) string { return func(*Case) string { return s } }

// Rules is the verdict table. docs/commands/doctor.md lists it.
var Rules = []Rule{
	// --- any knob ------------------------------------------------------
	{ID: "needs-privilege", Knob: "*", Verdict: Unknown, When: "the value cannot be read without elevation",
		Match: func(c *Case) bool { return c.Err != nil && c.Privilege != "" },
		Reason: func(c *Case) string {
			return fmt.Sprintf("reading it needs %s; the check-up never asks for elevation (%s)", privilegeWords(c.Privilege), firstLine(c.Err.Error()))
		}},
	{ID: "unreadable", Knob: "*", Verdict: Unknown, When: "reading the value failed",
		Match:  func(c *Case) bool { return c.Err != nil },
		Reason: func(c *Case) string { return firstLine(c.Err.Error()) }},

	// --- win32-priority-separation ---------------------------------------
	{ID: "prisep-absent", Knob: "win32-priority-separation", Verdict: Default, When: "no value stored",
		Match: func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason: func(c *Case) string {
			return "absent: the kernel keeps its built-in default; Windows ships the value " + prisepDefaultClass(c)
		},
		Evidence: func(c *Case) string { return quote("win32-priority-separation", "", "Windows ships") }},
	{ID: "prisep-high-bits", Knob: "win32-priority-separation", Verdict: Suspicious, When: "bits above the low 6 are set",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && n > 0x3F },
		Reason: func(c *Case) string {
			n, _ := c.N()
			return fmt.Sprintf("only the low 6 bits count: 0x%X acts as 0x%02X (%s); the extra bits suggest a value copied from a guide", n, n&0x3F, prisepClass(c))
		},
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return quote("win32-priority-separation", fmt.Sprint(n), "only the low 6 bits count")
		}},
	{ID: "prisep-default", Knob: "win32-priority-separation", Verdict: Default, When: "the platform default value (0x2 client, 0x18 server)",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && uint32(n) == prisepDefault(c.Server) },
		Reason: func(c *Case) string {
			return "the " + platformName(c.Server) + " default: " + prisepClass(c)
		},
		Evidence: func(c *Case) string { return quote("win32-priority-separation", "", "Windows ships") }},
	{ID: "prisep-same-class", Knob: "win32-priority-separation", Verdict: Tuned, When: "another value of the default's class",
		Match: func(c *Case) bool { return prisepSameAsDefault(c) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s: the same quanta as the %s default 0x%X, so no change in scheduling", prisepClass(c), platformName(c.Server), prisepDefault(c.Server))
		},
		Evidence: func(c *Case) string { return quote("win32-priority-separation", "", "Windows ships") }},
	{ID: "prisep-other", Knob: "win32-priority-separation", Verdict: Tuned, When: "any other value",
		Match: func(c *Case) bool { _, ok := c.N(); return ok },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s, where the %s default 0x%X is %s", prisepClass(c), platformName(c.Server), prisepDefault(c.Server), prisepClassOf(prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: prisepTick(c)})))
		},
		Evidence: func(c *Case) string { return quote("win32-priority-separation", "", "Quantum units") }},
	{ID: "prisep-unreadable", Knob: "win32-priority-separation", Verdict: Suspicious, When: "the stored value is not a number",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning + "; the kernel reads a REG_DWORD" }},

	// --- global-timer-resolution-requests ---------------------------------
	{ID: "gtrr-ignored", Knob: "global-timer-resolution-requests", Verdict: Suspicious, When: "set to non-zero on a build that ignores it",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n != 0 && c.Build != 0 && !knob.GlobalTimerSupported(c.Build, c.Server)
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("set to %s, but build %d ignores it: timer requests stay %s", c.Text(), c.Build, ruleWord(c.Build))
		},
		Evidence: func(c *Case) string { return noteWith(c, "ignores this value") },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain global-timer-resolution-requests", Why: "it has no effect on this build", Benefit: 20}
		}},
	{ID: "gtrr-not-boolean", Knob: "global-timer-resolution-requests", Verdict: Suspicious, When: "a value other than 0 or 1",
		Match: func(c *Case) bool { n, ok := c.N(); return !c.Raw.IsAbsent() && (!ok || n > 1) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s is not one of the documented values 0 and 1", c.Value)
		},
		Evidence: func(c *Case) string {
			return quote("global-timer-resolution-requests", "", "GlobalTimerResolutionRequests (REG_DWORD)")
		}},
	// PC-Tuning ("Fixing Timing Precision in Windows After The Great Rule
	// Change", https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
	// "the registry key is present and set to 1 by default on Windows
	// Server 2022". There 1 is the default, and absent or 0 the change.
	{ID: "gtrr-server-2022", Knob: "global-timer-resolution-requests", Verdict: Default, When: "1 on Windows Server 2022 (build 20348), which ships it set to 1",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n == 1 && timer.GlobalKeyDefault(c.Build, c.Server) == 1
		},
		Reason: func(c *Case) string { return "the Windows Server 2022 default: " + c.Meaning },
		Evidence: func(c *Case) string {
			return quote("global-timer-resolution-requests", "", "Windows Server 2022 ships with it set to 1")
		}},
	{ID: "gtrr-server-2022-off", Knob: "global-timer-resolution-requests", Verdict: Tuned, When: "absent or 0 on Windows Server 2022, which ships it set to 1",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return (c.Raw.IsAbsent() || (ok && n == 0)) && timer.GlobalKeyDefault(c.Build, c.Server) == 1
		},
		Reason: func(c *Case) string { return "changed from the Windows Server 2022 default 1: " + c.Meaning },
		Evidence: func(c *Case) string {
			return quote("global-timer-resolution-requests", "", "Windows Server 2022 ships with it set to 1")
		},
		IsDefault: func(*Case) *bool { return boolPtr(false) }},
	{ID: "gtrr-on", Knob: "global-timer-resolution-requests", Verdict: Tuned, When: "1 on a build that honours it",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 1 },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote("global-timer-resolution-requests", "", "Read at boot") }},
	{ID: "gtrr-default", Knob: "global-timer-resolution-requests", Verdict: Default, When: "absent or 0",
		Match:  always,
		Reason: func(c *Case) string { return "not set: " + c.Meaning }},

	// --- network-throttling-index ------------------------------------------
	// GamingPCSetup's screenshots of one Intel adapter, which its author
	// calls unexplained and which leave throughput out, do not make off
	// harmful: it is a change without evidence of a benefit.
	{ID: "nti-off", Knob: "network-throttling-index", Verdict: Suspicious, When: "0xFFFFFFFF (throttling off)",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && n == 0xFFFFFFFF },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote("network-throttling-index", "", "Measured (GamingPCSetup")
		},
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob set network-throttling-index 10", Why: "back to the default, where GamingPCSetup measured lower NDIS.sys DPC latency on one adapter (needs a reboot; latlab knob revert undoes it)", Benefit: 30}
		}},
	{ID: "nti-ignored", Knob: "network-throttling-index", Verdict: Suspicious, When: "outside 1-70 and not off",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && (n < 1 || n > 70) },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote("network-throttling-index", "", "valid 1-70")
		}},
	{ID: "nti-default", Knob: "network-throttling-index", Verdict: Default, When: "absent or 10",
		Match:  func(c *Case) bool { n, ok := c.N(); return c.Raw.IsAbsent() || (ok && n == 10) },
		Reason: text("while multimedia plays (MMCSS), other received traffic is throttled to 10 packets per ms, about 120 Mbit/s of 1500-byte packets"),
		Evidence: func(c *Case) string {
			return quote("network-throttling-index", "", "Measured (GamingPCSetup")
		}},
	{ID: "nti-tuned", Knob: "network-throttling-index", Verdict: Tuned, When: "another value in 1-70",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},

	// --- tsc-sync-policy ---------------------------------------------------
	{ID: "tsc-default", Knob: "tsc-sync-policy", Verdict: Default, When: "absent or default",
		Match:  func(c *Case) bool { return c.Raw.IsAbsent() || strings.EqualFold(c.Text(), "default") },
		Reason: text("the HAL's own choice (HalpTscSyncPolicy 0)")},
	{ID: "tsc-set", Knob: "tsc-sync-policy", Verdict: Suspicious, When: "legacy or enhanced",
		Match: always,
		Reason: func(c *Case) string {
			return fmt.Sprintf("set to %s without a measured benefit; the Windows default is default", strings.ToLower(c.Text()))
		},
		Evidence: func(c *Case) string { return quote("tsc-sync-policy", "", "many guides claim") },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain tsc-sync-policy", Why: "it is set to " + strings.ToLower(c.Text()) + " without a measured benefit", Benefit: 30}
		}},

	// --- display-scaling ---------------------------------------------------
	{ID: "display-none", Knob: "display-scaling", Verdict: Default, When: "no Scaling values stored",
		Match: func(c *Case) bool { return c.Empty },
		Reason: func(c *Case) string {
			if len(c.ActiveScaling) > 0 {
				return "the display driver has stored no configuration; the active paths use " + scalingNames(c.ActiveScaling) + " (QueryDisplayConfig)"
			}
			return "the display driver has stored no configuration"
		}},
	{ID: "display-identity-fallback", Knob: "display-scaling", Verdict: Suspicious, When: "identity requested while an active path uses aspect-ratio",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n == 1 && noteWith(c, "identity (1) is requested") != ""
		},
		Reason: text("identity is requested but an active display uses aspect-ratio: identity needs equal source and target resolutions"),
		Evidence: func(c *Case) string {
			return noteWith(c, "identity (1) is requested")
		},
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain display-scaling identity", Why: "an identity request fell back to aspect-ratio", Benefit: 25}
		}},
	{ID: "display-unknown-value", Knob: "display-scaling", Verdict: Suspicious, When: "not a DISPLAYCONFIG_SCALING value",
		Match: func(c *Case) bool {
			n, ok := c.N()
			_, known := knob.LookupScaling(uint32(n))
			return !ok || !known
		},
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "display-default", Knob: "display-scaling", Verdict: Default, When: "preferred (128) or aspect-ratio (4)",
		Match:  func(c *Case) bool { n, _ := c.N(); return n == 128 || n == 4 },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return explainText("display-scaling", fmt.Sprint(n))
		}},
	// PC-Tuning ("What Is Identity Scaling and How Can You Use It?",
	// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
	// at the native resolution every requested mode, identity, centered,
	// full-screen or aspect ratio, with GPU or display scaling, came out
	// as identity (1). When every active path uses identity, a request
	// changes nothing: judged against the active mode, not the registry.
	{ID: "display-native", Knob: "display-scaling", Verdict: Suspicious, When: "identity, centered, stretched or custom requested while every active path uses identity",
		Match: func(c *Case) bool {
			if len(c.ActiveScaling) == 0 {
				return false
			}
			for _, n := range c.ActiveScaling {
				if n != 1 {
					return false
				}
			}
			return true
		},
		Reason: func(c *Case) string {
			return c.Meaning + ", but every active path uses identity: at the native resolution any scaling request becomes identity, so this one has no effect here"
		},
		Evidence: func(c *Case) string { return quote("display-scaling", "", "native resolution") }},
	{ID: "display-chosen", Knob: "display-scaling", Verdict: Tuned, When: "identity, centered, stretched or custom",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return explainText("display-scaling", fmt.Sprint(n))
		}},

	// --- rss ---------------------------------------------------------------
	{ID: "rss-none", Knob: "rss", Verdict: Default, When: "no adapter offers RSS",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares RSS keywords")},
	{ID: "rss-off", Knob: "rss", Verdict: Suspicious, When: "*RSS is 0",
		Match:  func(c *Case) bool { return storedValue(c, "*RSS") == "0" },
		Reason: text("RSS off: one CPU processes all received packets of this adapter"),
		Evidence: func(c *Case) string {
			return quote("rss", "", "*RSS ")
		},
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob get rss --adapter " + adapterIndex(c), Why: "RSS is off on " + c.Target, Benefit: 40}
		}},
	{ID: "rss-default", Knob: "rss", Verdict: Default, When: "every stored keyword at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return known && len(diff) == 0 },
		Reason: func(c *Case) string { return c.Meaning + ", the driver's defaults" }},
	{ID: "rss-tuned", Knob: "rss", Verdict: Tuned, When: "a keyword differs from its Ndi\\Params default, or has none",
		Match: always,
		Reason: func(c *Case) string {
			diff, known := ndiDiffs(c)
			if len(diff) > 0 {
				return c.Meaning + "; changed from the driver's default: " + strings.Join(diff, ", ")
			}
			if !known {
				return c.Meaning + "; the driver declares no defaults to compare with"
			}
			return c.Meaning
		},
		IsDefault: func(c *Case) *bool {
			diff, known := ndiDiffs(c)
			if !known && len(diff) == 0 {
				return nil
			}
			return boolPtr(false)
		}},

	// --- interrupt-moderation ------------------------------------------------
	{ID: "im-none", Knob: "interrupt-moderation", Verdict: Default, When: "no adapter offers interrupt moderation",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares *InterruptModeration or a rate keyword")},
	// GamingPCSetup measured Off as a trade-off, not a loss: the
	// shortest NDIS DPCs (85% within 2 µs) for 29 times Extreme's
	// interrupts, with Medium the better overall balance.
	{ID: "im-off", Knob: "interrupt-moderation", Verdict: Tuned, When: "*InterruptModeration 0 or rate level Off",
		Match: func(c *Case) bool { return moderationOff(c) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("moderation off, a trade-off: GamingPCSetup measured the shortest NDIS DPCs at Off (85%% within 2 µs) for the most interrupts (%s against %s at Extreme); Medium was its better overall balance",
				units.Thousands(itrCount("Off")), units.Thousands(itrCount("Extreme")))
		},
		Evidence: func(c *Case) string { return itrEvidence() },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain interrupt-moderation", Why: "moderation is off on " + c.Target + ": shortest DPCs, most interrupts", Benefit: 25}
		}},
	{ID: "im-default", Knob: "interrupt-moderation", Verdict: Default, When: "nothing stored, or every value at its Ndi\\Params default",
		Match: func(c *Case) bool {
			diff, known := moderationDiffs(c)
			return len(c.Extra) == 0 || (known && len(diff) == 0)
		},
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "im-medium", Knob: "interrupt-moderation", Verdict: Tuned, When: "rate level Medium",
		Match:    func(c *Case) bool { return moderationLevel(c) == "Medium" },
		Reason:   func(c *Case) string { return c.Meaning + ": the level the measurement found the best balance" },
		Evidence: func(c *Case) string { return itrEvidence() }},
	{ID: "im-tuned", Knob: "interrupt-moderation", Verdict: Tuned, When: "another level or setting",
		Match:    always,
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return itrEvidence() },
		IsDefault: func(c *Case) *bool {
			if _, known := moderationDiffs(c); !known {
				return nil
			}
			return boolPtr(false)
		}},

	// --- qos-dscp ------------------------------------------------------------
	{ID: "qos-none", Knob: "qos-dscp", Verdict: Default, When: "no policy",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no QoS policy: Windows marks no packets")},
	{ID: "qos-ignored", Knob: "qos-dscp", Verdict: Suspicious, When: "a policy Windows ignores (bad DSCP, Version, type)",
		Match:  func(c *Case) bool { return len(c.Warnings) > 0 },
		Reason: func(c *Case) string { return c.Value + ": " + strings.Join(c.Warnings, "; ") }},
	{ID: "qos-no-nla", Knob: "qos-dscp", Verdict: Suspicious, When: `a policy without "Do not use NLA"`,
		Match: func(c *Case) bool { return noteWith(c, "is not set") != "" },
		Reason: func(c *Case) string {
			return c.Value + " for " + c.Meaning + `, but "Do not use NLA" is not set: off a domain Windows does not apply it`
		},
		Evidence: func(c *Case) string { return noteWith(c, "is not set") }},
	{ID: "qos-policy", Knob: "qos-dscp", Verdict: Tuned, When: "a policy that applies",
		Match:  always,
		Reason: func(c *Case) string { return c.Value + " for " + c.Meaning }},

	// --- timer-slack -----------------------------------------------------------
	{ID: "slack-default", Knob: "timer-slack", Verdict: Default, When: "50µs",
		Match:    func(c *Case) bool { return c.Text() == "50000" },
		Reason:   text("50µs: normal threads' timers may fire up to 50µs late so the kernel can batch wake-ups"),
		Evidence: func(c *Case) string { return quote("timer-slack", "", "50µs by default") }},
	{ID: "slack-changed", Knob: "timer-slack", Verdict: Tuned, When: "another value",
		Match: always,
		Reason: func(c *Case) string {
			return "latlab inherited this slack from the program that started it: " + c.Meaning
		},
		Evidence: func(c *Case) string { return quote("timer-slack", "", "inherited over fork") }},

	// --- tcp-recovery ----------------------------------------------------------
	{ID: "rack-default", Knob: "tcp-recovery", Verdict: Default, When: "1 (RACK)",
		Match:  func(c *Case) bool { return c.Text() == "1" },
		Reason: text("RACK loss detection, the default")},
	{ID: "rack-off", Knob: "tcp-recovery", Verdict: Suspicious, When: "the RACK bit clear",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && n&1 == 0 },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote("tcp-recovery", "", "RACK loss detection")
		},
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob set tcp-recovery 1", Why: "RACK is off (applies at once; latlab knob revert tcp-recovery undoes it)", Benefit: 45}
		}},
	{ID: "rack-options", Knob: "tcp-recovery", Verdict: Tuned, When: "RACK with options",
		Match:    always,
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return explainText("tcp-recovery", c.Text()) }},

	// --- tcp-dsack -------------------------------------------------------------
	{ID: "dsack-default", Knob: "tcp-dsack", Verdict: Default, When: "1",
		Match:  func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "dsack-off", Knob: "tcp-dsack", Verdict: Suspicious, When: "0",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob set tcp-dsack 1", Why: "D-SACK is off (applies at once; latlab knob revert tcp-dsack undoes it)", Benefit: 35}
		}},

	// --- clocksource -----------------------------------------------------------
	{ID: "cs-tsc", Knob: "clocksource", Verdict: Default, When: "tsc",
		Match:  func(c *Case) bool { return c.Text() == "tsc" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "cs-slow-tsc-available", Knob: "clocksource", Verdict: Suspicious, When: "a slow source while tsc is available",
		Match: func(c *Case) bool { return !timer.ClocksourceFast(c.Text()) && slices.Contains(available(c), "tsc") },
		Reason: func(c *Case) string {
			return c.Text() + " is slow to read and tsc is available; the kernel leaves tsc when its watchdog finds it unstable (dmesg says so)"
		},
		Evidence: func(c *Case) string {
			return explainText("clocksource", c.Text()) + "; " + explainText("clocksource", "tsc")
		},
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab knob explain clocksource", Why: c.Text() + " is slow to read while tsc is available", Benefit: 40}
		}},
	{ID: "cs-fast", Knob: "clocksource", Verdict: Default, When: "another source read in user space",
		Match:  func(c *Case) bool { return timer.ClocksourceFast(c.Text()) },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "cs-slow", Knob: "clocksource", Verdict: Default, When: "a slow source and no tsc to choose",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; no tsc is offered (the kernel found it unstable or the CPU has none)"
		},
		IsDefault: func(c *Case) *bool { return nil }},

	// --- irq-affinity (the queue interrupts of each network interface) ----------
	{ID: "irq-none", Knob: "irq-affinity", Verdict: Default, When: "no network interface with MSI queue interrupts",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text("no network interface with MSI queue interrupts was found"),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "irq-one-cpu", Knob: "irq-affinity", Verdict: Suspicious, When: "several queue interrupts, all delivered to one CPU of several",
		Match: func(c *Case) bool {
			if len(c.Group) < 2 || c.Group[0].Online < 2 {
				return false
			}
			for _, g := range c.Group {
				if g.Delivered == "" || g.Delivered != c.Group[0].Delivered || cpuCount(g.Delivered) != 1 {
					return false
				}
			}
			return true
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("all %d queue interrupts of %s are delivered to CPU %s: one CPU services the whole interface", len(c.Group), c.Target, c.Group[0].Delivered)
		},
		Evidence: func(c *Case) string { return quote("irq-affinity", "", "effective_affinity_list") },
		Next: func(c *Case) *Step {
			return &Step{Command: "latlab irq watch", Why: "all queue interrupts of " + c.Target + " land on one CPU", Benefit: 40}
		}},
	{ID: "irq-pinned", Knob: "irq-affinity", Verdict: Tuned, When: "a queue interrupt allowed on fewer CPUs than are online",
		Match: func(c *Case) bool {
			for _, g := range c.Group {
				if g.Online > 0 && g.Allowed != "" && cpuCount(g.Allowed) < g.Online {
					return true
				}
			}
			return false
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("queue interrupts of %s are pinned (allowed CPUs %s); irqbalance, if running, may move them", c.Target, allowedSummary(c.Group))
		},
		Evidence: func(c *Case) string { return quote("irq-affinity", "", "irqbalance") }},
	{ID: "irq-default", Knob: "irq-affinity", Verdict: Default, When: "every queue interrupt allowed on all CPUs",
		Match: always,
		Reason: func(c *Case) string {
			return fmt.Sprintf("%d queue interrupts allowed on every CPU; the kernel delivers each to one of them", len(c.Group))
		},
		Evidence: func(c *Case) string { return quote("irq-affinity", "", "effective_affinity_list") }},

	// --- rps -----------------------------------------------------------------------
	{ID: "rps-none", Knob: "rps", Verdict: Default, When: "no network interface with rx queues",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network interface with rx queues was found")},
	{ID: "rps-off", Knob: "rps", Verdict: Default, When: "0 on every rx queue",
		Match: func(c *Case) bool {
			for _, g := range c.Group {
				if g.Steered {
					return false
				}
			}
			return true
		},
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote("rps", "", "0 (the default)") }},
	{ID: "rps-set", Knob: "rps", Verdict: Tuned, When: "a CPU mask on some rx queue",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},

	// --- coalescing -----------------------------------------------------------------
	{ID: "coal-none", Knob: "coalescing", Verdict: Default, When: "no network interface backed by a device",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text("no network interface backed by a device was found"),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "coal-read", Knob: "coalescing", Verdict: Default, When: "any setting (latlab cannot tell a driver's default)",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; drivers differ in their defaults, so latlab cannot tell whether this was changed"
		},
		Evidence:  func(c *Case) string { return quote("coalescing", "", "lowest latency") },
		IsDefault: func(c *Case) *bool { return nil }},
}

// firstLine is an error's first line without the empty tail a command's
// missing output leaves ("...: ").
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimRight(strings.TrimSpace(s), ":")
}

func privilegeWords(p string) string {
	if p == "Administrator" {
		return "an elevated prompt (Administrator)"
	}
	return p
}

func platformName(server bool) string {
	if server {
		return "server"
	}
	return "client"
}

func ruleWord(build uint32) string {
	if build < 19041 {
		return "global"
	}
	return "per process"
}

// --- win32-priority-separation helpers -------------------------------------

func prisepDefault(server bool) uint32 {
	if server {
		return 0x18
	}
	return 0x2
}

func prisepTick(c *Case) float64 {
	if d, ok := c.Detail.(prisep.Decoded); ok {
		return d.TickMs
	}
	return 0
}

func prisepClassOf(d prisep.Decoded) string {
	return fmt.Sprintf("%s, %s quanta, foreground %d units (%s ms), background %d units (%s ms)",
		d.Interval, d.Length, d.ForegroundUnits, prisep.FmtMs(d.ForegroundMs), d.BackgroundUnits, prisep.FmtMs(d.BackgroundMs))
}

func prisepClass(c *Case) string {
	if d, ok := c.Detail.(prisep.Decoded); ok {
		return d.Hex + " = " + prisepClassOf(d)
	}
	return c.Meaning
}

func prisepDefaultClass(c *Case) string {
	d := prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: prisepTick(c)})
	return d.Hex + " = " + prisepClassOf(d)
}

func prisepSameAsDefault(c *Case) bool {
	d, ok := c.Detail.(prisep.Decoded)
	if !ok {
		return false
	}
	def := prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: d.TickMs})
	return d.Interval == def.Interval && d.Length == def.Length && d.ForegroundUnits == def.ForegroundUnits && d.BackgroundUnits == def.BackgroundUnits
}

// --- adapter helpers ---------------------------------------------------------

// storedValue is the stored value of an adapter keyword ("" when not stored).
func storedValue(c *Case, keyword string) string {
	for _, x := range c.Extra {
		if strings.EqualFold(x.Loc.Name, keyword) {
			return strings.TrimSpace(x.Old.String())
		}
	}
	return ""
}

func adapterIndex(c *Case) string {
	idx, _, _ := strings.Cut(c.Target, " ")
	return idx
}

// ndiDiffs lists the RSS keywords stored with a value other than their
// Ndi\Params default; known is false when a stored keyword has no default
// to compare with.
func ndiDiffs(c *Case) (diff []string, known bool) {
	params := map[string]knob.NdiParam{}
	if m, ok := c.Detail.(map[string]any); ok {
		if p, ok := m["ndi_params"].(map[string]knob.NdiParam); ok {
			params = p
		}
	}
	known = true
	for _, x := range c.Extra {
		p, ok := params[x.Loc.Name]
		v := strings.TrimSpace(x.Old.String())
		switch {
		case !ok || p.Default == "":
			known = false
		case p.Default != v:
			diff = append(diff, fmt.Sprintf("%s=%s (default %s)", x.Loc.Name, v, p.Default))
		}
	}
	return diff, known
}

func moderationDetail(c *Case) (knob.ModerationDetail, bool) {
	d, ok := c.Detail.(knob.ModerationDetail)
	return d, ok
}

// moderationDiffs is ndiDiffs for interrupt moderation.
func moderationDiffs(c *Case) (diff []string, known bool) {
	d, ok := moderationDetail(c)
	if !ok {
		return nil, false
	}
	known = true
	for _, x := range c.Extra {
		def := ""
		switch {
		case strings.EqualFold(x.Loc.Name, "*InterruptModeration"):
			def = d.InterruptModeration.Default
		case d.Rate != nil && strings.EqualFold(x.Loc.Name, d.Rate.Keyword):
			def = d.Rate.Param.Default
		}
		v := strings.TrimSpace(x.Old.String())
		switch {
		case def == "":
			known = false
		case def != v:
			diff = append(diff, fmt.Sprintf("%s=%s (default %s)", x.Loc.Name, v, def))
		}
	}
	return diff, known
}

// moderationLevel is the rate level in force (stored or the driver's
// default), "" when unknown.
func moderationLevel(c *Case) string {
	if d, ok := moderationDetail(c); ok {
		return d.Level
	}
	return ""
}

func moderationOff(c *Case) bool {
	d, ok := moderationDetail(c)
	if !ok {
		return false
	}
	mod := storedValue(c, "*InterruptModeration")
	if mod == "" {
		mod = d.InterruptModeration.Default
	}
	return mod == "0" || strings.EqualFold(d.Level, "Off")
}

// itrCount is the measured interrupt count of a level.
func itrCount(level string) int {
	k, err := knob.Lookup("interrupt-moderation")
	if err != nil {
		return 0
	}
	ex, err := k.Explain("", knob.ExplainOptions{})
	if err != nil {
		return 0
	}
	if me, ok := ex.Data.(*knob.ModerationExplanation); ok {
		for _, c := range me.Measured.Interrupts {
			if c.Level == level {
				return c.Interrupts
			}
		}
	}
	return 0
}

// available is the clocksource reading's list of available sources.
func available(c *Case) []string {
	for _, n := range c.Notes {
		if s, ok := strings.CutPrefix(n, "available: "); ok {
			return strings.Fields(s)
		}
	}
	return nil
}
