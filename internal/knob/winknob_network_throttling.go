package knob

import (
	"fmt"
	"strings"
)

var ntiLoc = regLoc(`HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`, "NetworkThrottlingIndex")

type netThrottle struct{ windowsKnob }

func (netThrottle) Name() string { return "network-throttling-index" }
func (netThrottle) Summary() string {
	return "MMCSS limit on non-multimedia network packets per ms while multimedia plays (NetworkThrottlingIndex)"
}

const ntiOff = 0xFFFFFFFF

func ntiMeaning(n uint64, absent bool) string {
	if absent {
		return "absent: the default 10 applies (about 120 Mbit/s of 1500-byte packets while multimedia plays)"
	}
	if n == ntiOff {
		return "off (0xFFFFFFFF): no throttling; measured: NDIS DPC latency rose with it off"
	}
	if n < 1 || n > 70 {
		return fmt.Sprintf("%d is outside 1-70: MMCSS ignores it and uses the default 10", n)
	}
	return fmt.Sprintf("%d packets/ms, about %d Mbit/s of 1500-byte packets while multimedia plays", n, n*12)
}

func parseNTI(s string) (uint32, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "disabled", "none":
		return ntiOff, nil
	}
	n, err := parseUint32(s)
	if err != nil || (n != ntiOff && (n < 1 || n > 70)) {
		return 0, inputf("network-throttling-index %q is out of range: accepted 1-70 or off (0xFFFFFFFF)", s)
	}
	return n, nil
}

func (netThrottle) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "network-throttling-index"}
	if value == "" {
		ex.Text = []string{
			`Multimedia\SystemProfile\NetworkThrottlingIndex (REG_DWORD): while MMCSS-registered multimedia plays, other network traffic is limited to N packets per ms.`,
			"Default 10 (absent), valid 1-70, 0xFFFFFFFF turns throttling off. N packets/ms of 1500 bytes is about 12 x N Mbit/s.",
			"Measured (seed research, xperf): turning it off raised NDIS DPC latency; off is not a free latency win. Needs a reboot.",
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
		data["mbit_per_s_at_1500_bytes"] = float64(n) * 1500 * 8 * 1000 / 1e6
	}
	ex.Data = data
	return ex, nil
}

func (k netThrottle) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", ntiLoc, func(v Value) string {
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
		p.Notes = append(p.Notes, "measured: NDIS DPC latency rose with throttling off; measure before and after")
	}
	_, err = p.addNumber(env, ntiLoc, uint64(n), TypeDWORD)
	return p, err
}
