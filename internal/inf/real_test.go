package inf

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Tests on INFs as their authors published them (testdata/README.md gives
// repository, path, commit and licence of each) and on written INFs that
// reproduce the structure of Intel INFs read by hand. The sections read by
// hand are quoted above each test; the assertions are what they imply.

func loadRaw(t *testing.T, names ...string) []byte {
	t.Helper()
	var b []byte
	for _, n := range names {
		p, err := os.ReadFile("testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, p...)
	}
	return b
}

// virtio-win NetKVM, netkvm-base.txt + netkvm-add-uso.txt (GenerateInf.bat
// concatenates them into netkvm.inx), read by hand:
//
//	[Manufacturer]                    line 27
//	%VENDOR% = NetKVM, NT$ARCH$
//	[NetKVM.NT$ARCH$]                 line 30
//	%kvmnet6.DeviceDesc% = kvmnet6.ndi, PCI\VEN_1AF4&DEV_1000&SUBSYS_0001_INX_SUBSYS_VENDOR_ID&REV_00, PCI\VEN_1AF4&DEV_1000
//	%kvmnet6.DeviceDesc% = kvmnet6.ndi, PCI\VEN_1AF4&DEV_1041&SUBSYS_1100_INX_SUBSYS_VENDOR_ID&REV_01, PCI\VEN_1AF4&DEV_1041
//	[kvmnet6.ndi]                     line 46
//	AddReg = kvmnet6.Reg, Parameters
//	[kvmnet6.ndi.Services]
//	AddService = netkvm, 2, kvmnet6.Service, kvmnet6.EventLog
//	[Parameters] ... *RSS (enum 0/1, default 1), *NumRssQueues (int 1..32,
//	default 16), no other standardized RSS keyword
//	[kvmnet6.Reg] (last section of base; add-uso's *UsoIPv4/*UsoIPv6 lines
//	continue it) HKR,,BusNumber,0,"0" and HKR,Ndi,Service,0,"netkvm"
//
// The build (build/Driver.Vendor.props) replaces _INX_SUBSYS_VENDOR_ID with
// the subsystem vendor, 1AF4 by default, and stampinf replaces $ARCH$.
func TestINFRealNetKVM(t *testing.T) {
	src := loadRaw(t, "virtio-win/netkvm-base.txt", "virtio-win/netkvm-add-uso.txt")
	ws := mustTarget(t, "10.0.22631", "workstation")
	qemu := `PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00`
	for _, c := range []struct {
		name string
		src  []byte
		id   string
		line int
		rank int
	}{
		// As published: the SUBSYS of line 31 is a placeholder, so QEMU's
		// device matches the line's compatible ID with its own compatible
		// ID 1 (VEN&DEV).
		{"source", src, qemu, 31, 0x3001},
		// As built: the full ID is the line's hardware ID.
		{"built", bytes.ReplaceAll(src, []byte("_INX_SUBSYS_VENDOR_ID"), []byte("1AF4")), qemu, 31, 0x0000},
		{"built, virtio 1.0", bytes.ReplaceAll(src, []byte("_INX_SUBSYS_VENDOR_ID"), []byte("1AF4")), `PCI\VEN_1AF4&DEV_1041&SUBSYS_11001AF4&REV_01`, 32, 0x0000},
		// Another subsystem vendor: compatible ID against compatible ID.
		{"other vendor", bytes.ReplaceAll(src, []byte("_INX_SUBSYS_VENDOR_ID"), []byte("1AF4")), `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`, 31, 0x3001},
	} {
		f, err := Parse(bytes.NewReader(c.src), "netkvm.inx")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(f, c.id, ws, "", nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if rep.Decoration != "NT$ARCH$" || rep.InstallSection != "kvmnet6.ndi" || rep.Service != "netkvm" || rep.Match.Line != c.line || rep.Match.Rank != c.rank {
			t.Errorf("%s: %s %s %q %+v", c.name, rep.Decoration, rep.InstallSection, rep.Service, rep.Match)
		}
		if !reflect.DeepEqual(rep.RSS, []string{"*RSS", "*NumRSSQueues"}) || len(rep.MissingRSS) != 0 || len(rep.NotInINF) != 7 {
			t.Errorf("%s: RSS %v missing %v not in INF %v", c.name, rep.RSS, rep.MissingRSS, rep.NotInINF)
		}
		q := keyword(rep, "*NumRssQueues")
		if q == nil || q.Type != "int" || q.Min != "1" || q.Max != "32" || q.Default != "16" {
			t.Errorf("%s: *NumRssQueues %+v", c.name, q)
		}
		if uso := rep.Keywords[0]; uso.Name != "*UsoIPv4" || uso.Sections[0] != "kvmnet6.Reg" {
			t.Errorf("%s: the add-uso lines continue [kvmnet6.Reg]: %+v", c.name, uso)
		}
		if len(rep.Values) != 1 || rep.Values[0].Name != "BusNumber" {
			t.Errorf("%s: values %+v", c.name, rep.Values)
		}
		if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "netkvm.inx line 28: NT$ARCH$ is the placeholder") || len(rep.Notes) != 1 {
			t.Errorf("%s: notes %v", c.name, rep.Notes)
		}
		if rep.Match.OutrankedBy != nil {
			t.Errorf("%s: a full ID is outranked by %+v", c.name, rep.Match.OutrankedBy)
		}
	}
	// As built (the description keeps its INX_PREFIX_VENDOR placeholder),
	// an ID without SUBSYS and REV matches line 31 through its
	// compatible ID, and the line's own hardware ID outranks that on a
	// device with its SUBSYS and REV.
	f, err := Parse(bytes.NewReader(bytes.ReplaceAll(src, []byte("_INX_SUBSYS_VENDOR_ID"), []byte("1AF4"))), "netkvm.inx")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_1AF4&DEV_1000`, ws, "", nil)
	want := []Outranking{{Line: 31, INFID: `PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00`, Description: "INX_PREFIX_VENDORVirtIO Ethernet Adapter", Rank: 0x0000, Needs: []string{"SUBSYS", "REV"}}}
	if err != nil || rep.Match.Line != 31 || rep.Match.INFPos != 1 || rep.Match.Rank != 0x3001 || !reflect.DeepEqual(rep.Match.OutrankedBy, want) {
		t.Errorf("bare: %v %+v", err, rep.Match)
	}
}

// NetAdapter-Cx-Driver-Samples RtEthSample.inx (UTF-8 with a BOM, CRLF),
// read by hand:
//
//	[Manufacturer]                        line 32
//	%Provider%=Realtek, NT$ARCH$.10.0...16299
//	[Realtek.NT$ARCH$.10.0...16299]       line 38
//	%RTL8168.DeviceDesc% = RTL8168.ndi, PCI\VEN_10EC&DEV_8168&REV_03                  line 40
//	%RTL8168.DeviceDesc% = RTL8168.ndi, PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03  line 41
//	[RTL8168.ndi.NT]                      line 46: AddReg = ndi.reg, then one
//	AddReg line per keyword section: Speed.kw, NetworkAddress.kw,
//	FlowControl.kw, WakeOnMagicPacket.kw, InterruptModeration.kw,
//	InterruptModerationLevel.kw, OffloadChecksum.kw, PriorityVlanTag.kw
//	[RTL8168.ndi.NT.Services]  AddService = %ServiceName%, 2, ... (RtEthSample)
//
// No RSS keyword at all; the install section exists only with the .NT
// extension, which Windows takes on amd64 when .NTamd64 is absent.
func TestINFRealRtEthSample(t *testing.T) {
	f := load(t, "netadapter-cx-samples/RtEthSample.inx")
	if f.Encoding != "utf-8-bom" {
		t.Errorf("encoding %s", f.Encoding)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		id   string
		line int
		rank int
		note string
	}{
		{`PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03`, 41, 0x0000, ""},
		// a board vendor's subsystem: the REV_03 line, compatible ID 0
		{`PCI\VEN_10EC&DEV_8168&SUBSYS_E0001458&REV_03`, 40, 0x2000, ""},
		// both lines lead to RTL8168.ndi, so a bare ID is not ambiguous,
		// but whether either matches depends on the parts it lacks
		{`PCI\VEN_10EC&DEV_8168`, 41, 0x0000, "taken line 41 (PCI\\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03), which Windows installs only if the device's full ID has the same SUBSYS and REV"},
	} {
		rep, err := Analyze(f, c.id, ws, "", nil)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		if rep.ModelsSection != "Realtek.NT$ARCH$.10.0...16299" || rep.InstallSection != "RTL8168.ndi.NT" || rep.Service != "RtEthSample" ||
			rep.Match.Line != c.line || rep.Match.Rank != c.rank || c.note != "" && !strings.Contains(strings.Join(rep.Notes, " "), c.note) {
			t.Errorf("%s: %s %s %q %+v %v", c.id, rep.ModelsSection, rep.InstallSection, rep.Service, rep.Match, rep.Notes)
		}
		var names []string
		for _, k := range rep.Keywords {
			names = append(names, k.Name)
		}
		if strings.Join(names, " ") != "*SpeedDuplex NetworkAddress *FlowControl *WakeOnMagicPacket *InterruptModeration InterruptModerationLevel "+
			"*IPChecksumOffloadIPv4 *TCPChecksumOffloadIPv4 *UDPChecksumOffloadIPv4 *TCPChecksumOffloadIPv6 *UDPChecksumOffloadIPv6 *PriorityVlanTag" {
			t.Errorf("keywords %v", names)
		}
		if len(rep.RSS) != 0 || len(rep.MissingRSS) != 0 || len(rep.NotInINF) != len(RSSKeywords) {
			t.Errorf("RSS %v %v %v", rep.RSS, rep.MissingRSS, rep.NotInINF)
		}
		if na := keyword(rep, "NetworkAddress"); na == nil || na.Type != "edit" || na.Other["LimitText"] != "12" || na.Other["UpperCase"] != "1" || na.Optional != "1" {
			t.Errorf("NetworkAddress %+v", na)
		}
	}
	// The ID given without SUBSYS matches the REV_03 line, but an RTL8168
	// whose SUBSYS is 816810EC takes line 41 (hardware ID 0 against
	// compatible ID 0): the match says so. With the full ID it does not.
	for id, want := range map[string][]Outranking{
		`PCI\VEN_10EC&DEV_8168&REV_03`: {{Line: 41, INFID: `PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03`,
			Description: "Realtek PCIe GBE Family Controller NetAdapter Sample Driver", Rank: 0x0000, Needs: []string{"SUBSYS"}}},
		`PCI\VEN_10EC&DEV_8168&SUBSYS_E0001458&REV_03`: nil,
		`PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03`: nil,
	} {
		rep, err := Analyze(f, id, ws, "", nil)
		if err != nil || rep.Match == nil || !reflect.DeepEqual(rep.Match.OutrankedBy, want) {
			t.Errorf("%s: %v %+v, want outranked by %+v", id, err, rep.Match, want)
		}
	}
	// REV_06 (another RTL8168 revision) is in no line.
	if _, err := Analyze(f, `PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_06`, ws, "", nil); err == nil || !strings.Contains(err.Error(), "in no models section") {
		t.Errorf("REV_06: %v", err)
	}
	// Windows 10 1703 (build 15063) predates NetAdapterCx: no section.
	old, err := Analyze(f, `PCI\VEN_10EC&DEV_8168&SUBSYS_816810EC&REV_03`, mustTarget(t, "10.0.15063", "workstation"), "", nil)
	if err != nil || old.Model != nil || !strings.Contains(strings.Join(old.Notes, " "), "does not install there") {
		t.Errorf("1703: %v %+v", err, old)
	}
}

// Windows-driver-samples network/netadaptercx/netvadapter/km/netvadapter.inf
// (UTF-16LE with a BOM), read by hand:
//
//	[Manufacturer]                        line 16
//	%Msft% = Msft,NT$ARCH$
//	[Msft]                                line 19: empty, for old Windows
//	[Msft.NT$ARCH$]                       line 22
//	... = netvadapter.ndi, root\netvadapter                          line 23
//	... = netvadapter.ndi, {b85b7c50-6a01-11d2-b841-00c04fad5171}\netvadapter
//	... = netvadapter.ndi, ndt\netvadapter
//	... = instance1.ndi, test\netvadapter1                           line 26
//	... = instance2.ndi, test\netvadapter2
//	[instance1.ndi] AddReg = instance1.reg, netvadapter.params, RSC.kw, UDPRSC.kw, USO.kw
//	[instance1.reg] HKR,,MACLastByte,0,"1" (line 104), before
//	[netvadapter.params] defines Ndi\params\MACLastByte (int 0..254)
func TestINFRealNetVAdapter(t *testing.T) {
	f := load(t, "windows-driver-samples/netvadapter.inf")
	if f.Encoding != "utf-16le" {
		t.Errorf("encoding %s", f.Encoding)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	rep, err := Analyze(f, `ROOT\netvadapter`, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range rep.Keywords {
		names = append(names, k.Name)
	}
	if rep.InstallSection != "netvadapter.ndi" || rep.Match.Line != 23 || rep.Match.Rank != 0 || rep.Service != "netvadapter" ||
		strings.Join(names, " ") != "MACLastByte LinkProcIndex EnableUsoUro PreallocatedRxBuffers *RscIpv4 *RscIpv6 *UdpRsc *UsoIPv4 *UsoIPv6" {
		t.Errorf("%s %+v %q %v", rep.InstallSection, rep.Match, rep.Service, names)
	}
	rep, err = Analyze(f, `test\netvadapter1\0000`, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	mac := keyword(rep, "MACLastByte")
	if rep.InstallSection != "instance1.ndi" || mac == nil || mac.Value == nil || mac.Value.Data != "1" || mac.Value.Line != 104 || mac.Max != "254" {
		t.Errorf("instance1: %s %+v", rep.InstallSection, mac)
	}
	// On x86 both the empty undecorated [Msft] and NT$ARCH$ apply; the
	// decorated one wins.
	x86, _ := ParseTarget("10.0.19045", "workstation", "x86")
	if rep, err := Analyze(f, `root\netvadapter`, x86, "", nil); err != nil || rep.ModelsSection != "Msft.NT$ARCH$" {
		t.Errorf("x86: %v %+v", err, rep)
	}
}

// e1r63-like.inf reproduces what was read by hand in Intel's e1r63x64.inf
// 12.4.36.0 (testdata/README.md says where):
//
//	[Manufacturer]  %Intel% = Intel, NTamd64.6.2, NTamd64.6.2.1
//	[Intel.NTamd64.6.2.1]  DEV_1533 (bare, SUBSYS_00018086, _00028086,
//	_0003103C) -> E1533.6.2.1;  [Intel.NTamd64.6.2] the same -> E1533
//	[E1533.6.2.1]  AddReg = RSS.reg, RSS4Q.reg          (no RSSAdvanced.reg)
//	[E1533]        AddReg = RSS.reg, RSS4Q.reg, RSSAdvanced.reg
//	[E1533.6.2.1.Services] / [E1533.Services]  AddService = e1rexpress, 2, ...
//	[e1r.reg] ITR: Adaptive 65535 (default), Extreme 3600, High 2000,
//	Medium 950, Low 400, Minimal 200, Off 0
//
// Windows 8 and later on a workstation take NTamd64.6.2.1 (a product type
// outranks none), servers NTamd64.6.2: the client gets *RSS and
// *NumRssQueues only.
func TestINFIntelE1R63Layout(t *testing.T) {
	f := load(t, "e1r63-like.inf")
	for _, c := range []struct {
		os, product, deco, install string
		rss                        int
	}{
		{"10.0.22631", "workstation", "NTamd64.6.2.1", "E1533.6.2.1", 2},
		{"6.2.9200", "workstation", "NTamd64.6.2.1", "E1533.6.2.1", 2},
		{"10.0.20348", "server", "NTamd64.6.2", "E1533", 7},
		{"10.0.20348", "dc", "NTamd64.6.2", "E1533", 7},
	} {
		rep, err := Analyze(f, `PCI\VEN_8086&DEV_1533&SUBSYS_00018086&REV_03`, mustTarget(t, c.os, c.product), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Decoration != c.deco || rep.InstallSection != c.install || len(rep.RSS) != c.rss || rep.Service != "e1rexpress" || rep.Match.Rank != 0x0001 {
			t.Errorf("%s %s: %s %s %v %q %+v", c.os, c.product, rep.Decoration, rep.InstallSection, rep.RSS, rep.Service, rep.Match)
		}
		if c.rss == 2 && (rep.DonorSection["*RSSProfile"] != "E1533" || rep.Donors[0].Relation != SameDevice || len(rep.MissingRSS) != 5) {
			t.Errorf("%s: donors %+v", c.os, rep.Donors)
		}
	}
	// A subsystem the INF does not list takes the bare line.
	rep, err := Analyze(f, `PCI\VEN_8086&DEV_1533&SUBSYS_E0001458&REV_03`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil || rep.Model.Line != 30 || rep.Match.Rank != 0x2001 || rep.Match.OutrankedBy != nil {
		t.Errorf("other SUBSYS: %v %+v", err, rep.Match)
	}
	// So does the ID without SUBSYS, as Windows would for such a
	// subsystem; the three SUBSYS lines (other descriptions, the same
	// install section) outrank it on a device with theirs.
	bare, err := Analyze(f, `PCI\VEN_8086&DEV_1533`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil || bare.Model.Line != 30 || bare.Match.Rank != 0x2001 || bare.InstallSection != "E1533.6.2.1" || len(bare.Match.OutrankedBy) != 3 {
		t.Fatalf("bare: %v %+v", err, bare.Match)
	}
	for i, o := range bare.Match.OutrankedBy {
		if o.Line != 32+i || o.Rank != 0x0001 || !reflect.DeepEqual(o.Needs, []string{"SUBSYS"}) || !strings.HasPrefix(o.INFID, `PCI\VEN_8086&DEV_1533&SUBSYS_000`) {
			t.Errorf("bare, outranked by %+v", o)
		}
	}
	itr := keyword(rep, "ITR")
	want := []EnumValue{{"0", "Off"}, {"200", "Minimal"}, {"400", "Low"}, {"950", "Medium"}, {"2000", "High"}, {"3600", "Extreme"}, {"65535", "Adaptive"}}
	if itr == nil || !reflect.DeepEqual(itr.Values, want) || itr.Default != "65535" {
		t.Errorf("ITR %+v", itr)
	}
	numa := keyword(rep, "*NumaNodeId")
	if numa != nil {
		t.Errorf("the client section got *NumaNodeId: %+v", numa)
	}
	var b bytes.Buffer
	if n, err := WriteReg(&b, rep); err != nil || n != 5 || !strings.Contains(b.String(), `\Ndi\Params\*NumaNodeId\Enum]`+"\r\n\"0\"=\"Node 0\"") {
		t.Errorf("reg: %d %v\n%s", n, err, b.String())
	}
	// Windows 7 (6.1) is older than every decorated section and the
	// undecorated [Intel] is x86-only (and empty).
	w7, err := Analyze(f, `PCI\VEN_8086&DEV_1533&SUBSYS_00018086&REV_03`, mustTarget(t, "6.1.7601", "workstation"), "", nil)
	if err != nil || w7.Model != nil {
		t.Errorf("Windows 7: %v %+v", err, w7)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "e1r63-like.inf lines 189-191: [UninstallW2.reg] 3 HKLM entries write outside the adapter's key") {
		t.Errorf("notes %v", rep.Notes)
	}
}

// e1r68-like.inf reproduces what was read by hand in Intel's e1r68x64.inf
// 12.18.11.1 of 06/15/2020 (PROWinx64 25.2, PRO1000\Winx64\NDIS68;
// testdata/README.md says where), line numbers of that file:
//
//	44  [Manufacturer] %Intel% = Intel, NTamd64.10.0, NTamd64.10.0.1,
//	    NTamd64.10.0...18362, NTamd64.10.0.1..18362
//	51  [Intel.NTamd64.10.0.1]          DEV_1533 -> E1533.10.0.1,
//	    119: DEV_1539 -> E1539.10.0.1
//	121 [Intel.NTamd64.10.0.1..18362]   DEV_1533 -> E1533.10.0.1.19H1,
//	    189: DEV_1539 -> E1539.10.0.1.19H1
//	191 [Intel.NTamd64.10.0], 266 [Intel.NTamd64.10.0...18362]: DEV_1533
//	    -> E1533, E1533.19H1; no DEV_1539 in either
//	512 [E1533.10.0.1]  DelReg = Advanced.DelReg; AddReg = ... RSS.reg, RSS4Q.reg
//	605 [E1539.10.0.1]  DelReg = Advanced.DelReg; AddReg = ... RSS.reg, RSS2Q.reg
//	1185 [E1533], 1531 [E1533.19H1]  ... RSS.reg, RSS4Q.reg, RSSAdvanced.reg
//	AddService = e1rexpress, 2, win10.Service, win10.EventLog (each .Services)
//	1659 *TransmitBuffers int, default 512, min 80, max 2048, step 8
//	1668 *ReceiveBuffers  int, default 256, min 80, max 2048, step 8
//	1746 ITR enum, default 65535: 65535 Adaptive, 3600 Extreme, 2000 High,
//	     950 Medium, 400 Low, 200 Minimal, 0 Off; 1756 HKR,,ITR,0,"65535"
//	1759 *InterruptModeration enum, default 1: 0 Disabled, 1 Enabled
//	1954 [RSS.reg] *RSS enum 0/1, default 1, no HKR,,*RSS value
//	RSS2Q.reg *NumRssQueues 1/2, RSS4Q.reg 1/2/4, both default 2
//	1962 [RSSAdvanced.reg] *MaxRssProcessors, *RssBaseProcNumber,
//	     *NumaNodeId (dword, default 65535), *RSSProfile (HKR,,*RSSProfile,0,"1")
//	2189 [Advanced.DelReg] HKR, Ndi\Params / HKR, PROSetNdi\Params /
//	     HKR, PROSetNdi\NdiExt / HKR,, LinkNegotiationProcess
//
// latlab run on Intel's file gives what these tests assert on the written
// one, but for the I211's donor: Intel's file lists the I350 ([E1521],
// same driver) first in its server section, the written one leaves it out.
func TestINFIntelE1R68Layout(t *testing.T) {
	f := load(t, "e1r68-like.inf")
	const i210 = `PCI\VEN_8086&DEV_1533&SUBSYS_00018086&REV_03`
	const i211 = `PCI\VEN_8086&DEV_1539&SUBSYS_00008086&REV_03`
	twoQ := []EnumValue{{"1", "1 Queue"}, {"2", "2 Queues"}}
	fourQ := append(twoQ, EnumValue{"4", "4 Queues"})
	for _, c := range []struct {
		id, os, product, deco, install string
		rss                            []string
		queues                         []EnumValue
		donor                          string
	}{
		{i210, "10.0.17763", "workstation", "NTamd64.10.0.1", "E1533.10.0.1", []string{"*RSS", "*NumRSSQueues"}, fourQ, "E1533"},
		{i210, "10.0.19045", "workstation", "NTamd64.10.0.1..18362", "E1533.10.0.1.19H1", []string{"*RSS", "*NumRSSQueues"}, fourQ, "E1533"},
		{i210, "10.0.22631", "workstation", "NTamd64.10.0.1..18362", "E1533.10.0.1.19H1", []string{"*RSS", "*NumRSSQueues"}, fourQ, "E1533"},
		{i210, "10.0.17763", "server", "NTamd64.10.0", "E1533", []string{"*RSS", "*NumRSSQueues", "*MaxRssProcessors", "*RssBaseProcNumber", "*NumaNodeId", "*RSSProfile"}, fourQ, ""},
		{i210, "10.0.20348", "server", "NTamd64.10.0...18362", "E1533.19H1", []string{"*RSS", "*NumRSSQueues", "*MaxRssProcessors", "*RssBaseProcNumber", "*NumaNodeId", "*RSSProfile"}, fourQ, ""},
		{i211, "10.0.17763", "workstation", "NTamd64.10.0.1", "E1539.10.0.1", []string{"*RSS", "*NumRSSQueues"}, twoQ, "E1533"},
		{i211, "10.0.22631", "workstation", "NTamd64.10.0.1..18362", "E1539.10.0.1.19H1", []string{"*RSS", "*NumRSSQueues"}, twoQ, "E1533"},
	} {
		name := c.id[len(`PCI\VEN_8086&`):len(`PCI\VEN_8086&DEV_1533`)] + " " + c.os + " " + c.product
		rep, err := Analyze(f, c.id, mustTarget(t, c.os, c.product), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.Decoration != c.deco || rep.InstallSection != c.install || !reflect.DeepEqual(rep.RSS, c.rss) || rep.Service != "e1rexpress" || len(rep.Notes) != 0 {
			t.Errorf("%s: %s [%s] %v %q %q", name, rep.Decoration, rep.InstallSection, rep.RSS, rep.Service, rep.Notes)
		}
		if q := keyword(rep, "*NumRssQueues"); q == nil || !reflect.DeepEqual(q.Values, c.queues) || q.Default != "2" {
			t.Errorf("%s: *NumRssQueues %+v", name, q)
		}
		if c.donor != rep.DonorSection["*RSSProfile"] || c.donor != "" && len(rep.MissingRSS) != 4 {
			t.Errorf("%s: missing %v from %v", name, rep.MissingRSS, rep.DonorSection)
		}
		// Advanced.DelReg deletes HKR,Ndi\Params first: the keywords the
		// AddReg sections write under it are all there.
		itr := keyword(rep, "ITR")
		wantITR := []EnumValue{{"0", "Off"}, {"200", "Minimal"}, {"400", "Low"}, {"950", "Medium"}, {"2000", "High"}, {"3600", "Extreme"}, {"65535", "Adaptive"}}
		if itr == nil || itr.Type != "enum" || itr.Default != "65535" || !reflect.DeepEqual(itr.Values, wantITR) || itr.Value == nil || itr.Value.Data != "65535" || itr.ParamDesc != "Interrupt Moderation Rate" {
			t.Errorf("%s: ITR %+v", name, itr)
		}
		im := keyword(rep, "*InterruptModeration")
		if im == nil || im.Type != "enum" || im.Default != "1" || !reflect.DeepEqual(im.Values, []EnumValue{{"0", "Disabled"}, {"1", "Enabled"}}) || im.Value != nil {
			t.Errorf("%s: *InterruptModeration %+v", name, im)
		}
		for _, b := range []struct{ name, def string }{{"*ReceiveBuffers", "256"}, {"*TransmitBuffers", "512"}} {
			k := keyword(rep, b.name)
			if k == nil || k.Type != "int" || k.Default != b.def || k.Min != "80" || k.Max != "2048" || k.Step != "8" || k.Base != "10" {
				t.Errorf("%s: %s %+v", name, b.name, k)
			}
		}
		if rss := keyword(rep, "*RSS"); rss == nil || rss.Default != "1" || rss.Value != nil {
			t.Errorf("%s: *RSS %+v", name, rss)
		}
	}
	in, err := f.Resolve("E1533.10.0.1.19H1", mustTarget(t, "10.0.19045", "workstation"), "", nil)
	if err != nil || len(in.DelReg) != 1 || in.DelReg[0].Section != "Advanced.DelReg" || !in.DelReg[0].Found || len(in.Keywords) != 6 {
		t.Errorf("DelReg: %v %+v %d keywords", err, in.DelReg, len(in.Keywords))
	}
	// The I211 on a server: neither server section lists it (what
	// NIC-i211-WinSrv2019 changed Intel's file for); the workstation of the
	// same version would install it.
	for _, c := range []struct{ os, deco, install string }{
		{"10.0.17763", "NTamd64.10.0.1", "E1539.10.0.1"},
		{"10.0.20348", "NTamd64.10.0.1..18362", "E1539.10.0.1.19H1"},
	} {
		rep, err := Analyze(f, i211, mustTarget(t, c.os, "server"), "", nil)
		if err != nil {
			t.Fatalf("I211 on server %s: %v", c.os, err)
		}
		op := rep.OtherProduct
		if rep.Model != nil || op == nil || op.Decoration != c.deco || op.InstallSection != c.install || !op.ListsDevice ||
			!strings.Contains(strings.Join(rep.Notes, "\n"), "does not list") {
			t.Errorf("I211 on server %s: %+v %+v %q", c.os, rep.Model, op, rep.Notes)
		}
	}
}

// net1ic64-like.inf reproduces what was read by hand in net1ic64.inf
// 12.19.1.32 (08/03/2015), the INF of Intel's e1i driver that Windows
// itself ships ("Copyright (c) 2021, Microsoft"; testdata/README.md says
// where), line numbers of that file (UTF-16LE, read converted):
//
//	11  [Manufacturer] %Intel% = Intel, NTamd64.10.0.1
//	17  [Intel.NTamd64.10.0.1]: every line "Section,, ID", an empty
//	    hardware ID; 150-153: DEV_10D3 (bare, SUBSYS_A01F8086 "Intel(R)
//	    Gigabit CT Desktop Adapter", SUBSYS_00018086) and DEV_10F6 ->
//	    E10D3.10.0.1; 35-: DEV_1502 (82579LM) -> E1502.10.0.1
//	1477 [E10D3.10.0.1]  AddReg = e1c.reg, ... RSS.reg, RSS2Q.reg
//	     [E1502.10.0.1]  AddReg = e1c.reg, ... RSS.reg, RSS_e1c.reg, RSSHash.reg
//	AddService = e1i68x64, 2, win8.Service, win8.EventLog (each .Services)
//	2076 [e1c.reg]  HKR, Ndi, Service, e1i68x64; *TransmitBuffers int 512,
//	     80..2048 step 8; *ReceiveBuffers int 256, 80..2048 step 8;
//	     2175 ITR enum, default 65535: 65535 Adaptive, 3600 Extreme,
//	     2000 High, 950 Medium, 400 Low, 200 Minimal, 0 Off (no HKR,,ITR);
//	     2187 *InterruptModeration enum 0/1, default 1
//	2422 [RSS_e1c.reg]  HKR, Ndi\Params\*RSSProfile, default, "1" and
//	     HKR,,*RSSProfile,0,"1" (no ParamDesc, type or choices)
//
// With the hardware ID field empty, the Gigabit CT's full ID matches the
// line's compatible ID 0 with its own hardware ID 1 (VEN&DEV&SUBSYS):
// rank 0x1001, where the same line with the ID as hardware ID ranks 0x0001.
// latlab run on the file gives what these tests assert on the written one,
// but for the 82579LM's donor of *NumRssQueues, which in the file is its
// first sibling with RSS2Q.reg, [E10DE.10.0.1] (left out here).
func TestINFRealE1iLayout(t *testing.T) {
	f := load(t, "net1ic64-like.inf")
	if f.Encoding != "utf-16le" {
		t.Errorf("encoding %s", f.Encoding)
	}
	ws := mustTarget(t, "10.0.18363", "workstation") // GamingPCSetup's Windows 10 1909
	for _, c := range []struct {
		name, id     string
		line, rank   int
		install      string
		rss, missing []string
		donor        string
	}{
		{"Gigabit CT", `PCI\VEN_8086&DEV_10D3&SUBSYS_A01F8086&REV_00`, 31, 0x1001, "E10D3.10.0.1", []string{"*RSS", "*NumRSSQueues"}, []string{"*RSSProfile"}, "E1502.10.0.1"},
		// another subsystem: the bare line, the device's compatible ID 1
		// (VEN&DEV) against the line's compatible ID 0
		{"other 82574L", `PCI\VEN_8086&DEV_10D3&SUBSYS_00001234&REV_00`, 30, 0x3001, "E10D3.10.0.1", []string{"*RSS", "*NumRSSQueues"}, []string{"*RSSProfile"}, "E1502.10.0.1"},
		{"82579LM", `PCI\VEN_8086&DEV_1502&SUBSYS_00008086&REV_04`, 29, 0x1001, "E1502.10.0.1", []string{"*RSS", "*RSSProfile"}, []string{"*NumRSSQueues"}, "E10D3.10.0.1"},
	} {
		rep, err := Analyze(f, c.id, ws, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if rep.InstallSection != c.install || rep.Model.Line != c.line || !rep.Model.NoHardwareID || rep.Match.Rank != c.rank || rep.Match.INFPos != 1 ||
			rep.Service != "e1i68x64" || !reflect.DeepEqual(rep.RSS, c.rss) || !reflect.DeepEqual(rep.MissingRSS, c.missing) || len(rep.Notes) != 0 {
			t.Errorf("%s: [%s] %+v %+v %q %v missing %v %q", c.name, rep.InstallSection, rep.Model, rep.Match, rep.Service, rep.RSS, rep.MissingRSS, rep.Notes)
		}
		// the donor's line has no hardware ID either
		if len(rep.Donors) != 1 || rep.Donors[0].InstallSection != c.donor || rep.Donors[0].HardwareID != "" || rep.Donors[0].Relation != SameDriver {
			t.Errorf("%s: donors %+v", c.name, rep.Donors)
		}
		itr := keyword(rep, "ITR")
		want := []EnumValue{{"0", "Off"}, {"200", "Minimal"}, {"400", "Low"}, {"950", "Medium"}, {"2000", "High"}, {"3600", "Extreme"}, {"65535", "Adaptive"}}
		if itr == nil || itr.Type != "enum" || itr.Default != "65535" || !reflect.DeepEqual(itr.Values, want) || itr.Value != nil || itr.ParamDesc != "Interrupt Moderation Rate" {
			t.Errorf("%s: ITR %+v", c.name, itr)
		}
		im := keyword(rep, "*InterruptModeration")
		if im == nil || im.Default != "1" || !reflect.DeepEqual(im.Values, []EnumValue{{"0", "Disabled"}, {"1", "Enabled"}}) {
			t.Errorf("%s: *InterruptModeration %+v", c.name, im)
		}
		for _, b := range []struct{ name, def string }{{"*ReceiveBuffers", "256"}, {"*TransmitBuffers", "512"}} {
			k := keyword(rep, b.name)
			if k == nil || k.Type != "int" || k.Default != b.def || k.Min != "80" || k.Max != "2048" || k.Step != "8" {
				t.Errorf("%s: %s %+v", c.name, b.name, k)
			}
		}
	}
	// *RSSProfile as RSS_e1c.reg writes it: a default and the value only.
	rep, err := Analyze(f, `PCI\VEN_8086&DEV_1502`, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := keyword(rep, "*RSSProfile"); p == nil || p.Type != "" || p.Default != "1" || p.Values != nil || p.Value == nil || p.Value.Data != "1" {
		t.Errorf("*RSSProfile %+v", p)
	}
	// The listing marks every ID of these lines a compatible ID.
	l, err := List(f, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Manufacturers[0].Sections[0].Devices {
		if !d.NoHardwareID || len(d.HardwareIDs) != 1 {
			t.Errorf("listing %+v", d)
		}
	}
}

// e2f-1.1.3.34-like.inf reproduces what was read by hand in Intel's e2f.inf
// 1.1.3.34 of 08/11/2022 (I225 / e2fexpress, as Dell packages it;
// testdata/README.md says where), line numbers of that file:
//
//	41  %Intel% = Intel, NTamd64.10.0...17763, NTamd64.10.0.1..17763
//	48  [Intel.NTamd64.10.0.1..17763]: DEV_15F2 and DEV_15F3 per REV,
//	    58: DEV_15F3&REV_03 -> E15F3_3.10.0.1..17763
//	74  [Intel.NTamd64.10.0...17763]: DEV_15F2 per REV (83: REV_03 ->
//	    E15F2_3.10.0...17763), no DEV_15F3
//	405 [E15F3_3.10.0.1..17763] DelReg = Advanced.DelReg; AddReg = e2f.reg,
//	    ... (no RSS section); AddService = e2fexpress, 2, ...
//	1452 [e2f.reg] HKR, Ndi, Service, e2fexpress; 1553 ITR enum, default
//	    "64": 500 Extreme, 250 High, 125 Medium, 64 Low, 32 Minimal, 0 Off;
//	    1563 *InterruptModeration 0/1, default 1
//	1731 [RSS.reg], 1739 [RSSAdvanced.reg]: defined; no AddReg line of
//	    the file names an RSS section
//	1930 [Advanced.DelReg] as e1r68x64.inf's
//
// Unlike the e2f68.inf an excerpt shows (e2f-like.inf: RSS.reg, RSS4Q.reg
// on the I225-V), this version installs no RSS keyword for any adapter,
// and its ITR defaults to Low. latlab run on the file gives
// what these tests assert on the written one.
func TestINFIntelE2F1134Layout(t *testing.T) {
	f := load(t, "e2f-1.1.3.34-like.inf")
	allRSS := []string{"*RSS", "*NumRSSQueues", "*RSSProfile", "*MaxRssProcessors", "*RssBaseProcGroup", "*RssBaseProcNumber", "*RssMaxProcGroup", "*RssMaxProcNumber", "*NumaNodeId"}
	for _, c := range []struct {
		dev, os, product, install, other string
	}{
		{"15F3", "10.0.22631", "workstation", "E15F3_3.10.0.1..17763", ""},
		{"15F2", "10.0.17763", "workstation", "E15F2_3.10.0.1..17763", "E15F2_3.10.0...17763"},
		{"15F2", "10.0.20348", "server", "E15F2_3.10.0...17763", "E15F2_3.10.0.1..17763"},
		// the I225-V on Windows Server 2022: not listed
		{"15F3", "10.0.20348", "server", "", "E15F3_3.10.0.1..17763"},
	} {
		name := c.dev + " " + c.os + " " + c.product
		rep, err := Analyze(f, `PCI\VEN_8086&DEV_`+c.dev+`&SUBSYS_00008086&REV_03`, mustTarget(t, c.os, c.product), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		other := ""
		if rep.OtherProduct != nil {
			other = rep.OtherProduct.InstallSection
		}
		if rep.InstallSection != c.install || other != c.other || len(rep.RSS) != 0 || len(rep.MissingRSS) != 0 || !reflect.DeepEqual(rep.NotInINF, allRSS) {
			t.Errorf("%s: [%s] other [%s] rss %v missing %v not in INF %v", name, rep.InstallSection, other, rep.RSS, rep.MissingRSS, rep.NotInINF)
		}
		if c.install == "" {
			if rep.Model != nil || !strings.Contains(strings.Join(rep.Notes, "\n"), "does not list") {
				t.Errorf("%s: %+v %q", name, rep.Model, rep.Notes)
			}
			continue
		}
		itr := keyword(rep, "ITR")
		want := []EnumValue{{"0", "Off"}, {"32", "Minimal"}, {"64", "Low"}, {"125", "Medium"}, {"250", "High"}, {"500", "Extreme"}}
		if rep.Service != "e2fexpress" || rep.Match.Rank != 0x2000 || itr == nil || itr.Default != "64" || !reflect.DeepEqual(itr.Values, want) {
			t.Errorf("%s: %q %+v ITR %+v", name, rep.Service, rep.Match, itr)
		}
		if im := keyword(rep, "*InterruptModeration"); im == nil || im.Default != "1" {
			t.Errorf("%s: *InterruptModeration %+v", name, im)
		}
	}
}

// el2000x-like.inf reproduces the layout of 3Com's el2000x.inf 1.16.46
// (07/31/2003, the 3C940 / 3C2000 gigabit adapters; DriverPackSolution/DP_LAN,
// path 5x86/3/el2000x.inf at commit 221e58045f5431f4f0506b493a45344bc5f11b15,
// blob 73865d0ad8c278758dc169847209cd1a050d7638; testdata/README.md),
// line numbers of that file:
//
//	16  [version] MillenniumPreferred = .ME
//	19  [Manufacturer] %V_3COM% = 3COM,ME,NT,NT.5.1
//	36  [3COM] -> 3C940.ndi ...    89 [3COM.ME] -> 3C940.ndi_ME ...
//	142 [3COM.NT] -> 3C940.ndi.NT  195 [3COM.NT.5.1] -> 3C940.ndi.NT.5.1
//
// latlab refused the whole file ("decoration "ME" does not start with NT"),
// which Windows 2000 and XP install from. The ME decoration is skipped with
// a note, the NT ones are chosen as before; latlab run on the file gives
// what this test asserts on the written one (XP x86: [3COM.NT.5.1] ->
// [3C940.ndi.NT.5.1]; 2000: [3COM.NT]; x64: no section applies).
func TestINFRealWindowsMeDecoration(t *testing.T) {
	f := load(t, "el2000x-like.inf")
	const dev = `PCI\VEN_10B7&DEV_1700&SUBSYS_001010B7`
	const note = `el2000x-like.inf line 15: [LAB.ME] skipped: ME is not an NT decoration`
	x86 := func(v string) Target {
		tg, err := ParseTarget(v, "workstation", "x86")
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	for _, c := range []struct {
		os, models, install string
	}{
		{"5.1.2600", "LAB.NT.5.1", "Card.ndi.NT.5.1"},
		{"5.0.2195", "LAB.NT", "Card.ndi.NT"},
		{"10.0.19045", "LAB.NT.5.1", "Card.ndi.NT.5.1"},
	} {
		rep, err := Analyze(f, dev, x86(c.os), "", nil)
		if err != nil {
			t.Errorf("%s: %v", c.os, err)
			continue
		}
		if rep.ModelsSection != c.models || rep.InstallSection != c.install {
			t.Errorf("%s: [%s] [%s]", c.os, rep.ModelsSection, rep.InstallSection)
			continue
		}
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("%s: notes %q", c.os, rep.Notes)
		}
		// nothing of the Me section is read: not its models section, not
		// the keyword only its install section writes
		for _, d := range rep.Decorations {
			if strings.EqualFold(d.Decoration, "ME") {
				t.Errorf("%s: the ME section is compared: %+v", c.os, d)
			}
		}
		if hasKeyword(rep.Keywords, "MeOnly") || !hasKeyword(rep.Keywords, "MaxFrameSize") {
			t.Errorf("%s: keywords %+v", c.os, rep.Keywords)
		}
	}
	l, err := List(f, x86("5.1.2600"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var secs []string
	for _, s := range l.Manufacturers[0].Sections {
		secs = append(secs, s.Section)
		if s.Chosen && s.Section != "LAB.NT.5.1" {
			t.Errorf("chosen [%s]", s.Section)
		}
	}
	if !reflect.DeepEqual(secs, []string{"LAB", "LAB.NT", "LAB.NT.5.1"}) || !slices.ContainsFunc(l.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
		t.Errorf("listing %q, notes %q", secs, l.Notes)
	}
	// On x64 no section of this INF applies: said, not refused.
	rep, err := Analyze(f, dev, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatalf("x64: %v", err)
	}
	if rep.Model != nil || !strings.HasPrefix(rep.NotInstalled, "no models section of Latlab Test Networks applies") {
		t.Errorf("x64: %q", rep.NotInstalled)
	}
}

// Decorations that are not Windows NT's TargetOSVersion are skipped with
// a note each, whatever is wrong with them, and the rest are chosen among
// as before.
func TestINFSkippedDecoration(t *testing.T) {
	const src = "[Manufacturer]\nM = M, Win64, NTmips, NTamd64.ten, NTamd64.10.0.7, NTamd64\n" +
		"[M.Win64]\nd = W, PCI\\VEN_1234&DEV_0001\n[M.NTamd64]\nd = A, PCI\\VEN_1234&DEV_0001\n[W]\n[A]\n"
	f, err := Parse(strings.NewReader(src), "s.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_1234&DEV_0001`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ModelsSection != "M.NTamd64" || rep.InstallSection != "A" {
		t.Fatalf("%v [%s] [%s]", err, rep.ModelsSection, rep.InstallSection)
	}
	for _, want := range []string{
		"s.inf line 2: [M.Win64] skipped: Win64 is not an NT decoration",
		`s.inf line 2: [M.NTmips] skipped: decoration "NTmips": unknown architecture "mips"`,
		`s.inf line 2: [M.NTamd64.ten] skipped: decoration "NTamd64.ten": field 1 ("ten") is not a number; Microsoft gives it no meaning and latlab never selects it`,
		`s.inf line 2: [M.NTamd64.10.0.7] skipped: decoration "NTamd64.10.0.7": product type 7`,
	} {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("no note %q in %q", want, rep.Notes)
		}
	}
}

