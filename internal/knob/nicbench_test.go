package knob

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/testutil"
)

// The GamingPCSetup interrupt moderation test bench (djdallmann,
// CONTENT/RESEARCH/NETWORK/README.md): "MSI Mode", "RX & TX buffer 768",
// "Adapter Power Savings Off". These tests set each on the fixture's
// I225-V and put it back.

const i225Instance = `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03\6&1B2C3D4E&0&00E0`

// benchAdapter declares the bench's keywords on the fixture's I225-V as
// the e2f INF does: buffers as int ranges, *EEE and a Realtek-style
// keyword as enums, and its PCI device with the hardware key the INF
// wrote (no Interrupt Management key yet).
func benchAdapter(m *knobtest.Mem, withInstanceID bool) {
	key := NetClassKey + `\0007`
	if withInstanceID {
		m.Set(key, "DeviceInstanceID", backend.SZ(i225Instance))
	}
	m.Set(EnumKey+`\`+i225Instance, "Driver", backend.SZ(`{4d36e972-e325-11ce-bfc1-08002be10318}\0007`))
	m.CreateKey(EnumKey + `\` + i225Instance + `\Device Parameters`)
	for kw, def := range map[string]string{"*ReceiveBuffers": "256", "*TransmitBuffers": "512"} {
		p := key + `\Ndi\Params\` + kw
		m.Set(p, "type", backend.SZ("int"))
		m.Set(p, "default", backend.SZ(def))
		m.Set(p, "min", backend.SZ("80"))
		m.Set(p, "max", backend.SZ("4096"))
		m.Set(p, "step", backend.SZ("8"))
	}
	m.Set(key, "*ReceiveBuffers", backend.SZ("256"))
	for kw, def := range map[string]string{"*EEE": "1", "EnableGreenEthernet": "1"} {
		p := key + `\Ndi\Params\` + kw
		m.Set(p, "type", backend.SZ("enum"))
		m.Set(p, "default", backend.SZ(def))
		m.Set(p+`\Enum`, "0", backend.SZ("Disabled"))
		m.Set(p+`\Enum`, "1", backend.SZ("Enabled"))
	}
	// A power keyword stored but not declared: not this adapter's.
	m.Set(key, "GigaLite", backend.SZ("1"))
}

func roundTrip(t *testing.T, env *Env, reg *knobtest.Mem, steps []setStep, check func()) {
	t.Helper()
	before := reg.Snapshot()
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, steps)
	check()
	revertAll(t, env, dir)
	if d := mapDiff(before, reg.Snapshot()); d != "" {
		t.Fatalf("revert: %s", d)
	}
}

func TestMSIMode(t *testing.T) {
	for _, withID := range []bool{true, false} {
		env, reg, _, _ := testEnv(t)
		benchAdapter(reg, withID)
		r := get(t, env, "msi-mode", Selector{})
		if len(r.Items) != 1 || !strings.Contains(r.Items[0].Target, "I225-V") || !strings.HasPrefix(r.Items[0].Meaning, "line-based interrupts: no MSISupported") {
			t.Fatalf("withID=%v: reading %+v, want the one PCI adapter, line-based", withID, r.Items)
		}
		if d, ok := r.Items[0].Detail.(MSIDetail); !ok || d.Instance != i225Instance {
			t.Errorf("withID=%v: detail %+v, want the device instance", withID, r.Items[0].Detail)
		}
		p, err := plan(env, "msi-mode", Selector{Adapter: "7"}, "on")
		if err != nil {
			t.Fatal(err)
		}
		// The two keys below Device Parameters are created, then the value.
		base := EnumKey + `\` + i225Instance + `\Device Parameters`
		want := []string{base + `\Interrupt Management`, base + `\Interrupt Management\MessageSignaledInterruptProperties`, "MSISupported"}
		if len(p.Changes) != 3 || p.Changes[0].Loc.Path != want[0] || p.Changes[1].Loc.Path != want[1] || p.Changes[2].Loc.Name != want[2] ||
			p.Changes[2].New.Type != backend.TypeDWORD || p.Changes[2].New.String() != "1" {
			t.Fatalf("plan %+v, want %v", p.Changes, want)
		}
		if !strings.Contains(strings.Join(p.Notes, " "), "after a reboot") {
			t.Errorf("notes %v: want the reboot said", p.Notes)
		}
		for _, c := range p.Changes {
			if err := (msiMode{}).Vet(p.Target, c.Loc, c.Old); err != nil {
				t.Errorf("vet of its own change %s: %v", c.Loc, err)
			}
		}
		roundTrip(t, env, reg, []setStep{{"msi-mode", Selector{Adapter: "I225"}, "on"}}, func() {
			if r := get(t, env, "msi-mode", Selector{Adapter: "7"}); !strings.HasPrefix(r.Items[0].Meaning, "MSI requested (MSISupported=1)") {
				t.Errorf("after set: %+v", r.Items[0])
			}
		})
	}
}

func TestMSIModeRefusals(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	benchAdapter(reg, true)
	reg.Set(NetClassKey+`\0001`, "DeviceInstanceID", backend.SZ(`SWD\MSRRAS\MS_NDISWANIP`))
	for _, c := range []struct{ sel, value, want string }{
		{"Realtek", "on", "not a PCI device"},
		{"7", "maybe", "accepted on (MSISupported=1) or off"},
		{"", "on", "needs --adapter"},
	} {
		_, err := plan(env, "msi-mode", Selector{Adapter: c.sel}, c.value)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.sel, c.value, err, c.want)
		}
	}
	// Vet: only MSISupported and the keys on the way, below a device
	// instance of three parts.
	base := EnumKey + `\` + i225Instance + `\Device Parameters`
	for _, l := range []backend.Loc{
		regLoc(base+`\Interrupt Management\MessageSignaledInterruptProperties`, "MessageNumberLimit"),
		regLoc(base+`\Interrupt Management\Affinity Policy`, "DevicePolicy"),
		regLoc(EnumKey+`\PCI\VEN_8086\..\Device Parameters\Interrupt Management\MessageSignaledInterruptProperties`, "MSISupported"),
		regLoc(EnumKey+`\PCI\VEN_8086`, ""),
		regLoc(NetClassKey+`\0007`, "MSISupported"),
	} {
		if err := (msiMode{}).Vet("Intel", l, backend.DWORD(1)); err == nil {
			t.Errorf("vet accepts %s", l)
		}
	}
	if err := (msiMode{}).Vet("Intel", regLoc(base+`\Interrupt Management\MessageSignaledInterruptProperties`, "MSISupported"), backend.SZ("x")); err == nil {
		t.Error("vet accepts a REG_SZ that is no number")
	}
}

// nic-buffers quotes Microsoft's table of editable standardized keywords,
// which calls *ReceiveBuffers a number of receive descriptors and
// *TransmitBuffers a size in bytes: neither is latlab's to redefine.
func TestNICBuffersExplainQuotesTable(t *testing.T) {
	k, _ := Lookup("nic-buffers")
	ex, err := k.Explain("", ExplainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(strings.Join(ex.Text, " ")), " ")
	for _, want := range []string{
		`Microsoft, "Keywords that can be edited"`,
		`*ReceiveBuffers: "The number of receive descriptors used by the miniport adapter.`,
		`*TransmitBuffers: "The size, in bytes, of the transmit buffers that the hardware can support.`,
		"Ndi\\Params of each keyword (ParamDesc, type, min, max, step)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, strings.Join(ex.Text, "\n"))
		}
	}
}

