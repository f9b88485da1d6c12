package knob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

// interruptModerationName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const interruptModerationName = "interrupt-moderation"

func init() { register(intModeration{}) }

type intModeration struct{ windowsKnob }

func (intModeration) Name() string { return interruptModerationName }

// Selectors are the selector flags intModeration reads.
func (intModeration) Selectors() []string { return []string{SelAdapter} }
func (intModeration) Summary() string {
	return "interrupt moderation of a network adapter: on/off and the driver's rate level (*InterruptModeration, ITR)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): *InterruptModeration's value is on or off (1, 0);
// every other keyword the knob writes is the driver's rate.
func (intModeration) regInput(l backend.Loc, v backend.Value) (string, string) {
	if strings.EqualFold(l.Name, "*InterruptModeration") {
		return v.String(), ""
	}
	return "rate=" + v.String(), ""
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

func (intModeration) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: interruptModerationName}
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
			ex.Text = append(ex.Text, textwrap.List(fmt.Sprintf("  %-22s", f.Family+" ("+f.Adapters+"):"), items, 80)...)
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
			ex.Text = append(ex.Text, textwrap.List("ITR "+rate+": ", ms, 80)...)
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
				return 0, "", badinput.Errorf("invalid interrupt-moderation setting %q: %s", part, accepted)
			}
			r = strings.TrimSpace(v)
		} else if n, ok := parseBool01(part); ok {
			mod = n
			continue
		} else if _, err := strconv.ParseUint(part, 10, 64); err == nil {
			return 0, "", badinput.Errorf("interrupt-moderation %q: a bare number is ambiguous: give rate=%s for the rate, on|off for *InterruptModeration", part, part)
		} else {
			r = part
		}
		if rate != "" && !strings.EqualFold(rate, r) {
			return 0, "", badinput.Errorf("interrupt-moderation %q asks for two rates (%q and %q): give one", value, rate, r)
		}
		rate = r
	}
	if mod < 0 && rate == "" {
		return 0, "", badinput.Errorf("no interrupt-moderation setting given: %s", accepted)
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
		return nil, badinput.Errorf("interrupt-moderation needs --adapter NAME|INDEX (latlab knob get interrupt-moderation lists them)")
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
		if _, err := p.addNumber(env, regLoc(a.Key, "*InterruptModeration"), uint64(mod), backend.TypeSZ); err != nil {
			return nil, err
		}
	}
	if rate != "" {
		rl, err := rateKeyword(env, a)
		if err != nil {
			return nil, err
		}
		if rl.Keyword == "" {
			return nil, badinput.Errorf("%s has no interrupt moderation rate keyword (none of %s)", a.Name, strings.Join(rateKeywords, ", "))
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
		if _, err := p.addNumber(env, regLoc(a.Key, rl.Keyword), n, backend.TypeSZ); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (k intModeration) Vet(target string, l backend.Loc, v backend.Value) error {
	if target == "" || !adapterValue(l, append([]string{"*InterruptModeration"}, rateKeywords...)) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// VetLive checks that the class key is the target adapter's: Vet takes
// any adapter's.
func (k intModeration) VetLive(env *Env, target string, l backend.Loc, v backend.Value) error {
	return vetAdapterLive(env, k.Name(), target, l, v)
}

// Checkup is what the check-up knows of interrupt-moderation: its default, how its
// instances are read and the verdict rules.
func (intModeration) Checkup() Checkup {
	return Checkup{Default: text("the driver's Ndi\\Params default"), Rules: interruptModerationRules}
}

// Experiment is how a change of interrupt-moderation takes effect for latlab try.
func (intModeration) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: ProbeUDP}
}

var interruptModerationRules = []Rule{
	{ID: "im-none", Verdict: Default, When: "no adapter offers interrupt moderation",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares *InterruptModeration or a rate keyword")},
	// GamingPCSetup measured Off as a trade-off, not a loss: the
	// shortest NDIS DPCs (85% within 2 µs) for 29 times Extreme's
	// interrupts, and Medium "seemed" to the researcher to have the least
	// impact on games.
	{ID: "im-off", Verdict: Changed, When: "*InterruptModeration 0 or rate level Off",
		Match: func(c *Case) bool { return moderationOff(c) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("moderation off, a trade-off: GamingPCSetup measured the shortest NDIS DPCs at Off (85%% within 2 µs) for the most interrupts (%s against %s at Extreme); Medium seemed to it the least impact on games",
				units.Thousands(itrCount("Off")), units.Thousands(itrCount("Extreme")))
		},
		Evidence: func(c *Case) string { return itrMeasurement() },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain interrupt-moderation", Why: "moderation is off on " + c.Target + ": shortest DPCs, most interrupts", Benefit: 25}
		}},
	{ID: "im-default", Verdict: Default, When: "nothing stored, or every value at its Ndi\\Params default",
		Match: func(c *Case) bool {
			diff, known := moderationDiffs(c)
			return len(c.Extra) == 0 || (known && len(diff) == 0)
		},
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "im-medium", Verdict: Changed, When: "rate level Medium",
		Match:    func(c *Case) bool { return moderationLevel(c) == "Medium" },
		Reason:   func(c *Case) string { return c.Meaning + ": " + mediumCaveat },
		Evidence: func(c *Case) string { return itrMeasurement() }},
	{ID: "im-tuned", Verdict: Changed, When: "another level or setting",
		Match:    always,
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return itrMeasurement() },
		IsDefault: func(c *Case) *bool {
			if _, known := moderationDiffs(c); !known {
				return nil
			}
			return boolPtr(false)
		}},
}

