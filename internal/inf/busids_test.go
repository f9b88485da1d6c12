package inf

import (
	"strings"
	"testing"
)

// An HD Audio codec is matched by the two hardware IDs Microsoft documents
// for it ("Identifiers for High Definition Audio (HDAUDIO) devices"): a
// line with REV at 0x0000, a line without at 0x0001. The lines are the
// forms of Cirrus Logic's CL_Audio.inf (with REV) and IDT's STWRT64.INF
// (with SUBSYS, and bare FUNC&VEN&DEV). A line naming fewer parts is one
// Windows may reach through a compatible ID latlab does not build: the
// error says so. Other buses are matched as written, with a note saying
// why.
func TestINFBusIDs(t *testing.T) {
	src := `[Version]
Signature="$WINDOWS NT$"
[Manufacturer]
Codecs=Models,NTamd64
[Models.NTamd64]
Full=WithRev, HDAUDIO\FUNC_01&VEN_1013&DEV_4213&SUBSYS_10280553&REV_1001
Subsys=WithSubsys, HDAUDIO\FUNC_01&VEN_111D&DEV_7676&SUBSYS_80865F01
Bare=Bare, HDAUDIO\FUNC_01&VEN_8384&DEV_7621
Hyper-V=Synth, VMBUS\{f8615163-df3e-46c5-913f-f2d2f965ed0e}
SDIO=Sdio, SD\VID_0271&PID_0400
[WithRev]
[WithSubsys]
[Bare]
[Synth]
[Sdio]
`
	f, err := Parse(strings.NewReader(src), "audio.inf")
	if err != nil {
		t.Fatal(err)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		device, install string
		rank            int
		note, err       string
	}{
		{`HDAUDIO\FUNC_01&VEN_1013&DEV_4213&SUBSYS_10280553&REV_1001`, "WithRev", 0x0000, "HDAUDIO ID: latlab builds the two hardware IDs", ""},
		{`HDAUDIO\FUNC_01&VEN_111D&DEV_7676&SUBSYS_80865F01&REV_1001`, "WithSubsys", 0x0001, "none of the compatible IDs", ""},
		{`HDAUDIO\FUNC_01&VEN_8384&DEV_7621`, "Bare", 0x0000, "HDAUDIO ID", ""},
		{`HDAUDIO\FUNC_01&VEN_8384&DEV_7621&SUBSYS_10280553&REV_1001`, "", 0, "",
			`Windows may match HDAUDIO\FUNC_01&VEN_8384&DEV_7621 through a compatible ID latlab does not build for HDAUDIO IDs`},
		{`VMBUS\{F8615163-DF3E-46C5-913F-F2D2F965ED0E}`, "Synth", 0x0000, "VMBUS ID: matched as written: Microsoft documents no list", ""},
		{`SD\VID_0271&PID_0400`, "Sdio", 0x0000, `SD ID: matched as written: an SDIO function's one hardware ID is its device ID`, ""},
	} {
		rep, err := Analyze(f, c.device, ws, "", nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.device, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.device, err)
			continue
		}
		if rep.InstallSection != c.install || rep.Match == nil || rep.Match.Rank != c.rank {
			t.Errorf("%s: [%s] %+v, want [%s] rank %#x", c.device, rep.InstallSection, rep.Match, c.install, c.rank)
		}
		if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes lack %q:\n%s", c.device, c.note, notes)
		}
	}
	// PCI needs no such note: its lists are built in full.
	if n := busIDNote(DeviceIDs{Given: `PCI\VEN_8086&DEV_15F3`}); n != "" {
		t.Errorf("PCI note %q", n)
	}
}
