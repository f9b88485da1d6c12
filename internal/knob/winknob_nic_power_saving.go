package knob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// nicPowerSavingName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const nicPowerSavingName = "nic-power-saving"

func init() { register(nicPowerSaving{}) }

// nic-power-saving: the power-saving keywords of a network adapter. The
// GamingPCSetup interrupt moderation measurements (djdallmann,
// CONTENT/RESEARCH/NETWORK/README.md) ran with "Adapter Power Savings
// Off"; PC-Tuning (valleyofdoom, README "Device Manager") says to
// "disable any power-saving features" in an adapter's Advanced tab. The
// keywords differ between drivers, so latlab reads and changes only those
// an adapter declares in its Ndi\Params (what its Advanced tab shows).
// What most guides change is another setting: Device Manager's Power
// Management tab, "Allow the computer to turn off this device to save
// power", the adapter's PnPCapabilities value (Microsoft KB 2740020,
// "Information about power management setting on a network adapter":
// under the adapter's class key, "type 24 ... A value of 24 will prevent
// Windows from turning off the network adapter"; 0, the default, leaves
// power management on). The KB says what it does: Windows never turns an
// adapter off for being idle; the box decides whether the adapter is put
// to sleep (D3) or halted when the computer sleeps.

// powerKeyword is one power-saving keyword latlab knows.
type powerKeyword struct {
	Name, Desc string
}

// powerKeywords: the NDIS standardized ones (*SelectiveSuspend: Microsoft,
// "Standardized INF Keywords for NDIS Selective Suspend",
// learn.microsoft.com/windows-hardware/drivers/network/standardized-inf-keywords-for-ndis-selective-suspend;
// *DeviceSleepOnDisconnect: "Standardized INF Keywords for Power
// Management") and the vendor keywords of the Intel and Realtek INFs for
// the same features. 0 turns each off.
var powerKeywords = []powerKeyword{
	{"*EEE", "Energy-Efficient Ethernet (802.3az): link sleeps idle"},
	{"AdvancedEEE", "Realtek's Advanced EEE"},
	{"EnableGreenEthernet", "Realtek's Green Ethernet: lower power on short cables"},
	{"GigaLite", "Realtek's Giga Lite: 500 Mbit/s to save power"},
	{"PowerSavingMode", "Realtek's Power Saving Mode"},
	{"*SelectiveSuspend", "selective suspend: an idle adapter powers down"},
	{"*DeviceSleepOnDisconnect", "device sleep on disconnect (NDIS)"},
	{"ULPMode", "Intel's Ultra Low Power mode"},
	{"SipsEnabled", "Intel's System Idle Power Saver"},
	{"ReduceSpeedOnPowerDown", "Intel's reduce link speed during standby"},
	{"EnableDynamicPowerGating", "Intel's dynamic power gating"},
}

// pnpCapabilities is the adapter's REG_DWORD behind Device Manager's
// "Allow the computer to turn off this device to save power"; pnpNoTurnOff
// (24, 0x18) is the value KB 2740020 gives to clear the box. The KB's
// further combinations (0x100 all three boxes checked, 0x110 only this
// one, 0x118 this one cleared) agree: the box is clear when both bits of
// 0x18 are set.
const (
	pnpCapabilities = "PnPCapabilities"
	pnpNoTurnOff    = 0x18
)

// pnpShort names the setting in a reading's on/off lists.
const pnpShort = "Device Manager turn-off"

// pnpDesc is what the Power Management tab calls the setting.
const pnpDesc = "Allow the computer to turn off this device to save power (PnPCapabilities)"

func powerKw(name string) (powerKeyword, bool) {
	for _, k := range powerKeywords {
		if strings.EqualFold(k.Name, strings.TrimSpace(name)) {
			return k, true
		}
	}
	return powerKeyword{}, false
}

type nicPowerSaving struct{ windowsKnob }

func (nicPowerSaving) Name() string { return nicPowerSavingName }

