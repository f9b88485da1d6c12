package doctor

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFindingsCarryReferences: a finding of a knob that cites tuning
// profiles carries them into the document; one of a knob citing none
// has no references member.
func TestFindingsCarryReferences(t *testing.T) {
	ss := Audit(linuxEnv(linuxTree(t, swapFiles("60\n"))), "linux")
	s := find(t, ss, "swappiness", "")
	if len(s.References) == 0 || s.References[0].Profile != "latency-performance" || s.References[0].Key != "vm.swappiness" || s.References[0].Value != "10" {
		t.Fatalf("swappiness references %+v", s.References)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"references":[{"source":"tuned","version":"2.20.0","profile":"latency-performance","section":"sysctl","key":"vm.swappiness","value":"10"}`) {
		t.Errorf("JSON %s", b)
	}
	d := find(t, ss, "tcp-dsack", "")
	if len(d.References) != 0 {
		t.Fatalf("tcp-dsack cites %+v", d.References)
	}
	if b, _ := json.Marshal(d); strings.Contains(string(b), "references") {
		t.Errorf("a finding without references: %s", b)
	}
}
