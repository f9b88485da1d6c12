package knob

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/prisep"
	"github.com/latlab/latlab/internal/textwrap"
)

// prioSepName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const prioSepName = "win32-priority-separation"

func init() { register(prioSep{}) }

const prioKey = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`

var prioLoc = regLoc(prioKey, "Win32PrioritySeparation")

type prioSep struct{ windowsKnob }

func (prioSep) Name() string { return prioSepName }
func (prioSep) Summary() string {
	return "quantum length and foreground boost of the scheduler (PriorityControl\\Win32PrioritySeparation)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile).
func (prioSep) regInput(l backend.Loc, v backend.Value) (string, string) {
	return dwordInput(l, v, prioLoc)
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
		return 0, badinput.Errorf("invalid win32-priority-separation %q: want a number (0x26, 38) or a description (short,variable,3:1)", s)
	}
	m := prisep.Find(q, o)
	if len(m) == 0 {
		return 0, badinput.Errorf("no Win32PrioritySeparation value is %s", s)
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

func (prioSep) Explain(value string, o ExplainOptions) (*Explanation, error) {
	po := prisep.Options{Server: o.Server, TickMs: o.TickMs}
	ex := &Explanation{Knob: prioSepName}
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
		ex.Text = append(ex.Text, textwrap.Hanging(bits, 2, 80)...)
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
			return nil, badinput.Wrap(err)
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
		ex.Text = append(ex.Text, textwrap.Hanging("  all matches: "+strings.Join(hs, " "), 4, 80)...)
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
	_, err = p.addNumber(env, prioLoc, uint64(n), backend.TypeDWORD)
	return p, err
}

func (k prioSep) Vet(target string, l backend.Loc, v backend.Value) error {
	return vetRegNumber(k.Name(), target, l, v, prioLoc)
}

// Checkup is what the check-up knows of win32-priority-separation: its default, how its
// instances are read and the verdict rules.
func (prioSep) Checkup() Checkup {
	return Checkup{Default: func(c *Case) string { return fmt.Sprintf("0x%X (%s)", prisepDefault(c.Server), platformName(c.Server)) }, Rules: prioSepRules,
		TryValue: prisepTry}
}

// Experiment is how a change of win32-priority-separation takes effect for latlab try.
func (prioSep) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

var prioSepRules = []Rule{
	{ID: "prisep-absent", Verdict: Default, When: "no value stored",
		Match: func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason: func(c *Case) string {
			return "absent: the kernel keeps its built-in default; Windows ships the value " + prisepDefaultClass(c)
		},
		Evidence: func(c *Case) string { return quote(prioSepName, "", "Windows ships") }},
	{ID: "prisep-high-bits", Verdict: Suspicious, When: "bits above the low 6 are set",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && n > 0x3F },
		Reason: func(c *Case) string {
			n, _ := c.N()
			return fmt.Sprintf("only the low 6 bits count: 0x%X acts as 0x%02X (%s); the extra bits suggest a value copied from a guide", n, n&0x3F, prisepClass(c))
		},
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return quote(prioSepName, fmt.Sprint(n), "only the low 6 bits count")
		}},
	{ID: "prisep-default", Verdict: Default, When: "the platform default value (0x2 client, 0x18 server)",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && uint32(n) == prisepDefault(c.Server) },
		Reason: func(c *Case) string {
			return "the " + platformName(c.Server) + " default: " + prisepClass(c)
		},
		Evidence: func(c *Case) string { return quote(prioSepName, "", "Windows ships") }},
	{ID: "prisep-same-class", Verdict: Changed, When: "another value of the default's class",
		Match: func(c *Case) bool { return prisepSameAsDefault(c) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s: the same quanta as the %s default 0x%X, so no change in scheduling", prisepClass(c), platformName(c.Server), prisepDefault(c.Server))
		},
		Evidence: func(c *Case) string { return quote(prioSepName, "", "Windows ships") }},
	{ID: "prisep-other", Verdict: Changed, When: "any other value",
		Match: func(c *Case) bool { _, ok := c.N(); return ok },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s, where the %s default 0x%X is %s", prisepClass(c), platformName(c.Server), prisepDefault(c.Server), prisepClassOf(prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: prisepTick(c)})))
		},
		Evidence: func(c *Case) string { return quote(prioSepName, "", "Quantum units") }},
	{ID: "prisep-unreadable", Verdict: Suspicious, When: "the stored value is not a number",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning + "; the kernel reads a REG_DWORD" }},
}

func platformName(server bool) string {
	if server {
		return "server"
	}
	return "client"
}

func prisepDefault(server bool) uint32 {
	if server {
		return 0x18
	}
	return 0x2
}

func prisepTick(c *Case) float64 {
	if d, ok := c.Detail.(prisep.Decoded); ok {
		return d.TickMs
	}
	return 0
}

func prisepClassOf(d prisep.Decoded) string {
	return fmt.Sprintf("%s, %s quanta, foreground %d units (%s ms), background %d units (%s ms)",
		d.Interval, d.Length, d.ForegroundUnits, prisep.FmtMs(d.ForegroundMs), d.BackgroundUnits, prisep.FmtMs(d.BackgroundMs))
}

func prisepClass(c *Case) string {
	if d, ok := c.Detail.(prisep.Decoded); ok {
		return d.Hex + " = " + prisepClassOf(d)
	}
	return c.Meaning
}

func prisepDefaultClass(c *Case) string {
	d := prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: prisepTick(c)})
	return d.Hex + " = " + prisepClassOf(d)
}

func prisepSameAsDefault(c *Case) bool {
	d, ok := c.Detail.(prisep.Decoded)
	if !ok {
		return false
	}
	def := prisep.Decode(prisepDefault(c.Server), prisep.Options{Server: c.Server, TickMs: d.TickMs})
	return d.Interval == def.Interval && d.Length == def.Length && d.ForegroundUnits == def.ForegroundUnits && d.BackgroundUnits == def.BackgroundUnits
}

// prisepTry is the default to try against the current value; "" when an
// experiment would show nothing (a value with the default's quanta) or
// could not be undone (a value that is not a number).
func prisepTry(c *Case, rule string) string {
	if rule == "prisep-same-class" || rule == "prisep-unreadable" {
		return ""
	}
	return fmt.Sprintf("0x%X", prisepDefault(c.Server))
}