func moderationDetail(c *Case) (ModerationDetail, bool) {
	d, ok := c.Detail.(ModerationDetail)
	return d, ok
}

// moderationDiffs is ndiDiffs for interrupt moderation.
func moderationDiffs(c *Case) (diff []string, known bool) {
	d, ok := moderationDetail(c)
	if !ok {
		return nil, false
	}
	known = true
	for _, x := range c.Extra {
		def := ""
		switch {
		case strings.EqualFold(x.Loc.Name, "*InterruptModeration"):
			def = d.InterruptModeration.Default
		case d.Rate != nil && strings.EqualFold(x.Loc.Name, d.Rate.Keyword):
			def = d.Rate.Param.Default
		}
		v := strings.TrimSpace(x.Old.String())
		switch {
		case def == "":
			known = false
		case def != v:
			diff = append(diff, fmt.Sprintf("%s=%s (default %s)", x.Loc.Name, v, def))
		}
	}
	return diff, known
}

// moderationLevel is the rate level in force (stored or the driver's
// default), "" when unknown.
func moderationLevel(c *Case) string {
	if d, ok := moderationDetail(c); ok {
		return d.Level
	}
	return ""
}

func moderationOff(c *Case) bool {
	d, ok := moderationDetail(c)
	if !ok {
		return false
	}
	mod := storedValue(c, "*InterruptModeration")
	if mod == "" {
		mod = d.InterruptModeration.Default
	}
	return mod == "0" || strings.EqualFold(d.Level, "Off")
}

// itrCount is the measured interrupt count of a level.
func itrCount(level string) int {
	k, err := Lookup("interrupt-moderation")
	if err != nil {
		return 0
	}
	ex, err := k.Explain("", ExplainOptions{})
	if err != nil {
		return 0
	}
	if me, ok := ex.Data.(*ModerationExplanation); ok {
		for _, c := range me.Measured.Interrupts {
			if c.Level == level {
				return c.Interrupts
			}
		}
	}
	return 0
}

// itrMeasurement is the interrupt moderation measurement, from the knob's
// explanation data.
// mediumCaveat is what the research says of Medium and how far it
// reaches: GamingPCSetup found that Medium "seemed" to have the least
// impact on games, on the one adapter it measured (an Intel Gigabit CT),
// and Medium is each driver's own number (itrFamilies: 950 on e1r/e1d,
// 125 on e2f/e2fn), so another driver's Medium is not the measured one.
var mediumCaveat = "GamingPCSetup's Medium seemed the least impact on games on the one adapter it measured (an Intel Gigabit CT); Medium is each driver's own number (" + mediumNumbers() + "), so this one is not necessarily the measured setting"

// mediumNumbers lists Medium in each built-in family: "950 on e1r/e1d,
// 125 on e2f/e2fn".
func mediumNumbers() string {
	var out []string
	for _, f := range itrFamilies {
		for _, o := range f.Levels {
			if o.Name == "Medium" {
				out = append(out, o.Value+" on "+f.Family)
			}
		}
	}
	return strings.Join(out, ", ")
}

func itrMeasurement() string {
	k, err := Lookup("interrupt-moderation")
	if err != nil {
		return ""
	}
	ex, err := k.Explain("", ExplainOptions{})
	if err != nil {
		return ""
	}
	me, ok := ex.Data.(*ModerationExplanation)
	if !ok || len(me.Measured.Interrupts) == 0 {
		return ""
	}
	m := me.Measured
	var counts []string
	for _, c := range m.Interrupts {
		counts = append(counts, fmt.Sprintf("%s %s", c.Level, units.Thousands(c.Interrupts)))
	}
	return fmt.Sprintf("measured (%s): interrupts per level %s; %s",
		m.Source, strings.Join(counts, ", "), strings.Join(m.Findings, "; "))
}