// Selectors are the selector flags nicPowerSaving reads.
func (nicPowerSaving) Selectors() []string { return []string{SelAdapter} }
func (nicPowerSaving) Summary() string {
	return "power-saving features of a network adapter (*EEE, Green Ethernet, selective suspend...), those it declares"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): the keyword as KEYWORD=VALUE.
func (nicPowerSaving) regInput(l backend.Loc, v backend.Value) (string, string) {
	return l.Name + "=" + v.String(), ""
}

// powerRequest is a parsed value: off (every declared keyword to 0),
// default (every declared keyword to its Ndi\Params default), or single
// keywords.
type powerRequest struct {
	all string // "off" or "default"
	kvs []kv
}

func parsePower(value string) (powerRequest, error) {
	switch v := strings.ToLower(strings.TrimSpace(value)); v {
	case "off", "default":
		return powerRequest{all: v}, nil
	}
	var names []string
	for _, k := range powerKeywords {
		names = append(names, k.Name)
	}
	names = append(names, pnpCapabilities)
	accepted := "accepted off, default, or KEYWORD=N with KEYWORD one of " + strings.Join(names, ", ")
	var r powerRequest
	for _, part := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' }) {
		name, val, ok := strings.Cut(part, "=")
		k, known := powerKw(name)
		if strings.EqualFold(strings.TrimSpace(name), pnpCapabilities) {
			k, known = powerKeyword{pnpCapabilities, pnpDesc}, true
		}
		if !ok || !known {
			return powerRequest{}, badinput.Errorf("invalid nic-power-saving setting %q: %s", part, accepted)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 32)
		if err != nil {
			return powerRequest{}, badinput.Errorf("%s=%s is not a number: the adapter's Ndi\\Params values are numbers", k.Name, val)
		}
		if slices.ContainsFunc(r.kvs, func(x kv) bool { return x.key == k.Name }) {
			return powerRequest{}, badinput.Errorf("nic-power-saving %q sets %s twice: give it once", value, k.Name)
		}
		r.kvs = append(r.kvs, kv{k.Name, n})
	}
	if len(r.kvs) == 0 {
		return powerRequest{}, badinput.Errorf("no nic-power-saving setting given: %s", accepted)
	}
	return r, nil
}

func (nicPowerSaving) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: nicPowerSavingName}
	if value == "" {
		ex.Text = []string{"Power-saving keywords of network adapters (REG_SZ under the class key; 0 off):"}
		for _, k := range powerKeywords {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-24s %s", k.Name, k.Desc))
		}
		ex.Text = append(ex.Text,
			"latlab reads and sets only the keywords an adapter declares in Ndi\\Params.",
			"*SelectiveSuspend: Microsoft, \"Standardized INF Keywords for NDIS Selective",
			"  Suspend\": an idle adapter is suspended (D3) and woken on activity.",
			"Device Manager's Power Management tab, \"Allow the computer to turn off this",
			"  device to save power\", is PnPCapabilities (REG_DWORD, the adapter's class",
			"  key); Microsoft KB 2740020: 24 (0x18) clears it, 0 (the default) leaves",
			"  power management on. Per the KB, Windows never turns an adapter off for",
			"  idling: the box decides whether the computer's sleep puts the adapter to",
			"  sleep (D3) or halts it. off sets it, with the keywords; default sets 0.",
			"Bench: GamingPCSetup (djdallmann) measured with \"Adapter Power Savings Off\".",
			"  PC-Tuning (valleyofdoom) says to \"disable any power-saving features\".",
			"  Neither measured an adapter's power saving on against off.",
			"Takes effect when the adapter restarts.",
			"Values: off, default (the driver's), KEYWORD=N; e.g.",
			"  latlab knob set nic-power-saving off --adapter 7")
		return ex, nil
	}
	r, err := parsePower(value)
	if err != nil {
		return nil, err
	}
	switch r.all {
	case "off":
		ex.Text = []string{"off: every power-saving keyword the adapter declares set to 0, where its Ndi\\Params offers 0"}
	case "default":
		ex.Text = []string{"default: every power-saving keyword the adapter declares set to its Ndi\\Params default"}
	}
	for _, s := range r.kvs {
		k, _ := powerKw(s.key)
		state := "on"
		if s.n == 0 {
			state = "off"
		}
		ex.Text = append(ex.Text, fmt.Sprintf("%s=%d: %s %s", k.Name, s.n, k.Desc, state))
	}
	return ex, nil
}

