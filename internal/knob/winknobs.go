package knob

import (
	"errors"
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/knob/prisep"
	"github.com/latlab/latlab/internal/regfile"
	"github.com/latlab/latlab/internal/timer"
)

// The Windows knobs: registry values (through the registry backend, an
// in-memory registry in tests) and one BCD element. All of this file is
// plain logic over the backends, so it runs and is tested on any OS.

func init() {
	register(prioSep{})
	register(globalTimer{})
	register(netThrottle{})
	register(tscSync{})
	register(displayScaling{})
	register(rssKnob{})
	register(intModeration{})
	register(qosDSCP{})
}

type windowsKnob struct{}

func (windowsKnob) OS() string { return "windows" }

func regLoc(key, name string) Loc { return Loc{Backend: BackendRegistry, Path: key, Name: name} }

// parseUint32 reads 38, 0x26 or 26h.
func parseUint32(s string) (uint32, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"):
		s, base = s[2:], 16
	case strings.HasSuffix(s, "h"):
		s, base = s[:len(s)-1], 16
	}
	n, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0, fmt.Errorf("want a 32-bit number (38, 0x26)")
	}
	return uint32(n), nil
}

// ensureKey adds the creation of key and of each missing parent to p, top
// down, so that revert deletes exactly the keys latlab created.
func ensureKey(env *Env, p *Plan, key string) error {
	var missing []string
	for k := key; k != ""; {
		v, err := env.read(regLoc(k, ""))
		if err != nil {
			return err
		}
		if !v.IsAbsent() {
			break
		}
		missing = append(missing, k)
		i := strings.LastIndexByte(k, '\\')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := p.add(env, regLoc(missing[i], ""), KeyValue); err != nil {
			return err
		}
	}
	return nil
}

// regItem reads one registry value into a reading item.
func regItem(env *Env, target string, l Loc, meaning func(Value) string) (Item, error) {
	v, err := env.read(l)
	if err != nil {
		return Item{}, err
	}
	it := item(target, l, v, meaning(v))
	if !v.IsAbsent() {
		it.Value = fmt.Sprintf("%s (%s)", v.String(), v.Type)
	}
	return it, nil
}

// --- win32-priority-separation -------------------------------------------

const prioKey = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`

var prioLoc = regLoc(prioKey, "Win32PrioritySeparation")

type prioSep struct{ windowsKnob }

func (prioSep) Name() string { return "win32-priority-separation" }
func (prioSep) Summary() string {
	return "quantum length and foreground boost of the scheduler (PriorityControl\\Win32PrioritySeparation)"
}

// PrioExplanation is the JSON of `knob explain win32-priority-separation`.
type PrioExplanation struct {
	*prisep.Decoded
	Table   []prisep.Decoded `json:"table,omitempty"`
	Find    string           `json:"find,omitempty"`
	Matches []prisep.Decoded `json:"matches,omitempty"`
}

func prioValue(s string, o prisep.Options) (uint32, error) {
	if n, err := parseUint32(s); err == nil {
		return n, nil
	}
	q, err := prisep.ParseQuery(s)
	if err != nil {
		return 0, inputf("invalid win32-priority-separation %q: want a number (0x26, 38) or a description (short,variable,3:1)", s)
	}
	m := prisep.Find(q, o)
	if len(m) == 0 {
		return 0, inputf("no Win32PrioritySeparation value is %s", s)
	}
	return m[0].Effective, nil
}

// prioBoostEvidence is what the foreground wait boost rests on.
var prioBoostEvidence = []string{
	`the boost: "whenever a thread in the foreground process completes a wait`,
	`  operation on a kernel object, the kernel boosts its current priority by the`,
	`  current value of PsPrioritySeparation" (Windows Internals); it is the same`,
	`  CC field that picks the variable quanta, so it applies to fixed quanta too`,
}

// prioLines explains one decoded value in lines of at most 80 columns.
func prioLines(d prisep.Decoded) []string {
	out := []string{fmt.Sprintf("%s (%d): %s, %s quanta, PsPrioritySeparation %d (%s)",
		d.Hex, d.Value, d.Interval, d.Length, d.PsPrioritySeparation, d.Setting())}
	switch {
	case d.Length == "fixed":
		out = append(out, fmt.Sprintf("  quantum: %d units (%s ms), foreground and background alike",
			d.ForegroundUnits, prisep.FmtMs(d.ForegroundMs)),
			"  (fixed quanta are equal whatever PsPrioritySeparation says)")
	case d.ForegroundUnits == d.BackgroundUnits:
		out = append(out, fmt.Sprintf("  quantum: %d units (%s ms), foreground and background alike",
			d.ForegroundUnits, prisep.FmtMs(d.ForegroundMs)))
	default:
		out = append(out, fmt.Sprintf("  quantum: foreground %d units (%s ms), background %d units (%s ms)",
			d.ForegroundUnits, prisep.FmtMs(d.ForegroundMs), d.BackgroundUnits, prisep.FmtMs(d.BackgroundMs)))
	}
	return append(out, fmt.Sprintf("  foreground wait boost: +%d priority level(s)", d.ForegroundBoost))
}

// wrapWords joins words into lines of at most width columns (a longer
// word gets a line of its own); lines after the first start with indent.
func wrapWords(first, indent string, words []string, width int) []string {
	var out []string
	line, empty := first, true
	for _, w := range words {
		if !empty && len(line)+1+len(w) > width {
			out = append(out, line)
			line, empty = indent, true
		}
		if line != "" && !strings.HasSuffix(line, " ") {
			line += " "
		}
		line += w
		empty = false
	}
	return append(out, line)
}

