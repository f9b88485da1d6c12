package doctor

import (
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"strconv"
	"strings"
)

// The fixture's I210 as a PCI device, and the bench keywords its INF
// declares (GamingPCSetup's bench: "MSI Mode", "RX & TX buffer 768",
// "Adapter Power Savings Off").
const i210Instance = `PCI\VEN_8086&DEV_1533&SUBSYS_00018086&REV_03\4&2A3B4C5D&0&00E4`

func msiValue(v *backend.Value) win {
	return func(_ *knob.Env, reg, _ *knobtest.Mem) {
		reg.Set(adapterKey, "DeviceInstanceID", backend.SZ(i210Instance))
		key := knob.EnumKey + `\` + i210Instance + `\Device Parameters\Interrupt Management\MessageSignaledInterruptProperties`
		if v == nil {
			reg.CreateKey(knob.EnumKey + `\` + i210Instance + `\Device Parameters`)
			return
		}
		reg.Set(key, "MSISupported", *v)
	}
}

func valuePtr(v backend.Value) *backend.Value { return &v }

// benchKeywords declares the buffer and power keywords on the I210 and
// stores the given values.
func benchKeywords(stored map[string]string) win {
	return func(_ *knob.Env, reg, _ *knobtest.Mem) {
		for kw, def := range map[string]string{"*ReceiveBuffers": "256", "*TransmitBuffers": "256"} {
			p := adapterKey + `\Ndi\Params\` + kw
			reg.Set(p, "type", backend.SZ("int"))
			reg.Set(p, "default", backend.SZ(def))
			reg.Set(p, "min", backend.SZ("80"))
			reg.Set(p, "max", backend.SZ("2048"))
			reg.Set(p, "step", backend.SZ("8"))
		}
		ndiEnum(reg.Set, adapterKey, "*EEE", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
		ndiEnum(reg.Set, adapterKey, "SipsEnabled", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
		for n, v := range stored {
			if n == "PnPCapabilities" { // REG_DWORD, not a keyword
				d, _ := strconv.ParseUint(v, 10, 32)
				reg.Set(adapterKey, n, backend.DWORD(uint32(d)))
				continue
			}
			reg.Set(adapterKey, n, backend.SZ(v))
		}
	}
}

func init() {
	ruleCases = append(ruleCases,
		ruleCase{rule: "msi-none", knob: "msi-mode", verd: knob.Default, reason: "no network adapter with a PCI device"},
		ruleCase{rule: "msi-off", knob: "msi-mode", verd: knob.Suspicious, reason: "RSS needs MSI-X", win: msiValue(valuePtr(backend.DWORD(0)))},
		ruleCase{rule: "msi-on", knob: "msi-mode", verd: knob.Default, reason: "as on the GamingPCSetup test bench", win: msiValue(valuePtr(backend.DWORD(1)))},
		ruleCase{rule: "msi-absent", knob: "msi-mode", verd: knob.Default, reason: "the driver's INF did not ask for MSI", win: msiValue(nil)},
		ruleCase{rule: "msi-other", knob: "msi-mode", verd: knob.Suspicious, reason: "not 0 or 1", win: msiValue(valuePtr(backend.DWORD(2)))},

		ruleCase{rule: "buffers-none", knob: "nic-buffers", verd: knob.Default, reason: "no network adapter declares *ReceiveBuffers"},
		ruleCase{rule: "buffers-out-of-range", knob: "nic-buffers", verd: knob.Suspicious, reason: "*ReceiveBuffers=4096 is outside what the adapter declares (80-2048 in steps of 8)",
			win: benchKeywords(map[string]string{"*ReceiveBuffers": "4096"})},
		ruleCase{rule: "buffers-default", knob: "nic-buffers", verd: knob.Default, reason: "256 receive buffers",
			win: benchKeywords(map[string]string{"*ReceiveBuffers": "256"})},
		ruleCase{rule: "buffers-tuned", knob: "nic-buffers", verd: knob.Changed, reason: "changed from the driver's default: *ReceiveBuffers=768 (default 256), *TransmitBuffers=768 (default 256)",
			win: benchKeywords(map[string]string{"*ReceiveBuffers": "768", "*TransmitBuffers": "768"})},

		ruleCase{rule: "power-none", knob: "nic-power-saving", verd: knob.Default, reason: "no network adapter declares a power-saving keyword"},
		ruleCase{rule: "power-default", knob: "nic-power-saving", verd: knob.Default, reason: "power saving on: *EEE Enabled, SipsEnabled Enabled, Device Manager turn-off, the driver's defaults",
			win: benchKeywords(nil)},
		ruleCase{rule: "power-off", knob: "nic-power-saving", verd: knob.Changed, reason: "power saving off: *EEE Disabled, SipsEnabled Disabled, Device Manager turn-off, as on the GamingPCSetup test bench",
			win: benchKeywords(map[string]string{"*EEE": "0", "SipsEnabled": "0", "PnPCapabilities": "24"})},
		ruleCase{rule: "power-tuned", knob: "nic-power-saving", verd: knob.Changed, reason: "changed from the driver's default: *EEE=0 (default 1)",
			win: benchKeywords(map[string]string{"*EEE": "0"})},
	)
}

// globalRSSOff is a machine whose MSFT_NetOffloadGlobalSetting says RSS
// is disabled globally, in the JSON PowerShell prints in any language.
func globalRSSOff(env *knob.Env, _, _ *knobtest.Mem) {
	env.RSSState = func() (*knob.RSSState, error) {
		g, err := knob.ParseOffloadGlobal(strings.NewReader(`{"ReceiveSideScaling":0,"ReceiveSegmentCoalescing":1}`))
		return &knob.RSSState{Offload: g}, err
	}
}

func init() {
	ruleCases = append(ruleCases, ruleCase{rule: "rss-global-off", knob: "rss", verd: knob.Suspicious,
		reason: "RSS is disabled globally (MSFT_NetOffloadGlobalSetting ReceiveSideScaling)", win: globalRSSOff})
}
