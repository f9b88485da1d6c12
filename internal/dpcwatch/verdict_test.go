package dpcwatch

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	m := func(name string, maxUs float64) ModuleStat { return ModuleStat{Module: name, MaxUs: maxUs} }
	tests := []struct {
		name     string
		dpc, isr []ModuleStat
		level    string
		module   string
		text     string
		over1    float64
	}{
		{"nothing", nil, nil, LevelNone, "", "no DPC or ISR was recorded", 0},
		{"all short", []ModuleStat{m("ndis.sys", 312)}, []ModuleStat{m("USBPORT.SYS", 48)}, LevelOK, "ndis.sys",
			"suitable for real-time audio: every DPC and ISR ended within 1 ms; highest DPC routine execution time 312 µs (ndis.sys), highest ISR routine execution time 48.0 µs (USBPORT.SYS)", 0},
		{"exactly 1 ms is within", []ModuleStat{m("a.sys", 1000)}, nil, LevelOK, "a.sys", "within 1 ms", 0},
		{"between 1 and 2 ms", []ModuleStat{m("nvlddmkm.sys", 1430)}, nil, LevelWarn, "nvlddmkm.sys",
			"drop-outs possible: nvlddmkm.sys ran a DPC for 1430 µs, 430 µs above 1 ms (under 2 ms); highest DPC routine execution time 1430 µs (nvlddmkm.sys)", 430},
		{"over 2 ms, from an ISR", []ModuleStat{m("ndis.sys", 1500)}, []ModuleStat{m("ACPI.sys", 12500)}, LevelBad, "ACPI.sys",
			"likely drop-outs: ACPI.sys ran an ISR for 12.5 ms, 10.5 ms above 2 ms (11.5 ms above 1 ms)", 11500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.dpc, tt.isr)
			if v.Level != tt.level || v.Module != tt.module || !strings.Contains(v.Text, tt.text) || v.Over1msUs != tt.over1 {
				t.Errorf("%+v", v)
			}
		})
	}
}
