package knob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// displayScalingName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const displayScalingName = "display-scaling"

func init() { register(displayScaling{}) }

const graphicsConfigKey = `HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers\Configuration`

type displayScaling struct{ windowsKnob }

func (displayScaling) Name() string { return displayScalingName }

// Selectors are the selector flags displayScaling reads.
func (displayScaling) Selectors() []string { return []string{SelConfig} }
func (displayScaling) Summary() string {
	return "the scaling mode requested for each display configuration (GraphicsDrivers\\Configuration\\...\\Scaling)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile).
func (displayScaling) regInput(l backend.Loc, v backend.Value) (string, string) {
	if !strings.EqualFold(l.Name, "Scaling") {
		return "", ""
	}
	return dwordInput(l, v, l)
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
		return 0, badinput.Errorf(`display-scaling %q is ambiguous: GPU control panels' "No scaling" is 2 centered (unscaled, centred); 1 identity is no transformation at all and exists only when source and target resolutions are equal`, s)
	}
	var acc []string
	for _, sc := range scalings {
		acc = append(acc, fmt.Sprintf("%d %s", sc.N, sc.Name))
	}
	return 0, badinput.Errorf("invalid display-scaling %q: accepted %s", s, strings.Join(acc, ", "))
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

// identityStudy is what PC-Tuning's identity-scaling study found about
// when a request takes effect ("What Is Identity Scaling and How Can You
// Use It?"): its table has every request come out as identity at the
// native resolution and at a lower resolution made with Custom Resolution
// Utility, and take effect only at a lower resolution set in the GPU
// control panel; GPU or display scaling mattered only with two or more
// detailed resolutions in CRU; the monitor's on-screen display tells
// identity from GPU scaling. The display-native rule quotes it whole.
var identityStudy = []string{
	"In PC-Tuning's study every request (identity, centered, full-screen, aspect",
	"  ratio; GPU or display scaling) came out as identity whenever the monitor",
	"  was sent the desktop's resolution: at the native resolution and at a",
	"  lower one made with Custom Resolution Utility (CRU); only a lower",
	"  resolution set in the GPU control panel took the request. Under identity",
	"  the value has no effect. GPU or display scaling made a difference only",
	"  with two or more detailed resolutions in CRU, GPU scaling and the wanted",
	"  one not topmost. To check by eye: under identity the monitor's on-screen",
	"  display shows the desktop's resolution; another one means the GPU scales",
	"  (github.com/valleyofdoom/PC-Tuning, docs/research.md, \"What Is Identity",
	"  Scaling and How Can You Use It?\").",
}

func (displayScaling) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: displayScalingName}
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
		ex.Text = append(ex.Text, identityStudy...)
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
func scalingLocs(env *Env, config string) ([]backend.Loc, error) {
	var out []backend.Loc
	var walk func(key string, depth int) error
	walk = func(key string, depth int) error {
		keys, vals, err := env.list(backend.BackendRegistry, key)
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
		if errors.Is(err, backend.ErrNotFound) {
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
		it, err := regItem(env, strings.TrimPrefix(l.Path, graphicsConfigKey+`\`), l, func(v backend.Value) string {
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
			return nil, badinput.Errorf("no display configuration %q with a Scaling value under %s", sel.Config, graphicsConfigKey)
		}
		return nil, fmt.Errorf("no Scaling values under %s: the display driver has stored no configuration", graphicsConfigKey)
	}
	p := &Plan{Knob: k.Name(), Target: sel.Config, Request: value,
		Notes: []string{"a request: Windows applies it at the next mode change or sign-in; `latlab knob get display-scaling` shows what the active paths use"}}
	for _, l := range locs {
		if _, err := p.addNumber(env, l, uint64(n), backend.TypeDWORD); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (k displayScaling) Vet(target string, l backend.Loc, v backend.Value) error {
	rest, ok := cutKey(l.Path, graphicsConfigKey)
	if !strings.EqualFold(l.Path, graphicsConfigKey) && !ok {
		return notMine(k.Name(), target, l)
	}
	var parts []string
	if rest != "" {
		parts = strings.Split(rest, `\`)
	}
	if l.Backend != backend.BackendRegistry || !strings.EqualFold(l.Name, "Scaling") || len(parts) > 3 || (target != "" && len(parts) == 0) {
		return notMine(k.Name(), target, l)
	}
	for i, p := range parts {
		if p == "" || (i == 0 && target != "" && !strings.HasPrefix(strings.ToLower(p), strings.ToLower(target))) {
			return notMine(k.Name(), target, l)
		}
	}
	if v.IsAbsent() {
		return errors.New("absent: display-scaling changes only Scaling values that exist")
	}
	return regNumber(v)
}

// Checkup is what the check-up knows of display-scaling: its default, how its
// instances are read and the verdict rules.
func (displayScaling) Checkup() Checkup {
	return Checkup{Default: text("the driver's choice"), Rules: displayScalingRules}
}

// Experiment is how a change of display-scaling takes effect for latlab try.
func (displayScaling) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "Windows applies it at the next display mode change or sign-in"}
}

// ActiveScaling is the Detail of a display-scaling case: the scaling each
// active display path uses (QueryDisplayConfig), what a stored request
// is judged against.
type ActiveScaling []uint32

func activeScaling(c *Case) ActiveScaling {
	a, _ := c.Detail.(ActiveScaling)
	return a
}

// Cases gathers the check-up's cases of display-scaling: the stored
// requests (not the active paths, which are facts about them), numbered:
// their ids carry the monitors' EDID serial numbers, which a shared
// check-up must not.
func (k displayScaling) Cases(env *Env) []*Case {
	r, err := k.Get(env, Selector{})
	if err != nil {
		c := baseCase(env, k)
		c.Err = err
		return []*Case{c}
	}
	var cs []*Case
	var active ActiveScaling
	for _, it := range r.Items {
		if it.Loc == nil {
			if p, ok := it.Detail.(DisplayPath); ok {
				active = append(active, p.Scaling)
			}
			continue // an active path (QueryDisplayConfig)
		}
		c := baseCase(env, k)
		fill(c, it, r.Notes)
		c.Target = fmt.Sprintf("configuration %d", len(cs)+1)
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty, c.Notes = true, r.Notes
		if len(active) > 0 {
			// The same answer knob list gives: nothing stored, and
			// what the active paths use.
			c.Value = "none stored; in use: " + scalingNames(active)
		}
		cs = append(cs, c)
	}
	for _, c := range cs {
		c.Detail = active
	}
	return cs
}

var displayScalingRules = []Rule{
	{ID: "display-none", Verdict: Default, When: "no Scaling values stored",
		Match: func(c *Case) bool { return c.Empty },
		Reason: func(c *Case) string {
			if len(activeScaling(c)) > 0 {
				return "the display driver has stored no configuration; the active paths use " + scalingNames(activeScaling(c)) + " (QueryDisplayConfig)"
			}
			return "the display driver has stored no configuration"
		}},
	{ID: "display-identity-fallback", Verdict: Suspicious, When: "identity requested while an active path uses aspect-ratio",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n == 1 && noteWith(c, "identity (1) is requested") != ""
		},
		Reason: text("identity is requested but an active display uses aspect-ratio: identity needs equal source and target resolutions"),
		Evidence: func(c *Case) string {
			return noteWith(c, "identity (1) is requested")
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain display-scaling identity", Why: "an identity request fell back to aspect-ratio", Benefit: 25}
		}},
	{ID: "display-unknown-value", Verdict: Suspicious, When: "not a DISPLAYCONFIG_SCALING value",
		Match: func(c *Case) bool {
			n, ok := c.N()
			_, known := LookupScaling(uint32(n))
			return !ok || !known
		},
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "display-default", Verdict: Default, When: "preferred (128) or aspect-ratio (4)",
		Match:  func(c *Case) bool { n, _ := c.N(); return n == 128 || n == 4 },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return explainText(displayScalingName, fmt.Sprint(n))
		}},
	// PC-Tuning ("What Is Identity Scaling and How Can You Use It?",
	// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
	// at the native resolution, and at a lower resolution made with Custom
	// Resolution Utility, every requested mode, identity, centered,
	// full-screen or aspect ratio, with GPU or display scaling, came out
	// as identity (1): whenever the monitor was sent the desktop's
	// resolution. When every active path uses identity, a request changes
	// nothing: judged against the active mode, not the registry.
	{ID: "display-native", Verdict: Suspicious, When: "identity, centered, stretched or custom requested while every active path uses identity",
		Match: func(c *Case) bool {
			if len(activeScaling(c)) == 0 {
				return false
			}
			for _, n := range activeScaling(c) {
				if n != 1 {
					return false
				}
			}
			return true
		},
		Reason: func(c *Case) string {
			return c.Meaning + ", but every active path uses identity: when the monitor is sent the desktop's resolution (the native one, or one made with CRU) any scaling request becomes identity, so this one has no effect here"
		},
		Evidence: func(c *Case) string { return strings.Join(strings.Fields(strings.Join(identityStudy, " ")), " ") }},
	{ID: "display-chosen", Verdict: Changed, When: "identity, centered, stretched or custom",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			n, _ := c.N()
			return explainText(displayScalingName, fmt.Sprint(n))
		}},
}

// ScalingNames names the distinct scalings of the active paths.
func scalingNames(active []uint32) string {
	var names []string
	for _, n := range active {
		sc, _ := LookupScaling(n)
		name := sc.Name
		if name == "" {
			name = fmt.Sprint(n)
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}
