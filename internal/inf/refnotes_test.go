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

// A models section Windows does not use on the target may name an
// install section the INF lacks (NVIDIA's nvefd64A.inf keeps an x86
// [Nvidia] whose sections it dropped): the device is analysed in the
// section Windows uses, with a note on the other; it was refused. Where
// the section Windows uses names the missing install section, it is
// still an error.
func TestINFUnusedModelsMissingInstall(t *testing.T) {
	src := `[Version]
Signature="$WINDOWS NT$"
[Manufacturer]
Vendor=Models,NTamd64
[Models]
Dev=Gone.NDI, PCI\VEN_10DE&DEV_0373
[Models.NTamd64]
Dev=Inst.NDI, PCI\VEN_10DE&DEV_0373
Bad=Missing.NDI, PCI\VEN_10DE&DEV_0374
[Inst.NDI.NTamd64]
AddReg=Reg
[Reg]
HKR, Ndi\params\*RSS, ParamDesc, 0, "RSS"
`
	f, err := Parse(strings.NewReader(src), "nv.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_10DE&DEV_0373`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if rep.InstallSection != "Inst.NDI.NTamd64" || rep.NotInstalled != "" || len(rep.Decorations) != 1 {
		t.Errorf("[%s], not installed %q, decorations %+v; want [Inst.NDI.NTamd64] in one decoration", rep.InstallSection, rep.NotInstalled, rep.Decorations)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "[Models], which Windows does not use here, names install section [Gone.NDI] on line 6, which cannot be followed") {
		t.Errorf("notes:\n%s", notes)
	}
	if _, err := Analyze(f, `PCI\VEN_10DE&DEV_0374`, mustTarget(t, "10.0.22631", "workstation"), "", nil); err == nil || !strings.Contains(err.Error(), "install section [Missing.NDI] not found") {
		t.Errorf("the section Windows uses names a missing install section: %v", err)
	}
}
