package knob

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/units"
)

// netThrottleName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const netThrottleName = "network-throttling-index"

func init() { register(netThrottle{}) }

var ntiLoc = regLoc(`HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`, "NetworkThrottlingIndex")

type netThrottle struct{ windowsKnob }

func (netThrottle) Name() string { return netThrottleName }
func (netThrottle) Summary() string {
	return "MMCSS limit on non-multimedia network packets per ms while multimedia plays (NetworkThrottlingIndex)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile).
func (netThrottle) regInput(l backend.Loc, v backend.Value) (string, string) {
	return dwordInput(l, v, ntiLoc)
}

const ntiOff = 0xFFFFFFFF

// The evidence on NetworkThrottlingIndex is GamingPCSetup's (djdallmann,
// https://github.com/djdallmann/GamingPCSetup/blob/master/CONTENT/RESEARCH/NETWORK/README.md,
// "NetworkThrottlingIndex"): xperf screenshots of one Intel adapter's
// NDIS.sys DPC latency, higher with throttling off than at the default 10
// even below the limit, which its author calls unclear ("It's unclear why
// DPC processing latency is much lower when this feature is enabled"),
// and no throughput measurement. The same notes give the range (1-70) and
// what is limited: received packets ("10 packets per millisecond, 10,000
// received packets per second"). What MMCSS does with a value outside
// 1-70 is documented nowhere latlab knows of, so latlab does not say.
const ntiEvidence = "Measured (GamingPCSetup, xperf, one Intel adapter): NDIS.sys DPC latency was higher with throttling off than at the default 10, even below the limit; its author calls this unexplained, and throughput was not measured. Off is not a proven latency win."

func ntiMeaning(n uint64, absent bool) string {
	if absent {
		return "absent: the default 10 applies (" + ntiRate(10) + ", while multimedia plays)"
	}
	if n == ntiOff {
		return "off (0xFFFFFFFF): received packets are not throttled; GamingPCSetup measured higher NDIS.sys DPC latency this way on one Intel adapter (unexplained; throughput not measured)"
	}
	if n < 1 || n > 70 {
		return fmt.Sprintf("%d is outside 1-70, the range GamingPCSetup gives; what MMCSS does with it is not documented", n)
	}
	return ntiRate(n) + ", while multimedia plays"
}

// ntiRate words N received packets per ms as a rate of 1500-byte packets,
// in megabits and megabytes per second: 10 is 10,000 packets a second,
// 15 MB/s, 120 Mbit/s. GamingPCSetup writes the default's rate as "roughly
// ~15Mbps with 1500byte Ethernet MTU": its 15 are the megabytes, so latlab
// gives both, and a reader of the research is not left with two numbers.
func ntiRate(n uint64) string {
	mb := units.Trim(ntiMbit(n)/8, 1) + " MB/s"
	if n == 10 {
		mb += "; GamingPCSetup's \"~15Mbps\" is these megabytes"
	}
	return fmt.Sprintf("%d received packets per ms, about %s Mbit/s (%s) of 1500-byte packets", n, units.Trim(ntiMbit(n), 1), mb)
}

// ntiMbit is N packets per ms of 1500 bytes in Mbit/s.
func ntiMbit(n uint64) float64 { return float64(n) * 1500 * 8 * 1000 / 1e6 }

func parseNTI(s string) (uint32, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "disabled", "none":
		return ntiOff, nil
	}
	n, err := parseUint32(s)
	if err != nil || (n != ntiOff && (n < 1 || n > 70)) {
		return 0, badinput.Errorf("network-throttling-index %q is out of range: accepted 1-70 or off (0xFFFFFFFF)", s)
	}
	return n, nil
}