func (prioSep) Explain(value string, o ExplainOptions) (*Explanation, error) {
	po := prisep.Options{Server: o.Server, TickMs: o.TickMs}
	ex := &Explanation{Knob: "win32-priority-separation"}
	pe := &PrioExplanation{}
	if value != "" {
		n, err := prioValue(value, po)
		if err != nil {
			return nil, err
		}
		d := prisep.Decode(n, po)
		pe.Decoded = &d
		ex.Text = append(ex.Text, prioLines(d)...)
		if d.Value != d.Effective {
			ex.Text = append(ex.Text, fmt.Sprintf("only the low 6 bits count: %s acts as 0x%02X", d.Hex, d.Effective))
		}
		bits := fmt.Sprintf("bits %s = interval %s%s, length %s%s, PsPrioritySeparation %d",
			d.Binary, d.Interval, dflt(d.IntervalDefault), d.Length, dflt(d.LengthDefault), d.PsPrioritySeparation)
		ex.Text = append(ex.Text, wrapWords("", "  ", strings.Fields(bits), 80)...)
		ex.Text = append(ex.Text, fmt.Sprintf("ms at a %s ms clock interval (3 units per tick); %s platform defaults", prisep.FmtMs(d.TickMs), platform(o.Server)))
		ex.Text = append(ex.Text, prioBoostEvidence...)
	} else if o.Find == "" {
		o.Table = true // the reference: every class
		ex.Text = []string{
			"Win32PrioritySeparation: only the low 6 bits count, as AABBCC.",
			"  AA interval: 01 long, 10 short, 00/11 default (client short, server long)",
			"  BB length:   01 variable, 10 fixed, 00/11 default (client variable,",
			"               server fixed)",
			"  CC PsPrioritySeparation: 0, 1, 2 (3 acts as 2), written 1:1, 2:1, 3:1:",
			"     variable quanta: the foreground quantum is 1x, 2x, 3x the background one",
			"     fixed quanta: both quanta are equal",
			"     either length: a foreground thread completing a wait gets +0, +1, +2",
			"Quantum units: short variable 6/12/18, long variable 12/24/36, short fixed 18,",
			"  long fixed 36; 3 units per clock tick.",
			"Windows ships 0x2 on client (short, variable, 3:1) and 0x18 on server",
			"  (long, fixed, 1:1).",
		}
		ex.Text = append(ex.Text, prioBoostEvidence...)
		ex.Text = append(ex.Text, "--find short,variable,3:1 finds the values of a class; --server uses the",
			"  server defaults.")
	}
	if o.Find != "" {
		q, err := prisep.ParseQuery(o.Find)
		if err != nil {
			return nil, &InputError{err.Error()}
		}
		pe.Find = o.Find
		pe.Matches = prisep.Find(q, po)
		// ParseQuery accepts only terms every combination of which has
		// values, so there are always matches.
		var hs []string
		for _, m := range pe.Matches {
			hs = append(hs, m.Hex)
		}
		best := pe.Matches[0]
		ex.Text = append(ex.Text, fmt.Sprintf("%s: use %s (states interval and length explicitly)", o.Find, best.Hex))
		ex.Text = append(ex.Text, wrapWords("  all matches:", "    ", hs, 80)...)
		ex.Text = append(ex.Text, fmt.Sprintf("  and every value with the same low 6 bits (0x%X, 0x%X, ...)", best.Effective|0x40, best.Effective|0x80))
		if q.Length != "" && q.Setting != "" {
			ex.Text = append(ex.Text, prioLines(best)[1:]...)
		}
	}
	if o.Table {
		pe.Table = prisep.Table(po)
		ex.Text = append(ex.Text, fmt.Sprintf("all 64 classes (%s defaults, %s ms clock interval):", platform(o.Server), prisep.FmtMs(pe.Table[0].TickMs)),
			"  value  bits    interval  length     fg:bg  boost  units   ms")
		for _, d := range pe.Table {
			ex.Text = append(ex.Text, fmt.Sprintf("  0x%02X   %s  %-8s  %-9s  %-5s  %-5s  %-6s  %s/%s", d.Effective, d.Binary,
				d.Interval+star(d.IntervalDefault), d.Length+star(d.LengthDefault), d.QuantumRatio, fmt.Sprintf("+%d", d.ForegroundBoost),
				fmt.Sprintf("%d/%d", d.ForegroundUnits, d.BackgroundUnits), prisep.FmtMs(d.ForegroundMs), prisep.FmtMs(d.BackgroundMs)))
		}
		ex.Text = append(ex.Text, "  * platform default; fg:bg: quantum ratio; boost: foreground wait boost;",
			"  units, ms: foreground/background quantum")
	}
	ex.Data = pe
	return ex, nil
}

func dflt(b bool) string {
	if b {
		return " (platform default)"
	}
	return ""
}

func star(b bool) string {
	if b {
		return "*"
	}
	return ""
}

func platform(server bool) string {
	if server {
		return "server"
	}
	return "client"
}

func (k prioSep) Get(env *Env, sel Selector) (*Reading, error) {
	v, err := env.read(prioLoc)
	if err != nil {
		return nil, err
	}
	it := item("", prioLoc, v, "absent: the kernel keeps its built-in default")
	if !v.IsAbsent() {
		if n, err := v.Uint(); err != nil {
			it.Value = fmt.Sprintf("%s (%s)", v.String(), v.Type)
			it.Meaning = "unreadable: " + err.Error()
		} else {
			d := prisep.Decode(uint32(n), prisep.Options{Server: env.Server, TickMs: env.TickMs})
			it.Value = fmt.Sprintf("%s (%d)", d.Hex, d.Value)
			it.Meaning = d.Summary()
			it.Detail = d
		}
	}
	return &Reading{Knob: k.Name(), Items: []Item{it}}, nil
}

func (k prioSep) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := prioValue(value, prisep.Options{Server: env.Server})
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	d := prisep.Decode(n, prisep.Options{Server: env.Server, TickMs: env.TickMs})
	p.Notes = append(p.Notes, "new value: "+d.Summary(), "the kernel applies it at once; no reboot needed")
	if n > 0x3F {
		p.Notes = append(p.Notes, fmt.Sprintf("only the low 6 bits count: 0x%X acts as 0x%02X", n, n&0x3F))
	}
	_, err = p.addNumber(env, prioLoc, uint64(n), TypeDWORD)
	return p, err
}

// --- global-timer-resolution-requests --------------------------------------

