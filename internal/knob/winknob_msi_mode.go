package knob

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// msiModeName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const msiModeName = "msi-mode"

func init() { register(msiMode{}) }

// msi-mode: whether a network adapter's PCI device asks for
// message-signaled interrupts. The GamingPCSetup interrupt moderation
// measurements (djdallmann, CONTENT/RESEARCH/NETWORK/README.md) list "MSI
// Mode" in their test bench's configuration, and PC-Tuning
// (valleyofdoom, README "Network Interface Card") says "The NIC must
// support MSI-X for Receive Side Scaling to function properly". The
// switch is the value a driver's INF writes to the device's hardware key
// (Microsoft, "Enabling Message-Signaled Interrupts in the Registry"):
//
//	HKR,Interrupt Management\MessageSignaledInterruptProperties,MSISupported,0x00010001,1
//
// HKR there is the device instance's "Device Parameters" key under
// HKLM\SYSTEM\CurrentControlSet\Enum. Windows reads it when it assigns
// the device's resources, so a change takes effect after a reboot.

// EnumKey is the root of the device instance keys.
const EnumKey = `HKLM\SYSTEM\CurrentControlSet\Enum`

// msiSubkey is the key of MSISupported below a device instance key.
const msiSubkey = `Device Parameters\Interrupt Management\MessageSignaledInterruptProperties`

// Bounds on the fallback search of Enum\PCI for an adapter's device: a
// machine has tens of PCI devices; the registry is outside input.
const (
	maxEnumIDs       = 1024
	maxEnumInstances = 64
)

type msiMode struct{ windowsKnob }

func (msiMode) Name() string { return msiModeName }