func (netThrottle) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: netThrottleName}
	if value == "" {
		ex.Text = []string{
			`Multimedia\SystemProfile\NetworkThrottlingIndex (REG_DWORD): while MMCSS-registered multimedia plays, received packets of other network traffic are limited to N per ms.`,
			"Default 10 (absent), valid 1-70, 0xFFFFFFFF turns throttling off. N packets/ms of 1500 bytes is about 12 x N Mbit/s (1.5 x N MB/s): the default's 10,000 packets a second are 120 Mbit/s, the \"~15Mbps\" GamingPCSetup gives in megabytes per second.",
			ntiEvidence + " Needs a reboot.",
			"GamingPCSetup also saw NDIS.sys DPC times differ by vendor: Intel adapters mostly within 1-2 µs, Realtek higher (most within 4 µs, some near 32 µs) with most network optimisations applied.",
			"For what is throttled while multimedia plays, GamingPCSetup points to Mark Russinovich's article \"Multimedia Class Scheduler Service (MMCSS) Vista Multimedia Playback and Network Throughput\"; its own notes give the purpose: keeping network processing from disturbing real-time audio.",
			"Source: https://github.com/djdallmann/GamingPCSetup/blob/master/CONTENT/RESEARCH/NETWORK/README.md",
		}
		return ex, nil
	}
	n, err := parseNTI(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{ntiMeaning(uint64(n), false)}
	data := map[string]any{"value": n, "off": n == ntiOff}
	if n != ntiOff {
		data["packets_per_ms"] = n
		data["mbit_per_s_at_1500_bytes"] = ntiMbit(uint64(n))
	}
	ex.Data = data
	return ex, nil
}

func (k netThrottle) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", ntiLoc, func(v backend.Value) string {
		n, _ := v.Uint()
		return ntiMeaning(n, v.IsAbsent())
	})
	if err != nil {
		return nil, err
	}
	return &Reading{Knob: k.Name(), Items: []Item{it}}, nil
}

func (k netThrottle) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := parseNTI(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"MMCSS reads it at start: takes effect after a reboot"}}
	if n == ntiOff {
		p.Notes = append(p.Notes, "GamingPCSetup measured higher NDIS.sys DPC latency with throttling off on one Intel adapter (unexplained); measure before and after")
	}
	_, err = p.addNumber(env, ntiLoc, uint64(n), backend.TypeDWORD)
	return p, err
}

func (k netThrottle) Vet(target string, l backend.Loc, v backend.Value) error {
	return vetRegNumber(k.Name(), target, l, v, ntiLoc)
}

// Checkup is what the check-up knows of network-throttling-index: its default, how its
// instances are read and the verdict rules.
func (netThrottle) Checkup() Checkup {
	return Checkup{Default: text("10 (absent)"), Rules: netThrottleRules}
}

// Experiment is how a change of network-throttling-index takes effect for latlab try.
func (netThrottle) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "MMCSS reads it when it starts: it takes effect after a reboot"}
}

var netThrottleRules = []Rule{
	// GamingPCSetup's screenshots of one Intel adapter, which its author
	// calls unexplained and which leave throughput out, do not make off
	// more than suspicious: it is a change without evidence of a benefit.
	{ID: "nti-off", Verdict: Suspicious, When: "0xFFFFFFFF (throttling off)",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && n == 0xFFFFFFFF },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote(netThrottleName, "", "Measured (GamingPCSetup")
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set network-throttling-index 10", Why: "back to the default, where GamingPCSetup measured lower NDIS.sys DPC latency on one adapter (needs a reboot; latlab knob revert undoes it)", Benefit: 30}
		}},
	{ID: "nti-ignored", Verdict: Suspicious, When: "outside 1-70 and not off",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && (n < 1 || n > 70) },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote(netThrottleName, "", "valid 1-70")
		}},
	{ID: "nti-default", Verdict: Default, When: "absent or 10",
		Match:  func(c *Case) bool { n, ok := c.N(); return c.Raw.IsAbsent() || (ok && n == 10) },
		Reason: text("while multimedia plays (MMCSS), other received traffic is throttled to " + ntiRate(10)),
		Evidence: func(c *Case) string {
			return quote(netThrottleName, "", "Measured (GamingPCSetup")
		}},
	{ID: "nti-tuned", Verdict: Changed, When: "another value in 1-70",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