var globalTimerLoc = regLoc(`HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, "GlobalTimerResolutionRequests")

type globalTimer struct{ windowsKnob }

func (globalTimer) Name() string { return "global-timer-resolution-requests" }
func (globalTimer) Summary() string {
	return "whether one process's timer resolution request speeds up every process again (Windows 11 / Server 2022)"
}

func globalMeaning(n uint64, absent bool) string {
	if absent || n == 0 {
		return "per-process: a timer resolution request only speeds up the process that made it (Windows 10 2004+ behaviour)"
	}
	return "global: any process's timer resolution request raises the resolution for every process, as before Windows 10 2004"
}

// GlobalTimerSupported says whether build reads the value: the same rule
// as timer status's request scope.
func GlobalTimerSupported(build uint32, server bool) bool {
	return timer.GlobalKeySupported(build, server)
}

func (globalTimer) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "global-timer-resolution-requests"}
	if value == "" {
		ex.Text = []string{
			`Session Manager\kernel\GlobalTimerResolutionRequests (REG_DWORD), Windows 11 (build 22000+) and Server 2022 (20348+) only.`,
			"0 or absent: " + globalMeaning(0, true), "1: " + globalMeaning(1, false), "Read at boot: a change needs a reboot.",
		}
		return ex, nil
	}
	n, ok := parseBool01(value)
	if !ok {
		return nil, inputf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	ex.Text = []string{fmt.Sprintf("%d: %s", n, globalMeaning(uint64(n), false))}
	ex.Data = map[string]any{"value": n, "global": n == 1}
	return ex, nil
}

func (k globalTimer) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", globalTimerLoc, func(v Value) string {
		n, _ := v.Uint()
		return globalMeaning(n, v.IsAbsent())
	})
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name(), Items: []Item{it}}
	if env.Build != 0 && !GlobalTimerSupported(env.Build, env.Server) {
		r.Notes = append(r.Notes, fmt.Sprintf("build %d ignores this value (needs Windows 11 22000+ or Server 2022 20348+)", env.Build))
	}
	return r, nil
}

func (k globalTimer) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, ok := parseBool01(value)
	if !ok {
		return nil, inputf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	if !GlobalTimerSupported(env.Build, env.Server) {
		return nil, inputf("global-timer-resolution-requests exists only on Windows 11 (build 22000+) and Server 2022 (20348+); this is %s build %d", platform(env.Server), env.Build)
	}
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"takes effect after a reboot"}}
	_, err := p.addNumber(env, globalTimerLoc, uint64(n), TypeDWORD)
	return p, err
}

// --- network-throttling-index ----------------------------------------------

var ntiLoc = regLoc(`HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`, "NetworkThrottlingIndex")

type netThrottle struct{ windowsKnob }

func (netThrottle) Name() string { return "network-throttling-index" }
func (netThrottle) Summary() string {
	return "MMCSS limit on non-multimedia network packets per ms while multimedia plays (NetworkThrottlingIndex)"
}

const ntiOff = 0xFFFFFFFF

func ntiMeaning(n uint64, absent bool) string {
	if absent {
		return "absent: the default 10 applies (about 120 Mbit/s of 1500-byte packets while multimedia plays)"
	}
	if n == ntiOff {
		return "off (0xFFFFFFFF): no throttling; measured: NDIS DPC latency rose with it off"
	}
	if n < 1 || n > 70 {
		return fmt.Sprintf("%d is outside 1-70: MMCSS ignores it and uses the default 10", n)
	}
	return fmt.Sprintf("%d packets/ms, about %d Mbit/s of 1500-byte packets while multimedia plays", n, n*12)
}

func parseNTI(s string) (uint32, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "disabled", "none":
		return ntiOff, nil
	}
	n, err := parseUint32(s)
	if err != nil || (n != ntiOff && (n < 1 || n > 70)) {
		return 0, inputf("network-throttling-index %q is out of range: accepted 1-70 or off (0xFFFFFFFF)", s)
	}
	return n, nil
}

func (netThrottle) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "network-throttling-index"}
	if value == "" {
		ex.Text = []string{
			`Multimedia\SystemProfile\NetworkThrottlingIndex (REG_DWORD): while MMCSS-registered multimedia plays, other network traffic is limited to N packets per ms.`,
			"Default 10 (absent), valid 1-70, 0xFFFFFFFF turns throttling off. N packets/ms of 1500 bytes is about 12 x N Mbit/s.",
			"Measured (seed research, xperf): turning it off raised NDIS DPC latency; off is not a free latency win. Needs a reboot.",
		}
		return ex, nil
	}
	n, err := parseNTI(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{ntiMeaning(uint64(n), false)}
	data := map[string]any{"value": n, "off": n == ntiOff}
	if n != ntiOff {
		data["packets_per_ms"] = n
		data["mbit_per_s_at_1500_bytes"] = float64(n) * 1500 * 8 * 1000 / 1e6
	}
	ex.Data = data
	return ex, nil
}

func (k netThrottle) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", ntiLoc, func(v Value) string {
		n, _ := v.Uint()
		return ntiMeaning(n, v.IsAbsent())
	})
	if err != nil {
		return nil, err
	}
	return &Reading{Knob: k.Name(), Items: []Item{it}}, nil
}

func (k netThrottle) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := parseNTI(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"MMCSS reads it at start: takes effect after a reboot"}}
	if n == ntiOff {
		p.Notes = append(p.Notes, "measured: NDIS DPC latency rose with throttling off; measure before and after")
	}
	_, err = p.addNumber(env, ntiLoc, uint64(n), TypeDWORD)
	return p, err
}

// --- tsc-sync-policy -------------------------------------------------------

var tscLoc = Loc{Backend: BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}

type tscSync struct{ windowsKnob }

func (tscSync) Name() string { return "tsc-sync-policy" }
func (tscSync) Summary() string {
	return "how the HAL synchronises the CPUs' time-stamp counters at boot (BCD tscsyncpolicy)"
}

var tscPolicies = map[string]string{
	"default":  "HalpTscSyncPolicy 0: the HAL's own choice (what Windows does when the element is absent)",
	"legacy":   "HalpTscSyncPolicy 1: the older synchronisation method",
	"enhanced": "HalpTscSyncPolicy 2: the newer synchronisation method",
}

func (tscSync) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "tsc-sync-policy"}
	if value == "" {
		ex.Text = []string{
			"bcdedit element tscsyncpolicy of {current}: default, legacy or enhanced; absent means default.",
			"  default  " + tscPolicies["default"], "  legacy   " + tscPolicies["legacy"], "  enhanced " + tscPolicies["enhanced"],
			`The Windows default is "default", not "enhanced" as many guides claim. Read at boot: a change needs a reboot.`,
		}
		return ex, nil
	}
	v := strings.ToLower(strings.TrimSpace(value))
	m, ok := tscPolicies[v]
	if !ok {
		return nil, inputf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced", value)
	}
	ex.Text = []string{v + ": " + m}
	ex.Data = map[string]any{"policy": v, "halp_tsc_sync_policy": map[string]int{"default": 0, "legacy": 1, "enhanced": 2}[v]}
	return ex, nil
}

func (k tscSync) Get(env *Env, sel Selector) (*Reading, error) {
	v, err := env.read(tscLoc)
	if err != nil {
		return nil, err
	}
	m := "absent: default (HalpTscSyncPolicy 0)"
	if !v.IsAbsent() {
		m = tscPolicies[strings.ToLower(v.String())]
	}
	return &Reading{Knob: k.Name(), Items: []Item{item("", tscLoc, v, m)}}, nil
}

func (k tscSync) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"read at boot: takes effect after a reboot"}}
	if v == "remove" || v == "absent" || v == "delete" {
		return p, p.add(env, tscLoc, Absent)
	}
	if _, ok := tscPolicies[v]; !ok {
		return nil, inputf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced|remove", value)
	}
	return p, p.add(env, tscLoc, Value{Type: TypeBCD, Data: []byte(v)})
}

// --- display-scaling -------------------------------------------------------

const graphicsConfigKey = `HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers\Configuration`

type displayScaling struct{ windowsKnob }

func (displayScaling) Name() string { return "display-scaling" }
func (displayScaling) Summary() string {
	return "the scaling mode requested for each display configuration (GraphicsDrivers\\Configuration\\...\\Scaling)"
}

func parseScaling(s string) (uint32, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	for _, sc := range scalings {
		if v == sc.Name || v == strconv.Itoa(int(sc.N)) || v == strings.ToLower(sc.Constant) {
			return sc.N, nil
		}
	}
	if n, ok := scalingAliases[v]; ok {
		return n, nil
	}
	if strings.ReplaceAll(strings.ReplaceAll(v, "-", ""), " ", "") == "noscaling" {
		return 0, inputf(`display-scaling %q is ambiguous: GPU control panels' "No scaling" is 2 centered (unscaled, centred); 1 identity is no transformation at all and exists only when source and target resolutions are equal`, s)
	}
	var acc []string
	for _, sc := range scalings {
		acc = append(acc, fmt.Sprintf("%d %s", sc.N, sc.Name))
	}
	return 0, inputf("invalid display-scaling %q: accepted %s", s, strings.Join(acc, ", "))
}

func scalingMeaning(n uint32) string {
	if sc, ok := LookupScaling(n); ok {
		return fmt.Sprintf("%d %s: %s", n, sc.Name, sc.Desc)
	}
	return fmt.Sprintf("%d: not a DISPLAYCONFIG_SCALING value", n)
}

// ScalingExplanation is the JSON of `knob explain display-scaling`.
type ScalingExplanation struct {
	Scaling
	Note string `json:"note,omitempty"`
}

func (displayScaling) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "display-scaling"}
	if value == "" {
		ex.Text = []string{
			`Scaling (REG_DWORD) under GraphicsDrivers\Configuration\<id>\...: the`,
			"  DISPLAYCONFIG_SCALING a display configuration asks for:",
		}
		for _, sc := range scalings {
			ex.Text = append(ex.Text, fmt.Sprintf("  %3d %-12s %s", sc.N, sc.Name, sc.Desc))
		}
		ex.Text = append(ex.Text,
			`Identity is not the GPU control panel's "No scaling" (that is centered).`,
			identityFallback[0], identityFallback[1],
			"The value is only a request: `knob get display-scaling` also shows what",
			"  each active path uses (QueryDisplayConfig).")
		ex.Data = map[string]any{"scalings": scalings}
		return ex, nil
	}
	n, err := parseScaling(value)
	if err != nil {
		return nil, err
	}
	sc, _ := LookupScaling(n)
	se := &ScalingExplanation{Scaling: sc}
	ex.Text = []string{fmt.Sprintf("%d %s (%s)", n, sc.Name, sc.Constant), "  " + sc.Desc}
	if n == 1 {
		se.Note = identityNote
		ex.Text = append(ex.Text, `  not the GPU control panel's "No scaling": that is 2 centered`,
			"  "+identityFallback[0], "  "+identityFallback[1])
	}
	ex.Data = se
	return ex, nil
}