// declaredPower lists the power-saving keywords the adapter declares.
func declaredPower(env *Env, a adapter) ([]NdiParam, error) {
	var out []NdiParam
	for _, k := range powerKeywords {
		np, err := readNdiParam(env, a.Key, k.Name)
		if err != nil {
			return nil, err
		}
		if np.Declared {
			out = append(out, np)
		}
	}
	return out, nil
}

// optName is the Advanced tab's name of an enum value, or "".
func optName(np NdiParam, v string) string {
	for _, o := range np.Enum {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && sameNumber(o.Value, n) {
			return o.Name
		}
	}
	return ""
}

func (k nicPowerSaving) Get(env *Env, sel Selector) (*Reading, error) {
	as, err := selectAdapters(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, a := range as {
		nps, err := declaredPower(env, a)
		if err != nil {
			return nil, err
		}
		pv, err := env.read(regLoc(a.Key, pnpCapabilities))
		if err != nil {
			return nil, err
		}
		if len(nps) == 0 && pv.IsAbsent() {
			if sel.Adapter != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("%s declares none of latlab's power-saving keywords in Ndi\\Params", a.Name))
			}
			continue
		}
		it := Item{Target: a.String()}
		offered := map[string]NdiParam{}
		var parts, on, off []string
		for _, np := range nps {
			offered[np.Keyword] = np
			l := regLoc(a.Key, np.Keyword)
			v, err := env.read(l)
			if err != nil {
				return nil, err
			}
			cur := np.Default
			if !v.IsAbsent() {
				cur = strings.TrimSpace(v.String())
				parts = append(parts, np.Keyword+"="+cur)
				it.Extra = append(it.Extra, Change{Loc: l, Old: v, New: v})
			}
			desc := np.Keyword
			if n := optName(np, cur); n != "" {
				desc += " " + n
			}
			if cur == "0" {
				off = append(off, desc)
			} else {
				on = append(on, desc)
			}
		}
		if !pv.IsAbsent() {
			parts = append(parts, pnpCapabilities+"="+pv.String())
			it.Extra = append(it.Extra, Change{Loc: regLoc(a.Key, pnpCapabilities), Old: pv, New: pv})
		}
		if n, err := parseUint32(pv.String()); err == nil && n&pnpNoTurnOff == pnpNoTurnOff {
			off = append(off, pnpShort)
		} else {
			on = append(on, pnpShort)
		}
		switch {
		case len(on) == 0:
			it.Meaning = "power saving off: " + strings.Join(off, ", ")
		case len(off) == 0:
			it.Meaning = "power saving on: " + strings.Join(on, ", ")
		default:
			it.Meaning = "power saving partly on: " + strings.Join(on, ", ") + "; off: " + strings.Join(off, ", ")
		}
		it.Value = strings.Join(parts, " ")
		if it.Value == "" {
			it.Value = "(no values stored: driver defaults)"
		}
		it.Detail = map[string]any{"ndi_params": offered}
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k nicPowerSaving) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, badinput.Errorf("nic-power-saving needs --adapter NAME|INDEX (latlab knob get nic-power-saving lists them)")
	}
	a, err := findAdapter(env, sel.Adapter)
	if err != nil {
		return nil, err
	}
	req, err := parsePower(value)
	if err != nil {
		return nil, err
	}
	nps, err := declaredPower(env, a)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{"takes effect when the adapter restarts (disable and enable it, or reboot)"}}
	set := func(np NdiParam, n uint64) error {
		if err := np.CheckAgainst(a.Name, int64(n)); err != nil {
			return err
		}
		_, err := p.addNumber(env, regLoc(a.Key, np.Keyword), n, backend.TypeSZ)
		return err
	}
	for _, np := range nps {
		switch req.all {
		case "off":
			if !np.Allows(0) {
				p.Notes = append(p.Notes, fmt.Sprintf("%s left alone: its Ndi\\Params offers no 0 (accepts %s)", np.Keyword, np.Accepted()))
				continue
			}
			if err := set(np, 0); err != nil {
				return nil, err
			}
		case "default":
			n, err := strconv.ParseUint(strings.TrimSpace(np.Default), 10, 32)
			if err != nil {
				p.Notes = append(p.Notes, fmt.Sprintf("%s left alone: its Ndi\\Params states no numeric default", np.Keyword))
				continue
			}
			if err := set(np, n); err != nil {
				return nil, err
			}
		}
	}
	// Device Manager's box: off clears it (keeping the value's other bits),
	// default sets KB 2740020's default 0 where a value is stored.
	pnp := regLoc(a.Key, pnpCapabilities)
	pv, err := env.read(pnp)
	if err != nil {
		return nil, err
	}
	old, _ := parseUint32(pv.String()) // absent: 0
	switch req.all {
	case "off":
		if _, err := p.addNumber(env, pnp, uint64(old|pnpNoTurnOff), backend.TypeDWORD); err != nil {
			return nil, err
		}
	case "default":
		if !pv.IsAbsent() {
			if _, err := p.addNumber(env, pnp, 0, backend.TypeDWORD); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range req.kvs {
		if s.key == pnpCapabilities {
			if _, err := p.addNumber(env, pnp, s.n, backend.TypeDWORD); err != nil {
				return nil, err
			}
			continue
		}
		i := slices.IndexFunc(nps, func(np NdiParam) bool { return strings.EqualFold(np.Keyword, s.key) })
		if i < 0 {
			var ds []string
			for _, np := range nps {
				ds = append(ds, np.Keyword)
			}
			if len(ds) == 0 {
				return nil, badinput.Errorf("%q does not declare %s in its Ndi\\Params: it declares none of latlab's power-saving keywords (PnPCapabilities=N and off still apply)", a.Name, s.key)
			}
			return nil, badinput.Errorf("%q does not declare %s in its Ndi\\Params: it declares %s", a.Name, s.key, strings.Join(ds, ", "))
		}
		if err := set(nps[i], s.n); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (k nicPowerSaving) Vet(target string, l backend.Loc, v backend.Value) error {
	var names []string
	for _, p := range powerKeywords {
		names = append(names, p.Name)
	}
	names = append(names, pnpCapabilities)
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// VetLive checks that the class key is the target adapter's: Vet takes
// any adapter's.
func (k nicPowerSaving) VetLive(env *Env, target string, l backend.Loc, v backend.Value) error {
	return vetAdapterLive(env, k.Name(), target, l, v)
}

// Checkup is what the check-up knows of nic-power-saving: its default, how its
// instances are read and the verdict rules.
func (nicPowerSaving) Checkup() Checkup {
	return Checkup{Default: text("the driver's Ndi\\Params default"), Rules: nicPowerSavingRules}
}

// Experiment is how a change of nic-power-saving takes effect for latlab try.
func (nicPowerSaving) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: ProbeUDP}
}

var nicPowerSavingRules = []Rule{
	{ID: "power-none", Verdict: Default, When: "no adapter declares a power-saving keyword",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares a power-saving keyword latlab knows")},
	{ID: "power-default", Verdict: Default, When: "nothing stored, or every keyword at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return len(c.Extra) == 0 || (known && len(diff) == 0) },
		Reason: func(c *Case) string { return c.Meaning + ", the driver's defaults" }},
	{ID: "power-off", Verdict: Changed, When: "every declared keyword off",
		Match:    func(c *Case) bool { return strings.HasPrefix(c.Meaning, "power saving off") },
		Reason:   func(c *Case) string { return c.Meaning + ", as on the GamingPCSetup test bench" },
		Evidence: func(c *Case) string { return quote(nicPowerSavingName, "", "Bench:") }},
	{ID: "power-tuned", Verdict: Changed, When: "another combination",
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
