package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

// qosPolicy is a policy "voice" for game.exe's UDP with DSCP dscp, as the
// Group Policy editor writes it; nla adds "Do not use NLA", without which
// a machine outside a domain ignores it.
func qosPolicy(dscp string, nla bool) []suite.Value {
	key := knob.QoSKey + `\voice`
	var vs []suite.Value
	for n, v := range map[string]string{"Version": "1.0", "Application Name": "game.exe", "Protocol": "UDP", "Local Port": "*",
		"Local IP": "*", "Local IP Prefix Length": "*", "Remote Port": "*", "Remote IP": "*", "Remote IP Prefix Length": "*",
		"DSCP Value": dscp, "Throttle Rate": "-1"} {
		vs = append(vs, suite.Reg(key, n, backend.SZ(v)))
	}
	if nla {
		vs = append(vs, suite.Reg(knob.NLAKey, "Do not use NLA", backend.SZ("1")))
	}
	return vs
}

// withoutPolicy removes the values vs set, then their keys.
func withoutPolicy(vs []suite.Value) []suite.Value {
	var out []suite.Value
	for _, v := range vs {
		out = append(out, suite.Value{Loc: v.Loc, Value: backend.Absent})
	}
	return append(out, suite.Reg(knob.QoSKey+`\voice`, "", backend.Absent))
}

func TestQoSDSCPConforms(t *testing.T) {
	policy := knob.QoSKey + `\latlab a.exe`
	suite.RunRegistry(t, suite.Registry{
		Knob:    "qos-dscp",
		Build:   22631,
		Sel:     knob.Selector{App: "a.exe", Protocol: "udp"},
		Values:  qosPolicy("46", true),
		Explain: []string{"46", "0", "63"},
		Set: []suite.RegSet{
			{Value: "46", Values: []suite.Value{
				suite.Reg(policy, "DSCP Value", backend.SZ("46")), suite.Reg(policy, "Application Name", backend.SZ("a.exe")),
				suite.Reg(policy, "Protocol", backend.SZ("UDP"))}},
			{Value: "0", Values: []suite.Value{suite.Reg(policy, "DSCP Value", backend.SZ("0"))}},
		},
		Bad: map[string]string{"64": "accepted 0-63", "ef": "accepted 0-63", "": "accepted 0-63"},
		Foreign: []suite.Place{
			suite.RegPlace(knob.QoSKey+`\b`, "DSCP Value", backend.SZ("46"), "a"),
			suite.RegPlace(knob.QoSKey+`\a\..\b`, "DSCP Value", backend.SZ("46"), `a\..\b`),
			{Loc: backend.Loc{Backend: backend.BackendRegistry, Path: knob.QoSKey + `\a`, Name: "Link"}, Value: backend.Value{Type: backend.TypeLink, Data: []byte{0, 0}}, Target: "a"},
			suite.RegPlace(`HKLM\SOFTWARE`, "", backend.Absent, "a"),
			suite.RegPlace(knob.NLAKey, "Other", backend.SZ("1"), "a"),
		},
		Rules: []suite.RegRule{
			{Rule: "qos-policy", Reason: "DSCP 46 (EF) for game.exe UDP"},
			{Values: withoutPolicy(qosPolicy("46", true)), Rule: "qos-none", Reason: "no QoS policy"},
			{Values: qosPolicy("99", true), Rule: "qos-ignored", Reason: `DSCP Value "99" is not 0-63: the policy is ignored`},
			{Values: []suite.Value{suite.Reg(knob.NLAKey, "Do not use NLA", backend.Absent)}, Rule: "qos-no-nla", Reason: `"Do not use NLA" is not set`},
		},
	})
}