// Selectors are the selector flags msiMode reads.
func (msiMode) Selectors() []string { return []string{SelAdapter} }
func (msiMode) Summary() string {
	return "message-signaled interrupts of a network adapter's PCI device (MSISupported; after a reboot)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): MSISupported of any device instance, which Microsoft
// documents alike for every PCI device.
func (msiMode) regInput(l backend.Loc, v backend.Value) (string, string) {
	if !strings.EqualFold(l.Name, "MSISupported") {
		return "", ""
	}
	return dwordInput(l, v, l)
}

// validInstance reports whether id is a device instance path as Windows
// forms them: enumerator\device id\instance, printable, no empty part.
func validInstance(id string) bool {
	parts := strings.Split(id, `\`)
	if len(parts) != 3 || len(id) > 400 || hasControl(id) {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return false
		}
	}
	return true
}

// deviceInstance is the adapter's device instance path (PCI\VEN_8086&...
// \...), from its class key's DeviceInstanceID, else by finding the
// Enum\PCI instance whose Driver names the class key; "" when neither.
func deviceInstance(env *Env, a adapter) (string, error) {
	if id := readSZ(env, a.Key, "DeviceInstanceID"); validInstance(id) {
		return id, nil
	}
	driver := strings.ToLower(NetClassKey[strings.LastIndexByte(NetClassKey, '\\')+1:] + `\` + a.Index)
	ids, _, err := env.list(backend.BackendRegistry, EnumKey+`\PCI`)
	if err != nil {
		return "", nil // no PCI enumerator readable: not a PCI device as far as can be told
	}
	if len(ids) > maxEnumIDs {
		ids = ids[:maxEnumIDs]
	}
	for _, id := range ids {
		insts, _, err := env.list(backend.BackendRegistry, EnumKey+`\PCI\`+id)
		if err != nil {
			continue
		}
		if len(insts) > maxEnumInstances {
			insts = insts[:maxEnumInstances]
		}
		for _, in := range insts {
			if strings.ToLower(readSZ(env, EnumKey+`\PCI\`+id+`\`+in, "Driver")) == driver {
				if p := `PCI\` + id + `\` + in; validInstance(p) {
					return p, nil
				}
			}
		}
	}
	return "", nil
}

func msiLoc(instance string) backend.Loc {
	return regLoc(EnumKey+`\`+instance+`\`+msiSubkey, "MSISupported")
}

// MSIDetail is the JSON detail of an adapter in `knob get msi-mode`.
type MSIDetail struct {
	Instance           string `json:"device_instance,omitempty"`
	MessageNumberLimit string `json:"message_number_limit,omitempty"`
}

func msiMeaning(v backend.Value) string {
	if v.IsAbsent() {
		return "line-based interrupts: no MSISupported, the driver's INF did not ask for MSI"
	}
	n, err := v.Uint()
	switch {
	case err != nil:
		return fmt.Sprintf("%s is not a number: Windows reads a REG_DWORD 0 or 1", v)
	case n == 0:
		return "line-based interrupts (MSISupported=0)"
	case n == 1:
		return "MSI requested (MSISupported=1): used if the device supports them"
	}
	return fmt.Sprintf("MSISupported=%d: not 0 or 1; Windows documents only those", n)
}

func parseMSI(value string) (uint32, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "on", "1", "enabled", "msi":
		return 1, nil
	case "off", "0", "disabled", "line", "line-based":
		return 0, nil
	}
	return 0, badinput.Errorf("invalid msi-mode value %q: accepted on (MSISupported=1) or off (0, line-based)", value)
}

func (msiMode) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: msiModeName}
	if value == "" {
		ex.Text = []string{
			"MSISupported (REG_DWORD) under the adapter's device key, Enum\\<instance>\\",
			"  Device Parameters\\Interrupt Management\\MessageSignaledInterruptProperties:",
			"  1 asks for message-signaled interrupts (MSI/MSI-X), 0 or absent line-based.",
			"  Drivers opt in from their INF; Windows reads it when it assigns the",
			"  device's resources: a change takes effect after a reboot.",
			"Why: MSIs avoid shared interrupt lines (PC-Tuning, valleyofdoom), and",
			"  RSS needs them: \"The NIC must support MSI-X for Receive Side Scaling\".",
			"Bench: GamingPCSetup (djdallmann) measured with the adapter in \"MSI Mode\".",
			"  Neither source measured MSI against line-based interrupts.",
			"A device without MSI support keeps line-based interrupts whatever the value;",
			"  one in MSI mode shows a negative IRQ in Device Manager (resources by type).",
			"Values: on|off; e.g. latlab knob set msi-mode on --adapter 7",
		}
		return ex, nil
	}
	n, err := parseMSI(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{fmt.Sprintf("MSISupported=%d: %s", n, msiMeaning(backend.DWORD(n))), "takes effect after a reboot"}
	ex.Data = map[string]uint32{"MSISupported": n}
	return ex, nil
}

func (k msiMode) Get(env *Env, sel Selector) (*Reading, error) {
	as, err := selectAdapters(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, a := range as {
		inst, err := deviceInstance(env, a)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(strings.ToUpper(inst), `PCI\`) {
			if sel.Adapter != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: no PCI device found (instance %q): MSI mode applies to PCI devices only", a.Name, inst))
			}
			continue // virtual, USB and software adapters have no MSI setting
		}
		l := msiLoc(inst)
		it, err := regItem(env, a.String(), l, msiMeaning)
		if err != nil {
			return nil, err
		}
		det := MSIDetail{Instance: inst}
		if v, err := env.read(regLoc(l.Path, "MessageNumberLimit")); err == nil && !v.IsAbsent() {
			det.MessageNumberLimit = v.String()
		}
		it.Detail = det
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k msiMode) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, badinput.Errorf("msi-mode needs --adapter NAME|INDEX (latlab knob get msi-mode lists them)")
	}
	a, err := findAdapter(env, sel.Adapter)
	if err != nil {
		return nil, err
	}
	n, err := parseMSI(value)
	if err != nil {
		return nil, err
	}
	inst, err := deviceInstance(env, a)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(strings.ToUpper(inst), `PCI\`) {
		return nil, badinput.Errorf("%q is not a PCI device (no PCI device instance found): MSI mode applies to PCI devices only", a.Name)
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{
		"takes effect after a reboot; a device without MSI support keeps line-based interrupts",
	}}
	if _, err := p.addNumber(env, msiLoc(inst), uint64(n), backend.TypeDWORD); err != nil {
		return nil, err
	}
	return p, nil
}

func (k msiMode) Vet(target string, l backend.Loc, v backend.Value) error {
	if target == "" || l.Backend != backend.BackendRegistry {
		return notMine(k.Name(), target, l)
	}
	rest, ok := cutKey(l.Path, EnumKey)
	if !ok {
		return notMine(k.Name(), target, l)
	}
	parts := strings.Split(rest, `\`)
	if len(parts) < 4 || !validInstance(strings.Join(parts[:3], `\`)) {
		return notMine(k.Name(), target, l)
	}
	below := parts[3:]
	if len(below) > len(msiKeyLevels) {
		return notMine(k.Name(), target, l)
	}
	for i, p := range below {
		if !strings.EqualFold(p, msiKeyLevels[i]) {
			return notMine(k.Name(), target, l)
		}
	}
	if l.Name == "" {
		// A key ensureKey adds on the way: created and deleted, no data.
		if !(v.IsAbsent() || v.Type == backend.TypeKey) || len(v.Data) > 0 {
			return fmt.Errorf("%s: a key, not a %s value", l, v.Type)
		}
		return nil
	}
	if len(below) != len(msiKeyLevels) || !strings.EqualFold(l.Name, "MSISupported") {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// VetLive checks that the device instance is the target adapter's, as
// Plan finds it (deviceInstance of the adapters whose DriverDesc is the
// target): Vet takes any device instance's. When the instance is gone,
// an absent v is let through (revert deletes what is not there); any
// other value is refused rather than written, since a key write would
// make the device's key again.
func (k msiMode) VetLive(env *Env, target string, l backend.Loc, v backend.Value) error {
	rest, ok := cutKey(l.Path, EnumKey)
	parts := strings.Split(rest, `\`)
	if !ok || len(parts) < 4 {
		return notMine(k.Name(), target, l)
	}
	inst := strings.Join(parts[:3], `\`)
	kv, err := env.read(regLoc(EnumKey+`\`+inst, ""))
	if err != nil {
		return fmt.Errorf("cannot tell whose device %s is: %w", inst, err)
	}
	if kv.IsAbsent() {
		if v.IsAbsent() {
			return nil
		}
		return fmt.Errorf("%s: device %s no longer exists, and %s writes no value where no device is", l, inst, k.Name())
	}
	as, err := adapters(env)
	if err != nil {
		return fmt.Errorf("cannot tell whose device %s is: %w", inst, err)
	}
	named := 0
	var theirs []string
	for _, a := range as {
		if a.Name != target {
			continue
		}
		named++
		id, err := deviceInstance(env, a)
		if err != nil {
			return fmt.Errorf("cannot tell whose device %s is: %w", inst, err)
		}
		if strings.EqualFold(id, inst) {
			return nil
		}
		if id != "" {
			theirs = append(theirs, id)
		}
	}
	switch {
	case named == 0:
		return fmt.Errorf("%s is not a value %s writes for %q: no network adapter has that DriverDesc now", l, k.Name(), target)
	case len(theirs) == 0:
		return fmt.Errorf("%s is not a value %s writes for %q: device %s is not that adapter's (it has none)", l, k.Name(), target, inst)
	}
	return fmt.Errorf("%s is not a value %s writes for %q: device %s is not that adapter's (%s)", l, k.Name(), target, inst, strings.Join(theirs, ", "))
}

// Checkup is what the check-up knows of msi-mode: its default, how its
// instances are read and the verdict rules.
func (msiMode) Checkup() Checkup {
	return Checkup{Default: text("what the driver's INF writes (most MSI-capable NICs: 1)"), Rules: msiModeRules}
}

// Experiment is how a change of msi-mode takes effect for latlab try.
func (msiMode) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "Windows reads it when it assigns the device's resources: it takes effect after a reboot"}
}

var msiModeRules = []Rule{
	{ID: "msi-none", Verdict: Default, When: "no PCI network adapter",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter with a PCI device")},
	{ID: "msi-off", Verdict: Suspicious, When: "MSISupported 0",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 0 },
		Reason:   text("line-based interrupts, set explicitly: RSS needs MSI-X to spread the adapter's interrupts over CPUs"),
		Evidence: func(c *Case) string { return quote(msiModeName, "", "must support MSI-X") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain msi-mode", Why: "MSI is off on " + c.Target, Benefit: 30}
		}},
	{ID: "msi-on", Verdict: Default, When: "MSISupported 1",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 1 },
		Reason:   func(c *Case) string { return c.Meaning + ", as on the GamingPCSetup test bench" },
		Evidence: func(c *Case) string { return quote(msiModeName, "", "Bench:") },
		// Drivers of MSI-capable NICs write 1 from their INF; whether
		// this 1 is theirs or someone's cannot be told from the value.
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "msi-absent", Verdict: Default, When: "no MSISupported: the INF did not ask for MSI",
		Match:    func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote(msiModeName, "", "must support MSI-X") }},
	{ID: "msi-other", Verdict: Suspicious, When: "any other value",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}

// msiKeyLevels are the keys below a device instance that msi-mode may
// create on the way to MSISupported.
var msiKeyLevels = strings.Split(msiSubkey, `\`)
