package knob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

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
			"  each active path uses (QueryDisplayConfig). At the native resolution",
			"  every request (identity, centered, full-screen, aspect ratio; GPU or",
			"  display scaling) came out as identity in PC-Tuning's study, so there",
			"  the value has no effect (github.com/valleyofdoom/PC-Tuning,",
			"  docs/research.md, \"What Is Identity Scaling and How Can You Use It?\").")
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
