package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const prioKey = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`

func prio(v backend.Value) suite.Value { return suite.Reg(prioKey, "Win32PrioritySeparation", v) }

func TestPrioritySeparationConforms(t *testing.T) {
	suite.RunRegistry(t, suite.Registry{
		Knob:    "win32-priority-separation",
		Build:   22631,
		Values:  []suite.Value{prio(backend.DWORD(2))},
		Explain: []string{"0x2", "0x26", "0xFFFFFF26", "long,fixed,3:1", "0x18"},
		Set: []suite.RegSet{
			{Value: "0x26", Values: []suite.Value{prio(backend.DWORD(0x26))}},
			{Value: "long,fixed", Values: []suite.Value{prio(backend.DWORD(0x18))}},
			{Value: "long,fixed,3:1", Values: []suite.Value{prio(backend.DWORD(0x1A))}},
			{Value: "2", NoChange: true},
		},
		Bad: map[string]string{
			"fast":        `invalid win32-priority-separation "fast": want a number (0x26, 38) or a description (short,variable,3:1)`,
			"0x1FFFFFFFF": "want a number",
			"":            "want a number",
		},
		Foreign: []suite.Place{
			suite.RegPlace(prioKey, "Other", backend.DWORD(1), ""),
			suite.RegPlace(`HKLM\SYSTEM`, "", backend.Absent, ""),
			suite.RegPlace(prioKey+`\Sub`, "", backend.Absent, ""),
			suite.RegPlace(prioKey, "Win32PrioritySeparation", backend.SZ("38; x"), ""),
			suite.RegPlace(prioKey, "Win32PrioritySeparation", backend.DWORD(2), "x"),
		},
		Rules: []suite.RegRule{
			{Rule: "prisep-default", Reason: "the client default: 0x2 = short, variable quanta, foreground 18 units (93.75 ms), background 6 units (31.25 ms)"},
			{Values: []suite.Value{prio(backend.Absent)}, Rule: "prisep-absent", Reason: "built-in default; Windows ships the value 0x2 = short, variable"},
			{Values: []suite.Value{prio(backend.DWORD(0x126))}, Rule: "prisep-high-bits", Reason: "0x126 acts as 0x26"},
			{Values: []suite.Value{prio(backend.DWORD(0x26))}, Rule: "prisep-same-class", Reason: "0x26 = short, variable quanta, foreground 18 units (93.75 ms), background 6 units (31.25 ms): the same quanta as the client default 0x2"},
			{Values: []suite.Value{prio(backend.DWORD(0x28))}, Rule: "prisep-other", Reason: "0x28 = short, fixed quanta, foreground 18 units"},
			{Values: []suite.Value{prio(backend.SZ("fast"))}, Rule: "prisep-unreadable", Reason: "the kernel reads a REG_DWORD"},
		},
	})
	// Windows Server, whose default is 0x18.
	suite.RunRegistry(t, suite.Registry{
		Knob:   "win32-priority-separation",
		Build:  20348,
		Server: true,
		Values: []suite.Value{prio(backend.DWORD(0x18))},
		Set:    []suite.RegSet{{Value: "0x26", Values: []suite.Value{prio(backend.DWORD(0x26))}}},
		Rules:  []suite.RegRule{{Rule: "prisep-default"}, {Values: []suite.Value{prio(backend.DWORD(0x28))}, Rule: "prisep-other"}},
		More:   true,
	})
	// A hand-made REG_SZ keeps its type; a value first written makes a
	// DWORD, and revert removes it again.
	suite.RunRegistry(t, suite.Registry{
		Knob:   "win32-priority-separation",
		Values: []suite.Value{prio(backend.SZ("2"))},
		Set:    []suite.RegSet{{Value: "0x26", Values: []suite.Value{prio(backend.SZ("38"))}}},
		More:   true,
	})
	suite.RunRegistry(t, suite.Registry{
		Knob:   "win32-priority-separation",
		Values: []suite.Value{suite.Reg(prioKey, "", backend.KeyValue)},
		Set:    []suite.RegSet{{Value: "0x26", Values: []suite.Value{prio(backend.DWORD(0x26))}}},
		More:   true,
	})
}