// netrtp5-like.inf ends as Realtek's netrtp5.inf 5.506.0302.2000 (the
// RTL8029, "NT 5.0 & Win98 combined inf for NDIS5 driver";
// DriverPackSolution/DP_LAN, Realtek/5x86/FORCED/RTL8029_5.506.0302.2000/netrtp5.inf
// at commit 221e58045f5431f4f0506b493a45344bc5f11b15, blob
// 9721d39fcf43e61a1a1c63056d7f4c18fe5beff2, line 173) and USBs' net150.inf
// 5.115.0430.2002 (5x86/Z/net150.inf, same commit, blob
// 463b892ae7fbccda248a246a6352db019d2cd704, line 186) end: an empty line,
// the comment ";\x02\x02\x01", a line feed and a Ctrl-Z, in ASCII with LF
// line ends. latlab refused both ("line 173: not text (byte 0x02 at offset
// 6134)"); a comment's bytes are nobody's business (parse.go quotes Wine's
// SetupAPI), and latlab run on both files now lists their devices. The
// same bytes outside a comment, or after a ';' inside quotes, are text
// of their key or value, as SetupAPI reads them (TestINFControls), and a
// note says so.
func TestINFRealControlBytesInComment(t *testing.T) {
	b := loadRaw(t, "netrtp5-like.inf")
	if !bytes.HasSuffix(b, []byte("\n\n;\x02\x02\x01\n\x1a")) {
		t.Fatalf("the file does not end as netrtp5.inf: %q", b[len(b)-12:])
	}
	x86, err := ParseTarget("5.0.2195", "workstation", "x86")
	if err != nil {
		t.Fatal(err)
	}
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range string(b) {
		utf16 = append(utf16, byte(r), 0)
	}
	for name, in := range map[string][]byte{"ascii": b, "utf-16le": utf16} {
		f, err := Parse(bytes.NewReader(in), "netrtp5-like.inf")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		rep, err := Analyze(f, `PCI\VEN_10EC&DEV_8029`, x86, "", nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if rep.InstallSection != "card.ndi.NT" || !hasKeyword(rep.Keywords, "DuplexMode") {
			t.Errorf("%s: [%s] %+v", name, rep.InstallSection, rep.Keywords)
		}
	}
	for _, c := range []struct{ name, from, to, note string }{
		{"in a value", `Provider    = %Lab%`, "Provider    = %Lab%\x02", "x.inf line 9: a control character (0x02)"},
		{"after a quoted ';'", `"Latlab Test Networks"`, "\"Latlab; Test\x01 Networks\"", "x.inf line 47: a control character (0x01)"},
		{"a line after the comment", "\n\n;\x02\x02\x01\n", "\n\n;\x02\x02\x01\n\x03", "x.inf line 55: a control character (0x03)"},
	} {
		in := bytes.Replace(b, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(in, b) {
			t.Fatalf("%s: %q not in the file", c.name, c.from)
		}
		f, err := Parse(bytes.NewReader(in), "x.inf")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(f.Notes) != 1 || !strings.HasPrefix(f.Notes[0], c.note) {
			t.Errorf("%s: notes %q, want %q...", c.name, f.Notes, c.note)
		}
		if _, err := Analyze(f, `PCI\VEN_10EC&DEV_8029`, x86, "", nil); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func hasKeyword(ks []Keyword, name string) bool {
	return slices.ContainsFunc(ks, func(k Keyword) bool { return k.Name == name })
}