// scalingLocs finds the Scaling values below the configuration key (they
// sit two or three levels down: <id>\00 or <id>\00\00).
func scalingLocs(env *Env, config string) ([]Loc, error) {
	var out []Loc
	var walk func(key string, depth int) error
	walk = func(key string, depth int) error {
		keys, vals, err := env.list(BackendRegistry, key)
		if err != nil {
			return err
		}
		for _, v := range vals {
			if strings.EqualFold(v, "Scaling") {
				out = append(out, regLoc(key, v))
			}
		}
		if depth < 3 {
			for _, k := range keys {
				if depth == 0 && config != "" && !strings.HasPrefix(strings.ToLower(k), strings.ToLower(config)) {
					continue
				}
				if err := walk(key+`\`+k, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(graphicsConfigKey, 0); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return out, nil
}

func (k displayScaling) Get(env *Env, sel Selector) (*Reading, error) {
	locs, err := scalingLocs(env, sel.Config)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	requested := map[uint32]bool{}
	for _, l := range locs {
		it, err := regItem(env, strings.TrimPrefix(l.Path, graphicsConfigKey+`\`), l, func(v Value) string {
			n, err := v.Uint()
			if err != nil {
				return "unreadable: " + err.Error()
			}
			return "requested " + scalingMeaning(uint32(n))
		})
		if err != nil {
			return nil, err
		}
		if v, err := env.read(l); err == nil {
			if n, err := v.Uint(); err == nil {
				if sc, ok := LookupScaling(uint32(n)); ok {
					it.Detail = sc
					requested[sc.N] = true
				}
			}
		}
		r.Items = append(r.Items, it)
	}
	if len(locs) == 0 {
		r.Notes = append(r.Notes, "no Scaling values: the display driver has stored no configuration")
	}
	if env.Display != nil {
		paths, err := env.Display()
		fellBack := false
		if err != nil {
			r.Notes = append(r.Notes, "QueryDisplayConfig: "+err.Error())
		}
		for _, p := range paths {
			r.Items = append(r.Items, Item{
				Target:  fmt.Sprintf("active path: adapter %016x source %d target %d", p.AdapterLUID, p.SourceID, p.TargetID),
				Value:   p.ScalingName,
				Meaning: fmt.Sprintf("in use (QueryDisplayConfig): %s, %.2f Hz", scalingMeaning(p.Scaling), p.RefreshHz),
				Detail:  p,
			})
			if requested[1] && p.Scaling == 4 {
				fellBack = true
			}
		}
		if fellBack {
			r.Notes = append(r.Notes, "identity (1) is requested but an active path uses aspect-ratio (4): identity needs equal source and target resolutions; "+identityNote)
		}
	}
	return r, nil
}

func (k displayScaling) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := parseScaling(value)
	if err != nil {
		return nil, err
	}
	locs, err := scalingLocs(env, sel.Config)
	if err != nil {
		return nil, err
	}
	if len(locs) == 0 {
		if sel.Config != "" {
			return nil, inputf("no display configuration %q with a Scaling value under %s", sel.Config, graphicsConfigKey)
		}
		return nil, fmt.Errorf("no Scaling values under %s: the display driver has stored no configuration", graphicsConfigKey)
	}
	p := &Plan{Knob: k.Name(), Target: sel.Config, Request: value,
		Notes: []string{"a request: Windows applies it at the next mode change or sign-in; `latlab knob get display-scaling` shows what the active paths use"}}
	for _, l := range locs {
		if _, err := p.addNumber(env, l, uint64(n), TypeDWORD); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// --- network adapters ------------------------------------------------------

// NetClassKey is the device class key of network adapters.
const NetClassKey = regfile.NetClassKey

type adapter struct {
	Index string // class sub-key, 0007
	Key   string
	Name  string // DriverDesc
	GUID  string // NetCfgInstanceId
}

func (a adapter) String() string { return fmt.Sprintf("%s %s", a.Index, a.Name) }

func readSZ(env *Env, key, name string) string {
	v, err := env.read(regLoc(key, name))
	if err != nil || v.IsAbsent() {
		return ""
	}
	return v.String()
}

func adapters(env *Env) ([]adapter, error) {
	keys, _, err := env.list(BackendRegistry, NetClassKey)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list network adapters: %w", err)
	}
	var out []adapter
	for _, k := range keys {
		if _, err := strconv.Atoi(k); err != nil || len(k) != 4 {
			continue // "Properties" and the like
		}
		key := NetClassKey + `\` + k
		name := readSZ(env, key, "DriverDesc")
		if name == "" {
			continue
		}
		out = append(out, adapter{Index: k, Key: key, Name: name, GUID: readSZ(env, key, "NetCfgInstanceId")})
	}
	return out, nil
}

// findAdapter picks an adapter by exact name, class index (7 or 0007),
// interface GUID, or a unique part of the name.
func findAdapter(env *Env, want string) (adapter, error) {
	as, err := adapters(env)
	if err != nil {
		return adapter{}, err
	}
	var names []string
	for _, a := range as {
		names = append(names, fmt.Sprintf("%q (%s)", a.Name, a.Index))
	}
	if n, err := strconv.Atoi(want); err == nil {
		idx := fmt.Sprintf("%04d", n)
		for _, a := range as {
			if a.Index == idx {
				return a, nil
			}
		}
	}
	for _, a := range as {
		if strings.EqualFold(a.Name, want) || (a.GUID != "" && strings.EqualFold(strings.Trim(a.GUID, "{}"), strings.Trim(want, "{}"))) {
			return a, nil
		}
	}
	var partial []adapter
	for _, a := range as {
		if strings.Contains(strings.ToLower(a.Name), strings.ToLower(want)) {
			partial = append(partial, a)
		}
	}
	if len(partial) == 1 {
		return partial[0], nil
	}
	if len(partial) > 1 {
		return adapter{}, inputf("adapter %q matches %d adapters: name one exactly or by index (%s)", want, len(partial), strings.Join(names, ", "))
	}
	if len(as) == 0 {
		return adapter{}, inputf("unknown adapter %q: no network adapters found under %s", want, NetClassKey)
	}
	return adapter{}, inputf("unknown adapter %q: accepted %s", want, strings.Join(names, ", "))
}

// selectAdapters returns the named adapter, or every adapter when none is named.
func selectAdapters(env *Env, sel Selector) ([]adapter, error) {
	if sel.Adapter != "" {
		a, err := findAdapter(env, sel.Adapter)
		return []adapter{a}, err
	}
	return adapters(env)
}

// declared reports whether the adapter's INF declares keyword (it has an
// Ndi\Params\<keyword> key: the Advanced tab shows it).
func declared(env *Env, a adapter, keyword string) bool {
	v, err := env.read(regLoc(a.Key+`\Ndi\Params\`+keyword, ""))
	return err == nil && !v.IsAbsent()
}

// --- rss -------------------------------------------------------------------

type rssKeyword struct {
	name     string
	min, max uint64
	desc     string
	advanced bool
}

// rssKeywords are the NDIS standardized RSS keywords with the ranges of
// the documentation ("Standardized INF Keywords for RSS").
var rssKeywords = []rssKeyword{
	{"*RSS", 0, 1, "receive side scaling: 1 on, 0 off", false},
	{"*NumRssQueues", 1, 64, "number of RSS queues", false},
	{"*RSSProfile", 1, 6, "1 ClosestProcessor, 2 ClosestProcessorStatic, 3 NUMAScaling, 4 NUMAScalingStatic (default), 5 ConservativeScaling, 6 NdisRssProfileBalanced (NetAdapterCx only)", true},
	{"*RssBaseProcNumber", 0, 63, "first processor (in *RssBaseProcGroup) RSS may use", true},
	{"*MaxRssProcessors", 1, 64, "maximum number of processors RSS uses", true},
	{"*NumaNodeId", 0, 65535, "preferred NUMA node; 65535 = any", true},
	{"*RssBaseProcGroup", 0, 31, "processor group of *RssBaseProcNumber", true},
	{"*RssMaxProcNumber", 0, 63, "last processor (in *RssMaxProcGroup) RSS may use", true},
	{"*RssMaxProcGroup", 0, 31, "processor group of *RssMaxProcNumber", true},
}

func rssKw(name string) (rssKeyword, bool) {
	n := "*" + strings.TrimPrefix(strings.TrimSpace(name), "*")
	for _, k := range rssKeywords {
		if strings.EqualFold(k.name, n) {
			return k, true
		}
	}
	return rssKeyword{}, false
}

type rssKnob struct{ windowsKnob }

func (rssKnob) Name() string { return "rss" }
func (rssKnob) Summary() string {
	return "receive side scaling of a network adapter: queues and CPUs (NDIS *RSS keywords)"
}

type kv struct {
	key string
	n   uint64
}

func parseRSS(value string) ([]kv, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "on", "enabled":
		return []kv{{"*RSS", 1}}, nil
	case "off", "disabled":
		return []kv{{"*RSS", 0}}, nil
	}
	var out []kv
	for _, part := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' }) {
		name, val, ok := strings.Cut(part, "=")
		k, known := rssKw(name)
		if !ok || !known {
			var ns []string
			for _, k := range rssKeywords {
				ns = append(ns, k.name)
			}
			return nil, inputf("invalid rss setting %q: want KEYWORD=N with KEYWORD one of %s (or on|off)", part, strings.Join(ns, ", "))
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 32)
		if err != nil || n < k.min || n > k.max {
			return nil, inputf("%s=%s is out of range: accepted %d-%d (%s)", k.name, val, k.min, k.max, k.desc)
		}
		out = append(out, kv{k.name, n})
	}
	if len(out) == 0 {
		return nil, inputf("no rss setting given: want e.g. *NumRssQueues=4,*RssBaseProcNumber=2 or on|off")
	}
	return out, nil
}

func (rssKnob) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "rss"}
	if value == "" {
		ex.Text = []string{"NDIS standardized RSS keywords (REG_SZ numbers under the adapter's class key):"}
		for _, k := range rssKeywords {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-19s %d-%d  %s", k.name, k.min, k.max, k.desc))
		}
		ex.Text = append(ex.Text, "Drivers that declare only *RSS and *NumRssQueues in their INF (the Intel I225-V) hide the advanced ones from the Advanced tab.")
		return ex, nil
	}
	kvs, err := parseRSS(value)
	if err != nil {
		return nil, err
	}
	for _, s := range kvs {
		k, _ := rssKw(s.key)
		ex.Text = append(ex.Text, fmt.Sprintf("%s=%d: %s", k.name, s.n, k.desc))
	}
	return ex, nil
}

func (k rssKnob) Get(env *Env, sel Selector) (*Reading, error) {
	as, err := selectAdapters(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, a := range as {
		var parts, missing []string
		var extra []Change
		supports := false
		for _, kw := range rssKeywords {
			l := regLoc(a.Key, kw.name)
			v, err := env.read(l)
			if err != nil {
				return nil, err
			}
			if !v.IsAbsent() {
				parts = append(parts, kw.name+"="+v.String())
				extra = append(extra, Change{Loc: l, Old: v, New: v})
				if kw.name == "*RSS" {
					supports = true
				}
			} else if declared(env, a, kw.name) {
				if kw.name == "*RSS" {
					supports = true
				}
			} else if kw.advanced {
				missing = append(missing, kw.name)
			}
		}
		if !supports && sel.Adapter == "" {
			continue // adapters without RSS (virtual, Wi-Fi) only when asked for
		}
		it := Item{Target: a.String(), Value: strings.Join(parts, " "), Extra: extra}
		// What the adapter's INF offers for each keyword it declares:
		// set checks against it.
		offered := map[string]NdiParam{}
		for _, kw := range rssKeywords {
			np, err := readNdiParam(env, a.Key, kw.name)
			if err != nil {
				return nil, err
			}
			if np.Declared {
				offered[kw.name] = np
			}
		}
		if len(offered) > 0 {
			it.Detail = map[string]any{"ndi_params": offered}
		}
		switch v := readSZ(env, a.Key, "*RSS"); {
		case !supports:
			it.Meaning = "no RSS keywords: the driver does not offer RSS"
		case v == "0":
			it.Meaning = "RSS off: one CPU processes all received packets"
		default:
			it.Meaning = "RSS on"
		}
		if supports && len(missing) > 0 {
			it.Warnings = append(it.Warnings, fmt.Sprintf("advanced RSS keywords missing: %s: the driver's INF does not declare them, so the Advanced tab cannot set them and NDIS uses its defaults (the I225-V case); latlab can add them as REG_SZ, whether the driver honours them must be measured", strings.Join(missing, ", ")))
		}
		if it.Value == "" {
			it.Value = "(no values stored: driver defaults)"
		}
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k rssKnob) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, inputf("rss needs --adapter NAME|INDEX (latlab knob get rss lists them)")
	}
	a, err := findAdapter(env, sel.Adapter)
	if err != nil {
		return nil, err
	}
	kvs, err := parseRSS(value)
	if err != nil {
		return nil, err
	}
	// The documented ranges are the widest any driver may take; the
	// adapter's own Ndi\Params (its enum, or min/max) say what it offers.
	for _, s := range kvs {
		np, err := readNdiParam(env, a.Key, s.key)
		if err != nil {
			return nil, err
		}
		if err := np.CheckAgainst(a.Name, int64(s.n)); err != nil {
			return nil, err
		}
	}
	after := map[string]uint64{}
	for _, kw := range []string{"*RssBaseProcNumber", "*RssMaxProcNumber", "*RssBaseProcGroup", "*RssMaxProcGroup"} {
		if n, err := strconv.ParseUint(readSZ(env, a.Key, kw), 10, 32); err == nil {
			after[kw] = n
		}
	}
	for _, s := range kvs {
		after[s.key] = s.n
	}
	bg, mg := after["*RssBaseProcGroup"], after["*RssMaxProcGroup"]
	if b, ok := after["*RssBaseProcNumber"]; ok {
		if m, ok := after["*RssMaxProcNumber"]; ok && bg == mg && b > m {
			return nil, inputf("*RssBaseProcNumber %d is above *RssMaxProcNumber %d: the base must not exceed the maximum", b, m)
		}
	}
	if bg > mg {
		if _, ok := after["*RssMaxProcGroup"]; ok {
			return nil, inputf("*RssBaseProcGroup %d is above *RssMaxProcGroup %d", bg, mg)
		}
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{"takes effect when the adapter restarts (disable and enable it, or reboot)"}}
	for _, s := range kvs {
		old, err := p.addNumber(env, regLoc(a.Key, s.key), s.n, TypeSZ)
		if err != nil {
			return nil, err
		}
		if old.IsAbsent() && !declared(env, a, s.key) {
			p.Notes = append(p.Notes, s.key+" is not declared by the driver's INF: added as REG_SZ; verify its effect")
		}
	}
	return p, nil
}

// --- interrupt-moderation --------------------------------------------------

type intModeration struct{ windowsKnob }

func (intModeration) Name() string { return "interrupt-moderation" }
func (intModeration) Summary() string {
	return "interrupt moderation of a network adapter: on/off and the driver's rate level (*InterruptModeration, ITR)"
}

var rateKeywords = []string{"ITR", "*InterruptModerationRate", "InterruptModerationRate"}

// rateKeyword finds the adapter's rate keyword and its levels: its own
// Ndi\Params\<kw>\Enum where the driver declares one, else latlab's table
// of its driver family (ITR only). Keyword "" means none.
func rateKeyword(env *Env, a adapter) (RateLevels, error) {
	for _, kw := range rateKeywords {
		v, err := env.read(regLoc(a.Key, kw))
		if err != nil {
			return RateLevels{}, err
		}
		p, err := readNdiParam(env, a.Key, kw)
		if err != nil {
			return RateLevels{}, err
		}
		if v.IsAbsent() && !p.Declared {
			continue
		}
		return rateLevels(kw, p, readSZ(env, a.Key+`\Ndi`, "Service")), nil
	}
	return RateLevels{}, nil
}

// ModerationExplanation is the JSON of `knob explain interrupt-moderation`.
type ModerationExplanation struct {
	InterruptModeration *int        `json:"interrupt_moderation,omitempty"` // *InterruptModeration 0|1
	Rate                string      `json:"rate,omitempty"`                 // as given: a level name or a number
	Matches             []ITRMatch  `json:"matches,omitempty"`              // the rate in the built-in tables
	Families            []ITRFamily `json:"itr_tables"`
	Measured            ITRMeasured `json:"measured"`
	Note                string      `json:"note"`
}

// ITRMatch is a rate found in a built-in table.
type ITRMatch struct {
	Family string `json:"driver_family"`
	Level  string `json:"level"`
	Value  string `json:"value"`
}

func itrMatches(rate string) []ITRMatch {
	var out []ITRMatch
	num, numErr := strconv.ParseInt(strings.TrimSpace(rate), 10, 64)
	for _, f := range itrFamilies {
		for _, o := range f.Levels {
			if strings.EqualFold(o.Name, strings.TrimSpace(rate)) || (numErr == nil && sameNumber(o.Value, num)) {
				out = append(out, ITRMatch{f.Family, o.Name, o.Value})
			}
		}
	}
	return out
}

// wrapList joins items after head, continuing on lines indented to the
// head's width, so that no line passes 80 columns.
func wrapList(head string, items []string) []string {
	var out []string
	line := head
	pad := strings.Repeat(" ", len(head))
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if line != head && line != pad && len(line)+1+len(it) > 80 {
			out = append(out, line)
			line = pad
		}
		if line == head || line == pad {
			line += it
		} else {
			line += " " + it
		}
	}
	return append(out, line)
}

func (intModeration) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "interrupt-moderation"}
	me := &ModerationExplanation{Families: itrFamilies, Measured: itrMeasured,
		Note: "ITR numbers are driver-specific level codes, not interrupts per second; set uses the adapter's own Ndi\\Params\\ITR\\Enum"}
	ex.Data = me
	if value == "" {
		ex.Text = []string{
			"*InterruptModeration (REG_SZ, NDIS keyword): 1 enabled, the NIC batches",
			"  interrupts; 0 disabled, an interrupt per packet (lowest latency, most CPU).",
			"The rate is the driver's own keyword. Intel's ITR is an enum of named levels",
			"  whose numbers are driver codes, not interrupts per second; the INFs differ:",
		}
		for _, f := range itrFamilies {
			var items []string
			for _, l := range f.Levels {
				items = append(items, l.Name+" "+l.Value)
			}
			ex.Text = append(ex.Text, wrapList(fmt.Sprintf("  %-22s", f.Family+" ("+f.Adapters+"):"), items)...)
		}
		ex.Text = append(ex.Text,
			"latlab shows and accepts each adapter's own Ndi\\Params\\ITR\\Enum; these",
			"  tables serve only an adapter that declares none, chosen by its driver.")
		ex.Text = append(ex.Text, itrEvidence()...)
		ex.Text = append(ex.Text,
			"Values: on|off (*InterruptModeration), a level name, rate=NAME|N; e.g.",
			"  latlab knob set interrupt-moderation medium --adapter 7")
		return ex, nil
	}
	mod, rate, err := parseModeration(value)
	if err != nil {
		return nil, err
	}
	if mod >= 0 {
		me.InterruptModeration = &mod
		ex.Text = append(ex.Text, fmt.Sprintf("*InterruptModeration=%d: %s", mod, moderationMeaning(strconv.Itoa(mod))))
	}
	if rate != "" {
		me.Rate = rate
		me.Matches = itrMatches(rate)
		if len(me.Matches) == 0 {
			ex.Text = append(ex.Text, fmt.Sprintf("rate %s: no level of latlab's ITR tables (e1r/e1d, e2f/e2fn);", rate),
				"  drivers name and number their own levels: latlab knob get",
				"  interrupt-moderation shows an adapter's")
		} else {
			var ms []string
			for _, m := range me.Matches {
				ms = append(ms, fmt.Sprintf("%s %s", m.Level, m.Value))
				for _, f := range itrFamilies {
					if f.Family == m.Family {
						ms[len(ms)-1] += " on " + f.Family + " (" + f.Adapters + ")"
					}
				}
			}
			ex.Text = append(ex.Text, wrapList("ITR "+rate+": ", ms)...)
			if len(me.Matches) < len(itrFamilies) {
				var missing []string
				for _, f := range itrFamilies {
					if !slices.ContainsFunc(me.Matches, func(m ITRMatch) bool { return m.Family == f.Family }) {
						missing = append(missing, f.Family)
					}
				}
				ex.Text = append(ex.Text, "  no such level on "+strings.Join(missing, ", "))
			}
		}
		ex.Text = append(ex.Text, "The numbers are driver codes, not interrupts per second; set takes the",
			"  adapter's own Ndi\\Params\\ITR\\Enum.")
		ex.Text = append(ex.Text, itrEvidence()...)
	}
	return ex, nil
}

func moderationMeaning(v string) string {
	switch v {
	case "0":
		return "disabled: an interrupt per packet"
	case "1":
		return "enabled: the NIC batches interrupts"
	}
	return fmt.Sprintf("%q is not an *InterruptModeration value (0 or 1)", v)
}

// parseModeration reads "on", "off", "medium", "rate=minimal",
// "on,rate=950": on|off is *InterruptModeration, a bare name is a rate
// level (the Intel level "Off" is rate=off).
func parseModeration(value string) (mod int, rate string, err error) {
	const accepted = "accepted on|off (*InterruptModeration), a level name (medium) or rate=NAME|N"
	mod = -1
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		r := ""
		if k, v, ok := strings.Cut(part, "="); ok {
			if !strings.EqualFold(strings.TrimSpace(k), "rate") || strings.TrimSpace(v) == "" {
				return 0, "", inputf("invalid interrupt-moderation setting %q: %s", part, accepted)
			}
			r = strings.TrimSpace(v)
		} else if n, ok := parseBool01(part); ok {
			mod = n
			continue
		} else if _, err := strconv.ParseUint(part, 10, 64); err == nil {
			return 0, "", inputf("interrupt-moderation %q: a bare number is ambiguous: give rate=%s for the rate, on|off for *InterruptModeration", part, part)
		} else {
			r = part
		}
		if rate != "" && !strings.EqualFold(rate, r) {
			return 0, "", inputf("interrupt-moderation %q asks for two rates (%q and %q): give one", value, rate, r)
		}
		rate = r
	}
	if mod < 0 && rate == "" {
		return 0, "", inputf("no interrupt-moderation setting given: %s", accepted)
	}
	return mod, rate, nil
}

// ModerationDetail is the JSON detail of an adapter in `knob get
// interrupt-moderation`.
type ModerationDetail struct {
	InterruptModeration NdiParam    `json:"interrupt_moderation"`
	Rate                *RateLevels `json:"rate,omitempty"`
	Level               string      `json:"level,omitempty"` // the stored rate's name
}

func (k intModeration) Get(env *Env, sel Selector) (*Reading, error) {
	as, err := selectAdapters(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, a := range as {
		ml := regLoc(a.Key, "*InterruptModeration")
		mv, err := env.read(ml)
		if err != nil {
			return nil, err
		}
		mp, err := readNdiParam(env, a.Key, "*InterruptModeration")
		if err != nil {
			return nil, err
		}
		rl, err := rateKeyword(env, a)
		if err != nil {
			return nil, err
		}
		if mv.IsAbsent() && !mp.Declared && rl.Keyword == "" && sel.Adapter == "" {
			continue
		}
		it := Item{Target: a.String()}
		det := ModerationDetail{InterruptModeration: mp}
		var parts []string
		if mv.IsAbsent() {
			it.Meaning = "driver default"
			if mp.Default != "" {
				it.Meaning += " (" + moderationMeaning(mp.Default) + ")"
			}
		} else {
			it.Meaning = moderationMeaning(mv.String())
			parts = append(parts, "*InterruptModeration="+mv.String())
			it.Extra = append(it.Extra, Change{Loc: ml, Old: mv, New: mv})
		}
		if rl.Keyword != "" {
			det.Rate = &rl
			rloc := regLoc(a.Key, rl.Keyword)
			rv, err := env.read(rloc)
			if err != nil {
				return nil, err
			}
			cur, what := rv.String(), ""
			if rv.IsAbsent() {
				cur, what = rl.Param.Default, " (driver default)"
			} else {
				parts = append(parts, rl.Keyword+"="+rv.String())
				it.Extra = append(it.Extra, Change{Loc: rloc, Old: rv, New: rv})
			}
			if d := rl.Describe(cur); d != "" {
				det.Level = d
				it.Meaning += fmt.Sprintf(", %s %s (%s)%s", rl.Keyword, d, cur, what)
			} else if cur != "" && len(rl.Levels) > 0 {
				it.Warnings = append(it.Warnings, fmt.Sprintf("%s=%s is no level the adapter offers (%s)", rl.Keyword, cur, levelList(rl.Levels)))
			}
			r.Notes = append(r.Notes, rateNote(a, rl))
		}
		it.Detail = det
		it.Value = strings.Join(parts, " ")
		if it.Value == "" {
			it.Value = "(no values stored: driver defaults)"
		}
		r.Items = append(r.Items, it)
	}
	return r, nil
}

// rateNote says which levels an adapter accepts and where they come from.
func rateNote(a adapter, rl RateLevels) string {
	switch {
	case rl.Source == "adapter":
		return fmt.Sprintf("%s: %s levels (its Ndi\\Params\\%s\\Enum): %s; the numbers are the driver's codes, not interrupts per second",
			a.Name, rl.Keyword, rl.Keyword, levelList(rl.Levels))
	case rl.Source != "":
		return fmt.Sprintf("%s: %s declares no levels in Ndi\\Params; latlab's %s table applies (driver %s): %s",
			a.Name, rl.Keyword, rl.Source, rl.Service, levelList(rl.Levels))
	case numericType(rl.Param.Type) && rl.Param.Accepted() != "":
		return fmt.Sprintf("%s: %s is a number; its Ndi\\Params allows %s", a.Name, rl.Keyword, rl.Param.Accepted())
	}
	svc := rl.Service
	if svc == "" {
		svc = "unknown"
	}
	return fmt.Sprintf("%s: %s declares no levels and latlab has no table for its driver (service %s): set it with rate=N, the driver's own number",
		a.Name, rl.Keyword, svc)
}

func (k intModeration) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, inputf("interrupt-moderation needs --adapter NAME|INDEX (latlab knob get interrupt-moderation lists them)")
	}
	a, err := findAdapter(env, sel.Adapter)
	if err != nil {
		return nil, err
	}
	mod, rate, err := parseModeration(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{"takes effect when the adapter restarts (disable and enable it, or reboot)"}}
	if mod >= 0 {
		mp, err := readNdiParam(env, a.Key, "*InterruptModeration")
		if err != nil {
			return nil, err
		}
		if err := mp.CheckAgainst(a.Name, int64(mod)); err != nil {
			return nil, err
		}
		if _, err := p.addNumber(env, regLoc(a.Key, "*InterruptModeration"), uint64(mod), TypeSZ); err != nil {
			return nil, err
		}
	}
	if rate != "" {
		rl, err := rateKeyword(env, a)
		if err != nil {
			return nil, err
		}
		if rl.Keyword == "" {
			return nil, inputf("%s has no interrupt moderation rate keyword (none of %s)", a.Name, strings.Join(rateKeywords, ", "))
		}
		n, note, err := rl.Resolve(a.Name, rate)
		if err != nil {
			return nil, err
		}
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
		if d := rl.Describe(strconv.FormatUint(n, 10)); d != "" {
			p.Notes = append(p.Notes, fmt.Sprintf("new %s level: %s (%d, the driver's code, not interrupts per second)", rl.Keyword, d, n))
		}
		if _, err := p.addNumber(env, regLoc(a.Key, rl.Keyword), n, TypeSZ); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// --- qos-dscp --------------------------------------------------------------

// QoSKey holds the Group Policy QoS policies, one sub-key each.
const QoSKey = `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS`

// NLAKey holds "Do not use NLA".
const NLAKey = `HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\QoS`

type qosDSCP struct{ windowsKnob }

func (qosDSCP) Name() string { return "qos-dscp" }
func (qosDSCP) Summary() string {
	return "Group Policy QoS: the DSCP value Windows marks an application's packets with"
}

// qosValueNames are the values of a policy, in the order gpedit writes them.
var qosValueNames = []string{"Version", "Application Name", "Protocol", "Local Port", "Local IP", "Local IP Prefix Length",
	"Remote Port", "Remote IP", "Remote IP Prefix Length", "DSCP Value", "Throttle Rate"}

func (qosDSCP) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "qos-dscp"}
	if value == "" {
		ex.Text = []string{
			`Policy-based QoS under HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\<name>: REG_SZ values Version "1.0", Application Name, Protocol, Local/Remote Port, IP and prefix length, DSCP Value 0-63, Throttle Rate "-1".`,
			`Off a domain Windows applies the policies only with "Do not use NLA"="1" under HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\QoS (--no-nla sets it).`,
			"Common values: 46 EF (voice, games), 34 AF41, 26 AF31, 18 AF21, 8 CS1 (background), 0 best effort.",
		}
		return ex, nil
	}
	n, err := parseDSCP(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{fmt.Sprintf("DSCP %d (%s): the TOS byte is 0x%02X", n, dscpName(n), n<<2)}
	ex.Data = map[string]any{"dscp": n, "name": dscpName(n), "tos": n << 2}
	return ex, nil
}

func parseDSCP(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
	if err != nil || n > 63 {
		return 0, inputf("DSCP value %q is out of range: accepted 0-63 (or remove)", s)
	}
	return n, nil
}

func dscpName(n uint64) string {
	switch {
	case n == 46:
		return "EF"
	case n == 44:
		return "VOICE-ADMIT"
	case n == 0:
		return "best effort"
	case n%8 == 0:
		return fmt.Sprintf("CS%d", n/8)
	case n >= 10 && n <= 38 && n%2 == 0 && (n%8)/2 >= 1 && (n%8)/2 <= 3:
		return fmt.Sprintf("AF%d%d", n/8, (n%8)/2)
	}
	return "unnamed"
}

func (k qosDSCP) Get(env *Env, sel Selector) (*Reading, error) {
	r := &Reading{Knob: k.Name()}
	names, _, err := env.list(BackendRegistry, QoSKey)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	for _, n := range names {
		if sel.Policy != "" && !strings.EqualFold(sel.Policy, n) {
			continue
		}
		key := QoSKey + `\` + n
		vals := map[string]string{}
		it := Item{Target: n}
		for _, vn := range qosValueNames {
			l := regLoc(key, vn)
			v, err := env.read(l)
			if err != nil {
				return nil, err
			}
			if !v.IsAbsent() {
				vals[vn] = v.String()
				it.Extra = append(it.Extra, Change{Loc: l, Old: v, New: v})
				if v.Type != TypeSZ {
					it.Warnings = append(it.Warnings, fmt.Sprintf("%q is %s; Windows reads REG_SZ", vn, v.Type))
				}
			}
		}
		app := vals["Application Name"]
		if app == "" {
			app = "*"
		}
		it.Value = "DSCP " + vals["DSCP Value"]
		it.Meaning = fmt.Sprintf("%s %s, local port %s, remote %s port %s", app, orStar(vals["Protocol"]), orStar(vals["Local Port"]), orStar(vals["Remote IP"]), orStar(vals["Remote Port"]))
		if d, err := strconv.ParseUint(vals["DSCP Value"], 10, 8); err != nil || d > 63 {
			it.Warnings = append(it.Warnings, fmt.Sprintf("DSCP Value %q is not 0-63: the policy is ignored", vals["DSCP Value"]))
		} else {
			it.Value += " (" + dscpName(d) + ")"
		}
		if vals["Version"] != "1.0" {
			it.Warnings = append(it.Warnings, fmt.Sprintf("Version is %q, not \"1.0\": the policy is ignored", vals["Version"]))
		}
		r.Items = append(r.Items, it)
	}
	if sel.Policy != "" && len(r.Items) == 0 {
		return nil, inputf("no QoS policy %q under %s", sel.Policy, QoSKey)
	}
	nla := readSZ(env, NLAKey, "Do not use NLA")
	if nla == "1" {
		r.Notes = append(r.Notes, `"Do not use NLA" is "1": the policies apply on every network`)
	} else {
		r.Notes = append(r.Notes, `"Do not use NLA" is not set: off a domain the policies are not applied (set it with --no-nla)`)
	}
	return r, nil
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func qosPort(s string) (string, error) {
	if s == "" || s == "*" {
		return "*", nil
	}
	lo, hi, isRange := strings.Cut(s, ":")
	a, err := strconv.ParseUint(lo, 10, 16)
	if err != nil || a == 0 {
		return "", inputf("invalid port %q: accepted *, N or N:M (1-65535)", s)
	}
	if isRange {
		b, err := strconv.ParseUint(hi, 10, 16)
		if err != nil || b < a {
			return "", inputf("invalid port range %q: accepted N:M with N <= M", s)
		}
	}
	return s, nil
}

func qosIP(s string) (ip, prefix string, err error) {
	if s == "" || s == "*" {
		return "*", "*", nil
	}
	if _, n, err := net.ParseCIDR(s); err == nil {
		ones, _ := n.Mask.Size()
		return n.IP.String(), strconv.Itoa(ones), nil
	}
	if net.ParseIP(s) != nil {
		return s, "*", nil
	}
	return "", "", inputf("invalid IP %q: accepted *, an address or address/prefix", s)
}

func (k qosDSCP) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	name := sel.Policy
	if name == "" && sel.App != "" {
		name = "latlab " + path.Base(strings.ReplaceAll(sel.App, `\`, "/"))
	}
	if name == "" {
		return nil, inputf("qos-dscp needs --policy NAME or --app EXE")
	}
	if strings.ContainsAny(name, `\`) {
		return nil, inputf("invalid policy name %q: it must not contain a backslash", name)
	}
	key := QoSKey + `\` + name
	exists, err := env.read(regLoc(key, ""))
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: name, Request: value}
	if strings.EqualFold(strings.TrimSpace(value), "remove") {
		if exists.IsAbsent() {
			return nil, inputf("no QoS policy %q under %s", name, QoSKey)
		}
		_, vals, err := env.list(BackendRegistry, key)
		if err != nil {
			return nil, err
		}
		for _, vn := range vals {
			if err := p.add(env, regLoc(key, vn), Absent); err != nil {
				return nil, err
			}
		}
		return p, p.add(env, regLoc(key, ""), Absent)
	}
	dscp, err := parseDSCP(value)
	if err != nil {
		return nil, err
	}
	if exists.IsAbsent() && sel.App == "" {
		return nil, inputf("a new QoS policy needs --app EXE (the program's file name, or * for all)")
	}
	proto := strings.ToUpper(sel.Protocol)
	switch proto {
	case "", "*", "BOTH":
		proto = "*"
	case "TCP", "UDP":
	default:
		return nil, inputf("invalid --protocol %q: accepted tcp, udp or *", sel.Protocol)
	}
	lport, err := qosPort(sel.LocalPort)
	if err != nil {
		return nil, err
	}
	rport, err := qosPort(sel.RemotePort)
	if err != nil {
		return nil, err
	}
	lip, lpre, err := qosIP(sel.LocalIP)
	if err != nil {
		return nil, err
	}
	rip, rpre, err := qosIP(sel.RemoteIP)
	if err != nil {
		return nil, err
	}
	// The values the user gave; the rest of an existing policy stays as
	// it is, so changing its DSCP value keeps its filters.
	want := map[string]string{"DSCP Value": strconv.FormatUint(dscp, 10)}
	if sel.App != "" {
		want["Application Name"] = sel.App
	}
	if sel.Protocol != "" {
		want["Protocol"] = proto
	}
	if sel.LocalPort != "" {
		want["Local Port"] = lport
	}
	if sel.RemotePort != "" {
		want["Remote Port"] = rport
	}
	if sel.LocalIP != "" {
		want["Local IP"], want["Local IP Prefix Length"] = lip, lpre
	}
	if sel.RemoteIP != "" {
		want["Remote IP"], want["Remote IP Prefix Length"] = rip, rpre
	}
	if exists.IsAbsent() {
		// A new policy gets every value, as gpedit writes them.
		for vn, v := range map[string]string{"Version": "1.0", "Protocol": proto, "Local Port": lport, "Local IP": lip, "Local IP Prefix Length": lpre,
			"Remote Port": rport, "Remote IP": rip, "Remote IP Prefix Length": rpre, "Throttle Rate": "-1"} {
			if _, ok := want[vn]; !ok {
				want[vn] = v
			}
		}
	}
	for _, vn := range qosValueNames {
		if w, ok := want[vn]; ok {
			if err := p.add(env, regLoc(key, vn), SZ(w)); err != nil {
				return nil, err
			}
		}
	}
	if sel.NoNLA {
		if err := p.add(env, regLoc(NLAKey, "Do not use NLA"), SZ("1")); err != nil {
			return nil, err
		}
	} else if readSZ(env, NLAKey, "Do not use NLA") != "1" {
		p.Notes = append(p.Notes, `"Do not use NLA" is not set: off a domain Windows ignores the policy; add --no-nla to set it`)
	}
	p.Notes = append(p.Notes, "Group Policy applies it at the next refresh (gpupdate /force) or sign-in; verify with latlab pcap dscp on a capture")
	return p, nil
}
