package dpcverdict

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	sec := func(name, module string, maxUs float64) Section {
		return Section{Name: name, Longest: &Execution{Module: module, MaxUs: maxUs}}
	}
	tests := []struct {
		name    string
		secs    []Section
		level   string
		section string
		module  string
		text    string
		over1   float64
		over2   float64
	}{
		{"nothing", []Section{{Name: "DPC"}, {Name: "ISR"}}, LevelNone, "", "", "no DPC or ISR was recorded: nothing to judge", 0, 0},
		{"Linux sections, nothing", []Section{{Name: "softirq"}, {Name: "hardirq"}}, LevelNone, "", "", "no softirq or hardirq was recorded", 0, 0},
		{"all short", []Section{sec("DPC", "ndis.sys", 312), sec("ISR", "USBPORT.SYS", 48)}, LevelOK, "DPC", "ndis.sys",
			"suitable for real-time audio: WITHIN; highest DPC routine execution time 312 µs (ndis.sys), highest ISR routine execution time 48.0 µs (USBPORT.SYS)", 0, 0},
		{"exactly 1 ms is within", []Section{sec("DPC", "a.sys", 1000)}, LevelOK, "DPC", "a.sys", "WITHIN", 0, 0},
		{"a section without executions is left out of the highest", []Section{{Name: "DPC"}, sec("ISR", "i.sys", 10)}, LevelOK, "ISR", "i.sys",
			"suitable for real-time audio: WITHIN; highest ISR routine execution time 10.0 µs (i.sys)", 0, 0},
		{"between 1 and 2 ms", []Section{sec("DPC", "nvlddmkm.sys", 1430)}, LevelWarn, "DPC", "nvlddmkm.sys",
			"drop-outs possible: nvlddmkm.sys ran a DPC for 1430 µs, 430 µs above 1 ms (under 2 ms); highest DPC routine execution time 1430 µs (nvlddmkm.sys)", 430, 0},
		{"over 2 ms, from an ISR", []Section{sec("DPC", "ndis.sys", 1500), sec("ISR", "ACPI.sys", 12500)}, LevelBad, "ISR", "ACPI.sys",
			"likely drop-outs: ACPI.sys ran an ISR for 12.5 ms, 10.5 ms above 2 ms (11.5 ms above 1 ms)", 11500, 10500},
		{"equal longest: the first section's", []Section{sec("DPC", "d.sys", 1500), sec("ISR", "i.sys", 1500)}, LevelWarn, "DPC", "d.sys", "d.sys ran a DPC", 500, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.secs, "WITHIN")
			if v.Level != tt.level || v.Section != tt.section || v.Module != tt.module || !strings.Contains(v.Text, tt.text) || v.Over1msUs != tt.over1 || v.Over2msUs != tt.over2 {
				t.Errorf("%+v", v)
			}
		})
	}
}

// The bounds' excess is given to the nanosecond, not with the float
// subtraction's last digit.
func TestJudgeRoundsTheExcess(t *testing.T) {
	v := Judge([]Section{{Name: "DPC", Longest: &Execution{Module: "ndis.sys", MaxUs: 1523.4}}}, "")
	if v.Over1msUs != 523.4 || v.Over2msUs != 0 {
		t.Errorf("over 1 ms %v, over 2 ms %v; want 523.4 and 0", v.Over1msUs, v.Over2msUs)
	}
	v = Judge([]Section{{Name: "ISR", Longest: &Execution{Module: "a.sys", MaxUs: 2200.3}}}, "")
	if v.Over1msUs != 1200.3 || v.Over2msUs != 200.3 {
		t.Errorf("over 1 ms %v, over 2 ms %v; want 1200.3 and 200.3", v.Over1msUs, v.Over2msUs)
	}
}
