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

// A USB device and a USB interface are matched by the hardware IDs
// Microsoft documents ("Standard USB identifiers"; for an interface's
// list, "Plug and Play support"): a device's VID&PID&REV at 0x0000 and
// VID&PID at 0x0001, an interface's VID&PID&REV&MI at 0x0000 and VID&PID&MI
// at 0x0001. An interface never takes a device's line nor a device an
// interface's; a line of class codes (a compatible ID latlab does not
// build) is never taken.
func TestINFUSBIDs(t *testing.T) {
	src := `[Version]
Signature="$WINDOWS NT$"
[Manufacturer]
Adapters=Models,NTamd64
[Models.NTamd64]
IfRev=IfRev, USB\VID_0BDA&PID_8153&REV_3000&MI_00
If=If, USB\VID_0BDA&PID_8153&MI_00
DevRev=DevRev, USB\VID_0BDA&PID_8154&REV_3000
Dev=Dev, USB\VID_0BDA&PID_8154
Class=Class, USB\Class_02&SubClass_06
Hub=Hub, USB\ROOT_HUB30&VID1022&PID15D7&REV0000
[IfRev]
[If]
[DevRev]
[Dev]
[Class]
[Hub]
`
	f, err := Parse(strings.NewReader(src), "usb.inf")
	if err != nil {
		t.Fatal(err)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		device, install string
		rank            int
		err             string
	}{
		{`USB\VID_0BDA&PID_8153&REV_3000&MI_00`, "IfRev", 0x0000, ""},
		{`USB\VID_0BDA&PID_8153&REV_3001&MI_00\7&2b4c0a8f&0&0000`, "If", 0x0001, ""},
		{`USB\VID_0BDA&PID_8154&REV_3000`, "DevRev", 0x0000, ""},
		{`USB\VID_0BDA&PID_8154&REV_3001`, "Dev", 0x0001, ""},
		{`USB\VID_0BDA&PID_8154&REV_3000&MI_01`, "", 0, "is in no models section"},
		{`USB\VID_0BDA&PID_8153&REV_3000`, "", 0, "lacks MI, which decides between lines of [Models.NTamd64]: line 6 USB\\VID_0BDA&PID_8153&REV_3000&MI_00 -> [IfRev]; line 7 USB\\VID_0BDA&PID_8153&MI_00 -> [If]; give the interface's ID (with MI_)"},
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
		if rep.InstallSection != c.install || rep.Match == nil || rep.Match.Rank != c.rank || len(rep.IDs.Compatible) != 0 {
			t.Errorf("%s: [%s] %+v %+v, want [%s] rank %#x", c.device, rep.InstallSection, rep.Match, rep.IDs, c.install, c.rank)
		}
		if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, `USB ID: latlab builds its hardware IDs ("Standard USB identifiers", and for an interface "Plug and Play support": VID&PID&REV&MI, then VID&PID&MI)`) {
			t.Errorf("%s: notes:\n%s", c.device, notes)
		}
	}
	// A root hub's ID, which the listing shows, is matched as written
	// (it was refused: ROOT_HUB30 is no VID_ part), and says so.
	for _, c := range []struct {
		device, install string
		err             string
	}{
		{`USB\ROOT_HUB30&VID1022&PID15D7&REV0000`, "Hub", ""},
		{`usb\root_hub30&vid1022&pid15d7&rev0000\4&1a2b&0`, "Hub", ""},
		{`USB\ROOT_HUB30&VID1022&PID15D7`, "", "is in no models section"},
	} {
		rep, err := Analyze(f, c.device, ws, "", nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.device, err, c.err)
			}
			continue
		}
		if err != nil || rep.InstallSection != c.install || rep.Match == nil || rep.Match.Rank != 0 {
			t.Errorf("%s: %v, [%s] %+v, want [%s] rank 0", c.device, err, rep.InstallSection, rep.Match, c.install)
			continue
		}
		if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "USB ID: matched as written: a root hub's IDs") {
			t.Errorf("%s: notes:\n%s", c.device, notes)
		}
	}
}
