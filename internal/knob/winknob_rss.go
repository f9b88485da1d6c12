package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// rssName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const rssName = "rss"

func init() { register(rssKnob{}) }

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

func (rssKnob) Name() string { return rssName }

// Selectors are the selector flags rssKnob reads.
func (rssKnob) Selectors() []string { return []string{SelAdapter} }
func (rssKnob) Summary() string {
	return "receive side scaling of a network adapter: queues and CPUs (NDIS *RSS keywords)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): the keyword as KEYWORD=VALUE.
func (rssKnob) regInput(l backend.Loc, v backend.Value) (string, string) {
	return l.Name + "=" + v.String(), ""
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
			return nil, badinput.Errorf("invalid rss setting %q: want KEYWORD=N with KEYWORD one of %s (or on|off)", part, strings.Join(ns, ", "))
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 32)
		if err != nil || n < k.min || n > k.max {
			return nil, badinput.Errorf("%s=%s is out of range: accepted %d-%d (%s)", k.name, val, k.min, k.max, k.desc)
		}
		out = append(out, kv{k.name, n})
	}
	if len(out) == 0 {
		return nil, badinput.Errorf("no rss setting given: want e.g. *NumRssQueues=4,*RssBaseProcNumber=2 or on|off")
	}
	return out, nil
}

func (rssKnob) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: rssName}
	if value == "" {
		ex.Text = []string{"NDIS standardized RSS keywords (REG_SZ numbers under the adapter's class key):"}
		for _, k := range rssKeywords {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-19s %d-%d  %s", k.name, k.min, k.max, k.desc))
		}
		ex.Text = append(ex.Text, "Drivers that declare only *RSS and *NumRssQueues in their INF (the Intel I225-V) hide the advanced ones from the Advanced tab; GamingPCSetup found the I225-V's RSS indirection table missing (Get-NetAdapterRss shows none) until it added the keys, with RSS and TaskOffload enabled globally. knob get rss warns when RSS is enabled and the table is empty, and notes the global TaskOffload state.")
		ex.Text = append(ex.Text, rssStateExplain()...)
		ex.Text = append(ex.Text, "PC-Tuning also warns that the CPUs a driver's queues take (consecutive from the base) are CPUs another driver or a realtime program could have used; it saw at most two busy during online matches.")
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
			it.Warnings = append(it.Warnings, fmt.Sprintf("advanced RSS keywords missing: %s: the driver's INF does not declare them, so the Advanced tab cannot set them; on the I225-V GamingPCSetup found the RSS indirection table missing this way, and its procedure adds the keys to the adapter's registry key; latlab can add them as REG_SZ, whether the driver honours them must be measured (Get-NetAdapterRss shows the table)", strings.Join(missing, ", ")))
		}
		if it.Value == "" {
			it.Value = "(no values stored: driver defaults)"
		}
		r.Items = append(r.Items, it)
	}
	addRSSState(env, r)
	addTaskOffload(env, r)
	return r, nil
}

func (k rssKnob) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, badinput.Errorf("rss needs --adapter NAME|INDEX (latlab knob get rss lists them)")
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
			return nil, badinput.Errorf("*RssBaseProcNumber %d is above *RssMaxProcNumber %d: the base must not exceed the maximum", b, m)
		}
	}
	if bg > mg {
		if _, ok := after["*RssMaxProcGroup"]; ok {
			return nil, badinput.Errorf("*RssBaseProcGroup %d is above *RssMaxProcGroup %d", bg, mg)
		}
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{"takes effect when the adapter restarts (disable and enable it, or reboot)"}}
	for _, s := range kvs {
		old, err := p.addNumber(env, regLoc(a.Key, s.key), s.n, backend.TypeSZ)
		if err != nil {
			return nil, err
		}
		if old.IsAbsent() && !declared(env, a, s.key) {
			p.Notes = append(p.Notes, s.key+" is not declared by the driver's INF: added as REG_SZ; verify its effect")
		}
	}
	return p, nil
}

