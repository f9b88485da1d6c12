package knob_test

import (
	"strconv"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

// The I210 as a PCI device, and the bench keywords its INF declares
// (GamingPCSetup's bench: "MSI Mode", "RX & TX buffer 768", "Adapter
// Power Savings Off").
const (
	i210Instance = `PCI\VEN_8086&DEV_1533&SUBSYS_00018086&REV_03\4&2A3B4C5D&0&00E4`
	msiKey       = knob.EnumKey + `\` + i210Instance + `\Device Parameters\Interrupt Management\MessageSignaledInterruptProperties`
)

// benchI210 is the I210 declaring the buffer and power keywords, with the
// given values stored (PnPCapabilities a REG_DWORD, the others keywords).
func benchI210(stored map[string]string) []suite.Value {
	vs := i210Values()
	sz := backend.SZ
	for _, kw := range []string{"*ReceiveBuffers", "*TransmitBuffers"} {
		p := i210 + `\Ndi\Params\` + kw
		vs = append(vs, suite.Reg(p, "type", sz("int")), suite.Reg(p, "default", sz("256")), suite.Reg(p, "min", sz("80")),
			suite.Reg(p, "max", sz("2048")), suite.Reg(p, "step", sz("8")))
	}
	for _, kw := range []string{"*EEE", "SipsEnabled"} {
		p := i210 + `\Ndi\Params\` + kw
		vs = append(vs, suite.Reg(p, "type", sz("enum")), suite.Reg(p, "default", sz("1")),
			suite.Reg(p+`\Enum`, "0", sz("Disabled")), suite.Reg(p+`\Enum`, "1", sz("Enabled")))
	}
	return append(vs, storedKeywords(stored)...)
}

func storedKeywords(stored map[string]string) []suite.Value {
	var vs []suite.Value
	for n, v := range stored {
		if n == "PnPCapabilities" {
			d, _ := strconv.ParseUint(v, 10, 32)
			vs = append(vs, suite.Reg(i210, n, backend.DWORD(uint32(d))))
			continue
		}
		vs = append(vs, i210Keyword(n, v))
	}
	return vs
}

func TestNICBuffersConforms(t *testing.T) {
	suite.RunRegistry(t, suite.Registry{
		Knob:    "nic-buffers",
		Build:   22631,
		Sel:     knob.Selector{Adapter: "0007"},
		Values:  benchI210(map[string]string{"*ReceiveBuffers": "256"}),
		Explain: []string{"768", "rx=512", "tx=512", "*ReceiveBuffers=768,*TransmitBuffers=768"},
		Set: []suite.RegSet{
			{Value: "768", Values: []suite.Value{i210Keyword("*ReceiveBuffers", "768"), i210Keyword("*TransmitBuffers", "768")}},
			{Value: "tx=512", Values: []suite.Value{i210Keyword("*ReceiveBuffers", "256"), i210Keyword("*TransmitBuffers", "512")}},
			{Value: "rx=256", NoChange: true},
		},
		Bad: map[string]string{
			"rx=-1":     "is not a positive whole number",
			"rx=1,rx=2": "sets *ReceiveBuffers twice",
			"size=1":    "accepted N (both), rx=N, tx=N or *ReceiveBuffers=N,*TransmitBuffers=N",
			"":          "no nic-buffers setting given",
			"rx=4096":   "2048",
		},
		Foreign: []suite.Place{
			suite.RegPlace(i210, "DriverDesc", backend.SZ("x"), "I210"),
			suite.RegPlace(i210+`\Ndi\Params\*ReceiveBuffers`, "default", backend.SZ("768"), "I210"),
			suite.RegPlace(i210, "*ReceiveBuffers", backend.SZ("256"), ""),
		},
		Rules: []suite.RegRule{
			{Rule: "buffers-default", Reason: "256 receive buffers"},
			{Values: storedKeywords(map[string]string{"*ReceiveBuffers": "4096"}), Rule: "buffers-out-of-range", Reason: "*ReceiveBuffers=4096 is outside what the adapter declares (80-2048 in steps of 8)"},
			{Values: storedKeywords(map[string]string{"*ReceiveBuffers": "768", "*TransmitBuffers": "768"}), Rule: "buffers-tuned",
				Reason: "changed from the driver's default: *ReceiveBuffers=768 (default 256), *TransmitBuffers=768 (default 256)"},
			{Env: noAdapters, Rule: "buffers-none", Reason: "no network adapter declares *ReceiveBuffers"},
		},
	})
}

func TestNICPowerSavingConforms(t *testing.T) {
	suite.RunRegistry(t, suite.Registry{
		Knob:    "nic-power-saving",
		Build:   22631,
		Sel:     knob.Selector{Adapter: "0007"},
		Values:  benchI210(nil),
		Explain: []string{"off", "default", "*EEE=0"},
		Set: []suite.RegSet{
			{Value: "off", Values: []suite.Value{i210Keyword("*EEE", "0"), i210Keyword("SipsEnabled", "0"), suite.Reg(i210, "PnPCapabilities", backend.DWORD(24))}},
			{Value: "*EEE=0", Values: []suite.Value{i210Keyword("*EEE", "0"), suite.Reg(i210, "SipsEnabled", backend.Absent)}},
		},
		Bad: map[string]string{
			"*EEE=x":        "is not a number",
			"*EEE=0,*EEE=1": "sets *EEE twice",
			"sleep":         "accepted off, default, or KEYWORD=N",
			"":              "no nic-power-saving setting given",
		},
		Foreign: []suite.Place{
			suite.RegPlace(i210, "DriverDesc", backend.SZ("x"), "I210"),
			suite.RegPlace(i210+`\Ndi\Params\*EEE`, "default", backend.SZ("0"), "I210"),
			suite.RegPlace(i210, "*EEE", backend.SZ("0"), ""),
		},
		Rules: []suite.RegRule{
			{Rule: "power-default", Reason: "power saving on: *EEE Enabled, SipsEnabled Enabled, Device Manager turn-off, the driver's defaults"},
			{Values: storedKeywords(map[string]string{"*EEE": "0", "SipsEnabled": "0", "PnPCapabilities": "24"}), Rule: "power-off",
				Reason: "power saving off: *EEE Disabled, SipsEnabled Disabled, Device Manager turn-off, as on the GamingPCSetup test bench"},
			{Values: storedKeywords(map[string]string{"*EEE": "0"}), Rule: "power-tuned", Reason: "changed from the driver's default: *EEE=0 (default 1)"},
			{Env: noAdapters, Rule: "power-none", Reason: "no network adapter declares a power-saving keyword"},
		},
	})
}

func TestMSIModeConforms(t *testing.T) {
	msi := func(v backend.Value) []suite.Value { return []suite.Value{suite.Reg(msiKey, "MSISupported", v)} }
	suite.RunRegistry(t, suite.Registry{
		Knob:    "msi-mode",
		Build:   22631,
		Sel:     knob.Selector{Adapter: "0007"},
		Values:  append(i210Values(), suite.Reg(i210, "DeviceInstanceID", backend.SZ(i210Instance)), suite.Reg(msiKey, "MSISupported", backend.DWORD(1))),
		Explain: []string{"on", "off", "1", "0"},
		Set: []suite.RegSet{
			{Value: "off", Values: msi(backend.DWORD(0))},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{"msix": "accepted on (MSISupported=1) or off (0, line-based)", "": "accepted on (MSISupported=1) or off"},
		Foreign: []suite.Place{
			suite.RegPlace(msiKey, "MessageNumberLimit", backend.DWORD(1), "I210"),
			suite.RegPlace(knob.EnumKey+`\PCI\X\Y\Device Parameters`, "MSISupported", backend.DWORD(1), "I210"),
			suite.RegPlace(msiKey, "MSISupported", backend.SZ("1; x"), "I210"),
			suite.RegPlace(msiKey, "MSISupported", backend.DWORD(1), ""),
		},
		Rules: []suite.RegRule{
			{Rule: "msi-on", Reason: "as on the GamingPCSetup test bench"},
			{Values: msi(backend.DWORD(0)), Rule: "msi-off", Reason: "RSS needs MSI-X"},
			{Values: msi(backend.DWORD(2)), Rule: "msi-other", Reason: "not 0 or 1"},
			{Values: append(msi(backend.Absent), suite.Reg(msiKey, "", backend.Absent), suite.Reg(knob.EnumKey+`\`+i210Instance+`\Device Parameters\Interrupt Management`, "", backend.Absent)),
				Rule: "msi-absent", Reason: "the driver's INF did not ask for MSI"},
			{Values: []suite.Value{suite.Reg(i210, "DeviceInstanceID", backend.Absent)}, Rule: "msi-none", Reason: "no network adapter with a PCI device"},
		},
	})
}
