package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/textdec"
)

// The INFs were WRITTEN for latlab's tests in the structure of real NDIS
// miniport INFs (internal/inf/testdata/README.md).
const infData = "../inf/testdata/"

func TestINFDeviceHuman(t *testing.T) {
	reg := testutil.TempDir(t) + "/add-rss.reg"
	code, out, errs := runCLI(t, "inf", infData+"i225-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`, "--reg-out", reg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"-> [Vendor.NTamd64.10.0.1..17763] (NTamd64.10.0.1..17763)",
		"install section [I225V.10.0.1.NTamd64]",
		// The row wraps within 80 columns: its cells' lines interleave.
		"ITR enum 125 0=Off, 32=Minimal, Interrupt Moderation 64=Low, 125=Medium, Rate 250=High, 500=Extreme",
		"RSS keywords installed: *RSS, *NumRSSQueues",
		"missing here, installed by other install sections of this INF: [I225V.10.0.3.NTamd64] the same device under NTamd64.10.0.3..17763 *RSSProfile, *MaxRssProcessors,",
		"on server Windows of the same version: [NTamd64.10.0.3..17763] -> [I225V.10.0.3.NTamd64]",
		"NTamd64.10.0.3..17763 I225V.10.0.3.NTamd64 7 only for server (product type 3)",
		"wrote " + reg,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	// Tables too: the output is not a terminal, and inf keeps to 80
	// columns all the same.
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if b[0] != 0xFF || b[1] != 0xFE {
		t.Error(".reg is not UTF-16LE with a BOM, as regedit writes version 5 files")
	}
	s, _, err := textdec.Decode(b)
	if err != nil || !strings.HasPrefix(s, "Windows Registry Editor Version 5.00\r\n") || !strings.Contains(s, `\NNNN\Ndi\Params\*MaxRssProcessors]`) {
		t.Errorf(".reg: %v\n%s", err, s)
	}
}

func TestINFDeviceJSON(t *testing.T) {
	code, out, errs := runCLI(t, "inf", infData+"i225-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`, "--json", "--lang", "0407")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		Device         string
		Decoration     string
		InstallSection string `json:"install_section"`
		Keywords       []struct {
			Name    string
			Type    string
			Default string
			Values  []struct{ Value, Desc string }
		}
		MissingRSS []string `json:"missing_rss"`
	}
	if err := json.Unmarshal(jsonData(t, out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Device != `PCI\VEN_8086&DEV_15F3` || v.Decoration != "NTamd64.10.0.1..17763" || v.InstallSection != "I225V.10.0.1.NTamd64" ||
		len(v.Keywords) != 5 || v.Keywords[3].Name != "*RSS" || v.Keywords[3].Values[0].Desc != "Deaktiviert" ||
		strings.Join(v.MissingRSS, ",") != "*RSSProfile,*MaxRssProcessors,*RssBaseProcNumber,*RssMaxProcNumber,*NumaNodeId" {
		t.Errorf("%+v", v)
	}
}

func TestINFList(t *testing.T) {
	code, out, errs := runCLI(t, "inf", infData+"rtl-like-utf16.inf")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"(utf-16le, 61 lines) matching for Windows 10.0.22631 workstation amd64",
		"=> [Vendor.NTamd64.10.0...18362] amd64, Windows 10.0+, build 18362+; used on this Windows",
		"PCI\\VEN_10EC&DEV_8125 Nic.Win10.19H1.NTamd64 24",
		"[Vendor.NTx86] x86; not used: architecture x86, not amd64",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "inf", infData+"rtl-like-utf16.inf", "--json", "--arch", "x86")
	if code != 0 || !strings.Contains(out, `"install_section": "Nic.Legacy.NT"`) || !strings.Contains(out, `"chosen": true`) {
		t.Errorf("x86 json: %d %s", code, out)
	}
}

// Include= files are read next to the INF: one found (its keywords
// counted), one missing and one broken (both a note naming why).
func TestINFIncludeNextToTheFile(t *testing.T) {
	args := []string{"inf", "", "--device", `PCI\VEN_10EC&DEV_8125`, "--os", "10.0.19045", "--json"}
	var rep struct {
		RSS   []string `json:"rss"`
		Notes []string `json:"notes"`
	}
	args[1] = infData + "rtl-like-utf16.inf"
	code, out, errs := runCLI(t, args...)
	if err := json.Unmarshal(jsonData(t, out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d %v: %s", code, err, errs)
	}
	notes := strings.Join(rep.Notes, "\n")
	if len(rep.RSS) != 3 || !strings.Contains(notes, "Include=machine.inf not analysed: not found next to rtl-like-utf16.inf") {
		t.Errorf("RSS %v (want 3, two from common-ndi.inf), notes %v", rep.RSS, rep.Notes)
	}
	dir := testutil.TempDir(t)
	b, err := os.ReadFile(infData + "rtl-like-utf16.inf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/rtl-like-utf16.inf", b, 0o644); err != nil {
		t.Fatal(err)
	}
	// binary: a control character SetupAPI would read as text, in a
	// file that does not read as an INF (its header is not closed)
	if err := os.WriteFile(dir+"/common-ndi.inf", []byte("[Version]\n\x00\x01\n["), 0o644); err != nil {
		t.Fatal(err)
	}
	args[1] = dir + "/rtl-like-utf16.inf"
	code, out, errs = runCLI(t, args...)
	rep.Notes = nil
	if err := json.Unmarshal(jsonData(t, out), &rep); code != 0 || err != nil {
		t.Fatalf("broken include: exit %d %v: %s", code, err, errs)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "Include=common-ndi.inf not analysed: common-ndi.inf: line 2: not text") {
		t.Errorf("broken include: notes %v", rep.Notes)
	}

	// --include-dir: machine.inf, a system INF, from a copy of the
	// system's INF folder; the one next to the INF still comes first.
	sys := testutil.TempDir(t)
	if err := os.WriteFile(sys+"/machine.inf", []byte("[Version]\nSignature=\"$Windows NT$\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sys+"/common-ndi.inf", b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, append(args, "--include-dir", sys)...)
	rep.Notes = nil
	if err := json.Unmarshal(jsonData(t, out), &rep); code != 0 || err != nil {
		t.Fatalf("--include-dir: exit %d %v: %s", code, err, errs)
	}
	notes = strings.Join(rep.Notes, "\n")
	if strings.Contains(notes, "machine.inf") || !strings.Contains(notes, "common-ndi.inf: line 2: not text") {
		t.Errorf("--include-dir: notes %v", rep.Notes)
	}
}

func TestINFBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	write := func(name string, b []byte) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := make([]byte, 512)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"inf", write("empty.inf", nil)}, "empty.inf: line 1: empty file"},
		{[]string{"inf", write("garbage.inf", garbage)}, "garbage.inf: line 1: not text"},
		// SetupAPI's MAX_SECTION_NAME_LEN (Wine's dlls/setupapi/parser.c)
		{[]string{"inf", write("long.inf", []byte("[Version]\nSignature=\"$Windows NT$\"\n["+strings.Repeat("a", 256)+"]\n"))},
			"long.inf: line 3: section name \"aaaa"},
		{[]string{"inf", infData + "loop.inf"}, "loop.inf: line 15: Needs loop in loop.inf: [LoopA.NTamd64] -> [LoopB] -> [LoopA.NTamd64]"},
		{[]string{"inf", infData + "loop.inf", "--device", `PCI\VEN_1234&DEV_0001`}, "Needs loop"},
		{[]string{"inf", infData + "i225-like.inf", "--device", `PCI\VEN_1234&DEV_0001`}, `device "PCI\\VEN_1234&DEV_0001" is in no models section`},
		{[]string{"inf", infData + "i225-like.inf", "--os", "ten"}, "invalid --os/--product/--arch"},
		{[]string{"inf", infData + "i225-like.inf", "--product", "home"}, "product \"home\": accepted workstation, server, dc"},
		{[]string{"inf", infData + "i225-like.inf", "--lang", "040c"}, "has no [Strings.040c]; its languages: 0407"},
		{[]string{"inf", infData + "i225-like.inf", "--reg-out", dir + "/x.reg"}, "--reg-out needs --device"},
		{[]string{"inf", infData + "i225-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`, "--product", "server", "--reg-out", dir + "/x.reg"}, "no RSS keyword that another install section of this INF installs is missing"},
		{[]string{"inf", dir + "/absent.inf"}, "cannot read " + dir + "/absent.inf"},
		{[]string{"inf", infData + "e2f-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`}, `lacks REV, which decides between lines of [Intel.NTamd64.10.0.1..17763]: line 34 PCI\VEN_8086&DEV_15F3&REV_01 -> [E15F3.10.0.1..17763]; line 36`},
		{[]string{"inf", infData + "e2f-like.inf", "--device", `PCI\VEN_8086&DEV_15F3&FOO_1`}, `part "FOO_1" is not one of VEN_, DEV_, SUBSYS_, REV_, CC_`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args[1:]), code, errs, c.want)
	}
}

// The sibling case: the I225-V's install section lacks keywords the
// I225-LM's (same driver, same models section) has; the JSON names the
// donor section per keyword and --reg-out writes the donor's definitions.
func TestINFSiblingDonorCLI(t *testing.T) {
	reg := testutil.TempDir(t) + "/add-rss.reg"
	code, out, errs := runCLI(t, "inf", infData+"e2f-like.inf", "--device", `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, "--json", "--reg-out", reg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		DeviceIDs struct {
			Hardware   []string `json:"hardware_ids"`
			Compatible []string `json:"compatible_ids"`
		} `json:"device_ids"`
		Match struct {
			Line     int
			INFID    string `json:"inf_id"`
			DeviceID string `json:"device_id"`
			Rank     int
		}
		MissingRSS   []string          `json:"missing_rss"`
		DonorSection map[string]string `json:"donor_section"`
		Donors       []struct {
			InstallSection string `json:"install_section"`
			Relation       string
			Service        string
			Line           int
			Keywords       []string
		}
	}
	if err := json.Unmarshal([]byte(out), &struct{ Data any }{&v}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Join(v.MissingRSS, ",") != "*RSSProfile,*MaxRssProcessors,*RssBaseProcNumber,*NumaNodeId" ||
		v.DonorSection["*NumaNodeId"] != "E15F2_3.10.0.1..17763" || len(v.Donors) != 1 ||
		v.Donors[0].Relation != "same_driver" || v.Donors[0].Service != "e2fexpress" || v.Donors[0].Line != 37 ||
		len(v.DeviceIDs.Hardware) != 4 || v.DeviceIDs.Hardware[2] != `PCI\VEN_8086&DEV_15F3&CC_??????` || v.DeviceIDs.Compatible[0] != `PCI\VEN_8086&DEV_15F3&REV_03` ||
		v.Match.Line != 38 || v.Match.Rank != 0x2000 || v.Match.DeviceID != `PCI\VEN_8086&DEV_15F3&REV_03` {
		t.Errorf("%+v", v)
	}
	b, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := textdec.Decode(b)
	if err != nil || !strings.Contains(s, `\NNNN\Ndi\Params\*RSSProfile\Enum]`+"\r\n\"1\"=\"Closest Processor\"") {
		t.Errorf(".reg: %v\n%s", err, s)
	}
}

// Skipped lines are notes with line numbers, in the listing, the device
// report and their JSON.
func TestINFSkippedLineNotes(t *testing.T) {
	p := testutil.TempDir(t) + "/s.inf"
	src := "[Manufacturer]\nM = M, NTamd64\n[M.NTamd64]\ndev = Dev, PCI\\VEN_1&DEV_1\n[Dev]\nAddReg = r.reg\n[r.reg]\n, Ndi\\Params\\*RSS, type, 0, \"enum\"\nHKR, Ndi\\Params\\*RSS, type, 0, \"enum\"\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "s.inf line 8: [r.reg] entry has an empty registry root"
	for _, args := range [][]string{{"inf", p}, {"inf", p, "--device", `PCI\VEN_1&DEV_1`}} {
		code, out, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "note: "+want) {
			t.Errorf("%v: exit %d %s\n%s", args[2:], code, errs, out)
		}
		code, out, _ = runCLI(t, append(args, "--json")...)
		var v struct{ Notes []string }
		if err := json.Unmarshal([]byte(out), &struct{ Data any }{&v}); code != 0 || err != nil || len(v.Notes) != 1 || !strings.HasPrefix(v.Notes[0], want) {
			t.Errorf("%v --json: %v %q", args[2:], err, v.Notes)
		}
	}
}

// A published NetAdapterCx sample INF (UTF-16, NT$ARCH$ as the driver
// sources write it) lists as it would once built for the target.
func TestINFListPublishedSample(t *testing.T) {
	code, out, errs := runCLI(t, "inf", infData+"windows-driver-samples/netvadapter.inf")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"(utf-16le, 233 lines) matching for Windows 10.0.22631 workstation amd64",
		"=> [Msft.NT$ARCH$] $ARCH$ (the architecture it is built for); used on this Windows",
		`test\netvadapter1 instance1.ndi 26`,
		"note: netvadapter.inf line 17: NT$ARCH$ is the placeholder a driver build (stampinf) replaces with the architecture it builds for; taken as NTamd64",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "─") {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// A models section Windows would use that lists nothing says so: Marvell's
// yk60x64.inf leaves [Marvell.NTamd64.6.1] empty so that its devices,
// listed for 6.0, install on no later Windows. The listing showed the
// section's header and nothing under it.
func TestINFListEmptyChosenSection(t *testing.T) {
	p := testutil.TempDir(t) + "/empty.inf"
	const src = "[Version]\r\nSignature=\"$Windows NT$\"\r\n[Manufacturer]\r\n%M%=M,NTamd64.6.1,NTamd64.6.0\r\n" +
		"[M.NTamd64.6.1]\r\n;Empty section\r\n[M.NTamd64.6.0]\r\n%D%=I,PCI\\VEN_11AB&DEV_4381\r\n[I]\r\n[Strings]\r\nM=Marvell\r\nD=Yukon\r\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "inf", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if want := "=> [M.NTamd64.6.1] amd64, Windows 6.1+; used on this Windows lists no device: this INF installs none on this Windows [M.NTamd64.6.0]"; !strings.Contains(flat, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Count(out, "lists no device") != 1 {
		t.Errorf("want one section said to list no device:\n%s", out)
	}
}
