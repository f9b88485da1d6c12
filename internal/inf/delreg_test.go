package inf

import (
	"reflect"
	"strings"
	"testing"
)

// delregINF is an install section [A] that writes two keywords and a
// driver name, then Needs [B], whose DelReg section is the case's. Windows
// runs [A]'s AddReg before it reaches [B] (Needs comes after AddReg in
// [A]), so [B]'s DelReg deletes what [A] wrote.
const delregINF = `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
dev = A, PCI\VEN_8086&DEV_1533
[A]
AddReg = A.reg
Needs = B
[A.reg]
HKR, Ndi, Service, 0, "e1rexpress"
HKR, Ndi\Params\ITR, ParamDesc, 0, "Interrupt Moderation Rate"
HKR, Ndi\Params\ITR, default, 0, "65535"
HKR, Ndi\Params\ITR\Enum, "65535", 0, "Adaptive"
HKR, Ndi\Params\ITR\Enum, "950", 0, "Medium"
HKR, Ndi\Params\ITR\Enum, "0", 0, "Off"
HKR, Ndi\Params\ITR, type, 0, "enum"
HKR, Ndi\Params\*RSS, ParamDesc, 0, "Receive Side Scaling"
HKR, Ndi\Params\*RSS, default, 0, "1"
HKR, Ndi\Params\*RSS\Enum, "0", 0, "Disabled"
HKR, Ndi\Params\*RSS\Enum, "1", 0, "Enabled"
HKR, Ndi\Params\*RSS, type, 0, "enum"
HKR,, *RSS, 0, "1"
HKR,, BusType, 0, "5"
[B]
DelReg = B.del
[B.del]
`

// kw is what a test expects of a keyword: "" when the keyword is gone.
func kwState(in *Install, name string) string {
	k := in.Keyword(name)
	if k == nil {
		return ""
	}
	var vs []string
	for _, v := range k.Values {
		vs = append(vs, v.Value)
	}
	val := "-"
	if k.Value != nil {
		val = k.Value.Data
	}
	return "type=" + k.Type + " default=" + k.Default + " enum=" + strings.Join(vs, "/") + " value=" + val
}