func (k rssKnob) Vet(target string, l backend.Loc, v backend.Value) error {
	var names []string
	for _, kw := range rssKeywords {
		names = append(names, kw.name)
	}
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// VetLive checks that the class key is the target adapter's: Vet takes
// any adapter's.
func (k rssKnob) VetLive(env *Env, target string, l backend.Loc, v backend.Value) error {
	return vetAdapterLive(env, k.Name(), target, l, v)
}

// Checkup is what the check-up knows of rss: its default, how its
// instances are read and the verdict rules.
func (rssKnob) Checkup() Checkup {
	return Checkup{Default: text("the driver's Ndi\\Params default"), Rules: rssRules}
}

// Experiment is how a change of rss takes effect for latlab try.
func (rssKnob) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: ProbeUDP}
}

var rssRules = []Rule{
	{ID: "rss-global-off", Verdict: Suspicious, When: "the global Receive-Side Scaling State is disabled",
		Match:    func(c *Case) bool { return globalRSS(c) == "disabled" },
		Reason:   text("RSS is disabled globally (MSFT_NetOffloadGlobalSetting ReceiveSideScaling): one CPU processes every adapter's received packets, whatever the keywords"),
		Evidence: func(c *Case) string { return quote(rssName, "", "Disabled keeps RSS off") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "netsh int tcp set global rss=enabled", Why: "RSS is disabled for every adapter", Benefit: 40}
		}},
	{ID: "rss-none", Verdict: Default, When: "no adapter offers RSS",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares RSS keywords")},
	{ID: "rss-off", Verdict: Suspicious, When: "*RSS is 0",
		Match:  func(c *Case) bool { return storedValue(c, "*RSS") == "0" },
		Reason: text("RSS off: one CPU processes all received packets of this adapter"),
		Evidence: func(c *Case) string {
			return quote(rssName, "", "*RSS ")
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob get rss --adapter " + adapterIndex(c), Why: "RSS is off on " + c.Target, Benefit: 40}
		}},
	{ID: "rss-default", Verdict: Default, When: "every stored keyword at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return known && len(diff) == 0 },
		Reason: func(c *Case) string { return c.Meaning + ", the driver's defaults" }},
	{ID: "rss-tuned", Verdict: Changed, When: "a keyword differs from its Ndi\\Params default, or has none",
		Match: always,
		Reason: func(c *Case) string {
			diff, known := ndiDiffs(c)
			if len(diff) > 0 {
				return c.Meaning + "; changed from the driver's default: " + strings.Join(diff, ", ")
			}
			if !known {
				return c.Meaning + "; the driver declares no defaults to compare with"
			}
			return c.Meaning
		},
		IsDefault: func(c *Case) *bool {
			diff, known := ndiDiffs(c)
			if !known && len(diff) == 0 {
				return nil
			}
			return boolPtr(false)
		}},
}

// ndiDiffs lists the RSS keywords stored with a value other than their
// Ndi\Params default; known is false when a stored keyword has no default
// to compare with.
func ndiDiffs(c *Case) (diff []string, known bool) {
	params := map[string]NdiParam{}
	if m, ok := c.Detail.(map[string]any); ok {
		if p, ok := m["ndi_params"].(map[string]NdiParam); ok {
			params = p
		}
	}
	known = true
	for _, x := range c.Extra {
		p, ok := params[x.Loc.Name]
		v := strings.TrimSpace(x.Old.String())
		switch {
		case !ok || p.Default == "":
			known = false
		case p.Default != v:
			diff = append(diff, fmt.Sprintf("%s=%s (default %s)", x.Loc.Name, v, p.Default))
		}
	}
	return diff, known
}

// globalRSS is the global state the rss reading noted, "" when unknown.
func globalRSS(c *Case) string {
	for _, n := range c.Notes {
		if v, ok := strings.CutPrefix(n, globalRSSNote); ok {
			return v
		}
	}
	return ""
}
