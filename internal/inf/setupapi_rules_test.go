package inf

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
)

// intFieldCases are flags fields as SetupAPI's SetupGetIntField reads
// them: the values and failures (ok false) Wine's printed for each text
// (TestINFIntFieldSetupAPI reads them again under Wine). The text comes
// from a %strkey%, so white space stays at its ends.
var intFieldCases = []struct {
	in string
	v  int32
	ok bool
}{
	{"1", 1, true},
	{" 1", 1, true},
	{"\t2", 2, true},
	{"1 ", 0, false},
	{"2\t", 0, false},
	{"010", 8, true},
	{"08", 0, false},
	{"0x10", 16, true},
	{"0X10", 16, true},
	{" 0x10001", 65537, true},
	{"-1", -1, true},
	{"+1", 1, true},
	{"0x", 0, false},
	{"", 0, true},
	{"0x80000000", 2147483647, true},
	{"4294967295", 2147483647, true},
	{"1a", 0, false},
}

func TestINFIntField(t *testing.T) {
	for _, c := range intFieldCases {
		v, ok := setupIntField(c.in)
		if ok != c.ok || ok && v != c.v {
			t.Errorf("%q: %d, %v; SetupAPI reads %d, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

// registryINF installs [A], whose AddReg section writes keywords under
// subkeys a %strkey% brings (with '\' and spaces at their ends) and values
// whose flags are such strings, and which needs [B], whose DelReg section
// deletes with flags SetupAPI cannot read and can. Under Wine,
// TestINFRegistryEntriesSetupAPI installs [A] then [B] with
// SetupInstallFromInfSectionW and compares the key it leaves with
// registryWant and with latlab's Resolve.
const registryINF = "[Version]\r\nSignature=\"$CHICAGO$\"\r\n" +
	"[A]\r\nAddReg=RA\r\nNeeds=B\r\n[B]\r\nDelReg=D\r\n" +
	"[RA]\r\n" +
	"HKR,%s0%,ParamDesc,,\"s0\"\r\n" +
	"HKR,%s1%,ParamDesc,,\"s1\"\r\n" +
	"HKR,%s2%,ParamDesc,,\"s2\"\r\n" +
	"HKR,%s3%,ParamDesc,,\"s3\"\r\n" +
	"HKR,%s4%,ParamDesc,,\"s4\"\r\n" +
	"HKR,%s5%,ParamDesc,,\"s5\"\r\n" +
	"HKR,%s6%,ParamDesc,,\"s6\"\r\n" +
	"HKR,,F0,%f0%,5\r\n" +
	"HKR,,F1,%f1%,5\r\n" +
	"HKR,,F2,%f2%,5\r\n" +
	"HKR,,F3,%f3%,5\r\n" +
	"HKR,Ndi\\Params\\D0,ParamDesc,,\"d0\"\r\n" +
	"HKR,Ndi\\Params\\D0,default,,\"1\"\r\n" +
	"HKR,Ndi\\Params\\D1,ParamDesc,,\"d1\"\r\n" +
	"HKR,Ndi\\Params\\D1,default,,\"1\"\r\n" +
	"HKR,Ndi\\Params\\D2,ParamDesc,,\"d2\"\r\n" +
	"HKR,Ndi\\Params\\D2,default,,\"1\"\r\n" +
	"[D]\r\n" +
	"HKR,Ndi\\Params\\D0,default,%g0%\r\n" +
	"HKR,Ndi\\Params\\D1,default,%g1%\r\n" +
	"HKR,\\Ndi\\Params\\D2\r\n" +
	"[Strings]\r\n" +
	"s0=\"\\Ndi\\Params\\S0\"\r\n" +
	"s1=\"Ndi\\Params\\S1\\\"\r\n" +
	"s2=\"Ndi\\Params\\ S2\"\r\n" +
	"s3=\"Ndi\\Params\\S3 \"\r\n" +
	"s4=\"Ndi\\\\Params\\\\S4\"\r\n" +
	"s5=\"\\\"\r\n" +
	"s6=\" Ndi\\Params\\S6\"\r\n" +
	"f0=\"0x10001 \"\r\n" +
	"f1=\" 0x10001\"\r\n" +
	"f2=\"010001\"\r\n" +
	"f3=\"abc\"\r\n" +
	"g0=\"0xA000 \"\r\n" +
	"g1=\" 0xA000\"\r\n"

// registryWant is what Wine's SetupAPI left of registryINF: the keywords
// under Ndi\Params as "name=ParamDesc/default", the values as
// "name:dword" or "name:other". A subkey that starts with '\' wrote
// nothing (S0, and "\" alone, s5), one that ends with '\' is the key
// before it (S1), "\\" is one '\' (S4), and spaces stay (" S2", "S3 ",
// and " Ndi", not Ndi, for S6). Flags with white space after them are 0:
// F0 is a string, and the DelReg line for D0 deletes its default value,
// where " 0xA000" (FLG_DELREG_KEYONLY_COMMON and the DelReg bit) deletes
// D1's key. The DelReg line for D2 starts with '\' and deletes nothing.
var registryWant = struct{ keywords, values []string }{
	keywords: []string{" S2=s2/", "D0=d0/", "D2=d2/1", "S1=s1/", "S3 =s3/", "S4=s4/"},
	values:   []string{"F0:other", "F1:dword", "F2:other", "F3:other"},
}

// registryOurs is registryINF's [A] as latlab's Resolve reads it, in
// registryWant's form.
func registryOurs(t *testing.T) ([]string, []string) {
	t.Helper()
	f, err := Parse(strings.NewReader(registryINF), "r.inf")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Resolve("A", Target{Arch: "amd64", Major: 10}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var kws, vals []string
	for _, k := range in.Keywords {
		kws = append(kws, k.Name+"="+k.ParamDesc+"/"+k.Default)
	}
	for _, v := range in.Values {
		typ := "other"
		if v.IsDWORD() {
			typ = "dword"
		}
		vals = append(vals, v.Name+":"+typ)
	}
	sort.Strings(kws)
	sort.Strings(vals)
	return kws, vals
}

func TestINFRegistryEntries(t *testing.T) {
	kws, vals := registryOurs(t)
	if !slices.Equal(kws, registryWant.keywords) {
		t.Errorf("keywords %q, SetupAPI's %q", kws, registryWant.keywords)
	}
	if !slices.Equal(vals, registryWant.values) {
		t.Errorf("values %q, SetupAPI's %q", vals, registryWant.values)
	}
}

// preSectionCases are files with text before their first section, as
// Wine's SetupAPI opened them (TestINFPreSectionSetupAPI opens them
// again): refused at line err (ERROR_EXPECTED_SECTION_NAME, or
// ERROR_BAD_SECTION_NAME_LINE for an open header) or read with sections.
var preSectionCases = []struct {
	name, in string
	err      int      // the line SetupAPI refused the file at, 0 when it read it
	sections []string // the sections SetupAPI read, in order
}{
	{"text", "abc\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n", 1, nil},
	{"text and [strings]", "abc\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[strings]\r\n", 0, []string{"Version", "strings"}},
	{"header after text", "abc [Version]\r\nSignature=\"$CHICAGO$\"\r\n[Test]\r\nk=v\r\n", 1, nil},
	{"header after text, [Strings]", "abc [Version]\r\nSignature=\"$CHICAGO$\"\r\n[Strings]\r\n[Test]\r\nk=v\r\n", 0, []string{"Version", "Strings", "Test"}},
	{"header in a comment", ";c\r\nab ; [x]\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Strings]\r\n", 0, []string{"Version", "Strings"}},
	{"header in quotes", "k=\"[Test]\"\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Strings]\r\n", 0, []string{"Test", "Version", "Strings"}},
	{"no continuation", "a \\\r\n[Test]\r\nk=v\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Strings]\r\n", 0, []string{"Test", "Version", "Strings"}},
	{"open header after text", "ab [Te\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Strings]\r\n", 1, nil},
	{"[ Strings] is not [Strings]", "\r\n\r\nabc\r\n[Version]\r\nSignature=\"$CHICAGO$\"\r\n[ Strings]\r\n", 3, nil},
}

func TestINFPreSection(t *testing.T) {
	for _, c := range preSectionCases {
		f, err := Parse(strings.NewReader(c.in), "p.inf")
		var pe *ParseError
		switch {
		case c.err != 0 && (!errors.As(err, &pe) || pe.Line != c.err):
			t.Errorf("%s: %v; SetupAPI refuses it at line %d", c.name, err, c.err)
		case c.err == 0 && err != nil:
			t.Errorf("%s: %v; SetupAPI reads it", c.name, err)
		case c.err == 0:
			var names []string
			for _, s := range f.Sections {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, c.sections) {
				t.Errorf("%s: sections %q, SetupAPI's %q", c.name, names, c.sections)
			}
		}
	}
}

// modelsINF lists, for one device (PCI\VEN_1234&DEV_0001), manufacturers
// with an empty decoration (M1, a trailing comma; M5, a quoted ""), with
// only another architecture's (M2), with a quoted " " (M3) and with none
// (M6), and in M4's section models lines whose install section is a
// quoted " " and an empty field. TestINFModelsSetupAPI has SetupAPI list
// the device's drivers from it (SetupDiBuildDriverInfoList).
const modelsINF = "[Version]\r\nSignature=\"$Windows NT$\"\r\n[Manufacturer]\r\n" +
	"M1 = A, NTx86,\r\nM2 = B, NTx86\r\nM3 = C, \" \"\r\nM4 = D, NTamd64\r\nM5 = E, NTx86, \"\"\r\nM6 = F\r\n" +
	"[A]\r\ndA = IA, PCI\\VEN_1234&DEV_0001\r\n[A.NTx86]\r\ndAx = IAx, PCI\\VEN_1234&DEV_0001\r\n" +
	"[B]\r\ndB = IB, PCI\\VEN_1234&DEV_0001\r\n[C]\r\ndC = IC, PCI\\VEN_1234&DEV_0001\r\n" +
	"[D.NTamd64]\r\nd5space = \" \", PCI\\VEN_1234&DEV_0001\r\nd5empty = , PCI\\VEN_1234&DEV_0001\r\nd5ok = I5, PCI\\VEN_1234&DEV_0001\r\n" +
	"[E.NTamd64]\r\ndE64 = IE, PCI\\VEN_1234&DEV_0001\r\n[E]\r\ndE = IE, PCI\\VEN_1234&DEV_0001\r\n" +
	"[F]\r\ndF = IF, PCI\\VEN_1234&DEV_0001\r\n"

// modelsWant are the drivers SetupAPI under Wine (amd64) listed from
// modelsINF, as "manufacturer: description=install section". An empty
// decoration made M1 and M5 count, and Wine then read the section it
// picks for the base name ([A], and [E.NTamd64], which M5 does not list);
// M2 and M3 did not count. Both of M4's odd lines are drivers, with
// sections " " and "".
var modelsWant = []string{"M1: dA=IA", "M4: d5space= ", "M4: d5empty=", "M4: d5ok=I5", "M5: dE64=IE", "M6: dF=IF"}

// latlab's M4 lines: the install section " " is a name (Models), the
// empty one names none and its line is skipped.
func TestINFModels(t *testing.T) {
	f, err := Parse(strings.NewReader(modelsINF), "m.inf")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range f.Models("D.NTamd64", "") {
		got = append(got, "M4: "+m.Description+"="+m.InstallSection)
	}
	if want := []string{"M4: d5space= ", "M4: d5ok=I5"}; !slices.Equal(got, want) {
		t.Errorf("[D.NTamd64] %q, want %q (SetupAPI's %q but the empty section)", got, want, modelsWant)
	}
}