func TestNICBuffers(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	benchAdapter(reg, true)
	r := get(t, env, "nic-buffers", Selector{})
	if len(r.Items) != 1 {
		t.Fatalf("items %+v, want the one adapter that declares them", r.Items)
	}
	it := r.Items[0]
	if it.Value != "*ReceiveBuffers=256" || it.Meaning != "256 receive buffers, 512 transmit buffers (driver default)" {
		t.Errorf("reading %q / %q", it.Value, it.Meaning)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "*TransmitBuffers is type int, accepts 80-4096 in steps of 8 (its driver's Ndi\\Params)") {
		t.Errorf("notes %v", r.Notes)
	}
	for _, c := range []struct{ value, want string }{
		{"770", "accepts 80-4096 in steps of 8"},
		{"rx=5000", "accepts 80-4096"},
		{"rx=64", "accepts 80-4096"},
		{"rx=768,rx=512", "twice"},
		{"big", "accepted N (both)"},
		{"rx=0", "not a positive whole number"},
	} {
		_, err := plan(env, "nic-buffers", Selector{Adapter: "7"}, c.value)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.value, err, c.want)
		}
	}
	if _, err := plan(env, "nic-buffers", Selector{Adapter: "Realtek"}, "768"); err == nil || !strings.Contains(err.Error(), "does not declare *ReceiveBuffers") {
		t.Errorf("undeclared: %v", err)
	}
	roundTrip(t, env, reg, []setStep{{"nic-buffers", Selector{Adapter: "7"}, "768"}}, func() {
		r := get(t, env, "nic-buffers", Selector{Adapter: "7"})
		if r.Items[0].Value != "*ReceiveBuffers=768 *TransmitBuffers=768" {
			t.Errorf("after set: %q", r.Items[0].Value)
		}
		if v, _ := reg.Read(regLoc(NetClassKey+`\0007`, "*TransmitBuffers")); v.Type != backend.TypeSZ {
			t.Errorf("*TransmitBuffers written as %s, want REG_SZ", v.Type)
		}
	})
}

