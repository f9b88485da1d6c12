package inf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// Every INF in testdata was WRITTEN for these tests in the structure of
// real NDIS miniport INFs; none is a vendor file (see testdata/README.md).
func load(t testing.TB, name string) *File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(bytes.NewReader(b), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

func loader(t testing.TB) Loader {
	return func(name string) (*File, error) {
		b, err := os.ReadFile(filepath.Join("testdata", filepath.Base(name)))
		if err != nil {
			return nil, errors.New("not found")
		}
		return Parse(bytes.NewReader(b), name)
	}
}

func mustTarget(t testing.TB, v, p string) Target {
	t.Helper()
	tg, err := ParseTarget(v, p, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestINFSyntax(t *testing.T) {
	src := "junk before sections\r\n" +
		"[Sec One]   ; comment\r\n" +
		"Key = \"a;b\", c ; trailing comment\r\n" +
		"\"Quoted = Key\" = \"say \"\"hi\"\"\",  x , , \"\"\r\n" +
		"Long = one, \\\r\n" +
		"       two, \\   ; comment after the backslash\r\n" +
		"       three\r\n" +
		"novalue\r\n" +
		"[sec one]\r\n" +
		"Later = %Tok%, %missing%, 100%%, %%Tok%%\r\n" +
		"[Strings]\r\n" +
		"Tok = \"Token value\"\r\n" +
		"Pct = \"50%% off\"\r\n" +
		"[Strings.0407]\r\n" +
		"TOK = \"Wert\"\r\n"
	f, err := Parse(strings.NewReader(src), "x.inf")
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section("SEC ONE")
	if s == nil || s.Name != "Sec One" || len(s.Lines) != 5 || len(f.Sections) != 3 {
		t.Fatalf("sections %+v", f.Sections)
	}
	want := []Line{
		{Num: 3, Key: "Key", HasKey: true, Fields: []string{"a;b", "c"}},
		{Num: 4, Key: "Quoted = Key", HasKey: true, Fields: []string{`say "hi"`, "x", "", ""}},
		{Num: 5, Key: "Long", HasKey: true, Fields: []string{"one", "two", "three"}},
		{Num: 8, Fields: []string{"novalue"}},
		{Num: 10, Key: "Later", HasKey: true, Fields: []string{"%Tok%", "%missing%", "100%%", "%%Tok%%"}},
	}
	if !reflect.DeepEqual(s.Lines, want) {
		t.Errorf("lines\n got %+v\nwant %+v", s.Lines, want)
	}
	l := s.Lines[4]
	var got []string
	for _, fld := range l.Fields {
		got = append(got, f.Expand(fld, ""))
	}
	if !reflect.DeepEqual(got, []string{"Token value", "%missing%", "100%", "%Tok%"}) {
		t.Errorf("expanded %q", got)
	}
	if v := f.Expand("%tok%", "0407"); v != "Wert" {
		t.Errorf("localized %q", v)
	}
	if v := f.Expand("%pct%", "0407"); v != "50% off" {
		t.Errorf("fallback to [Strings] and %%%% in a value: %q", v)
	}
	if len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "line 1: text before the first section") {
		t.Errorf("notes %v", f.Notes)
	}
	if !reflect.DeepEqual(f.Languages(), []string{"0407"}) {
		t.Errorf("languages %v", f.Languages())
	}
}

func TestINFEncodings(t *testing.T) {
	u := load(t, "rtl-like-utf16.inf")
	if u.Encoding != "utf-16le" || u.Section("Vendor.NTamd64.10.0...18362") == nil {
		t.Errorf("utf-16: %s", u.Encoding)
	}
	c := load(t, "common-ndi.inf")
	if c.Encoding != "windows-1252" || c.Expand("%On%", "") != "Aktiviert (Übertragung)" {
		t.Errorf("ansi: %s %q", c.Encoding, c.Expand("%On%", ""))
	}
	// The same INF in UTF-16BE and UTF-8 with a BOM reads the same.
	b, _ := os.ReadFile("testdata/i225-like.inf")
	ref := load(t, "i225-like.inf")
	for name, data := range map[string][]byte{"utf-16be": utf16be(string(b)), "utf-8 bom": append([]byte("\xef\xbb\xbf"), b...)} {
		f, err := Parse(bytes.NewReader(data), "x")
		if err != nil || len(f.Sections) != len(ref.Sections) || f.Expand("%RSS%", "0407") != "Empfangsseitige Skalierung" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func utf16be(s string) []byte {
	out := []byte{0xFE, 0xFF}
	for _, c := range utf16.Encode([]rune(s)) {
		out = append(out, byte(c>>8), byte(c))
	}
	return out
}

func TestINFDecorations(t *testing.T) {
	for _, c := range []struct {
		raw                   string
		arch                  string
		major, minor, pt, bld int
		err                   bool
	}{
		{"NTamd64", "amd64", 0, 0, 0, 0, false},
		{"NTamd64.10.0", "amd64", 10, 0, 0, 0, false},
		{"NTamd64.10.0.1", "amd64", 10, 0, 1, 0, false},
		{"NTamd64.10.0...18362", "amd64", 10, 0, 0, 18362, false},
		{"ntAMD64.10.0.1..18362", "amd64", 10, 0, 1, 18362, false},
		{"NT", "", 0, 0, 0, 0, false},
		{"NTx86.6.3", "x86", 6, 3, 0, 0, false},
		{"Win64", "", 0, 0, 0, 0, true},
		{"NTamd64.ten", "", 0, 0, 0, 0, true},
		{"NTamd64.10.0.7", "", 0, 0, 0, 0, true},
		{"NTmips", "", 0, 0, 0, 0, true},
		{"NTamd64.10.0.1.0.1.2", "", 0, 0, 0, 0, true},
	} {
		d, err := ParseDecoration(c.raw)
		if (err != nil) != c.err {
			t.Errorf("%s: err %v", c.raw, err)
			continue
		}
		if !c.err && (d.Arch != c.arch || d.Major != c.major || d.Minor != c.minor || d.ProductType != c.pt || d.Build != c.bld) {
			t.Errorf("%s: %+v", c.raw, d)
		}
	}
	m := Manufacturer{Models: "M"}
	for _, r := range []string{"NTamd64", "NTamd64.6.3", "NTamd64.10.0", "NTamd64.10.0...18362", "NTamd64.10.0.1", "NTamd64.10.0.3..17763", "NTamd64.10.0...26100", "NTx86.10.0", "NTarm64.10.0"} {
		d, _ := ParseDecoration(r)
		m.Decorations = append(m.Decorations, d)
	}
	f := &File{byName: map[string]*Section{}}
	for _, d := range m.Decorations {
		n := m.ModelsSection(d)
		f.byName[strings.ToLower(n)] = &Section{Name: n}
	}
	for _, c := range []struct{ os, product, arch, want string }{
		{"10.0.22631", "workstation", "amd64", "NTamd64.10.0.1"},   // a product type outranks a build
		{"10.0.22631", "server", "amd64", "NTamd64.10.0.3..17763"}, // server section from 17763
		{"10.0.17134", "server", "amd64", "NTamd64.10.0"},          // both build-specific sections are newer
		{"10.0.26100", "dc", "amd64", "NTamd64.10.0...26100"},      // highest build among product-less
		{"6.3.9600", "workstation", "amd64", "NTamd64.6.3"},        // Windows 8.1
		{"6.1.7601", "workstation", "amd64", "NTamd64"},            // Windows 7: arch only
		{"10.0.22631", "workstation", "x86", "NTx86.10.0"},         // other architecture
		{"10.0.22631", "workstation", "arm64", "NTarm64.10.0"},     // and another
	} {
		tg, err := ParseTarget(c.os, c.product, c.arch)
		if err != nil {
			t.Fatal(err)
		}
		best, _ := f.Choose(m, tg)
		got := ""
		if best != nil {
			got = best.Decoration.Raw
		}
		if got != c.want {
			t.Errorf("%s %s %s: chose %q, want %q", c.os, c.product, c.arch, got, c.want)
		}
	}
	for _, bad := range [][3]string{{"10", "workstation", "amd64"}, {"10.0.x", "server", "amd64"}, {"10.0.1", "home", "amd64"}, {"10.0.1", "server", "mips"}} {
		if _, err := ParseTarget(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The I225-V case: the workstation decoration lacks RSSAdvanced.reg, the
// server decoration has it.
func TestINFI225Case(t *testing.T) {
	f := load(t, "i225-like.inf")
	rep, err := Analyze(f, `pci\ven_8086&dev_15f3`, mustTarget(t, "10.0.22631", "workstation"), "", loader(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decoration != "NTamd64.10.0.1..17763" || rep.InstallSection != "I225V.10.0.1.NTamd64" || rep.Model.Line != 35 {
		t.Errorf("chain: %s %s %+v", rep.Decoration, rep.InstallSection, rep.Model)
	}
	var names []string
	for _, k := range rep.Keywords {
		names = append(names, k.Name)
	}
	if !reflect.DeepEqual(names, []string{"*JumboPacket", "*InterruptModeration", "ITR", "*RSS", "*NumRssQueues"}) {
		t.Errorf("keywords %v", names)
	}
	wantMissing := []string{"*RSSProfile", "*MaxRssProcessors", "*RssBaseProcNumber", "*RssMaxProcNumber", "*NumaNodeId"}
	if !reflect.DeepEqual(rep.MissingRSS, wantMissing) || !reflect.DeepEqual(rep.RSS, []string{"*RSS", "*NumRSSQueues"}) {
		t.Errorf("RSS %v, missing %v", rep.RSS, rep.MissingRSS)
	}
	if !reflect.DeepEqual(rep.NotInINF, []string{"*RssBaseProcGroup", "*RssMaxProcGroup"}) {
		t.Errorf("not in INF %v", rep.NotInINF)
	}
	if op := rep.OtherProduct; op == nil || op.Decoration != "NTamd64.10.0.3..17763" || len(op.RSS) != 7 {
		t.Errorf("other product %+v", rep.OtherProduct)
	}
	jumbo := rep.Keywords[0]
	if jumbo.Type != "enum" || jumbo.Default != "1514" || len(jumbo.Values) != 3 || jumbo.Values[2] != (EnumValue{"9014", "9014 Bytes"}) ||
		jumbo.Value == nil || jumbo.Value.Data != "1514" || jumbo.Other["LimitText"] != "a ; inside quotes is text" || jumbo.ParamDesc != "Jumbo Packet" {
		t.Errorf("jumbo %+v", jumbo)
	}
	// The I225's ITR levels are the e2f/e2fn driver's codes, sorted
	// numerically: no Adaptive, and no 488 (a Low no real INF has).
	itr := rep.Keywords[2]
	want := []EnumValue{{"0", "Off"}, {"32", "Minimal"}, {"64", "Low"}, {"125", "Medium"}, {"250", "High"}, {"500", "Extreme"}}
	if itr.Name != "ITR" || !reflect.DeepEqual(itr.Values, want) || itr.Default != "125" || itr.Value == nil || itr.Value.Data != "125" {
		t.Errorf("ITR %+v", itr)
	}

	// The server gets everything, nothing is missing.
	srv, err := Analyze(f, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, mustTarget(t, "10.0.20348", "server"), "0407", loader(t))
	if err != nil {
		t.Fatal(err)
	}
	if srv.InstallSection != "I225V.10.0.3.NTamd64" || len(srv.MissingRSS) != 0 || len(srv.RSS) != 7 {
		t.Errorf("server: %s %v %v", srv.InstallSection, srv.RSS, srv.MissingRSS)
	}
	prof := srv.Keywords[5]
	if prof.Name != "*RSSProfile" || prof.ParamDesc != "RSS-Lastenausgleichsprofil" || prof.Default != "4" || len(prof.Values) != 5 {
		t.Errorf("localized, mixed-case Ndi\\params: %+v", prof)
	}
	numa := keyword(srv, "*numanodeid")
	if numa == nil || numa.Type != "dword" || numa.Value == nil || !numa.Value.IsDWORD() || numa.Value.Data != "65535" {
		t.Errorf("numa %+v", numa)
	}
	im := keyword(srv, "*InterruptModeration")
	if im == nil || im.ParamDesc != `Interrupt-Drosselung ("Moderation")` {
		t.Errorf("\"\" escape in a localized string: %q", im.ParamDesc)
	}

	// Before build 17763 both product types share the 16299 section.
	old, _ := Analyze(f, `PCI\VEN_8086&DEV_15F3`, mustTarget(t, "10.0.17134", "workstation"), "", nil)
	if old.Decoration != "NTamd64.10.0...16299" || !reflect.DeepEqual(old.MissingRSS, wantMissing) {
		t.Errorf("1803: %s %v", old.Decoration, old.MissingRSS)
	}
	// Windows 8.1 gets nothing from this INF.
	w81, _ := Analyze(f, `PCI\VEN_8086&DEV_15F3`, mustTarget(t, "6.3.9600", "workstation"), "", nil)
	if w81.Model != nil || len(w81.MissingRSS) != 0 || !strings.Contains(strings.Join(w81.Notes, "\n"), "does not install there") {
		t.Errorf("8.1: %+v", w81)
	}
	if _, err := Analyze(f, `PCI\VEN_10EC&DEV_8168`, mustTarget(t, "10.0.22631", "workstation"), "", nil); err == nil ||
		!strings.Contains(err.Error(), `device "PCI\\VEN_10EC&DEV_8168" is in no models section of i225-like.inf; it lists 3`) {
		t.Errorf("unknown device: %v", err)
	}
}

func TestINFRegFile(t *testing.T) {
	f := load(t, "i225-like.inf")
	rep, err := Analyze(f, `PCI\VEN_8086&DEV_15F3`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	n, err := WriteReg(&b, rep)
	if err != nil || n != 5 {
		t.Fatalf("%d %v", n, err)
	}
	s := b.String()
	base := `[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\NNNN`
	for _, want := range []string{
		"Windows Registry Editor Version 5.00\r\n\r\n",
		base + "]\r\n\"*RSSProfile\"=\"4\"\r\n",
		base + `\Ndi\Params\*RSSProfile]` + "\r\n\"ParamDesc\"=\"RSS load balancing profile\"\r\n\"type\"=\"enum\"\r\n\"default\"=\"4\"\r\n",
		base + `\Ndi\Params\*RSSProfile\Enum]` + "\r\n\"1\"=\"ClosestProcessor\"\r\n",
		base + "]\r\n\"*NumaNodeId\"=dword:0000ffff\r\n",
		"\"max\"=\"63\"",
		"; Replace NNNN with the adapter's subkey",
		"MatchingDeviceId -like 'pci\\ven_8086&dev_15f3*'",
	} {
		if !strings.Contains(s, want) {
			t.Errorf(".reg lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "*RSS\"=") || strings.Contains(s, "NumRssQueues]") {
		t.Error(".reg adds keywords the device already has")
	}
}

func TestINFIncludeNeedsAndUTF16(t *testing.T) {
	f := load(t, "rtl-like-utf16.inf")
	rep, err := Analyze(f, `PCI\VEN_10EC&DEV_8125`, mustTarget(t, "10.0.19045", "workstation"), "", loader(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decoration != "NTamd64.10.0...18362" || rep.InstallSection != "Nic.Win10.19H1.NTamd64" {
		t.Fatalf("%s %s", rep.Decoration, rep.InstallSection)
	}
	if !reflect.DeepEqual(rep.RSS, []string{"*RSS", "*NumRSSQueues", "*MaxRssProcessors"}) || len(rep.MissingRSS) != 0 {
		t.Errorf("RSS %v missing %v", rep.RSS, rep.MissingRSS)
	}
	q := rep.Keywords[2]
	if q.Name != "*NumRSSQueues" || q.Min != "" || q.Max != "4" || q.Sections[0] != "CommonRss.reg" {
		t.Errorf("FLG_ADDREG_DELVAL: %+v", q)
	}
	sd := rep.Keywords[0]
	if sd.ParamDesc != "Speed & Duplex" || sd.Values[2].Desc != "100% sure" {
		t.Errorf("speed %+v", sd)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "Include=machine.inf not analysed") || !strings.Contains(notes, "Needs=PciCommon.HW not found") {
		t.Errorf("notes %v", rep.Notes)
	}
	// On 1809 the plain 10.0 section: no advanced section, so
	// *MaxRssProcessors is missing compared with the 18362 one.
	old, _ := Analyze(f, `PCI\VEN_10EC&DEV_8125`, mustTarget(t, "10.0.17763", "workstation"), "", loader(t))
	if old.Decoration != "NTamd64.10.0" || !reflect.DeepEqual(old.MissingRSS, []string{"*MaxRssProcessors"}) ||
		!reflect.DeepEqual(old.MissingRSSFrom["*MaxRssProcessors"], []string{"NTamd64.10.0...18362"}) {
		t.Errorf("1809: %s %v %v", old.Decoration, old.MissingRSS, old.MissingRSSFrom)
	}
	l, err := List(f, mustTarget(t, "10.0.22631", "workstation"), "", loader(t))
	if err != nil {
		t.Fatal(err)
	}
	secs := l.Manufacturers[0].Sections
	if len(secs) != 5 || !secs[3].Chosen || secs[3].Devices[0].InstallSection != "Nic.Win10.19H1.NTamd64" ||
		secs[0].Devices[0].InstallSection != "Nic.Legacy.NT" || secs[4].Applies {
		t.Errorf("listing %+v", secs)
	}
}

func TestINFLoopAndErrors(t *testing.T) {
	f := load(t, "loop.inf")
	_, err := Analyze(f, `PCI\VEN_1234&DEV_0001`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 15 || !strings.Contains(err.Error(), "[LoopA.NTamd64] -> [LoopB] -> [LoopA.NTamd64]") {
		t.Errorf("loop: %v", err)
	}
	if _, err := List(f, mustTarget(t, "10.0.22631", "workstation"), "", nil); err == nil {
		t.Error("List follows the loop without noticing")
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "line 1: empty file"},
		// SetupAPI reads control characters as text (TestINFControls),
		// but what does not read as an INF is refused at the first
		{"binary", "\x7fELF\x02\x01\x01\x00\n[\x01", "line 1: not text (byte 0x02 at offset 4)"},
		{"no section", "just words\nand more\n", "line 2: no [section] in 2 lines"},
		{"one line", "x\n", "line 1: no [section] in 1 line:"},
		{"open header", "[Version\nSignature=x\n", "line 1: section header \"[Version\" has no closing ']'"},
	} {
		_, err := Parse(strings.NewReader(c.in), "x.inf")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, in, want string }{
		{"no manufacturer", "[Version]\nSignature=x\n", "line 2: no [Manufacturer] section"},
		// a decoration Windows does not select is skipped, not an error
		// (TestINFSkippedDecoration), but here it is all there is
		{"bad decoration", "[Manufacturer]\nX = M, NTamd64.ten\n", "no device in the models sections [Manufacturer] names: the file has none of [M] (cut short?), and it skips [M.NTamd64.ten], whose"},
		{"empty manufacturer", "[Manufacturer]\n", "line 1: [Manufacturer] is empty"},
	} {
		f, err := Parse(strings.NewReader(c.in), "x.inf")
		if err != nil {
			t.Fatal(err)
		}
		_, err = List(f, mustTarget(t, "10.0.22631", "workstation"), "", nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// The lists hold every ID the device reports, at the positions a rank
// counts (Match.DevicePos); a part the ID given lacks is a '?' a digit,
// and Lacks names it.
func TestINFDeviceIDs(t *testing.T) {
	for _, c := range []struct {
		in         string
		hw, compat []string
		err        string
		lacks      []string
	}{
		{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`,
			[]string{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, `PCI\VEN_8086&DEV_15F3&CC_??????`, `PCI\VEN_8086&DEV_15F3&CC_????`},
			[]string{`PCI\VEN_8086&DEV_15F3&REV_03`, `PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&CC_??????`, `PCI\VEN_8086&CC_????`, `PCI\VEN_8086`, `PCI\CC_??????`, `PCI\CC_????`}, "", []string{"CC"}},
		// a device instance ID, lower case, with the class code
		{`pci\ven_8086&dev_15f3&subsys_00008086&rev_03&cc_020000\3&11583659&0&FE`,
			[]string{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, `PCI\VEN_8086&DEV_15F3&CC_020000`, `PCI\VEN_8086&DEV_15F3&CC_0200`},
			[]string{`PCI\VEN_8086&DEV_15F3&REV_03`, `PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&CC_020000`, `PCI\VEN_8086&CC_0200`, `PCI\VEN_8086`, `PCI\CC_020000`, `PCI\CC_0200`}, "", nil},
		// a class code without the programming interface
		{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03&CC_0200`,
			[]string{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, `PCI\VEN_8086&DEV_15F3&CC_0200??`, `PCI\VEN_8086&DEV_15F3&CC_0200`},
			[]string{`PCI\VEN_8086&DEV_15F3&REV_03`, `PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&CC_0200??`, `PCI\VEN_8086&CC_0200`, `PCI\VEN_8086`, `PCI\CC_0200??`, `PCI\CC_0200`}, "", []string{"CC"}},
		{`PCI\VEN_8086&DEV_15F3`,
			[]string{`PCI\VEN_8086&DEV_15F3&SUBSYS_????????&REV_??`, `PCI\VEN_8086&DEV_15F3&SUBSYS_????????`, `PCI\VEN_8086&DEV_15F3&CC_??????`, `PCI\VEN_8086&DEV_15F3&CC_????`},
			[]string{`PCI\VEN_8086&DEV_15F3&REV_??`, `PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&CC_??????`, `PCI\VEN_8086&CC_????`, `PCI\VEN_8086`, `PCI\CC_??????`, `PCI\CC_????`}, "", []string{"SUBSYS", "REV", "CC"}},
		{`USB\VID_0BDA&PID_8153&REV_3000`, []string{`USB\VID_0BDA&PID_8153&REV_3000`, `USB\VID_0BDA&PID_8153`}, nil, "", nil},
		{`USB\VID_0BDA&PID_8153&MI_00`, []string{`USB\VID_0BDA&PID_8153&REV_????&MI_00`, `USB\VID_0BDA&PID_8153&MI_00`}, nil, "", []string{"REV"}},
		// Microsoft, "Plug and Play support" (HID): an interface's
		// hardware IDs are VID&PID&REV&MI, then VID&PID&MI, the device ID
		// "Standard USB identifiers" gives it; never the device's own.
		{`USB\VID_046D&PID_C52B&REV_1211&MI_00`, []string{`USB\VID_046D&PID_C52B&REV_1211&MI_00`, `USB\VID_046D&PID_C52B&MI_00`}, nil, "", nil},
		{`usb\vid_046d&pid_c52b&mi_01\7&2b4c0a8f&0&0001`, []string{`USB\VID_046D&PID_C52B&REV_????&MI_01`, `USB\VID_046D&PID_C52B&MI_01`}, nil, "", []string{"REV"}},
		{`USB\VID_046D&PID_C52B`, []string{`USB\VID_046D&PID_C52B&REV_????`, `USB\VID_046D&PID_C52B`}, nil, "", []string{"REV"}},
		{`USB\CLASS_02&SUBCLASS_06`, nil, nil, `part "CLASS_02" is not one of VID_, PID_, REV_, MI_`, nil},
		// A root hub's ID, as AMD's amdusbhubfilter.inf lists one: no
		// documented list, so it stands for itself.
		{`USB\ROOT_HUB30&VID1022&PID15D7&REV0000`, []string{`USB\ROOT_HUB30&VID1022&PID15D7&REV0000`}, nil, "", nil},
		{`usb\root_hub30\4&1a2b3c&0`, []string{`USB\ROOT_HUB30`}, nil, "", nil},
		// Microsoft, "Identifiers for High Definition Audio (HDAUDIO)
		// devices": the device ID first, then the ID without REV; no
		// compatible ID is listed one by one there, so none is built.
		{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445&REV_1003\4&2A3B&0&0001`,
			[]string{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445&REV_1003`, `HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445`}, nil, "", nil},
		{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887`, []string{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887`}, nil, "", nil},
		{`HDAUDIO\VEN_10EC&DEV_0887&SUBSYS_10438445`, []string{`HDAUDIO\VEN_10EC&DEV_0887&SUBSYS_10438445`}, nil, "", nil},
		{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445`, []string{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445&REV_????`, `HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445`}, nil, "", []string{"REV"}},
		{`HDAUDIO\FUNC_01&CTRL_VEN_8086&CTRL_DEV_A170&VEN_10EC&DEV_0887`, []string{`HDAUDIO\FUNC_01&CTRL_VEN_8086&CTRL_DEV_A170&VEN_10EC&DEV_0887`}, nil, "", nil},
		// As written: Microsoft documents no list Windows builds from them
		// (VMBUS), or none latlab can build from the ID (SD, PCMCIA, ACPI).
		{`VMBUS\{f8615163-df3e-46c5-913f-f2d2f965ed0e}`, []string{`VMBUS\{F8615163-DF3E-46C5-913F-F2D2F965ED0E}`}, nil, "", nil},
		{`SD\VID_0271&PID_0400`, []string{`SD\VID_0271&PID_0400`}, nil, "", nil},
		{`PCMCIA\MEGAHERTZ-CC10BT/2-BF05`, []string{`PCMCIA\MEGAHERTZ-CC10BT/2-BF05`}, nil, "", nil},
		{`ACPI\VEN_INTC&DEV_1234`, []string{`ACPI\VEN_INTC&DEV_1234`}, nil, "", nil},
		{`root\netvadapter`, []string{`ROOT\NETVADAPTER`}, nil, "", nil},
		{`*PNP0A03`, []string{`*PNP0A03`}, nil, "", nil},
		{``, nil, nil, "empty hardware ID", nil},
		{`PCI\VEN_8086&DEV_15F3&FOO_1`, nil, nil, `part "FOO_1" is not one of VEN_, DEV_, SUBSYS_, REV_, CC_`, nil},
		{`PCI\VEN_8086&VEN_8087`, nil, nil, "part VEN given twice", nil},
		{`PCI\VEN_8086&CC_02`, nil, nil, "expected 4 or 6 hex digits", nil},
		{`PCI\DEV_15F3`, nil, nil, "names no PCI device", nil},
		{strings.Repeat("A", 600), nil, nil, "hardware ID of 600 bytes", nil},
	} {
		ids, err := ParseDeviceID(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(ids.Hardware, c.hw) || !reflect.DeepEqual(ids.Compatible, c.compat) || !reflect.DeepEqual(ids.Lacks, c.lacks) {
			t.Errorf("%q: %v\n hw %q\n compat %q\n lacks %q", c.in, err, ids.Hardware, ids.Compatible, ids.Lacks)
		}
	}
}

// Hardware-ID matching as Windows ranks it, on e2f-like.inf (one line per
// PCI revision, as Intel's e2f INF has) and i225-like.inf (a SUBSYS line
// and a bare line for one install section).
func TestINFHardwareIDMatch(t *testing.T) {
	ws := mustTarget(t, "10.0.22631", "workstation")
	e2f := load(t, "e2f-like.inf")
	// The ID Device Manager shows matches the REV_03 line through the
	// device's first compatible ID (rank 0x2000, as Windows reports for
	// this INF); it used to be in "no models section".
	for _, id := range []string{`PCI\VEN_8086&DEV_15F3&SUBSYS_87D21043&REV_03`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03\E0276CFFFFEEA86B00`} {
		rep, err := Analyze(e2f, id, ws, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		m := rep.Match
		if rep.InstallSection != "E15F3_3.10.0.1..17763" || m == nil || m.Line != 38 || m.Rank != 0x2000 || m.DeviceID != `PCI\VEN_8086&DEV_15F3&REV_03` || m.INFPos != 0 {
			t.Errorf("%s: %s %+v", id, rep.InstallSection, m)
		}
		if m != nil && m.Kind() != "the device's compatible ID 0 = the line's hardware ID" {
			t.Errorf("kind %q", m.Kind())
		}
	}
	// A bare ID used to take the REV_01 line silently; the revision
	// decides, so latlab lists the candidates instead.
	_, err := Analyze(e2f, `PCI\VEN_8086&DEV_15F3`, ws, "", nil)
	var ae *AmbiguousError
	if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Lines, []int{34, 36, 38}) || !reflect.DeepEqual(ae.Lacks, []string{"REV"}) ||
		!strings.Contains(err.Error(), `device "PCI\\VEN_8086&DEV_15F3" lacks REV, which decides between lines of [Intel.NTamd64.10.0.1..17763]: line 34 PCI\VEN_8086&DEV_15F3&REV_01 -> [E15F3.10.0.1..17763]; line 36`) {
		t.Errorf("bare ID: %v", err)
	}
	// The I226-V is listed bare: its full ID matches the compatible ID 1.
	rep, err := Analyze(e2f, `PCI\VEN_8086&DEV_125C&SUBSYS_00008086&REV_04`, ws, "", nil)
	if err != nil || rep.Match.Rank != 0x2001 || rep.InstallSection != "E125C.10.0.1..17763" {
		t.Errorf("I226-V: %v %+v", err, rep)
	}
	// A revision the INF does not list installs nothing.
	if _, err := Analyze(e2f, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_04`, ws, "", nil); err == nil || !strings.Contains(err.Error(), "is in no models section") {
		t.Errorf("REV_04: %v", err)
	}

	i225 := load(t, "i225-like.inf")
	// The SUBSYS line is hardware ID 1 of the full ID and beats the bare
	// line (compatible ID 1).
	rep, err = Analyze(i225, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, ws, "", nil)
	if err != nil || rep.Model.Line != 34 || rep.Match.Rank != 0x0001 || rep.Decorations[0].Rank != 0x0001 {
		t.Errorf("SUBSYS: %v %+v", err, rep.Match)
	}
	rep, err = Analyze(i225, `PCI\VEN_8086&DEV_15F3&SUBSYS_12345678&REV_03`, ws, "", nil)
	if err != nil || rep.Model.Line != 35 || rep.Match.Rank != 0x2001 {
		t.Errorf("other SUBSYS: %v %+v", err, rep.Match)
	}
	// A bare ID: the SUBSYS line could match better, but both lines lead
	// to the same install section, so the keywords do not depend on it;
	// the match names the line that outranks it on a device with that
	// SUBSYS.
	rep, err = Analyze(i225, `PCI\VEN_8086&DEV_15F3`, ws, "", nil)
	if err != nil || rep.Model.Line != 35 || rep.InstallSection != "I225V.10.0.1.NTamd64" || rep.Match.Rank != 0x2001 ||
		len(rep.Match.OutrankedBy) != 1 || rep.Match.OutrankedBy[0].Line != 34 || rep.Match.OutrankedBy[0].Rank != 0x0001 {
		t.Errorf("bare: %v %+v", err, rep.Match)
	}
}

// INF lines with compatible IDs, and lines only a fuller ID can match.
func TestINFCompatibleIDLines(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
virtio = Net, PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00, PCI\VEN_1AF4&DEV_1000
oem    = Oem, PCI\VEN_1AF4&DEV_1041&SUBSYS_11001AF4
[Net]
[Oem]
`
	ws := mustTarget(t, "10.0.22631", "workstation")
	f, err := Parse(strings.NewReader(src), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id      string
		install string
		rank    int
		pos     int
		note    string
	}{
		{`PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00`, "Net", 0x0000, 0, ""},
		// another subsystem: the device's compatible ID 1 equals the
		// line's compatible ID
		{`PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`, "Net", 0x3001, 1, ""},
		{`PCI\VEN_1AF4&DEV_1041&SUBSYS_11001AF4&REV_01`, "Oem", 0x0001, 0, ""},
		// no REV, no SUBSYS: only the OEM line could match, so it is
		// taken, with a note that the SUBSYS decides
		{`PCI\VEN_1AF4&DEV_1041`, "Oem", 0x0001, 0, `names no line of [M.NTamd64] exactly; its lines that also name SUBSYS all lead to [Oem]: taken line 5 (PCI\VEN_1AF4&DEV_1041&SUBSYS_11001AF4)`},
	} {
		rep, err := Analyze(f, c.id, ws, "", nil)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		if rep.InstallSection != c.install || rep.Match.Rank != c.rank || rep.Match.INFPos != c.pos ||
			c.note != "" && !strings.Contains(strings.Join(rep.Notes, "\n"), c.note) {
			t.Errorf("%s: %s %+v %v", c.id, rep.InstallSection, rep.Match, rep.Notes)
		}
	}

	// A class-code line: a device's VEN&CC compatible ID (position 3)
	// outranks its VEN&DEV compatible ID matching an INF compatible ID
	// (0x3001), so without the class code the choice is open.
	f, err = Parse(strings.NewReader(src+"[M.NTamd64]\nclass = Class, PCI\\VEN_1AF4&CC_0200\n[Class]\n"), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Analyze(f, `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`, ws, "", nil)
	var ae *AmbiguousError
	if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Lacks, []string{"CC"}) || !reflect.DeepEqual(ae.Lines, []int{4, 9}) ||
		!strings.HasSuffix(err.Error(), "; append the class code those Hardware Ids show (e.g. &CC_020000)") {
		t.Errorf("without CC: %v", err)
	}
	for id, want := range map[string]string{
		`PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00&CC_020000`: "Class", // 0x2003 beats 0x3001
		`PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00&CC_0C03`:   "Net",
		`PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00`:           "Net", // 0x0000 beats any class line
	} {
		if rep, err := Analyze(f, id, ws, "", nil); err != nil || rep.InstallSection != want {
			t.Errorf("%s: %v, want %s", id, err, want)
		}
	}
	_, err = Analyze(f, `PCI\VEN_1AF4&DEV_1041`, ws, "", nil)
	if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Lacks, []string{"SUBSYS", "CC"}) || !reflect.DeepEqual(ae.Lines, []int{5, 9}) {
		t.Errorf("bare: %v", err)
	}
}

// A rank's position HHH is the ID's place in the list Windows builds for
// the device, which holds every form of its bus whatever the ID given
// spells: Microsoft's "Identifiers for PCI Devices" lists VEN&DEV&SUBSYS&REV,
// VEN&DEV&SUBSYS, VEN&DEV&CC_ccsspp, VEN&DEV&CC_ccss as hardware IDs and
// VEN&DEV&REV, VEN&DEV, VEN&CC_ccsspp, VEN&CC_ccss, VEN, CC_ccsspp,
// CC_ccss as compatible IDs; "Standard USB identifiers" and "Plug and
// Play support" VID&PID&REV, VID&PID for a device and VID&PID&REV&MI,
// VID&PID&MI for an interface; the HDAUDIO page the ID with and without
// REV. The ranks were the place in the list of IDs the given one spells
// out: a bare VEN&DEV at position 0, as high as a VEN&DEV&REV line.
func TestINFRankPositionInDeviceList(t *testing.T) {
	const full = `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`
	for _, c := range []struct {
		given, infID string
		pos, rank    int
	}{
		{full, full, 0, 0x0000},
		{full, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, 0, 0x0001},
		{full, `PCI\VEN_8086&DEV_15F3&REV_03`, 0, 0x2000},
		{full, `PCI\VEN_8086&DEV_15F3`, 0, 0x2001},
		{full, `PCI\VEN_8086&DEV_15F3`, 1, 0x3001},
		{full, `PCI\VEN_8086`, 0, 0x2004}, // after VEN&CC_ccsspp and VEN&CC_ccss
		{full + `&CC_020000`, `PCI\VEN_8086&DEV_15F3&CC_0200`, 0, 0x0003},
		{full + `&CC_020000`, `PCI\CC_0200`, 0, 0x2006},
		{`PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&DEV_15F3`, 0, 0x2001},
		{`PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086`, 0, 0x2004},
		{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, 0, 0x0001},
		{`PCI\VEN_8086&DEV_15F3&REV_03`, `PCI\VEN_8086&DEV_15F3&REV_03`, 0, 0x2000},
		{`USB\VID_0BDA&PID_8153&REV_3000`, `USB\VID_0BDA&PID_8153`, 0, 0x0001},
		{`USB\VID_0BDA&PID_8153`, `USB\VID_0BDA&PID_8153`, 0, 0x0001},
		{`USB\VID_046D&PID_C52B&MI_01`, `USB\VID_046D&PID_C52B&MI_01`, 0, 0x0001},
		{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445`, `HDAUDIO\FUNC_01&VEN_10EC&DEV_0887&SUBSYS_10438445`, 0, 0x0001},
		// an ID that stands for itself is its own list
		{`ROOT\NETVADAPTER`, `root\netvadapter`, 0, 0x0000},
		{`HDAUDIO\FUNC_01&VEN_10EC&DEV_0887`, `HDAUDIO\FUNC_01&VEN_10EC&DEV_0887`, 0, 0x0000},
	} {
		ids, err := ParseDeviceID(c.given)
		if err != nil {
			t.Fatal(err)
		}
		if r, _, _, ok := ids.rank(c.infID, c.pos); !ok || r != c.rank {
			t.Errorf("%s: %s at %d ranks 0x%04X (%v), want 0x%04X", c.given, c.infID, c.pos, r, ok, c.rank)
		}
	}
	// What a line that needs a part the ID given lacks would rank, where
	// the device has it.
	for _, c := range []struct {
		given, infID string
		rank         int
		lacks        []string
	}{
		{`PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&DEV_15F3&REV_03`, 0x2000, []string{"REV"}},
		{`PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, 0x0001, []string{"SUBSYS"}},
		{`PCI\VEN_8086&DEV_15F3&REV_03`, full, 0x0000, []string{"SUBSYS"}},
		{`USB\VID_0BDA&PID_8153`, `USB\VID_0BDA&PID_8153&REV_3000`, 0x0000, []string{"REV"}},
		{`USB\VID_046D&PID_C52B`, `USB\VID_046D&PID_C52B&MI_01`, 0x0001, []string{"MI"}},
	} {
		ids, err := ParseDeviceID(c.given)
		if err != nil {
			t.Fatal(err)
		}
		if r, lacks, _, ok := ids.potential(c.infID, 0); !ok || r != c.rank || !reflect.DeepEqual(lacks, c.lacks) {
			t.Errorf("%s: %s would rank 0x%04X lacking %v (%v), want 0x%04X lacking %v", c.given, c.infID, r, lacks, ok, c.rank, c.lacks)
		}
	}
}

// The identifier score of every pair in Microsoft's "Driver Rank Example"
// (https://learn.microsoft.com/windows-hardware/drivers/install/driver-rank-example--windows-vista-and-later-):
// a device with hardware IDs HwID_1, HwID_2 and compatible IDs CID_1,
// CID_2, and the models line "DeviceDesc1 = InstallSection1, INF_HwID_1,
// INF_CID_1, INF_CID_2". The wants are the page's table, 0xSSGG left off.
func TestINFIdentifierScoreDriverRankExample(t *testing.T) {
	type dev struct {
		name   string
		compat bool
		pos    int
	}
	infIDs := []string{"INF_HwID_1", "INF_CID_1", "INF_CID_2"} // line positions 0, 1, 2
	for _, c := range []struct {
		dev  dev
		want [3]int // per INF ID
	}{
		{dev{"HwID_1", false, 0}, [3]int{0x0000, 0x1000, 0x1000}},
		{dev{"HwID_2", false, 1}, [3]int{0x0001, 0x1001, 0x1001}},
		{dev{"CID_1", true, 0}, [3]int{0x2000, 0x3000, 0x3100}},
		{dev{"CID_2", true, 1}, [3]int{0x2001, 0x3001, 0x3101}},
	} {
		for pos, want := range c.want {
			if got := identifierScore(c.dev.compat, c.dev.pos, pos); got != want {
				t.Errorf("%s = %s: 0x%04X, want 0x%04X", c.dev.name, infIDs[pos], got, want)
			}
		}
	}
	// "Identifier Score": each match type keeps to its range, 0xT000
	// through 0xTFFF.
	for _, c := range []struct {
		compat     bool
		dpos, ipos int
		lo, hi     int
	}{
		{false, 5000, 0, 0x0000, 0x0FFF},
		{false, 5000, 3, 0x1000, 0x1FFF},
		{true, 5000, 0, 0x2000, 0x2FFF},
		{true, 3, 40, 0x3000, 0x3FFF},
	} {
		if got := identifierScore(c.compat, c.dpos, c.ipos); got < c.lo || got > c.hi {
			t.Errorf("compat %v, device %d, line %d: 0x%04X, want in 0x%04X..0x%04X", c.compat, c.dpos, c.ipos, got, c.lo, c.hi)
		}
	}
}

// The line's position of the compatible ID that matched counts when the
// device's compatible ID matched it: the device's compatible ID 1 equal to
// a line's first compatible ID (0x3001) outranks its compatible ID 0
// equal to another line's second (0x3100). Counting the device's position
// alone, the second line ranked 0x3000 and was taken.
func TestINFCompatibleIDPositionOnLine(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
second = Second, PCI\VEN_1AF4&DEV_9999, PCI\VEN_1AF4&DEV_8888, PCI\VEN_1AF4&DEV_1000&REV_00
first  = First, PCI\VEN_1AF4&DEV_7777, PCI\VEN_1AF4&DEV_1000
[Second]
[First]
`
	ws := mustTarget(t, "10.0.22631", "workstation")
	f, err := Parse(strings.NewReader(src), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	const id = `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`
	rep, err := Analyze(f, id, ws, "", nil)
	if err != nil || rep.InstallSection != "First" || rep.Match.Rank != 0x3001 || rep.Match.INFPos != 1 || rep.Match.DevicePos != 1 ||
		rep.Match.Kind() != "the device's compatible ID 1 = the line's compatible ID 0" {
		t.Errorf("%v [%s] %+v %q", err, rep.InstallSection, rep.Match, rep.Match.Kind())
	}
	// Alone, the second line ranks as the page's CID_1 = INF_CID_2.
	f, err = Parse(strings.NewReader(strings.Replace(src, "first  = First", "; first = First", 1)), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Analyze(f, id, ws, "", nil)
	if err != nil || rep.InstallSection != "Second" || rep.Match.Rank != 0x3100 || rep.Match.INFPos != 2 || rep.Match.DevicePos != 0 ||
		rep.Match.Kind() != "the device's compatible ID 0 = the line's compatible ID 1" {
		t.Errorf("alone: %v [%s] %+v %q", err, rep.InstallSection, rep.Match, rep.Match.Kind())
	}
	// A device hardware ID ranks alike on any of the line's compatible
	// IDs (the page's HwID_2 row): 0x1001 on the second.
	f, err = Parse(strings.NewReader(strings.Replace(src, `DEV_1000&REV_00`, `DEV_1000&SUBSYS_00015853`, 1)), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Analyze(f, id, ws, "", nil)
	if err != nil || rep.InstallSection != "Second" || rep.Match.Rank != 0x1001 || rep.Match.INFPos != 2 || rep.Match.DevicePos != 1 ||
		rep.Match.Kind() != "the device's hardware ID 1 = the line's compatible ID 1" {
		t.Errorf("hardware ID: %v [%s] %+v %q", err, rep.InstallSection, rep.Match, rep.Match.Kind())
	}
}

// A models line may leave its hardware ID empty ("install-section-name,
// [hw-id][,compatible-id...]", Microsoft's INF Models section page): its
// IDs are all compatible IDs, the first at position 1, and rank as such.
// They were taken for a hardware ID and compatible IDs from position 0.
func TestINFLineWithoutHardwareID(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
compat = Compat, , PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853, PCI\VEN_1AF4&DEV_1000&REV_00
[Compat]
[Hw]
`
	ws := mustTarget(t, "10.0.22631", "workstation")
	const id = `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`
	for _, c := range []struct {
		name, extra, install string
		rank, pos            int
		kind                 string
	}{
		// the device's hardware ID 1 = the line's compatible ID 0
		{"alone", "", "Compat", 0x1001, 1, "the device's hardware ID 1 = the line's compatible ID 0"},
		// a line whose hardware ID is the device's compatible ID 0
		// (0x2000) is below it
		{"hardware ID line", "hw = Hw, PCI\\VEN_1AF4&DEV_1000&REV_00\n", "Compat", 0x1001, 1, ""},
		// a line whose hardware ID is the device's hardware ID 1 is above
		{"better line", "hw = Hw, PCI\\VEN_1AF4&DEV_1000&SUBSYS_00015853\n", "Hw", 0x0001, 0, "the device's hardware ID 1 = the line's hardware ID"},
	} {
		f, err := Parse(strings.NewReader(strings.Replace(src, "[Compat]\n", c.extra+"[Compat]\n", 1)), "c.inf")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(f, id, ws, "", nil)
		if err != nil || rep.InstallSection != c.install || rep.Match.Rank != c.rank || rep.Match.INFPos != c.pos || c.kind != "" && rep.Match.Kind() != c.kind {
			t.Errorf("%s: %v [%s] %+v %q", c.name, err, rep.InstallSection, rep.Match, rep.Match.Kind())
		}
	}
	// Its second compatible ID against the device's compatible ID 0:
	// 0x3100, as the Driver Rank Example's CID_1 = INF_CID_2.
	f, err := Parse(strings.NewReader(src), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_1AF4&DEV_1000&SUBSYS_00019999&REV_00`, ws, "", nil)
	if err != nil || rep.Match.Rank != 0x3100 || rep.Match.INFPos != 2 || !rep.Model.NoHardwareID {
		t.Errorf("compatible ID: %v %+v %+v", err, rep.Match, rep.Model)
	}
}

// A match's device position indexes the lists the report gives: the ID
// there is the one that matched, or, when the line needs parts the ID
// given lacks (Assumes), the same ID with '?' for them.
func TestINFMatchPositionInLists(t *testing.T) {
	ws := mustTarget(t, "10.0.22631", "workstation")
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
virtio = Net, PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00, PCI\VEN_1AF4&DEV_1000
oem    = Oem, PCI\VEN_1AF4&DEV_1041&SUBSYS_11001AF4
[Net]
[Oem]
`
	c, err := Parse(strings.NewReader(src), "c.inf")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f        *File
		id, want string
		compat   bool
		pos      int
	}{
		{load(t, "e2f-like.inf"), `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, `PCI\VEN_8086&DEV_15F3&REV_03`, true, 0},
		{load(t, "i225-like.inf"), `PCI\VEN_8086&DEV_15F3`, `PCI\VEN_8086&DEV_15F3`, true, 1},
		{load(t, "i225-like.inf"), `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`, `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, false, 1},
		{c, `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`, `PCI\VEN_1AF4&DEV_1000`, true, 1},
		{c, `PCI\VEN_1AF4&DEV_1041`, `PCI\VEN_1AF4&DEV_1041&SUBSYS_????????`, false, 1},
	} {
		rep, err := Analyze(c.f, c.id, ws, "", nil)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		list := rep.IDs.Hardware
		if rep.Match.Rank>>12 >= 2 {
			list = rep.IDs.Compatible
		}
		if rep.Match.DevicePos != c.pos || c.compat != (rep.Match.Rank>>12 >= 2) || c.pos >= len(list) || list[c.pos] != c.want {
			t.Errorf("%s: match %+v, lists %q %q; want %s at %d", c.id, rep.Match, rep.IDs.Hardware, rep.IDs.Compatible, c.want, c.pos)
		}
	}
}

// A bare line and a REV line (or, for USB, a bare line and a REV line)
// with different install sections: the ID given without REV matches the
// bare line, but a device with that revision takes the REV line, so the
// ID does not decide. Both used to rank alike, and the bare line was
// taken without a word.
func TestINFBareLineBesideFullerLines(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
bare   = Bare, PCI\VEN_8086&DEV_15F3
rev3   = Rev3, PCI\VEN_8086&DEV_15F3&REV_03
usb    = UsbBare, USB\VID_0BDA&PID_8153
usbrev = UsbRev, USB\VID_0BDA&PID_8153&REV_3000
[Bare]
[Rev3]
[UsbBare]
[UsbRev]
`
	f, err := Parse(strings.NewReader(src), "b.inf")
	if err != nil {
		t.Fatal(err)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		id    string
		lines []int
		lacks string
	}{
		{`PCI\VEN_8086&DEV_15F3`, []int{4, 5}, "REV"},
		{`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086`, []int{4, 5}, "REV"},
		{`USB\VID_0BDA&PID_8153`, []int{6, 7}, "REV"},
	} {
		_, err := Analyze(f, c.id, ws, "", nil)
		var ae *AmbiguousError
		if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Lines, c.lines) || strings.Join(ae.Lacks, " ") != c.lacks {
			t.Errorf("%s: %v", c.id, err)
		}
	}
	// With the part, each device has its line.
	for id, want := range map[string]string{
		`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`: "Rev3",
		`PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_02`: "Bare",
		`USB\VID_0BDA&PID_8153&REV_3000`:               "UsbRev",
		`USB\VID_0BDA&PID_8153&REV_3100`:               "UsbBare",
	} {
		rep, err := Analyze(f, id, ws, "", nil)
		if err != nil || rep.InstallSection != want || len(rep.Match.OutrankedBy) != 0 {
			t.Errorf("%s: %v %+v, want %s", id, err, rep, want)
		}
	}
}

// keyword returns the device's keyword named name, ignoring case, as
// Windows matches keyword names.
func keyword(rep *DeviceReport, name string) *Keyword {
	for i := range rep.Keywords {
		if strings.EqualFold(rep.Keywords[i].Name, name) {
			return &rep.Keywords[i]
		}
	}
	return nil
}

// The I225-V case as Intel's e2f INF has it (e2f-like.inf reproduces the
// layout public excerpts show): the I225-V is listed only in the client
// models section, and its install section lacks the RSSAdvanced.reg that
// a sibling with the same driver, the I225-LM, has. Comparing only the
// device's own decorations found nothing to add.
func TestINFSiblingDonor(t *testing.T) {
	f := load(t, "e2f-like.inf")
	rep, err := Analyze(f, `PCI\VEN_8086&DEV_15F3&REV_03`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.InstallSection != "E15F3_3.10.0.1..17763" || rep.Service != "e2fexpress" || !reflect.DeepEqual(rep.RSS, []string{"*RSS", "*NumRSSQueues"}) {
		t.Fatalf("chain: %s %q %v", rep.InstallSection, rep.Service, rep.RSS)
	}
	wantMissing := []string{"*RSSProfile", "*MaxRssProcessors", "*RssBaseProcNumber", "*NumaNodeId"}
	if !reflect.DeepEqual(rep.MissingRSS, wantMissing) || rep.MissingRSSFrom != nil {
		t.Errorf("missing %v from decorations %v", rep.MissingRSS, rep.MissingRSSFrom)
	}
	// The sibling in the device's own models section wins over the same
	// sibling's server section.
	for _, k := range wantMissing {
		if rep.DonorSection[k] != "E15F2_3.10.0.1..17763" {
			t.Errorf("%s from %q", k, rep.DonorSection[k])
		}
	}
	if len(rep.Donors) != 1 {
		t.Fatalf("donors %+v", rep.Donors)
	}
	d := rep.Donors[0]
	if d.Relation != SameDriver || d.Line != 37 || d.ModelsSection != "Intel.NTamd64.10.0.1..17763" || d.Description != "Intel(R) Ethernet Controller (3) I225-LM" ||
		d.HardwareID != `PCI\VEN_8086&DEV_15F2&REV_03` || !reflect.DeepEqual(d.Keywords, wantMissing) {
		t.Errorf("donor %+v", d)
	}
	if !reflect.DeepEqual(rep.NotInINF, []string{"*RssBaseProcGroup", "*RssMaxProcGroup", "*RssMaxProcNumber"}) {
		t.Errorf("not in INF %v", rep.NotInINF)
	}
	var b bytes.Buffer
	if n, err := WriteReg(&b, rep); err != nil || n != 4 {
		t.Fatalf("%d %v", n, err)
	}
	s := b.String()
	base := `[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\NNNN`
	for _, want := range []string{
		";   [E15F2_3.10.0.1..17763] (Intel(R) Ethernet Controller (3) I225-LM, line 37: same driver e2fexpress):\r\n;     *RSSProfile, *MaxRssProcessors, *RssBaseProcNumber, *NumaNodeId\r\n",
		base + "]\r\n\"*RSSProfile\"=\"1\"\r\n",
		base + `\Ndi\Params\*RSSProfile\Enum]` + "\r\n\"1\"=\"Closest Processor\"\r\n\"2\"=\"Closest Processor Static\"\r\n",
		base + `\Ndi\Params\*RssBaseProcNumber]` + "\r\n\"ParamDesc\"=\"Starting RSS CPU\"\r\n\"type\"=\"int\"\r\n\"default\"=\"0\"\r\n\"min\"=\"0\"\r\n\"max\"=\"63\"\r\n\"step\"=\"1\"\r\n\"optional\"=\"0\"\r\n",
		base + `\Ndi\Params\*MaxRssProcessors\Enum]` + "\r\n\"1\"=\"1\"\r\n\"2\"=\"2\"\r\n\"4\"=\"4\"\r\n\"8\"=\"8\"\r\n",
		"MatchingDeviceId -like 'pci\\ven_8086&dev_15f3&rev_03*'",
	} {
		if !strings.Contains(s, want) {
			t.Errorf(".reg lacks %q:\n%s", want, s)
		}
	}
}

// Donors are preferred by how close they are: the same device in another
// decoration, then the same driver, then an install section whose driver
// is not named, then another driver.
func TestINFDonorOrder(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64, NTamd64.10.0.3
[M.NTamd64]
dev = Dev, PCI\VEN_1&DEV_1
other = Other, PCI\VEN_1&DEV_2
anon = Anon, PCI\VEN_1&DEV_3
sib = Sib, PCI\VEN_1&DEV_4
[M.NTamd64.10.0.3]
dev = DevServer, PCI\VEN_1&DEV_1
[Dev]
AddReg = drv.reg, base.reg
[Dev.Services]
AddService = drv, 0x2, svc
[DevServer]
AddReg = drv.reg, base.reg, profile.reg
[DevServer.Services]
AddService = drv, 2, svc
[Other]
AddReg = base.reg, profile.reg, maxproc.reg, numa.reg, base2.reg
[Other.Services]
AddService = otherdrv, 2, svc
[Anon]
AddReg = base.reg, profile.reg, maxproc.reg, numa.reg
[Sib]
AddReg = base.reg, profile.reg, maxproc.reg
[Sib.Services]
AddService = helper, 0, svc
AddService = DRV, 0x00000002, svc
[drv.reg]
HKR, Ndi, Service, 0, "ignored when AddService names the driver"
[base.reg]
HKR, Ndi\Params\*RSS, type, 0, "enum"
[profile.reg]
HKR, Ndi\Params\*RSSProfile, type, 0, "enum"
[maxproc.reg]
HKR, Ndi\Params\*MaxRssProcessors, type, 0, "int"
[numa.reg]
HKR, Ndi\Params\*NumaNodeId, type, 0, "dword"
[base2.reg]
HKR, Ndi\Params\*RssBaseProcNumber, type, 0, "int"
`
	f, err := Parse(strings.NewReader(src), "order.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_1&DEV_1`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.InstallSection != "Dev" || rep.Service != "drv" {
		t.Fatalf("%s %q", rep.InstallSection, rep.Service)
	}
	want := map[string]string{"*RSSProfile": "DevServer", "*MaxRssProcessors": "Sib", "*NumaNodeId": "Anon", "*RssBaseProcNumber": "Other"}
	if !reflect.DeepEqual(rep.DonorSection, want) {
		t.Errorf("donors %v", rep.DonorSection)
	}
	var rel []string
	for _, d := range rep.Donors {
		rel = append(rel, d.InstallSection+":"+d.Relation)
	}
	if strings.Join(rel, " ") != "DevServer:same_device Sib:same_driver Anon:unknown_driver Other:other_driver" {
		t.Errorf("relations %v", rel)
	}
	if !reflect.DeepEqual(rep.MissingRSSFrom, map[string][]string{"*RSSProfile": {"NTamd64.10.0.3"}}) {
		t.Errorf("from decorations %v", rep.MissingRSSFrom)
	}
}

// A donor's hardware ID is its models line's: empty when the line leaves
// the hardware ID field empty and lists only compatible IDs
// ("install-section-name,[hw-id][,compatible-id...]", INF Models section),
// never the first of those compatible IDs. On the device's own line in
// another decoration it is the line's hardware ID, also when the device
// matched one of the line's compatible IDs.
func TestINFDonorHardwareID(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64, NTamd64.10.0.3
[M.NTamd64]
dev = Dev, PCI\VEN_1&DEV_1
sib = Sib, PCI\VEN_1&DEV_4
[M.NTamd64.10.0.3]
dev = DevServer, PCI\VEN_1&DEV_9, PCI\VEN_1&DEV_1
[Dev]
AddReg = base.reg
[DevServer]
AddReg = base.reg, profile.reg
[Sib]
AddReg = base.reg, maxproc.reg
[base.reg]
HKR, Ndi\Params\*RSS, type, 0, "enum"
[profile.reg]
HKR, Ndi\Params\*RSSProfile, type, 0, "enum"
[maxproc.reg]
HKR, Ndi\Params\*MaxRssProcessors, type, 0, "int"
`
	for _, c := range []struct {
		name, sib, wantSib string
	}{
		{"hardware ID", `sib = Sib, PCI\VEN_1&DEV_4, PCI\VEN_1&DEV_5`, `PCI\VEN_1&DEV_4`},
		{"empty hardware ID", `sib = Sib, , PCI\VEN_1&DEV_4, PCI\VEN_1&DEV_5`, ""},
		{"empty, spaces and a string", `sib = Sib, %empty% , PCI\VEN_1&DEV_4`, ""},
	} {
		in := strings.Replace(src, `sib = Sib, PCI\VEN_1&DEV_4`, c.sib, 1) + "[Strings]\nempty = \"\"\n"
		f, err := Parse(strings.NewReader(in), "d.inf")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(f, `PCI\VEN_1&DEV_1`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, d := range rep.Donors {
			got[d.InstallSection] = d.HardwareID
		}
		if want := map[string]string{"DevServer": `PCI\VEN_1&DEV_9`, "Sib": c.wantSib}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: donors' hardware IDs %q, want %q", c.name, got, want)
		}
		// the JSON has the field, empty or not
		b, err := json.Marshal(rep.Donors)
		if err != nil {
			t.Fatal(err)
		}
		var ds []map[string]any
		if err := json.Unmarshal(b, &ds); err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if h, ok := d["hardware_id"]; d["install_section"] == "Sib" && (!ok || h != c.wantSib) {
				t.Errorf("%s: JSON %s", c.name, b)
			}
		}
	}
}

// Lines latlab does not use are reported with their line numbers instead
// of vanishing.
func TestINFSkippedLines(t *testing.T) {
	src := `junk before any section
[Manufacturer]
M = M, NTamd64
[M.NTamd64]
dev = Dev, PCI\VEN_1&DEV_1
Dev, PCI\VEN_1&DEV_2
nohwid = Dev
noinst = , PCI\VEN_1&DEV_3
[Dev]
AddReg = ok.reg
= ok.reg
AddReg =
CopyFiles
[ok.reg]
HKR, Ndi\Params\*RSS, type, 0, "enum"
, Ndi\Params\*RSS, ParamDesc, 0, "no root"
HKXX, Ndi\Params\*RSS, ParamDesc, 0, "bad root"
HKLM, Software\Vendor, Uninstall, 0, "x"
HKLM, Software\Vendor, Other, 0, "y"
HKCU, Software\Vendor, Other, 0, "z"
HKR, , , 0, "default value"
HKR, , , 0x10
HKR, Ndi\Params\, ParamDesc, 0, "no keyword"
HKR, Ndi\Params\*RSS\Sub, x, 0, "sub"
HKR, Ndi\Params\*RSS, default, ten, "1"
Key = HKR, Ndi\Params\*RSS, ParamDesc, 0, "has a key"
HKR, Ndi\Params\*RSS\Enum, "1", 0, "Enabled"
[Strings]
`
	f, err := Parse(strings.NewReader(src), "s.inf")
	if err != nil {
		t.Fatal(err)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	rep, err := Analyze(f, `PCI\VEN_1&DEV_1`, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	k := keyword(rep, "*RSS")
	// line 25's flags "ten" are 0 to SetupAPI (parseFlagsOK): it writes
	// the default
	if k == nil || k.Type != "enum" || k.ParamDesc != "" || k.Default != "1" || len(k.Values) != 1 {
		t.Errorf("skipped lines changed the keyword: %+v", k)
	}
	want := []string{
		"s.inf line 1: text before the first section ignored, as SetupAPI ignores it in a file with a [Strings] section",
		"s.inf line 6: [M.NTamd64] line has no '='; skipped",
		"s.inf line 7: [M.NTamd64] line names no hardware ID; skipped",
		"s.inf line 8: [M.NTamd64] line names no install section; skipped",
		"s.inf line 11: [Dev] line has nothing before '=', no directive name; skipped",
		"s.inf line 12: [Dev] AddReg= names no section; skipped",
		"s.inf line 13: [Dev] line has no '=', not a directive",
		"s.inf line 16: [ok.reg] entry has an empty registry root",
		`s.inf line 17: [ok.reg] unknown registry root "HKXX"`,
		"s.inf line 21: [ok.reg] HKR entry with no subkey and no value name writes the key's default value",
		`s.inf line 23: [ok.reg] Ndi\Params entry names no keyword`,
		"s.inf line 24: [ok.reg] subkey Sub of keyword *RSS is not read",
		`s.inf line 25: [ok.reg] flags "ten" are not a number`,
		"s.inf line 26: [ok.reg] line has '=' outside quotes, not a registry entry",
		"s.inf lines 18-20: [ok.reg] 3 HKCU/HKLM entries write outside the adapter's key (HKR): not keywords, skipped",
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, w := range want {
		if !strings.Contains(notes, w) {
			t.Errorf("no note %q in\n%s", w, notes)
		}
	}
	if len(rep.Notes) != len(want) || strings.Contains(notes, "line 22") {
		t.Errorf("%d notes, want %d (a key-only HKR line is not skipped):\n%s", len(rep.Notes), len(want), notes)
	}
	l, err := List(f, ws, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Notes, rep.Notes) {
		t.Errorf("listing notes differ:\n%s", strings.Join(l.Notes, "\n"))
	}
}

// Only the chosen models section must decide: where another decoration's
// lines depend on a part the ID lacks, that decoration is left out of the
// comparison with a note.
func TestINFAmbiguousElsewhere(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64.10.0.1, NTamd64.10.0.3
[M.NTamd64.10.0.1]
v = Client, PCI\VEN_1&DEV_1
[M.NTamd64.10.0.3]
v1 = Server1, PCI\VEN_1&DEV_1&REV_01
v2 = Server2, PCI\VEN_1&DEV_1&REV_02
[Client]
[Server1]
AddReg = rss.reg
[Server2]
[rss.reg]
HKR, Ndi\Params\*RSSProfile, type, 0, "enum"
`
	f, err := Parse(strings.NewReader(src), "a.inf")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(f, `PCI\VEN_1&DEV_1`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.InstallSection != "Client" || len(rep.Decorations) != 1 || rep.MissingRSSFrom != nil ||
		!strings.Contains(strings.Join(rep.Notes, "\n"), `[M.NTamd64.10.0.3] not compared: "PCI\\VEN_1&DEV_1" lacks REV, on which 2 of its lines with different install sections depend`) {
		t.Errorf("%s %+v %v", rep.InstallSection, rep.Decorations, rep.Notes)
	}
	// The server section still donates, as any install section of the INF.
	if rep.DonorSection["*RSSProfile"] != "Server1" {
		t.Errorf("donors %v", rep.DonorSection)
	}
	if _, err := Analyze(f, `PCI\VEN_1&DEV_1`, mustTarget(t, "10.0.20348", "server"), "", nil); err == nil {
		t.Error("ambiguous in the chosen section, and no error")
	}
}

// A donor that writes a keyword's value without its Ndi\Params definition
// (Broadcom's b57nd60a.inf writes HKR,,*RSS,0,"1" alone for some adapters)
// gets the value in the .reg file, and no empty Ndi\Params key it never made.
func TestINFRegFileValueOnlyDonor(t *testing.T) {
	f := parseString(t, `[Version]
Signature="$Windows NT$"
[Manufacturer]
%M%=B,NTamd64
[B.NTamd64]
%A%=A_inst,PCI\VEN_14E4&DEV_1677
%B%=B_inst,PCI\VEN_14E4&DEV_167A
[A_inst]
AddReg=Common
[A_inst.Services]
AddService=b57nd60a,2,Svc
[B_inst]
AddReg=Common,RSSValue,Queues
[B_inst.Services]
AddService=b57nd60a,2,Svc
[Common]
HKR,Ndi\Params\*SpeedDuplex,ParamDesc,,"Speed"
[RSSValue]
HKR, , *RSS,                            0, "1"
[Queues]
HKR, Ndi\Params\*NumRssQueues, ParamDesc, , "Queues"
HKR, Ndi\Params\*NumRssQueues\enum, "1", , "1 Queue"
[Strings]
M=Broadcom
A=a
B=b
`)
	rep, err := Analyze(f, `PCI\VEN_14E4&DEV_1677&SUBSYS_128810CF&REV_01`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.MissingRSS, []string{"*RSS", "*NumRSSQueues"}) {
		t.Fatalf("missing %v", rep.MissingRSS)
	}
	var b bytes.Buffer
	if n, err := WriteReg(&b, rep); err != nil || n != 2 {
		t.Fatalf("%d %v", n, err)
	}
	s := b.String()
	base := `[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\NNNN`
	for _, want := range []string{
		base + "]\r\n\"*RSS\"=\"1\"\r\n; [B_inst] writes the value only, no Ndi\\Params\\*RSS: the Advanced tab does not show it\r\n",
		base + `\Ndi\Params\*NumRssQueues]` + "\r\n\"ParamDesc\"=\"Queues\"\r\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf(".reg lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, `\Ndi\Params\*RSS]`) {
		t.Errorf(".reg makes an Ndi\\Params\\*RSS key the donor never made:\n%s", s)
	}
}

// An ANSI INF's [Strings.LANGID] sections are in their language's ANSI
// code page, as Windows in that language reads them: Intel's e1r63x64.inf
// writes [Strings.0804] in GBK, which read as Windows-1252 came out as
// "½ûÓÃ" for 禁用. The GBK line holds each byte Windows-1252 leaves
// undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D).
func TestINFANSICodePages(t *testing.T) {
	f := load(t, "ansi-codepages.inf")
	if f.Encoding != "windows-1252" {
		t.Fatalf("encoding %s, want windows-1252", f.Encoding)
	}
	tg := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct{ lang, want string }{
		{"", "Off"},
		{"0804", "禁用 丂亶亸亹仢"},
		{"0404", "停用"},
		{"0411", "オフ"},
		{"0412", "비활성화됨"},
		{"0419", "Выкл."},
		{"0405", "Vypnuto, Nejnižší"},
		{"0408", "Απενεργοποίηση"},
		{"041F", "Kapalı"},
		{"040D", "כבוי"},
		{"0401", "إيقاف"},
		{"041E", "ปิด"},
		{"0407", "Aus (Übertragung)"},
		{"0C1A", "Искључено"},
		{"041A", "Isključeno"},
		{"0409", "Off"}, // no [Strings.0409]: [Strings]
	} {
		in, err := f.Resolve("Install", tg, c.lang, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := in.Keyword("Mode")
		if k == nil || len(k.Values) != 1 || k.Values[0].Desc != c.want {
			t.Errorf("--lang %q: Mode = %+v, want the choice %q", c.lang, k, c.want)
		}
	}
}

// A UTF-8 or UTF-16 INF's strings are read as they are, whatever the
// language.
func TestINFUnicodeStringsNotRecoded(t *testing.T) {
	f := parseString(t, hostileHead+"[I]\nAddReg=R\n[R]\nHKR,Ndi\\Params\\M\\enum,\"0\",0,%Off%\n[Strings.0804]\nOff=\"禁用\"\n")
	in, err := f.Resolve("I", mustTarget(t, "10.0.22631", "workstation"), "0804", nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := in.Keyword("M"); k == nil || len(k.Values) != 1 || k.Values[0].Desc != "禁用" {
		t.Errorf("M = %+v, want 禁用", k)
	}
}

// A listing shows each models section's install sections with the platform
// extension of the architecture the section is for: Cirrus Logic's
// CL_Audio.inf lists [HDAudio.X] in an ntx86 and an ntamd64 models section,
// and the x86 rows showed [HDAudio.X.ntamd64], which x86 Windows never
// installs. An undecorated section is for x86; NT$ARCH$ is the target's.
func TestINFListInstallSectionPerArch(t *testing.T) {
	f := parseString(t, `[Version]
Signature="$Windows NT$"
[Manufacturer]
%M%=M,ntx86.6.1,ntamd64.6.1,NTarm64
%N%=N
[M.ntx86.6.1]
%D%=HDAudio.X,HDAUDIO\FUNC_01&VEN_1013&DEV_4213
[M.ntamd64.6.1]
%D%=HDAudio.X,HDAUDIO\FUNC_01&VEN_1013&DEV_4213
[M.NTarm64]
%D%=HDAudio.X,HDAUDIO\FUNC_01&VEN_1013&DEV_4213
[N]
%D%=HDAudio.X,HDAUDIO\FUNC_01&VEN_1013&DEV_4214
[HDAudio.X.ntx86]
AddReg=R
[HDAudio.X.ntamd64]
AddReg=R
[HDAudio.X]
AddReg=R
[R]
HKR,Ndi\Params\K,ParamDesc,,"k"
[Strings]
M=Cirrus
N=Other
D=Audio
`)
	l, err := List(f, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range l.Manufacturers {
		for _, s := range m.Sections {
			for _, d := range s.Devices {
				got[s.Section] = d.InstallSection
			}
		}
	}
	want := map[string]string{"M.ntx86.6.1": "HDAudio.X.ntx86", "M.ntamd64.6.1": "HDAudio.X.ntamd64", "M.NTarm64": "HDAudio.X", "N": "HDAudio.X.ntx86"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("install sections %v, want %v", got, want)
	}
	// The device report's decorations follow the same rule.
	rep, err := Analyze(f, `HDAUDIO\FUNC_01&VEN_1013&DEV_4213`, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]string{}
	for _, d := range rep.Decorations {
		got[d.Decoration] = d.InstallSection
	}
	want = map[string]string{"ntx86.6.1": "HDAudio.X.ntx86", "ntamd64.6.1": "HDAudio.X.ntamd64", "NTarm64": "HDAudio.X"}
	if !reflect.DeepEqual(got, want) || rep.InstallSection != "HDAudio.X.ntamd64" {
		t.Errorf("device report: install sections %v (chosen %s), want %v", got, rep.InstallSection, want)
	}
}

// TestAmbiguousErrorNamesThreeLines: a device whose ID fits many lines is
// told three of them and where the rest are, not every one on one line.
func TestAmbiguousErrorNamesThreeLines(t *testing.T) {
	e := &AmbiguousError{Device: `PCI\VEN_14E4&DEV_1677`, Section: "Broadcom.NTamd64", Lacks: []string{"SUBSYS"}}
	for i := range 8 {
		e.Lines = append(e.Lines, 100+i)
		e.IDs = append(e.IDs, fmt.Sprintf(`PCI\VEN_14E4&DEV_1677&SUBSYS_%08X`, i))
		e.Installs = append(e.Installs, fmt.Sprintf("BCM5751_%d.ndi", i))
	}
	msg := e.Error()
	for _, want := range []string{"line 100 ", "line 102 ", "and 5 more (latlab inf FILE without --device lists them)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in %s", want, msg)
		}
	}
	if strings.Contains(msg, "line 103 ") {
		t.Errorf("a fourth line is named: %s", msg)
	}
}

// An empty field between a line's IDs takes a position, as Wine's
// SetupAPI counts the fields of a models line (see models; Microsoft's
// pages do not say): the compatible ID after "HW, , " is the line's
// compatible ID 1, 0x3000 + j + 1*0x100, not 0 (0x3001, what NetKVM's line
// without the empty field ranks in TestINFRealNetKVM's "other vendor"), and
// a note says so. Dropped, the field made line a outrank line b, whose
// compatible ID 1 is the device's compatible ID 0 (0x3100).
func TestINFEmptyCompatibleIDField(t *testing.T) {
	const dev = `PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853&REV_00`
	const b = `b = B, PCI\VEN_1AF4&DEV_8888, PCI\VEN_1AF4&DEV_7777, PCI\VEN_1AF4&DEV_1000&REV_00`
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		lines     string
		install   string
		rank, pos int
		note      string // "" for none
	}{
		{`a = A, PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00, PCI\VEN_1AF4&DEV_1000`, "A", 0x3001, 1, ""},
		{`a = A, PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00, , PCI\VEN_1AF4&DEV_1000`, "A", 0x3101, 2,
			`e.inf line 4: [M.NTamd64] an empty field holds the place of compatible ID 0 and matches no device; PCI\VEN_1AF4&DEV_1000 after it is compatible ID 1, as Wine's SetupAPI counts (Microsoft's INF Models section page does not say)`},
		{`a = A, PCI\VEN_1AF4&DEV_1000&SUBSYS_00011AF4&REV_00, ,, PCI\VEN_1AF4&DEV_1000,`, "A", 0x3201, 3, "compatible ID 0 and matches no device; PCI\\VEN_1AF4&DEV_1000 after it is compatible ID 2"},
		// an empty hardware ID is the documented NoHardwareID case: no note
		{`a = A, , PCI\VEN_1AF4&DEV_1000`, "A", 0x3001, 1, ""},
		{`a = A, , , PCI\VEN_1AF4&DEV_1000`, "A", 0x3101, 2, "place of compatible ID 0"},
		{`a = A, PCI\VEN_1AF4&DEV_9999, , PCI\VEN_1AF4&DEV_1000` + "\n" + b, "B", 0x3100, 2, "place of compatible ID 0"},
	} {
		f, err := Parse(strings.NewReader("[Manufacturer]\nM = M, NTamd64\n[M.NTamd64]\n"+c.lines+"\n[A]\n[B]\n"), "e.inf")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(f, dev, ws, "", nil)
		if err != nil || rep.InstallSection != c.install || rep.Match.Rank != c.rank || rep.Match.INFPos != c.pos {
			t.Errorf("%s: %v [%s] %+v", c.lines, err, rep.InstallSection, rep.Match)
			continue
		}
		notes := strings.Join(rep.Notes, "\n")
		if c.note == "" && strings.Contains(notes, "empty field") || c.note != "" && !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.lines, rep.Notes, c.note)
		}
		l, err := List(f, ws, "", nil)
		if err != nil || c.note != "" && !strings.Contains(strings.Join(l.Notes, "\n"), c.note) {
			t.Errorf("%s: listing %v %q", c.lines, err, l.Notes)
		}
	}
}

// A section that needs a section of its own name means the included INF's:
// Intel's e1q63x64.inf 12.4.39.0 (82574L, Windows 8; DriverPackSolution/DP_LAN,
// Intel/FORCED/8x64/PRO1000x/e1q63x64.inf at commit
// 221e58045f5431f4f0506b493a45344bc5f11b15, read by hand, lines 961-964)
// installs the devices it does not drive with
//
//	[NO_DRV]
//	Characteristics    = 0x01
//	Include            = machine.inf
//	Needs              = NO_DRV
//
// which latlab refused as a Needs loop, for every listing of the INF.
func TestINFNeedsOwnNameInInclude(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
dd = NO_DRV, PCI\VEN_8086&DEV_10A6
[NO_DRV]
Characteristics = 0x01
Include = machine.inf
Needs = NO_DRV
`
	machine := "[NO_DRV]\nAddReg = nodrv.reg\n[nodrv.reg]\nHKR,, NoDriver, 0, \"1\"\n"
	f, err := Parse(strings.NewReader(src), "e.inf")
	if err != nil {
		t.Fatal(err)
	}
	ws := mustTarget(t, "10.0.22631", "workstation")
	for _, c := range []struct {
		name  string
		load  Loader
		found bool
		note  string
	}{
		{"machine.inf absent", nil, false, "Needs=NO_DRV not found in this INF or its includes"},
		{"machine.inf present", func(name string) (*File, error) {
			if !strings.EqualFold(name, "machine.inf") {
				return nil, errors.New("not found")
			}
			return Parse(strings.NewReader(machine), "machine.inf")
		}, true, ""},
	} {
		in, err := f.Resolve("NO_DRV", ws, "", c.load)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(in.Needs) != 1 || in.Needs[0].Found != c.found || c.found && (in.Needs[0].File != "machine.inf" || len(in.Values) != 1 || in.Values[0].Name != "NoDriver") {
			t.Errorf("%s: needs %+v, values %+v", c.name, in.Needs, in.Values)
		}
		if notes := strings.Join(in.Notes, "\n"); !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q", c.name, in.Notes)
		}
		if _, err := List(f, ws, "", c.load); err != nil {
			t.Errorf("%s: listing: %v", c.name, err)
		}
	}
	// A real loop still is one.
	g, err := Parse(strings.NewReader(strings.Replace(src, "Needs = NO_DRV\n", "Needs = Other\n[Other]\nNeeds = NO_DRV\n", 1)), "e.inf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Resolve("NO_DRV", ws, "", nil); err == nil || !strings.Contains(err.Error(), "Needs loop") {
		t.Errorf("loop: %v", err)
	}
}