func TestINFDelReg(t *testing.T) {
	const (
		itrAll = "type=enum default=65535 enum=0/950/65535 value=-"
		rssAll = "type=enum default=1 enum=0/1 value=1"
	)
	for _, c := range []struct {
		name, del   string
		itr, rss    string
		service     string
		busType     bool
		noteContain string
	}{
		{"nothing", "", itrAll, rssAll, "e1rexpress", true, ""},
		// HKR, subkey: the whole Ndi\Params key, and every keyword's
		// definition with it; a keyword whose value HKR,,*RSS is
		// written keeps that value
		{"Ndi\\Params", `HKR, Ndi\Params`, "", "type= default= enum= value=1", "e1rexpress", true, ""},
		{"case and slashes", `hkr, NDI\\params\`, "", "type= default= enum= value=1", "e1rexpress", true, ""},
		// the registry refuses a subkey that starts with '\' (regSubkey)
		{"leading backslash", `HKR, \Ndi\Params`, itrAll, rssAll, "e1rexpress", true, "starts with '\\'"},
		{"one keyword", `HKR, Ndi\Params\ITR`, "", rssAll, "e1rexpress", true, ""},
		{"one parameter", `HKR, Ndi\Params\ITR, default`, "type=enum default= enum=0/950/65535 value=-", rssAll, "e1rexpress", true, ""},
		// FLG_DELREG_KEYONLY_COMMON deletes the key even with a value name
		{"key only flag", `HKR, Ndi\Params\ITR, default, 0x00002000`, "", rssAll, "e1rexpress", true, ""},
		{"32-bit flag", `HKR, Ndi\Params\ITR, default, 0x00004000`, "type=enum default= enum=0/950/65535 value=-", rssAll, "e1rexpress", true, ""},
		{"one choice", `HKR, Ndi\Params\ITR\Enum, "950"`, "type=enum default=65535 enum=0/65535 value=-", rssAll, "e1rexpress", true, ""},
		{"all choices", `HKR, Ndi\Params\ITR\Enum`, "type=enum default=65535 enum= value=-", rssAll, "e1rexpress", true, ""},
		{"the value", `HKR,, *RSS`, itrAll, "type=enum default=1 enum=0/1 value=-", "e1rexpress", true, ""},
		{"definition then value", "HKR, Ndi\\Params\\*RSS\nHKR,, *RSS", itrAll, "", "e1rexpress", true, ""},
		{"another value", `HKR,, BusType`, itrAll, rssAll, "e1rexpress", false, ""},
		{"Ndi", `HKR, Ndi`, "", "type= default= enum= value=1", "", true, ""},
		{"Ndi service", `HKR, Ndi, Service`, itrAll, rssAll, "", true, ""},
		{"a key latlab does not read", `HKR, PROSetNdi\Params`, itrAll, rssAll, "e1rexpress", true, ""},
		{"nothing there yet", `HKR, Ndi\Params\*NumRssQueues`, itrAll, rssAll, "e1rexpress", true, ""},
		{"the adapter's key", `HKR,,`, itrAll, rssAll, "e1rexpress", true, "no subkey and no value name would delete the adapter's key itself"},
		// the flag deletes the key, whatever value the line names
		{"the adapter's key, key only flag", `HKR,, *RSS, 0x00002000`, itrAll, rssAll, "e1rexpress", true, "no subkey and FLG_DELREG_KEYONLY_COMMON would delete the adapter's key itself"},
		{"multi-sz string", `HKR,, *RSS, 0x00018002, "1"`, itrAll, rssAll, "e1rexpress", true, "FLG_DELREG_MULTI_SZ_DELSTRING"},
		{"outside", `HKLM, Software\Intel\Prounstl`, itrAll, rssAll, "e1rexpress", true, "outside the adapter's key"},
		// flags SetupGetIntField cannot read are 0 (parseFlagsOK): the
		// value is deleted
		{"bad flags", `HKR, Ndi\Params\ITR, default, zz`, "type=enum default= enum=0/950/65535 value=-", rssAll, "e1rexpress", true, "are not a number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(delregINF+c.del+"\n"), "d.inf")
			if err != nil {
				t.Fatal(err)
			}
			in, err := f.Resolve("A", mustTarget(t, "10.0.22631", "workstation"), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := kwState(in, "ITR"); got != c.itr {
				t.Errorf("ITR %q, want %q", got, c.itr)
			}
			if got := kwState(in, "*RSS"); got != c.rss {
				t.Errorf("*RSS %q, want %q", got, c.rss)
			}
			if in.Service != c.service {
				t.Errorf("service %q, want %q", in.Service, c.service)
			}
			bus := false
			for _, v := range in.Values {
				bus = bus || v.Name == "BusType"
			}
			if bus != c.busType {
				t.Errorf("BusType kept %v, want %v", bus, c.busType)
			}
			notes := strings.Join(in.Notes, "\n")
			if c.noteContain == "" && notes != "" || !strings.Contains(notes, c.noteContain) {
				t.Errorf("notes %q, want one with %q", notes, c.noteContain)
			}
			if want := []Ref{{Section: "B.del", File: "d.inf", Line: 24, Found: true}}; !reflect.DeepEqual(in.DelReg, want) {
				t.Errorf("DelReg %+v", in.DelReg)
			}
		})
	}
}

// Within one install section the DelReg lines run before the AddReg lines,
// wherever they stand: Intel's e1r68x64.inf deletes HKR,Ndi\Params in each
// install section that then writes every keyword under it. Were they run
// after (or in the order written), the keywords would be gone.
func TestINFDelRegBeforeAddReg(t *testing.T) {
	src := `[Manufacturer]
M = M, NTamd64
[M.NTamd64]
dev = E1533, PCI\VEN_8086&DEV_1533
dev2 = E1536, PCI\VEN_8086&DEV_1536
[E1533]
AddReg = ITR.reg
DelReg = Advanced.DelReg
AddReg = RSS.reg
[E1536]
DelReg = Advanced.DelReg
AddReg = ITR.reg, RSS.reg
[ITR.reg]
HKR, Ndi\Params\ITR, default, 0, "65535"
HKR, Ndi\Params\ITR\Enum, "65535", 0, "Adaptive"
HKR, Ndi\Params\ITR, type, 0, "enum"
[RSS.reg]
HKR, Ndi\Params\*RSS, default, 0, "1"
HKR, Ndi\Params\*RSS, type, 0, "enum"
[Advanced.DelReg]
HKR, Ndi\Params
HKR, PROSetNdi\Params
HKR,, LinkNegotiationProcess
`
	f, err := Parse(strings.NewReader(src), "e.inf")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{"E1533", "E1536"} {
		in, err := f.Resolve(sec, mustTarget(t, "10.0.22631", "workstation"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, k := range in.Keywords {
			names = append(names, k.Name)
		}
		if !reflect.DeepEqual(names, []string{"ITR", "*RSS"}) || in.Keyword("ITR").Default != "65535" || len(in.DelReg) != 1 || len(in.Notes) != 0 {
			t.Errorf("[%s]: keywords %v, ITR %+v, DelReg %+v, notes %q", sec, names, in.Keyword("ITR"), in.DelReg, in.Notes)
		}
	}
}

// A keyword deleted and written again by a later section starts afresh:
// none of its former choices come back.
func TestINFDelRegThenAddRegAgain(t *testing.T) {
	src := strings.Replace(delregINF, "DelReg = B.del\n", "DelReg = B.del\nAddReg = B.reg\n", 1) +
		"HKR, Ndi\\Params\\ITR\n[B.reg]\nHKR, Ndi\\Params\\ITR\\Enum, \"125\", 0, \"Medium\"\nHKR, Ndi\\Params\\ITR, type, 0, \"enum\"\n"
	f, err := Parse(strings.NewReader(src), "d.inf")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Resolve("A", mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	k := in.Keyword("ITR")
	if got := kwState(in, "ITR"); got != "type=enum default= enum=125 value=-" || !reflect.DeepEqual(k.Sections, []string{"B.reg"}) {
		t.Errorf("ITR %q from %v", got, k.Sections)
	}
	// the keywords' order is the order they were last defined in
	var names []string
	for _, k := range in.Keywords {
		names = append(names, k.Name)
	}
	if !reflect.DeepEqual(names, []string{"*RSS", "ITR"}) {
		t.Errorf("keywords %v", names)
	}
}
