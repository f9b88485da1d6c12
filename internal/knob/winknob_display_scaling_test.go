package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	graphicsKey = `HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers\Configuration`
	// A monitor's configuration id: its EDID names and serial number.
	displayID = `GSM5B7F3000ABCD_20_07E4_3C^9F0AD09F66E4D6E05C6EBA36C2DA59D3`
	scaleKey  = graphicsKey + `\` + displayID + `\00\00`
)

func scaling(n uint32) suite.Value { return suite.Reg(scaleKey, "Scaling", backend.DWORD(n)) }

// activePaths is QueryDisplayConfig's answer: one active path per
// scaling.
func activePaths(scalings ...uint32) func(*testing.T, *knob.Env) {
	return func(t *testing.T, e *knob.Env) {
		e.Display = func() ([]knob.DisplayPath, error) {
			var ps []knob.DisplayPath
			for _, s := range scalings {
				sc, _ := knob.LookupScaling(s)
				ps = append(ps, knob.DisplayPath{Scaling: s, ScalingName: sc.Name, RefreshHz: 144, Active: true})
			}
			return ps, nil
		}
	}
}

func TestDisplayScalingConforms(t *testing.T) {
	suite.RunRegistry(t, suite.Registry{
		Knob:    "display-scaling",
		Build:   22631,
		Values:  []suite.Value{scaling(4)},
		Explain: []string{"1", "identity", "2", "centered", "4", "128"},
		Set: []suite.RegSet{
			{Value: "2", Values: []suite.Value{scaling(2)}},
			{Value: "identity", Values: []suite.Value{scaling(1)}},
			{Value: "aspect-ratio", NoChange: true},
		},
		Bad: map[string]string{
			"6":          "accepted 1 identity",
			"no scaling": `GPU control panels' "No scaling" is 2 centered`,
			"":           "accepted 1 identity",
		},
		Foreign: []suite.Place{
			suite.RegPlace(graphicsKey+`\a\b\c\d`, "Scaling", backend.DWORD(1), ""),
			suite.RegPlace(graphicsKey+`\SIM\00`, "Scaling", backend.DWORD(1), "OTHER"),
			suite.RegPlace(scaleKey, "Scaling", backend.Absent, ""),
			suite.RegPlace(scaleKey, "PrimSurfSize.cx", backend.DWORD(1920), ""),
			suite.RegPlace(scaleKey, "Scaling", backend.SZ("1; x"), ""),
		},
		Rules: []suite.RegRule{
			{Rule: "display-default", Reason: "4 aspect-ratio"},
			{Values: []suite.Value{scaling(2)}, Rule: "display-chosen", Reason: "2 centered"},
			{Values: []suite.Value{scaling(7)}, Rule: "display-unknown-value", Reason: "not a DISPLAYCONFIG_SCALING value"},
			{Values: []suite.Value{scaling(1)}, Env: activePaths(4), Rule: "display-identity-fallback", Reason: "identity is requested but an active display uses aspect-ratio"},
			// PC-Tuning, "What Is Identity Scaling and How Can You Use
			// It?" (docs/research.md): at the native resolution (and at a
			// CRU-made one) every request came out as identity (1).
			{Values: []suite.Value{scaling(2)}, Env: activePaths(1), Rule: "display-native",
				Reason: "requested 2 centered: unscaled, centred: what GPU control panels call \"No scaling\", but every active path uses identity: when the monitor is sent the desktop's resolution (the native one, or one made with CRU) any scaling request becomes identity, so this one has no effect here"},
			{Values: []suite.Value{suite.Reg(scaleKey, "Scaling", backend.Absent)}, Rule: "display-none", Reason: "no configuration"},
		},
	})
}
