package inf

import (
	"errors"
	"strings"
	"testing"
)

// An Include= or Needs= that names what is not there, repeated in every
// install section written from one template (Broadcom's bcmwl63.inf: ten
// install sections, each with Include=netvwifibus.inf and
// Needs=VWiFiBus.CopyFiles), is said once, with its lines and install
// sections; one install section's note reads as before.
func TestINFRefNotesOnce(t *testing.T) {
	src := `[Version]
Signature="$WINDOWS NT$"
[Manufacturer]
Vendor=Models,NTamd64,NTamd64.10.0
[Models.NTamd64]
A=InstA, PCI\VEN_1234&DEV_0001
B=InstB, PCI\VEN_1234&DEV_0002
C=InstC, PCI\VEN_1234&DEV_0003
[Models.NTamd64.10.0]
A=InstA10, PCI\VEN_1234&DEV_0001
[InstA]
Include=absent.inf
Needs=Absent.Section
[InstB]
Include=absent.inf
Needs=Absent.Section
[InstA10]
Include=absent.inf
Needs=Absent.Section
[InstC]
Include=other.inf
`
	f, err := Parse(strings.NewReader(src), "t.inf")
	if err != nil {
		t.Fatal(err)
	}
	load := func(name string) (*File, error) { return nil, errors.New("not found next to t.inf") }
	ws := mustTarget(t, "10.0.22631", "workstation")
	l, err := List(f, ws, "", load)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"t.inf lines 12, 15, 18: Include=absent.inf not analysed: not found next to t.inf (in 3 install sections: [InstA], [InstB], [InstA10])",
		"t.inf lines 13, 16, 19: Needs=Absent.Section not found in this INF or its includes; its registry entries are not analysed (in 3 install sections: [InstA], [InstB], [InstA10])",
		"t.inf line 21: Include=other.inf not analysed: not found next to t.inf",
	}
	if got := strings.Join(l.Notes, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("listing notes:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	rep, err := Analyze(f, `PCI\VEN_1234&DEV_0001`, ws, "", load)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"t.inf lines 12, 18: Include=absent.inf not analysed: not found next to t.inf (in 2 install sections: [InstA], [InstA10])",
		"t.inf lines 13, 19: Needs=Absent.Section not found in this INF or its includes; its registry entries are not analysed (in 2 install sections: [InstA], [InstA10])",
	}
	if got := strings.Join(rep.Notes, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("device notes:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	// Each install section keeps its own.
	in, err := f.resolve("InstB", ws, "", load, &work{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Notes) != 2 || in.Notes[0] != "t.inf line 15: Include=absent.inf not analysed: not found next to t.inf" {
		t.Errorf("install section notes: %q", in.Notes)
	}
}

// Many lines are named up to maxGroupLines and counted after.
func TestINFRefNotesManyLines(t *testing.T) {
	var g refGroups
	for i := range 20 {
		in := &Install{Section: "S" + string(rune('A'+i))}
		rn := refNote{file: "t.inf", line: 10 + 2*i, what: "Include=x.inf not analysed: gone"}
		in.refNotes, in.Notes = []refNote{rn}, []string{rn.text(), "other"}
		g.add(in, func(string) {})
	}
	got := g.notes()
	want := "t.inf lines 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32 and 8 more: Include=x.inf not analysed: gone (in 20 install sections: [SA], [SB], [SC] and 17 more)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