func TestNICPowerSaving(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	benchAdapter(reg, true)
	r := get(t, env, "nic-power-saving", Selector{})
	if len(r.Items) != 1 || r.Items[0].Meaning != "power saving on: *EEE Enabled, EnableGreenEthernet Enabled, Device Manager turn-off" {
		t.Fatalf("reading %+v: want the declared keywords only (not GigaLite)", r.Items)
	}
	p, err := plan(env, "nic-power-saving", Selector{Adapter: "7"}, "off")
	if err != nil || len(p.Changes) != 3 {
		t.Fatalf("off: %+v %v", p, err)
	}
	for _, c := range p.Changes {
		if c.Loc.Name == "PnPCapabilities" {
			// Device Manager's "Allow the computer to turn off this device
			// to save power" cleared: KB 2740020's 24.
			if c.New.String() != "24" || c.New.Type != backend.TypeDWORD || !c.Old.IsAbsent() {
				t.Errorf("off writes PnPCapabilities=%s (%s) over %s", c.New, c.New.Type, c.Old)
			}
			continue
		}
		if c.New.String() != "0" || c.New.Type != backend.TypeSZ || strings.EqualFold(c.Loc.Name, "GigaLite") {
			t.Errorf("off writes %s=%s (%s)", c.Loc.Name, c.New, c.New.Type)
		}
	}
	for _, c := range []struct{ value, want string }{
		{"GigaLite=0", "does not declare GigaLite in its Ndi\\Params: it declares *EEE, EnableGreenEthernet"},
		{"*EEE=2", "*EEE=2 is not offered"},
		{"Foo=1", "KEYWORD one of *EEE"},
		{"quiet", "accepted off, default"},
	} {
		_, err := plan(env, "nic-power-saving", Selector{Adapter: "7"}, c.value)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.value, err, c.want)
		}
	}
	// An adapter without power keywords still has Device Manager's box.
	if p, err := plan(env, "nic-power-saving", Selector{Adapter: "Realtek"}, "off"); err != nil || len(p.Changes) != 1 || p.Changes[0].Loc.Name != "PnPCapabilities" || p.Changes[0].New.String() != "24" {
		t.Errorf("adapter without power keywords: %+v %v", p, err)
	}
	if _, err := plan(env, "nic-power-saving", Selector{Adapter: "Realtek"}, "*EEE=0"); err == nil || !strings.Contains(err.Error(), "declares none of latlab's power-saving keywords") {
		t.Errorf("a keyword the adapter does not declare: %v", err)
	}
	roundTrip(t, env, reg, []setStep{{"nic-power-saving", Selector{Adapter: "7"}, "off"}}, func() {
		r := get(t, env, "nic-power-saving", Selector{Adapter: "7"})
		if r.Items[0].Meaning != "power saving off: *EEE Disabled, EnableGreenEthernet Disabled, Device Manager turn-off" || !strings.Contains(r.Items[0].Value, "PnPCapabilities=24") {
			t.Errorf("after off: %q", r.Items[0].Meaning)
		}
		// default puts the driver's defaults back as stored values, and
		// KB 2740020's default 0 for PnPCapabilities.
		p, err := plan(env, "nic-power-saving", Selector{Adapter: "7"}, "default")
		if err != nil || len(p.Changes) != 3 || p.Changes[0].New.String() != "1" || p.Changes[2].New.String() != "0" {
			t.Errorf("default: %+v %v", p, err)
		}
	})
}

// The bench knobs' explanations quote their sources and fit 80 columns.
func TestNICBenchExplain(t *testing.T) {
	for name, want := range map[string]string{
		"msi-mode":         `"MSI Mode"`,
		"nic-buffers":      `"RX & TX buffer 768"`,
		"nic-power-saving": `"Adapter Power Savings Off"`,
	} {
		k, _ := Lookup(name)
		ex, err := k.Explain("", ExplainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(ex.Text, "\n")
		if !strings.Contains(text, want) || !strings.Contains(text, "GamingPCSetup (djdallmann)") {
			t.Errorf("%s: explanation does not quote the bench %s:\n%s", name, want, text)
		}
		for _, l := range ex.Text {
			if len(l) > 80 {
				t.Errorf("%s: line wider than 80 columns: %q", name, l)
			}
		}
	}
}
